#!/usr/bin/env bash
# Population annealing shared by MPI ranks (docs/mpi.md) on the default OpenCL
# device: each rank holds a share of the members, the weight sums are gathered
# and summed in the single process's order, members whose copies land on
# another rank travel.  Checked here: 2D Ising (tiled, systematic) under 2
# and 3 ranks (and 1 with CLMC_LONG_TESTS=1) gives result.json's observables
# (every step's energy, specific heat, free energy, family statistics,
# histogram overlap) and the configuration hash of the final population
# (continued from rank to rank) identical to the single-process run; the
# multi-spin coded layout, the multinomial and nearest_integer schemes, two
# independent runs, the adaptive schedule and Potts and EA members under 2
# ranks, and a population culled to one family under 3 ranks the same; a 2-rank run interrupted between
# steps and resumed under 2 ranks equals it too; more ranks than chunks of
# 256 members exit 2 on every rank with one message naming
# ensemble.population.  With ensemble.distribute "runs" (each rank anneals
# whole runs of its own): Ising (with the picture), EA msc lanes and XY
# under 2 ranks identical to one process, also resumed from the ranks'
# checkpoints; runs not a multiple of the ranks and the adaptive schedule
# exit 2.
# Usage: tools/mpi_population_check.sh BUILD_DIR   (a skip, exit 77, without MPI in the build)
set -uo pipefail
build=${1:?build dir}
clmc=${CLMC_BIN:-$build/clmc}
if ! grep -q CLMC_HAVE_MPI "$build/build.ninja" 2>/dev/null || ! command -v mpirun >/dev/null; then
  echo "mpi_population_check: clmc built without MPI or no mpirun; skipped"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
launcher=(mpirun --oversubscribe)
mpirun --version 2>/dev/null | grep -q "Open MPI" || launcher=(mpirun) # MPICH oversubscribes by default
# The scratch folder's parent may not exist yet (meson sets CLMC_TEST_TMP; the
# first test to run creates it): without it every run would write below /.
mkdir -p "${CLMC_TEST_TMP:-/tmp}"
tmp=$(mktemp -d "${CLMC_TEST_TMP:-/tmp}/mpipa.XXXXXX") && [ -n "$tmp" ] || { echo "mpi_population_check.sh: no scratch folder"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
failures=0
long_tests=0
[ "${CLMC_LONG_TESTS:-}" = 1 ] && long_tests=1
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The observables (every step) and checks (the final members' hash) of a
# result, and a short summary.
fingerprint() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r['observables'], r['checks']], sort_keys=True))" "$1"; }
summary() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["observables"]["temperatures"]
last = t[-1]
print(f"{len(t)} steps, last beta {last['beta']:.4g}: energy {last['energy']['mean']:.12g}, "
      f"free energy {last.get('free_energy', {}).get('mean', float('nan')):.12g}, "
      f"members {last['population']['members']:g}, families {last['population']['effective_families']:.10g}, "
      f"hash {r['checks'].get('configuration_fnv1a', '-')}")
PY
}
# same NAME RANKS PRESET [clmc options...]: the run under RANKS ranks equals one process.
same() {
  local name=$1 k=$2 preset=$3
  shift 3
  [ -f "$tmp/$name-one/result.json" ] || "$clmc" run "$preset" --out "$tmp/$name-one" --quiet "$@" ||
    { fail "$name: single-process run"; return; }
  "${launcher[@]}" -np "$k" "$clmc" run "$preset" --out "$tmp/$name-np$k" --quiet "$@" 2>"$tmp/$name-np$k.err" ||
    { cat "$tmp/$name-np$k.err"; fail "$name: mpirun -np $k"; return; }
  if [ "$(fingerprint "$tmp/$name-one/result.json")" = "$(fingerprint "$tmp/$name-np$k/result.json")" ]; then
    echo "ok: $name under $k ranks identical to one process ($(summary "$tmp/$name-np$k/result.json"))"
  else
    echo "one process: $(summary "$tmp/$name-one/result.json")"
    echo "$k ranks:     $(summary "$tmp/$name-np$k/result.json")"
    fail "$name under $k ranks differs from the single-process run"
  fi
}

# 2D Ising, 700 members: chunks of 256, 256 and 188 (3 ranks: one chunk each).
cat > "$tmp/ising.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 8 },
  "algorithm": { "type": "metropolis", "layout": "tiled" },
  "ensemble": { "type": "population_annealing", "population": 700, "beta_end": 0.8, "steps": 8,
                "sweeps_per_step": 3 },
  "run": { "seed": 5 } }
JSON
for k in 1 2 3; do
  [ $k -eq 1 ] && [ $long_tests -eq 0 ] && continue # one rank: the single-process path (opt-in)
  same ising "$k" "$tmp/ising.json"
done
python3 - "$tmp/ising-np3/result.json" <<'PY' || fail "result.json of -np 3"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preset"]["ensemble"]["population"] == 700, r["preset"]["ensemble"]
assert len(r["device"]["ranks"]) == 3 and r["performance"]["ranks"] == 3
assert r["observables"]["temperatures"][-1]["population"]["members"] == 700
print("ok: result.json of -np 3 names 3 rank devices and the run-wide population")
PY
# Multi-spin coded members (L = 64: 512 bytes each), 600 members; the
# resampling schemes; the fluctuating population of nearest_integer (the
# last rank's share takes the fluctuation); the adaptive schedule.
cat > "$tmp/msc.json" <<'JSON'
{ "model": { "type": "ising", "dim": 2, "L": 64 },
  "algorithm": { "type": "metropolis", "layout": "msc" },
  "ensemble": { "type": "population_annealing", "population": 600, "beta_end": 0.25, "steps": 10,
                "sweeps_per_step": 2 },
  "run": { "seed": 11 } }
JSON
same msc 2 "$tmp/msc.json"
same multinomial 2 "$tmp/ising.json" --set ensemble.resampling=multinomial
same nearest 2 "$tmp/ising.json" --set ensemble.resampling=nearest_integer --set ensemble.population=650
same runs 2 "$tmp/ising.json" --set ensemble.runs=2
# Steps so large that one family takes the whole population (it fills the
# middle rank and its one ancestor's copies go to every rank), 3 ranks.
same culled 3 "$tmp/ising.json" --set model.L=16 --set ensemble.population=800 --set ensemble.beta_end=2 \
  --set ensemble.steps=3 --set ensemble.resampling=nearest_integer
same adaptive 2 "$tmp/ising.json" --set 'ensemble={"type": "population_annealing", "population": 600, "schedule": "adaptive", "beta_end": 0.6, "target_overlap": 0.7, "sweeps_per_step": 2}'
# Other models through the same hooks: Potts (Swendsen-Wang members) and the
# EA spin glass (replica pairs sharing realization 0).
cat > "$tmp/potts.json" <<'JSON'
{ "model": { "type": "potts", "dim": 2, "L": 8, "q": 3 },
  "ensemble": { "type": "population_annealing", "population": 520, "beta_end": 1.0, "steps": 5,
                "sweeps_per_step": 2 },
  "run": { "seed": 3 } }
JSON
same potts 2 "$tmp/potts.json"
cat > "$tmp/ea.json" <<'JSON'
{ "model": { "type": "ea_ising", "dim": 2, "L": 6, "realizations": 1 },
  "algorithm": { "layout": "naive" },
  "ensemble": { "type": "population_annealing", "population": 600, "beta_end": 1.5, "steps": 5,
                "sweeps_per_step": 2 },
  "run": { "seed": 7 } }
JSON
same ea 2 "$tmp/ea.json"

# ensemble.distribute "runs": each rank anneals its own whole runs (4 runs,
# 2 a rank), numbered and counted as one process does; the checks and the
# picture are the last rank's (the last run's).  The key alone changes
# nothing in one process.  Also the models the member sharing refuses: EA
# msc lanes (64 members a word) and XY (real energies).
same runs-over 2 "$tmp/ising.json" --set ensemble.runs=4 --set ensemble.distribute=runs --set output.picture=true
cmp -s "$tmp/runs-over-one/configuration.pgm" "$tmp/runs-over-np2/configuration.pgm" &&
  echo "ok: runs over 2 ranks: configuration.pgm (the last run's) identical to one process" ||
  fail "runs over 2 ranks: configuration.pgm differs"
"$clmc" run "$tmp/ising.json" --out "$tmp/runs-four" --quiet --set ensemble.runs=4 ||
  fail "4 runs in one process"
[ "$(fingerprint "$tmp/runs-four/result.json")" = "$(fingerprint "$tmp/runs-over-one/result.json")" ] &&
  echo "ok: ensemble.distribute \"runs\" in one process equals \"members\"" ||
  fail "ensemble.distribute changes a single-process run"
same runs-ea-msc 2 "$(dirname "$0")/../presets/pa-ea3d-L8-msc.json" --set model.L=4 --set ensemble.population=256 \
  --set ensemble.steps=4 --set ensemble.runs=2 --set ensemble.distribute=runs
same runs-xy 2 "$(dirname "$0")/../presets/pa-xy2d-L32.json" --set model.L=8 --set ensemble.population=600 \
  --set ensemble.steps=3 --set ensemble.runs=2 --set ensemble.distribute=runs

# Interrupted between steps (a checkpoint every 9 sweeps: after steps 3 and
# 6), resumed under 2 ranks from the ranks' checkpoints.
"${launcher[@]}" -np 2 "$clmc" run "$tmp/ising.json" --out "$tmp/ckpt" --quiet --set run.checkpoint_every=9 ||
  fail "checkpointed run under 2 ranks"
if ls "$tmp"/ckpt/rank-*/checkpoint.clmc >/dev/null 2>&1; then
  cp -r "$tmp/ckpt" "$tmp/resumed" && rm "$tmp/resumed/result.json"
  "${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/resumed" --quiet 2>"$tmp/resume.err" ||
    { cat "$tmp/resume.err"; fail "resume under 2 ranks"; }
  [ "$(fingerprint "$tmp/ising-one/result.json")" = "$(fingerprint "$tmp/resumed/result.json")" ] &&
    echo "ok: 2 ranks resumed from their last checkpoints (after step 6 of 8) equal the single-process run" ||
    fail "resumed under 2 ranks differs"
else
  fail "no rank checkpoints written"
fi

# Runs over ranks, interrupted after step 6 of run 1 on each rank (runs 1
# and 3; a checkpoint every 24 sweeps, 21 a run), resumed under 2 ranks.
"${launcher[@]}" -np 2 "$clmc" run "$tmp/ising.json" --out "$tmp/ckpt-runs" --quiet --set ensemble.runs=4 \
  --set ensemble.distribute=runs --set run.checkpoint_every=24 || fail "checkpointed runs over 2 ranks"
if ls "$tmp"/ckpt-runs/rank-*/checkpoint.clmc >/dev/null 2>&1; then
  cp -r "$tmp/ckpt-runs" "$tmp/resumed-runs" && rm "$tmp/resumed-runs/result.json"
  "${launcher[@]}" -np 2 "$clmc" run --resume "$tmp/resumed-runs" --quiet 2>"$tmp/resume.err" ||
    { cat "$tmp/resume.err"; fail "resume of runs over 2 ranks"; }
  [ "$(fingerprint "$tmp/runs-over-one/result.json")" = "$(fingerprint "$tmp/resumed-runs/result.json")" ] &&
    echo "ok: runs over 2 ranks resumed from their last checkpoints equal the single-process run" ||
    fail "runs over 2 ranks resumed differ"
else
  fail "no rank checkpoints written (runs over ranks)"
fi

# Bad input: exit 2 on every rank, one message.
bad() { # NAME MESSAGE RANKS PRESET ARGS...: exit 2, one message containing MESSAGE
  local name=$1 message=$2 k=$3 preset=$4
  shift 4
  "${launcher[@]}" -np "$k" "$clmc" run "$preset" --out "$tmp/$name" --quiet "$@" >"$tmp/out" 2>&1
  local rc=$? count
  count=$(grep -c "^clmc: " "$tmp/out")
  if [ $rc -eq 2 ] && [ "$count" -eq 1 ] && grep -qF "$message" "$tmp/out"; then
    echo "ok: $name: exit 2, one message: $(grep '^clmc: ' "$tmp/out")"
  else
    cat "$tmp/out"
    fail "$name: exit $rc, $count messages"
  fi
}
bad runs-uneven "ensemble.runs: 3 runs cannot be spread evenly over 2 MPI ranks" 2 "$tmp/ising.json" \
  --set ensemble.runs=3 --set ensemble.distribute=runs
bad runs-adaptive "ensemble.distribute: \"runs\" needs a fixed schedule" 2 "$tmp/ising.json" \
  --set 'ensemble={"type": "population_annealing", "population": 600, "schedule": "adaptive", "beta_end": 0.6, "runs": 2, "distribute": "runs"}'
bad "512 members under 3 ranks" "ensemble.population: 512 members cannot be shared by 3 MPI ranks" 3 "$tmp/ising.json" \
  --set ensemble.population=512
# XY members (real energies) are not shared by ranks: exit 2 naming ensemble.type.
bad "XY population annealing under 2 ranks" "ensemble.type: population annealing of model \"heisenberg\" runs in one process" \
  2 "$(dirname "$0")/../presets/pa-xy2d-L32.json" --set model.L=8 --set ensemble.population=600 --set ensemble.steps=3
echo "mpi_population_check: $failures failure(s)"
[ $failures -eq 0 ]
