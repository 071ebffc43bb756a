#!/usr/bin/env bash
# Population annealing shared by MPI ranks (docs/mpi.md, issue 25: "population
# annealing with 1e6 x K members: throughput per GPU within 3 % of one GPU"):
# 2D Ising, multi-spin coded, L = 64, theta = 10 sweeps per step, R = 10^6
# members per GPU, on K = 1 GPU (the plain single-process run) and K = 2 and 4
# GPUs (mpirun -np K, one GPU per rank; KS="1 2" or "1 2 4 8" to choose; K
# above the machine's GPUs is left out).  Each run prints
# the wall ps per spin flip over the anneal (performance.wall_seconds of rank
# 0: resampling, measurement and the members' transfers included), the
# flips per ns per GPU and the efficiency against K = 1 (weak scaling: the
# same R per GPU), then a --profile run of the same anneal gives the share of
# the wall time between the sweeps (K = 1: the device time outside the
# sweeps; K > 1: each rank's wall time from its sweeps' end to the next
# step's sweeps, with the MPI time and the members and bytes sent), and the
# host's blocking waits for the device in the steps.  The
# K-GPU result is compared with a 1-GPU run of the same total population
# R = K x 10^6 (observables of every step and the final configuration hash:
# bit-identical expected).
# MPIRUN_ARGS: more mpirun options (e.g. "--bind-to none"); SAME=0 leaves out
# the bit-identity runs.  DISTRIBUTE=runs: K runs of R_PER_GPU members
# instead of one of K x R_PER_GPU (ensemble.distribute "runs": each GPU
# anneals one whole run, no transfers per step), compared with the K runs
# one after the other on one GPU.
# Usage: benchmarks/pa_ranks.sh [OUT] [STEPS] [R_PER_GPU]   (defaults out/pa-ranks, 100, 1000000:
# 4e12 flips per GPU and run; a few minutes on 2 H100, most of it start-up and warm-up)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/pa-ranks} steps=${2:-100} per_gpu=${3:-1000000}
source tools/gpu-env.sh
if [ ! -x build/clmc ]; then
  meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null
fi
grep -q CLMC_HAVE_MPI build/build.ninja || { echo "pa_ranks: build/ has no MPI (meson -Dmpi=enabled)"; exit 1; }
mkdir -p "$out"
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
nvidia-smi -L
mpirun --version | head -1
ks=()
for k in ${KS:-1 2 4}; do [ "$k" -le "$gpus" ] && ks+=("$k"); done
echo "GPUs: $gpus; K = ${ks[*]}; 2D Ising msc L = 64, theta = 10, $steps steps to beta 1, R = $per_gpu per GPU"
cat > "$out/preset.json" <<JSON
{ "name": "pa-ranks", "model": { "type": "ising", "dim": 2, "L": 64 },
  "algorithm": { "type": "metropolis", "layout": "msc" },
  "ensemble": { "type": "population_annealing", "population": $per_gpu, "beta_end": 1.0, "steps": $steps,
                "sweeps_per_step": 10, "resampling": "systematic" },
  "run": { "seed": 42 } }
JSON

run() { # NAME K R [--profile]
  local name=$1 k=$2 r=$3
  shift 3
  if [ "$k" = 1 ]; then
    build/clmc run "$out/preset.json" --device nvidia --out "$out/$name" --quiet --overwrite \
      --set ensemble.population="$r" "$@" 2> "$out/$name.err"
  else
    mpirun -np "$k" -x HWLOC_COMPONENTS ${MPIRUN_ARGS:-} build/clmc run "$out/preset.json" --device nvidia --out "$out/$name" \
      --quiet --overwrite --set ensemble.population="$r" "$@" 2> "$out/$name.err"
  fi
}

report() { # NAME K BASELINE
  python3 - "$out/$1" "$2" "$out/$3" "$out/$1-profile.err" <<'PY'
import json, os, re, sys
path, k, base, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
r = json.load(open(path + "/result.json"))
p, pre = r["performance"], r["preset"]
L, R = pre["model"]["L"], pre["ensemble"]["population"]
theta, steps = pre["ensemble"]["sweeps_per_step"], pre["ensemble"]["steps"]
runs = pre["ensemble"].get("runs", 1)
flips = float(L * L) * R * theta * steps * runs
wall = p["wall_seconds"]
names = [d["name"] for d in r["device"].get("ranks", [r["device"]])]
line = (f"K={k} R={R} runs={runs}: {flips:.3e} flips, wall {wall:8.3f} s, {wall / flips * 1e12:.4f} ps/flip (wall), "
        f"{flips / wall / 1e9 / k:8.1f} flips/ns per GPU")
if os.path.exists(base + "/result.json") and base != path:
    b = json.load(open(base + "/result.json"))
    bp, bpre = b["performance"], b["preset"]
    bflips = (float(bpre["model"]["L"] ** 2) * bpre["ensemble"]["population"] * theta * bpre["ensemble"]["steps"] *
              bpre["ensemble"].get("runs", 1))
    line += f", per-GPU efficiency {100 * (flips / wall / k) / (bflips / bp['wall_seconds']):5.1f} % of K=1"
print(line + f"  [{', '.join(names)}]")
if os.path.exists(profile):
    for text in open(profile):
        if text.startswith("clmc profile: population annealing"):
            print("    " + text.strip())
PY
}

same() { # NAME BASELINE: observables of every step and the configuration hash
  python3 - "$out/$1/result.json" "$out/$2/result.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa = json.dumps([a["observables"], a["checks"]], sort_keys=True)
fb = json.dumps([b["observables"], b["checks"]], sort_keys=True)
last = a["observables"]["temperatures"][-1]
verdict = "identical to" if fa == fb else "DIFFERS from"
print(f"    result ({len(a['observables']['temperatures'])} steps; last energy {last['energy']['mean']:.12g}, free energy "
      f"{last['free_energy']['mean']:.12g}, hash {a['checks']['configuration_fnv1a']}) {verdict} the 1-GPU run of "
      f"the same R (hash {b['checks']['configuration_fnv1a']})")
PY
}

# Each configuration first anneals 2 steps, so that its programs (every
# rank's: they carry the rank's first member) come from the program cache.
for k in "${ks[@]}"; do
  r=$((k * per_gpu)) split=()
  [ "${DISTRIBUTE:-members}" = runs ] && r=$per_gpu split=(--set ensemble.runs="$k" --set ensemble.distribute=runs)
  run "warm-k$k" "$k" "$r" --set ensemble.steps=2 "${split[@]}"
  run "k$k" "$k" "$r" "${split[@]}"
  run "k$k-profile" "$k" "$r" --profile "${split[@]}"
  report "k$k" "$k" k1
  if [ "$k" != 1 ] && [ "${SAME:-1}" = 1 ]; then
    run "warm-one-$k" 1 "$r" --set ensemble.steps=2 "${split[@]}"
    run "one-$k" 1 "$r" "${split[@]}" # the same population(s) on one GPU: the reference for bit-identity
    report "one-$k" 1 k1
    same "k$k" "one-$k"
  fi
done
