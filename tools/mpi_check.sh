#!/usr/bin/env bash
# MPI ranks (docs/mpi.md) on the default OpenCL device: a run of an independent
# ensemble under mpirun -np 1, 2 and 3 (oversubscribed) gives series.csv and
# observables identical to the single-process run (Ising; Potts, Heisenberg,
# percolation copies, EA naive and the Heisenberg glass realizations under 2
# ranks, EA msc under 3); an interrupted 2-rank run
# resumed under 2 ranks too; result.h5 under 2 ranks equals series.csv (where
# the build has HDF5); bad input exits 2 on every rank with one message.
# Usage: tools/mpi_check.sh BUILD_DIR   (a skip, exit 77, without MPI in the build)
set -uo pipefail
build=${1:?build dir}
clmc=${CLMC_BIN:-$build/clmc}
if ! grep -q CLMC_HAVE_MPI "$build/build.ninja" 2>/dev/null || ! command -v mpirun >/dev/null; then
  echo "mpi_check: clmc built without MPI or no mpirun; skipped"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
launcher=(mpirun --oversubscribe)
mpirun --version 2>/dev/null | grep -q "Open MPI" || launcher=(mpirun)  # MPICH oversubscribes by default
tmp=$(mktemp -d "${CLMC_TEST_TMP:-/tmp}/mpi.XXXXXX")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
preset=$tmp/preset.json
cat > "$preset" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8, "start": "random" },
  "algorithm": { "type": "metropolis", "layout": "tiled", "hits": 1 },
  "ensemble": { "type": "independent", "betas": [0.3, 0.44, 0.6], "copies": 5, "first_system": 2 },
  "run": { "thermalization": 50, "sweeps": 3000, "measure_every": 10, "seed": 9, "checkpoint_every": 500 } }
JSON
observables() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['observables'], sort_keys=True))" "$1"; }

"$clmc" run "$preset" --out "$tmp/one" --quiet || fail "single-process run"
for k in 1 2 3; do
  "${launcher[@]}" -np $k "$clmc" run "$preset" --out "$tmp/np$k" --quiet 2>"$tmp/np$k.err" || { cat "$tmp/np$k.err"; fail "mpirun -np $k"; continue; }
  if cmp -s "$tmp/one/series.csv" "$tmp/np$k/series.csv" && [ "$(observables "$tmp/one/result.json")" = "$(observables "$tmp/np$k/result.json")" ]; then
    echo "ok: mpirun -np $k: series.csv ($(wc -l < "$tmp/one/series.csv") lines) and observables identical to the single-process run"
  else
    fail "mpirun -np $k differs from the single-process run"
  fi
done
python3 - "$tmp/np3/result.json" <<'PY' || fail "result.json of -np 3"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preset"]["ensemble"]["copies"] == 5 and r["preset"]["ensemble"]["first_system"] == 2, r["preset"]["ensemble"]
assert len(r["device"]["ranks"]) == 3 and r["performance"]["ranks"] == 3
print("ok: result.json of -np 3 names 3 rank devices and the run-wide copies and first_system")
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
ranks_of() { case $1 in eamsc) echo 3 ;; *) echo 2 ;; esac; }
for model in potts heisenberg percolation ea eamsc glass; do
  k=$(ranks_of $model)
  "$clmc" run "$tmp/$model.json" --out "$tmp/$model-one" --quiet || fail "$model single-process run"
  "${launcher[@]}" -np $k "$clmc" run "$tmp/$model.json" --out "$tmp/$model-two" --quiet || fail "$model under $k ranks"
  cmp -s "$tmp/$model-one/series.csv" "$tmp/$model-two/series.csv" &&
    [ "$(observables "$tmp/$model-one/result.json")" = "$(observables "$tmp/$model-two/result.json")" ] &&
    echo "ok: $model: $k ranks give the single-process series and observables" || fail "$model differs under $k ranks"
done
python3 - "$tmp/eamsc-two/result.json" <<'PY' || fail "result.json of EA msc under 3 ranks"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preset"]["model"]["realizations"] == 128 and r["preset"]["ensemble"]["first_system"] == 64, r["preset"]
assert all(t["realizations"] == 128 for t in r["observables"]["temperatures"]), r["observables"]
print("ok: result.json of EA msc under 3 ranks names the run-wide realizations and first_system")
PY

# EA realizations under 2 ranks resumed from the ranks' last checkpoints (the
# estimates count the realizations from the resumed series).
sed 's/"seed": 7 }/"seed": 7, "checkpoint_every": 130 }/' "$tmp/ea.json" > "$tmp/ea-ckpt.json"
"${launcher[@]}" -np 2 "$clmc" run "$tmp/ea-ckpt.json" --out "$tmp/ea-ckpt" --quiet || fail "EA checkpointed run under 2 ranks"
cp -r "$tmp/ea-ckpt" "$tmp/ea-resumed" && rm "$tmp/ea-resumed/result.json" "$tmp/ea-resumed/series.csv"
"${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/ea-resumed" --quiet 2>"$tmp/ea-resume.err" || { cat "$tmp/ea-resume.err"; fail "EA resume under 2 ranks"; }
cmp -s "$tmp/ea-one/series.csv" "$tmp/ea-resumed/series.csv" &&
  [ "$(observables "$tmp/ea-one/result.json")" = "$(observables "$tmp/ea-resumed/result.json")" ] &&
  echo "ok: EA under 2 ranks resumed from its last checkpoints equals the single-process run" ||
  fail "EA resumed under 2 ranks differs"

# Interrupted (SIGTERM to the launcher, forwarded to every rank) and resumed.
long=$tmp/long.json
sed 's/"sweeps": 3000/"sweeps": 200000/' "$preset" > "$long"
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
refused "device list shorter than K" "names 2 devices for 3 MPI ranks" "${launcher[@]}" -np 3 "$clmc" run "$preset" --out "$tmp/dev" --device 0:0,0:0 --quiet
single=$tmp/single.json
cat > "$single" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8 }, "algorithm": { "type": "metropolis", "layout": "tiled" },
  "ensemble": { "beta": 0.4 }, "run": { "sweeps": 100, "seed": 1 } }
JSON
refused "one system under ranks" "not distributed yet" "${launcher[@]}" -np 2 "$clmc" run "$single" --out "$tmp/single" --quiet
refused "a ranks' run resumed by one process" "resume it with mpirun -np 2" "$clmc" run --resume "$tmp/np2" --quiet
refused "bench under ranks" "only 'clmc run' is distributed" "${launcher[@]}" -np 2 "$clmc" bench "$preset"
echo "mpi_check: $failures failure(s)"
[ $failures -eq 0 ]
