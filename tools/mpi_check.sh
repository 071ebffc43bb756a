#!/usr/bin/env bash
# MPI ranks (docs/mpi.md) on the default OpenCL device: a run of an independent
# ensemble under mpirun -np 1 and 2 (3, oversubscribed, opt-in) gives series.csv and
# observables identical to the single-process run (Ising; Potts, Heisenberg,
# percolation copies, EA naive and the Heisenberg glass realizations under 2
# ranks, EA msc under 3); an interrupted 2-rank run
# resumed under 2 ranks too; result.h5 under 2 ranks equals series.csv (where
# the build has HDF5); one Ising lattice decomposed into slabs (msc 2D
# under 3 ranks (2 opt-in), 3D under 2, also with algorithm.update_group; tiled 2D with 3 and 2 tile colours, 3D
# under 2 (3 opt-in))
# equal to one process, and resumed; multicanonical walkers and Wang-Landau
# windows under 2 and 3 ranks equal to one process, and resumed; parallel
# tempering of one Ising lattice with the temperatures over 2 and 3 ranks
# (tiled, msc) equal to one process, and resumed, also after a rank was
# killed between the two phases of a checkpoint; bad input
# exits 2 on every rank with one message.  CLMC_LONG_TESTS=1 adds the variants
# that repeat a default case's code path (Potts, Heisenberg and
# Heisenberg-glass copies, which share out like the Ising copies and EA
# realizations; glass tempering, like EA tempering; the -np 1 repeats of
# EA tempering, the slabs, Ising tempering, Swendsen-Wang and the walkers:
# one rank takes the single-process path, clmc_ranks_many, so the Ising
# copies' -np 1 run stays as the one check that mpirun -np 1 works; EA
# tempering under 2 ranks, even shares as under 3; 2D msc in 2 slabs, 3D
# tiled in 3 slabs and 3D tiled L = 32 in 2, slab counts and dimensions
# that other slab runs take); tests/README.md lists them.
# Usage: tools/mpi_check.sh BUILD_DIR   (a skip, exit 77, without MPI in the build)
# MPIRUN names the launcher (default mpirun), e.g. MPIRUN=mpiexec.mpich for a build
# against MPICH (meson -Dmpi_implementation=mpich; tools/mpich_check.sh).
set -uo pipefail
build=${1:?build dir}
clmc=${CLMC_BIN:-$build/clmc}
mpirun=${MPIRUN:-mpirun}
if ! grep -q CLMC_HAVE_MPI "$build/build.ninja" 2>/dev/null || ! command -v "$mpirun" >/dev/null; then
  echo "mpi_check: clmc built without MPI or no mpirun; skipped"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
launcher=("$mpirun" --oversubscribe)
"$mpirun" --version 2>/dev/null | grep -q "Open MPI" || launcher=("$mpirun")  # MPICH oversubscribes by default
# The scratch folder's parent may not exist yet (meson sets CLMC_TEST_TMP; the
# first test to run creates it): without it every run would write below /.
mkdir -p "${CLMC_TEST_TMP:-/tmp}"
tmp=$(mktemp -d "${CLMC_TEST_TMP:-/tmp}/mpi.XXXXXX") && [ -n "$tmp" ] || { echo "mpi_check.sh: no scratch folder"; exit 1; }
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
failures=0
long_tests=0
[ "${CLMC_LONG_TESTS:-}" = 1 ] && long_tests=1
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
preset=$tmp/preset.json
cat > "$preset" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8, "start": "random" },
  "algorithm": { "type": "metropolis", "layout": "tiled", "hits": 1 },
  "ensemble": { "type": "independent", "betas": [0.3, 0.44, 0.6], "copies": 5, "first_system": 2 },
  "run": { "thermalization": 50, "sweeps": 1000, "measure_every": 10, "seed": 9, "checkpoint_every": 500 } }
JSON
observables() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['observables'], sort_keys=True))" "$1"; }

"$clmc" run "$preset" --out "$tmp/one" --quiet || fail "single-process run"
for k in 1 2 3; do
  # -np 3 opt-in: 5 copies x 3 betas share out unevenly under 2 ranks already
  [ $k -eq 3 ] && [ $long_tests -eq 0 ] && continue
  "${launcher[@]}" -np $k "$clmc" run "$preset" --out "$tmp/np$k" --quiet 2>"$tmp/np$k.err" || { cat "$tmp/np$k.err"; fail "mpirun -np $k"; continue; }
  if cmp -s "$tmp/one/series.csv" "$tmp/np$k/series.csv" && [ "$(observables "$tmp/one/result.json")" = "$(observables "$tmp/np$k/result.json")" ]; then
    echo "ok: mpirun -np $k: series.csv ($(wc -l < "$tmp/one/series.csv") lines) and observables identical to the single-process run"
  else
    fail "mpirun -np $k differs from the single-process run"
  fi
done
python3 - "$tmp/np2/result.json" <<'PY' || fail "result.json of -np 2"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preset"]["ensemble"]["copies"] == 5 and r["preset"]["ensemble"]["first_system"] == 2, r["preset"]["ensemble"]
assert len(r["device"]["ranks"]) == 2 and r["performance"]["ranks"] == 2
print("ok: result.json of -np 2 names 2 rank devices and the run-wide copies and first_system")
PY

# output.format "hdf5" under 2 ranks: rank 0 writes the gathered series into result.h5.
if grep -q CLMC_HAVE_HDF5 "$build/build.ninja" && python3 -c "import h5py, pandas" 2>/dev/null; then
  "${launcher[@]}" -np 2 "$clmc" run "$preset" --out "$tmp/h5np2" --quiet --set output.format=hdf5 2>"$tmp/h5np2.err" ||
    { cat "$tmp/h5np2.err"; fail "mpirun -np 2 with output.format hdf5"; }
  python3 - "$tmp/one/series.csv" "$tmp/h5np2/result.h5" <<'PY' || fail "result.h5 of -np 2 differs from series.csv"
import sys
import h5py
import pandas as pd
csv = pd.read_csv(sys.argv[1])
with h5py.File(sys.argv[2], "r") as f:
    h5 = pd.DataFrame({name: f["series"][name][()] for name in f["series"].attrs["columns"].decode().split(",")})
pd.testing.assert_frame_equal(h5, csv)
print(f"ok: mpirun -np 2 with output.format hdf5: result.h5 series ({len(h5)} rows) equals the single-process series.csv")
PY
else
  echo "mpi_check: no HDF5 in this build or no h5py; the result.h5 check skipped"
fi

# Other models' independent copies, under 2 ranks.
cat > "$tmp/potts.json" <<'JSON'
{ "model": { "type": "potts", "dim": 2, "L": 8, "q": 3 }, "algorithm": { "type": "swendsen_wang" },
  "ensemble": { "type": "independent", "betas": [0.5, 1.0], "copies": 3 }, "run": { "sweeps": 200, "seed": 3 } }
JSON
cat > "$tmp/heisenberg.json" <<'JSON'
{ "model": { "type": "heisenberg", "dim": 3, "L": 4, "n": 3 }, "algorithm": { "type": "heatbath" },
  "ensemble": { "type": "independent", "betas": [0.5, 0.7], "copies": 3 }, "run": { "sweeps": 100, "seed": 3 } }
JSON
cat > "$tmp/percolation.json" <<'JSON'
{ "model": { "type": "percolation", "dim": 2, "L": 16, "p": 0.5 },
  "ensemble": { "type": "independent", "copies": 3 }, "run": { "sweeps": 50, "seed": 3 } }
JSON
# Spin glasses: the ranks share model.realizations (msc in whole words).
cat > "$tmp/ea.json" <<'JSON'
{ "model": { "type": "ea_ising", "dim": 2, "L": 4, "realizations": 5 },
  "ensemble": { "type": "independent", "betas": [0.5, 0.9], "first_system": 3 },
  "run": { "thermalization": 10, "sweeps": 200, "seed": 7 } }
JSON
cat > "$tmp/eamsc.json" <<'JSON'
{ "model": { "type": "ea_ising", "dim": 2, "L": 4, "realizations": 128 },
  "algorithm": { "layout": "msc", "word_bits": 32 },
  "ensemble": { "type": "independent", "betas": [0.5, 0.9, 1.3], "first_system": 64 },
  "run": { "thermalization": 10, "sweeps": 100, "seed": 7 } }
JSON
cat > "$tmp/glass.json" <<'JSON'
{ "model": { "type": "heisenberg_glass", "dim": 3, "L": 4, "realizations": 3 },
  "ensemble": { "type": "independent", "betas": [0.5, 1.0] }, "run": { "sweeps": 60, "seed": 3 } }
JSON
# Parallel tempering of spin glasses: each realization tempers alone, so the
# ranks share the realizations (exchange decisions keyed by the run-wide system).
cat > "$tmp/eapt.json" <<'JSON'
{ "model": { "type": "ea_ising", "dim": 3, "L": 4, "realizations": 6 },
  "ensemble": { "type": "parallel_tempering", "betas": [0.5, 0.8, 1.1, 1.4], "exchange_every": 5 },
  "run": { "thermalization": 10, "sweeps": 200, "measure_every": 5, "seed": 7 } }
JSON
cat > "$tmp/eamscpt.json" <<'JSON'
{ "model": { "type": "ea_ising", "dim": 3, "L": 4, "realizations": 64 },
  "algorithm": { "layout": "msc", "word_bits": 32 },
  "ensemble": { "type": "parallel_tempering", "betas": [0.5, 0.8, 1.1, 1.4], "exchange_every": 5 },
  "run": { "thermalization": 10, "sweeps": 100, "measure_every": 5, "seed": 7 } }
JSON
cat > "$tmp/glasspt.json" <<'JSON'
{ "model": { "type": "heisenberg_glass", "dim": 3, "L": 4, "realizations": 4 },
  "ensemble": { "type": "parallel_tempering", "betas": [0.5, 1.0, 1.5], "exchange_every": 5 },
  "run": { "sweeps": 60, "measure_every": 5, "seed": 3 } }
JSON
ranks_of() { case $1 in eamsc|eapt) echo 3 ;; *) echo 2 ;; esac; }
for model in potts heisenberg percolation ea eamsc glass eapt eamscpt glasspt; do
  case $model in potts|heisenberg|glass|glasspt) [ $long_tests -eq 1 ] || continue ;; esac # opt-in: same path
  k=$(ranks_of $model)
  "$clmc" run "$tmp/$model.json" --out "$tmp/$model-one" --quiet || fail "$model single-process run"
  "${launcher[@]}" -np $k "$clmc" run "$tmp/$model.json" --out "$tmp/$model-two" --quiet || fail "$model under $k ranks"
  cmp -s "$tmp/$model-one/series.csv" "$tmp/$model-two/series.csv" &&
    [ "$(observables "$tmp/$model-one/result.json")" = "$(observables "$tmp/$model-two/result.json")" ] &&
    echo "ok: $model: $k ranks give the single-process series and observables" || fail "$model differs under $k ranks"
done
for k in 1 2; do # EA tempering (above under 3 ranks) also under 2 and 1, opt-in: even shares as under 3
  [ $long_tests -eq 0 ] && continue
  "${launcher[@]}" -np $k "$clmc" run "$tmp/eapt.json" --out "$tmp/eapt-np$k" --quiet || fail "eapt under $k ranks"
  cmp -s "$tmp/eapt-one/series.csv" "$tmp/eapt-np$k/series.csv" &&
    [ "$(observables "$tmp/eapt-one/result.json")" = "$(observables "$tmp/eapt-np$k/result.json")" ] &&
    echo "ok: eapt: $k rank(s) give the single-process series and observables" || fail "eapt differs under $k ranks"
done
python3 - "$tmp/eamsc-two/result.json" <<'PY' || fail "result.json of EA msc under 3 ranks"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preset"]["model"]["realizations"] == 128 and r["preset"]["ensemble"]["first_system"] == 64, r["preset"]
assert all(t["realizations"] == 128 for t in r["observables"]["temperatures"]), r["observables"]
print("ok: result.json of EA msc under 3 ranks names the run-wide realizations and first_system")
PY

# NAME K WHAT: NAME's preset checkpointed every 130 sweeps under K ranks, its
# results removed, resumed under K ranks from the ranks' last checkpoints,
# equal to the single-process run NAME-one (the estimates count the
# realizations from the resumed series).
resumed_equals_one() {
  local name=$1 k=$2 what=$3
  sed 's/"seed": 7 }/"seed": 7, "checkpoint_every": 130 }/' "$tmp/$name.json" > "$tmp/$name-ckpt.json"
  "${launcher[@]}" -np "$k" "$clmc" run "$tmp/$name-ckpt.json" --out "$tmp/$name-ckpt" --quiet || fail "$what checkpointed under $k ranks"
  cp -r "$tmp/$name-ckpt" "$tmp/$name-resumed" && rm "$tmp/$name-resumed/result.json" "$tmp/$name-resumed/series.csv"
  "${launcher[@]}" -np "$k" "$clmc" run --resume "$tmp/$name-resumed" --quiet 2>"$tmp/$name-resume.err" ||
    { cat "$tmp/$name-resume.err"; fail "$what resume under $k ranks"; }
  cmp -s "$tmp/$name-one/series.csv" "$tmp/$name-resumed/series.csv" &&
    [ "$(observables "$tmp/$name-one/result.json")" = "$(observables "$tmp/$name-resumed/result.json")" ] &&
    echo "ok: $what under $k ranks resumed from its last checkpoints equals the single-process run" ||
    fail "$what resumed under $k ranks differs"
}
resumed_equals_one ea 2 "EA"
resumed_equals_one eapt 3 "EA tempering"

python3 - "$tmp/eapt-one/result.json" "$tmp/eapt-two/result.json" <<'PY' || fail "tempering statistics under 3 ranks"
import json, sys
one, many = (json.load(open(p))["observables"]["tempering"] for p in sys.argv[1:])
assert one == many, (one, many)
print(f"ok: EA tempering under 3 ranks: acceptance {one['acceptance']}, {one['round_trips']} round trips, "
      f"final map of {len(one['final_configuration_at_temperature'])} configurations as one process")
PY

# Parallel tempering of one Ising lattice: the ranks share the temperatures
# (contiguous shares of the configurations, every rank deciding every
# exchange from the gathered energies).  Tiled 2D L = 16, 8 temperatures,
# under 2 and 3 ranks (1 with CLMC_LONG_TESTS=1), and resumed under 2 ranks
# from its ranks' checkpoints; msc 2D L = 64 with 4 temperatures under 3
# ranks (shares of 1, 1 and 2): series.csv, observables (tempering
# acceptance, round trips and final map included) and the configuration
# hash equal to the single-process run.
cat > "$tmp/ptising.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 16, "start": "random" },
  "algorithm": { "type": "metropolis", "layout": "tiled", "tile": 8 },
  "ensemble": { "type": "parallel_tempering", "betas": [0.3, 0.34, 0.38, 0.41, 0.44, 0.47, 0.5, 0.55],
                "exchange_every": 5 },
  "run": { "thermalization": 50, "sweeps": 400, "measure_every": 10, "seed": 11 } }
JSON
cat > "$tmp/ptmsc.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 64 }, "algorithm": { "layout": "msc" },
  "ensemble": { "type": "parallel_tempering", "betas": [0.4, 0.41, 0.42, 0.43], "exchange_every": 2 },
  "run": { "thermalization": 10, "sweeps": 200, "measure_every": 2, "seed": 5 } }
JSON
pt_same() { # ONE OTHER: series, observables, configuration hash; prints the compared tempering statistics
  cmp -s "$1/series.csv" "$2/series.csv" && python3 - "$1/result.json" "$2/result.json" <<'PY'
import json, sys
one, other = (json.load(open(p)) for p in sys.argv[1:])
assert one["observables"] == other["observables"] and one["checks"] == other["checks"], (one["checks"], other["checks"])
t = one["observables"]["tempering"]
print(f"acceptance {[round(a, 4) for a in t['acceptance']]}, {t['round_trips']} round trips, "
      f"hash {one['checks']['configuration_fnv1a']}", end="")
PY
}
for name in ptising ptmsc; do
  "$clmc" run "$tmp/$name.json" --out "$tmp/$name-one" --quiet || fail "$name single-process run"
done
for run in ptising:1 ptising:2 ptising:3 ptmsc:3; do
  name=${run%:*} k=${run#*:}
  [ "$k" = 1 ] && [ $long_tests -eq 0 ] && continue # one rank: the single-process path (clmc_ranks_many)
  "${launcher[@]}" -np $k "$clmc" run "$tmp/$name.json" --out "$tmp/$name-np$k" --quiet 2>"$tmp/$name-np$k.err" ||
    { cat "$tmp/$name-np$k.err"; fail "$name under $k ranks"; continue; }
  summary=$(pt_same "$tmp/$name-one" "$tmp/$name-np$k") &&
    echo "ok: $name: temperatures over $k ranks give the single-process series, observables and hash ($summary)" ||
    fail "$name with temperatures over $k ranks differs from the single-process run"
done
"${launcher[@]}" -np 2 "$clmc" run "$tmp/ptising.json" --out "$tmp/ptising-ckpt" --quiet --set run.checkpoint_every=200 ||
  fail "ptising checkpointed under 2 ranks"
cp -r "$tmp/ptising-ckpt" "$tmp/ptising-resumed" && rm "$tmp/ptising-resumed/result.json" "$tmp/ptising-resumed/series.csv"
"${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/ptising-resumed" --quiet 2>"$tmp/ptising-resume.err" ||
  { cat "$tmp/ptising-resume.err"; fail "ptising resume under 2 ranks"; }
summary=$(pt_same "$tmp/ptising-one" "$tmp/ptising-resumed") &&
  echo "ok: ptising under 2 ranks resumed from its ranks' checkpoints (sweep 400) equals the single-process run ($summary)" ||
  fail "ptising resumed under 2 ranks differs"

# Two-phase checkpoints: the last rank killed (SIGKILL) between the phases of
# the checkpoint after sweep 300 (CLMC_FAULT_COMMIT_AFTER, test only), after
# rank 0 committed it: rank 0 holds sweeps 300 and 200, rank 1 200 and 100;
# the resume agrees on 200 (generation 2) and equals the single-process run.
CLMC_FAULT_COMMIT_AFTER=300 "${launcher[@]}" -np 2 "$clmc" run "$tmp/ptising.json" --out "$tmp/ptising-killed" --quiet \
  --set run.checkpoint_every=100 >"$tmp/ptising-killed.err" 2>&1 && fail "the killed rank's run exited 0"
generations() { # the GENR section: the 8 bytes before the checksum
  python3 -c "import sys; print(' '.join(str(int.from_bytes(open(f, 'rb').read()[-16:-8], 'little')) for f in sys.argv[1:]))" "$@"
}
held=$(generations "$tmp/ptising-killed"/rank-{0,1}/checkpoint.{clmc,prev})
[ "$held" = "3 2 2 1" ] && echo "ok: killed between the phases: generations (rank 0: clmc, prev; rank 1: clmc, prev) $held" ||
  fail "after the kill the ranks hold generations $held, not 3 2 2 1"
"${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/ptising-killed" --quiet 2>"$tmp/ptising-killed-resume.err" ||
  { cat "$tmp/ptising-killed-resume.err"; fail "resume after a rank killed between the checkpoint phases"; }
summary=$(pt_same "$tmp/ptising-one" "$tmp/ptising-killed") &&
  grep -q "resuming from checkpoint generation 2" "$tmp/ptising-killed-resume.err" &&
  echo "ok: a rank killed between the checkpoint phases: resumed from generation 2 (sweep 200) common to both ranks, equal to the single-process run ($summary)" ||
  fail "resume after a rank killed between the checkpoint phases differs"

# Interrupted (SIGTERM to the launcher, forwarded to every rank) and resumed.
long=$tmp/long.json
sed 's/"sweeps": 1000/"sweeps": 20000/; s/"checkpoint_every": 500/"checkpoint_every": 250/' "$preset" > "$long"
"$clmc" run "$long" --out "$tmp/long-one" --quiet || fail "single-process long run"
"${launcher[@]}" -np 2 "$clmc" run "$long" --out "$tmp/long" --quiet 2>"$tmp/long.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$tmp/long/rank-0/checkpoint.clmc" ] && [ -f "$tmp/long/rank-1/checkpoint.clmc" ] && break
  sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
if [ -f "$tmp/long/result.json" ]; then
  echo "note: the 2-rank run finished before the signal; resume not exercised"
else
  [ $rc -ne 0 ] || fail "interrupted run exited 0"
  grep -q "mpirun -np 2 clmc run --resume" "$tmp/long.err" || { cat "$tmp/long.err"; fail "no resume hint"; }
  "${launcher[@]}" -np 3 "$clmc" run --resume "$tmp/long" --quiet 2>"$tmp/wrong.err"
  [ $? -eq 2 ] && grep -q "ran under 2 MPI ranks" "$tmp/wrong.err" || { cat "$tmp/wrong.err"; fail "resume under 3 ranks not refused"; }
  "${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/long" --quiet 2>"$tmp/resume.err" || { cat "$tmp/resume.err"; fail "resume"; }
  cmp -s "$tmp/long-one/series.csv" "$tmp/long/series.csv" &&
    echo "ok: a 2-rank run stopped by SIGTERM and resumed under 2 ranks equals the single-process run" ||
    fail "resumed 2-rank run differs"
fi

# Domain decomposition (docs/mpi.md): one Ising lattice cut into slabs along
# the last axis.  msc: 2D L = 192 (1 slab, 2 of 96 rows, 3 of 64) and 3D
# L = 64 (2 slabs of 32 planes); tiled: 2D L = 96 with tile 32 (3 tile colours,
# 2 hits; 3 slabs of one tile row) and tile 16 (2 colours; 2 slabs of three
# tile rows: boundary rows and interior), 3D L = 24 with tile 4 (2 slabs of
# 3 tile planes; opt-in, CLMC_LONG_TESTS=1: 3 slabs of 2, L = 32 with tile 8
# in 2 slabs of two tile planes, and 2D msc in 2 slabs).  series.csv, observables,
# the configuration hash and picture identical to the single-process run; the
# 3-rank 2D msc run resumed from its ranks' checkpoints too.
cat > "$tmp/dd2.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 192 }, "algorithm": { "layout": "msc" }, "ensemble": { "beta": 0.44 },
  "run": { "thermalization": 10, "sweeps": 60, "measure_every": 2, "seed": 5, "checkpoint_every": 40 },
  "output": { "picture": true } }
JSON
cat > "$tmp/dd3.json" <<'JSON'
{ "model": { "type": "ising", "dim": 3, "L": 64 }, "algorithm": { "layout": "msc" }, "ensemble": { "beta": 0.22 },
  "run": { "thermalization": 4, "sweeps": 16, "measure_every": 2, "seed": 5 } }
JSON
cat > "$tmp/tiled32.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 96 }, "algorithm": { "layout": "tiled", "tile": 32, "hits": 2 },
  "ensemble": { "beta": 0.44 }, "run": { "thermalization": 10, "sweeps": 60, "measure_every": 2, "seed": 5 },
  "output": { "picture": true } }
JSON
sed 's/"tile": 32, "hits": 2/"tile": 16, "hits": 1/' "$tmp/tiled32.json" > "$tmp/tiled16.json"
cat > "$tmp/tiled3d.json" <<'JSON'
{ "model": { "type": "ising", "dim": 3, "L": 32 }, "algorithm": { "layout": "tiled", "tile": 8 },
  "ensemble": { "beta": 0.22 }, "run": { "thermalization": 4, "sweeps": 16, "measure_every": 2, "seed": 5 } }
JSON
# 3D under 2 and 3 ranks (slabs of 12 and 8 layers, tile 4; 1 opt-in)
cat > "$tmp/tiled3dk.json" <<'JSON'
{ "model": { "type": "ising", "dim": 3, "L": 24 }, "algorithm": { "layout": "tiled", "tile": 4 },
  "ensemble": { "beta": 0.22 }, "run": { "thermalization": 4, "sweeps": 16, "measure_every": 2, "seed": 5 } }
JSON
same_run() { # ONE OTHER: series, observables, configuration hash (and picture where drawn)
  cmp -s "$1/series.csv" "$2/series.csv" && [ "$(observables "$1/result.json")" = "$(observables "$2/result.json")" ] &&
    python3 -c "import json,sys; h=[json.load(open(f+'/result.json'))['checks']['configuration_fnv1a'] for f in sys.argv[1:]]; sys.exit(h[0]!=h[1])" "$1" "$2" &&
    { [ ! -f "$1/configuration.pgm" ] || cmp -s "$1/configuration.pgm" "$2/configuration.pgm"; }
}
for name in dd2 dd3 tiled32 tiled16 tiled3d tiled3dk; do
  [ $name = tiled3d ] && [ $long_tests -eq 0 ] && continue # opt-in: 3D tiled in 2 slabs, as tiled3dk:2
  "$clmc" run "$tmp/$name.json" --out "$tmp/$name-one" --quiet || fail "$name single-process run"
done
for run in dd2:1 dd2:2 dd2:3 dd3:2 tiled32:3 tiled16:2 tiled3d:2 tiled3dk:1 tiled3dk:2 tiled3dk:3; do
  name=${run%:*} k=${run#*:}
  [ "$k" = 1 ] && [ $long_tests -eq 0 ] && continue # one rank: the single-process path (clmc_ranks_many)
  # opt-in: 2D msc in 2 slabs (msc in 2 slabs: dd3; 2D in 2 slabs: tiled16; 2D msc
  # in 3: dd2:3), 3D tiled L = 32 in 2 (3D tiled in 2 slabs: tiled3dk:2) and 3D
  # tiled in 3 (3 slabs: tiled32 and dd2 in 2D; 3D slabs: tiled3dk:2 and dd3)
  case $run in dd2:2|tiled3d:2|tiled3dk:3) [ $long_tests -eq 0 ] && continue ;; esac
  "${launcher[@]}" -np $k "$clmc" run "$tmp/$name.json" --out "$tmp/$name-np$k" --quiet 2>"$tmp/$name-np$k.err" ||
    { cat "$tmp/$name-np$k.err"; fail "$name under $k ranks"; continue; }
  same_run "$tmp/$name-one" "$tmp/$name-np$k" &&
    echo "ok: $name: one lattice in $k slab(s) gives the single-process series, observables and configuration" ||
    fail "$name in $k slabs differs from the single-process run"
done
# algorithm.update_group (msc): every slab launch rounded up to work-groups of 100
# items (boundary layers of 64 words, interior of 1920), the items past each
# launch's words skipped: the same run as dd3 in one process.
sed 's/"layout": "msc"/"layout": "msc", "update_group": 100/' "$tmp/dd3.json" > "$tmp/dd3wg.json"
"${launcher[@]}" -np 2 "$clmc" run "$tmp/dd3wg.json" --out "$tmp/dd3wg-np2" --quiet 2>"$tmp/dd3wg-np2.err" ||
  { cat "$tmp/dd3wg-np2.err"; fail "dd3 with algorithm.update_group under 2 ranks"; }
same_run "$tmp/dd3-one" "$tmp/dd3wg-np2" &&
  echo "ok: dd3 in 2 slabs with work-groups of 100 items (algorithm.update_group) equals the single-process run" ||
  fail "dd3 in 2 slabs with algorithm.update_group differs from the single-process run"
python3 - "$tmp/dd2-np3/result.json" "$tmp/dd3-np2/result.json" <<'PY' || fail "result.json of the decomposed runs"
import json, sys
for path, axis, k, layers in [(sys.argv[1], "y", 3, 64), (sys.argv[2], "z", 2, 32)]:
    r = json.load(open(path))
    d = r["performance"]["domain"]
    assert (d["axis"], d["slabs"], d["layers_per_rank"]) == (axis, k, layers), d
    assert len(r["device"]["ranks"]) == k and r["performance"]["ranks"] == k, r["device"]
    print(f"ok: performance.domain {d}")
PY
cp -r "$tmp/dd2-np3" "$tmp/dd2-resumed" && rm "$tmp/dd2-resumed/result.json" "$tmp/dd2-resumed/series.csv"
"${launcher[@]}" -np 3 "$clmc" run --resume "$tmp/dd2-resumed" --quiet 2>"$tmp/dd2-resume.err" || { cat "$tmp/dd2-resume.err"; fail "2D slabs resumed under 3 ranks"; }
same_run "$tmp/dd2-one" "$tmp/dd2-resumed" &&
  echo "ok: 2D msc in 3 slabs resumed from the ranks' checkpoints (sweep 40) equals the single-process run" ||
  fail "2D msc in 3 slabs resumed differs"

# Swendsen-Wang on one Potts lattice cut into slabs (docs/mpi.md): bonds
# drawn by the global site, each slab labelled on its own, the clusters that
# cross slab boundaries merged on the host (every cluster keeps its smallest
# global site, the root one device draws its new state at).  2D q = 2 at
# T_c and q = 3 far below T_c (one cluster wraps the lattice and crosses
# every slab boundary; self-labeling and relaxation there), L = 36 under 2
# and 3 ranks (q = 2 under 3 and 1 with CLMC_LONG_TESTS=1), 3D q = 2 L = 16 under 2; series,
# observables, hash and picture as one process; the 2-rank q = 2 run resumed
# from its ranks' checkpoints.
cat > "$tmp/sw2.json" <<'JSON'
{ "model": { "type": "potts", "dim": 2, "L": 36, "q": 2 }, "algorithm": { "type": "swendsen_wang" },
  "ensemble": { "beta": 0.881373587019543 },
  "run": { "thermalization": 10, "sweeps": 60, "measure_every": 1, "seed": 5, "checkpoint_every": 30 },
  "output": { "picture": true } }
JSON
cat > "$tmp/sw3cold.json" <<'JSON'
{ "model": { "type": "potts", "dim": 2, "L": 36, "q": 3, "start": "random" },
  "algorithm": { "type": "swendsen_wang", "labeling": "self_labeling", "consolidation": "relaxation", "tile": 6 },
  "ensemble": { "beta": 1.6 }, "run": { "thermalization": 5, "sweeps": 40, "measure_every": 1, "seed": 8 },
  "output": { "picture": true } }
JSON
cat > "$tmp/sw3d.json" <<'JSON'
{ "model": { "type": "potts", "dim": 3, "L": 16, "q": 2 }, "algorithm": { "type": "swendsen_wang" },
  "ensemble": { "beta": 0.443 }, "run": { "thermalization": 4, "sweeps": 20, "measure_every": 1, "seed": 5 } }
JSON
for name in sw2 sw3cold sw3d; do
  "$clmc" run "$tmp/$name.json" --out "$tmp/$name-one" --quiet || fail "$name single-process run"
done
for run in sw2:1 sw2:2 sw2:3 sw3cold:2 sw3cold:3 sw3d:2; do
  name=${run%:*} k=${run#*:}
  [ "$k" = 1 ] && [ $long_tests -eq 0 ] && continue # one rank: the single-process path (clmc_ranks_many)
  # 3 slabs of 12 rows: sw3cold's too (its cluster crossing every boundary)
  [ "$run" = sw2:3 ] && [ $long_tests -eq 0 ] && continue
  "${launcher[@]}" -np $k "$clmc" run "$tmp/$name.json" --out "$tmp/$name-np$k" --quiet 2>"$tmp/$name-np$k.err" ||
    { cat "$tmp/$name-np$k.err"; fail "$name under $k ranks"; continue; }
  same_run "$tmp/$name-one" "$tmp/$name-np$k" &&
    echo "ok: $name: one Potts lattice in $k slab(s), Swendsen-Wang, gives the single-process series, observables and configuration" ||
    fail "$name in $k slabs differs from the single-process run"
done
python3 - "$tmp/sw3cold-one/result.json" "$tmp/sw3cold-np3/result.json" "$tmp/sw2-np2/result.json" <<'PY' || fail "Swendsen-Wang slabs: result.json"
import json, sys
one, three, two = (json.load(open(p)) for p in sys.argv[1:])
m = one["observables"]["abs_magnetization"]["mean"]
assert m > 0.9, f"q = 3 at beta 1.6 should be ordered: one cluster spans the lattice; order parameter {m}"
c = three["performance"]["cross_rank"]
assert c["merged_roots"] > 0, c
d = two["performance"]["domain"]
assert (d["axis"], d["slabs"], d["layers_per_rank"]) == ("y", 2, 18), d
print(f"ok: q = 3 at beta 1.6: order parameter {m:.4f}; under 3 ranks {c['merged_roots']:.0f} roots relabelled "
      f"across slabs; domain {d}")
PY
cp -r "$tmp/sw2-np2" "$tmp/sw2-resumed" && rm "$tmp/sw2-resumed/result.json" "$tmp/sw2-resumed/series.csv"
"${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/sw2-resumed" --quiet 2>"$tmp/sw2-resume.err" || { cat "$tmp/sw2-resume.err"; fail "Swendsen-Wang slabs resumed under 2 ranks"; }
same_run "$tmp/sw2-one" "$tmp/sw2-resumed" &&
  echo "ok: Swendsen-Wang in 2 slabs resumed from the ranks' checkpoints (sweep 60) equals the single-process run" ||
  fail "Swendsen-Wang in 2 slabs resumed differs"

# Multicanonical walkers and Wang-Landau windows shared by the ranks (whole
# work-groups of walkers each, their random streams keyed by the run-wide
# walker index; histograms and the energies for the window exchanges summed
# exactly, so every rank computes the same weights): density_of_states
# (without its wall times) and observables equal the single-process run
# under 2 and 3 ranks (1 opt-in); a 2-rank multicanonical run resumed from its
# ranks' last checkpoints equals it too.
density() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); d=r['density_of_states']; d.pop('timing'); print(json.dumps([d, r['observables']], sort_keys=True))" "$1"; }
cat > "$tmp/muca.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8 },
  "ensemble": { "type": "multicanonical", "betas": [0.3, 0.44, 0.6], "walkers": 64, "iteration_sweeps": 100 },
  "run": { "thermalization": 100, "sweeps": 1000, "seed": 5 } }
JSON
cat > "$tmp/wlwin.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8 },
  "ensemble": { "type": "wang_landau", "betas": [0.3, 0.44, 0.6], "windows": 3, "walkers_per_window": 16,
                "final_ln_f": 1e-3 },
  "run": { "thermalization": 100, "sweeps": 500, "seed": 25 } }
JSON
for name in muca wlwin; do
  "$clmc" run "$tmp/$name.json" --out "$tmp/$name-one" --quiet || fail "$name single-process run"
  for k in 1 2 3; do
    [ $k -eq 1 ] && [ $long_tests -eq 0 ] && continue # one rank: the single-process path (clmc_ranks_many)
    "${launcher[@]}" -np $k "$clmc" run "$tmp/$name.json" --out "$tmp/$name-np$k" --quiet 2>"$tmp/$name-np$k.err" ||
      { cat "$tmp/$name-np$k.err"; fail "$name under $k ranks"; continue; }
    [ "$(density "$tmp/$name-one/result.json")" = "$(density "$tmp/$name-np$k/result.json")" ] &&
      echo "ok: $name: $k ranks give the single-process density_of_states and observables" ||
      fail "$name under $k ranks differs from the single-process run"
  done
done
"${launcher[@]}" -np 2 "$clmc" run "$tmp/muca.json" --out "$tmp/muca-ckpt" --quiet --set run.checkpoint_every=250 ||
  fail "muca checkpointed under 2 ranks"
cp -r "$tmp/muca-ckpt" "$tmp/muca-resumed" && rm "$tmp/muca-resumed/result.json"
"${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/muca-resumed" --quiet 2>"$tmp/muca-resume.err" ||
  { cat "$tmp/muca-resume.err"; fail "muca resume under 2 ranks"; }
[ "$(density "$tmp/muca-one/result.json")" = "$(density "$tmp/muca-resumed/result.json")" ] &&
  echo "ok: muca under 2 ranks resumed from its last checkpoints equals the single-process run" ||
  fail "muca resumed under 2 ranks differs"

# Bad input: exit 2 on every rank, one message.
refused() { # NAME EXPECTED-TEXT COMMAND...
  local name=$1 text=$2
  shift 2
  "$@" > "$tmp/out" 2>&1
  local rc=$?
  local count
  count=$(grep -c "^clmc: " "$tmp/out")
  if [ $rc -ne 2 ] || [ "$count" -ne 1 ] || ! grep -q -- "$text" "$tmp/out"; then
    cat "$tmp/out"
    fail "$name: exit $rc, $count messages"
  else
    echo "ok: $name: exit 2, one message: $(grep '^clmc: ' "$tmp/out")"
  fi
}
refused "more ranks than copies" "cannot be spread over 6 MPI ranks" "${launcher[@]}" -np 6 "$clmc" run "$preset" --out "$tmp/six" --quiet
refused "msc words fewer than ranks" "model.realizations: 128 cannot be spread over 5 MPI ranks in blocks of 32" "${launcher[@]}" -np 5 "$clmc" run "$tmp/eamsc.json" --out "$tmp/five" --quiet
refused "fewer realizations than ranks (tempering)" "model.realizations: 6 cannot be spread over 7 MPI ranks" "${launcher[@]}" -np 7 "$clmc" run "$tmp/eapt.json" --out "$tmp/seven" --quiet
refused "device list shorter than K" "names 2 devices for 3 MPI ranks" "${launcher[@]}" -np 3 "$clmc" run "$preset" --out "$tmp/dev" --device 0:0,0:0 --quiet
single=$tmp/single.json
cat > "$single" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8 }, "algorithm": { "type": "metropolis", "layout": "tiled" },
  "ensemble": { "beta": 0.4 }, "run": { "sweeps": 100, "seed": 1 } }
JSON
refused "naive lattice under ranks" "algorithm.layout: \"naive\" cannot be decomposed over 2 MPI ranks" "${launcher[@]}" -np 2 "$clmc" run "$single" --out "$tmp/single" --quiet --set algorithm.layout=naive
refused "tile not dividing the slab" "algorithm.tile: 32 does not divide the 48 rows of a slab" "${launcher[@]}" -np 2 "$clmc" run "$tmp/tiled32.json" --out "$tmp/dd-tile" --quiet
refused "slabs that do not divide L" "model.L: 192 rows cannot be cut into 5 slabs" "${launcher[@]}" -np 5 "$clmc" run "$tmp/dd2.json" --out "$tmp/dd-five" --quiet
refused "more ranks than tempering temperatures" "ensemble.betas: 4 temperatures cannot be spread over 5 MPI ranks" "${launcher[@]}" -np 5 "$clmc" run "$tmp/ptmsc.json" --out "$tmp/pt-five" --quiet
refused "stateful generator on slabs" "algorithm.rng: \"xorwow\" keeps per-site generator states" "${launcher[@]}" -np 2 "$clmc" run "$tmp/dd3.json" --out "$tmp/dd-rng" --quiet --set algorithm.rng=xorwow
refused "Potts slabs that do not divide L" "model.L: 36 rows cannot be cut into 5 slabs" "${launcher[@]}" -np 5 "$clmc" run "$tmp/sw2.json" --out "$tmp/sw-five" --quiet
refused "Potts labeling tile not dividing the slab" "algorithm.tile: 12 does not divide the 18 rows of a slab" "${launcher[@]}" -np 2 "$clmc" run "$tmp/sw2.json" --out "$tmp/sw-tile" --quiet --set algorithm.tile=12
refused "Potts Metropolis lattice under ranks" "algorithm.type: \"metropolis\" cannot be decomposed over 2 MPI ranks" "${launcher[@]}" -np 2 "$clmc" run "$tmp/sw2.json" --out "$tmp/sw-metro" --quiet --set algorithm.type=metropolis
refused "a ranks' run resumed by one process" "resume it with mpirun -np 2" "$clmc" run --resume "$tmp/np2" --quiet
refused "more ranks than walkers' work-groups" "ensemble.walkers: 2 walkers run in 2 work-groups of 1, fewer than the 3 MPI ranks" "${launcher[@]}" -np 3 "$clmc" run "$tmp/muca.json" --out "$tmp/muca-three" --quiet --set ensemble.walkers=2
refused "more ranks than window walkers' work-groups" "ensemble.walkers_per_window: 2 walkers run in 2 work-groups of 1" "${launcher[@]}" -np 3 "$clmc" run "$tmp/wlwin.json" --out "$tmp/wl-three" --quiet --set ensemble.windows=2 --set ensemble.walkers_per_window=1
refused "bench under ranks" "only 'clmc run' is distributed" "${launcher[@]}" -np 2 "$clmc" bench "$preset"
echo "mpi_check: $failures failure(s)"
[ $failures -eq 0 ]
