#!/usr/bin/env bash
# Population annealing cost of the EA spin glass (naive layout, members are
# replica pairs) and the Potts model (Metropolis): ps per spin update attempt
# over the whole anneal (wall time, resampling and measurement included), ps
# per update in the update kernels, and the part of the wall time outside the
# update kernels, against the issue's targets for one spin per byte (2 ps per
# flip, resampling + measurement under 5 % at theta = 10).  Presets
# pa-ea3d-L8.json (R = 1e5 pairs, 200 steps to beta 5) and
# pa-potts2d-q10-L16.json (R = 2e4, 160 steps to beta 1.6), and the O(n)
# models (real energies, heat bath + 1 over-relaxation sub-sweep, both
# counted as spin updates): pa-xy2d-L32.json (XY, R = 1e4, 150 steps to beta
# 1.5) and pa-heisenberg3d-L16.json (R = 1e4, 100 steps to beta 1), each
# after a warm-up run that compiles the kernels; steps can be cut for a quick look.
# Usage: benchmarks/pa_models.sh [DEVICE] [OUT_DIR] [EA_STEPS] [POTTS_STEPS] [EA_R] [POTTS_R]
#                                [XY_STEPS] [HEISENBERG_STEPS] [XY_R] [HEISENBERG_R]
# e.g.   benchmarks/pa_models.sh nvidia out/pa-models 200 160   (a few minutes on an H100)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia} out=${2:-out/pa-models} ea_steps=${3:-200} potts_steps=${4:-160}
ea_r=${5:-100000} potts_r=${6:-20000}
xy_steps=${7:-150} heisenberg_steps=${8:-100} xy_r=${9:-10000} heisenberg_r=${10:-10000}
if [ -f tools/gpu-env.sh ] && [ -z "${CLMC:-}" ]; then
  source tools/gpu-env.sh
  [ -d build-gpu ] || meson setup build-gpu -Dtests=false >/dev/null
  ninja -C build-gpu >/dev/null
fi
clmc=${CLMC:-build-gpu/clmc}
mkdir -p "$out"
run() { # name preset steps population
  "$clmc" run "$2" --quiet --profile --overwrite --device "$device" --out "$out/$1-warm-up" \
    --set ensemble.population=1000 --set ensemble.steps=2 2>/dev/null
  "$clmc" run "$2" --quiet --profile --overwrite --device "$device" --out "$out/$1" --set ensemble.steps="$3" \
    --set ensemble.population="$4" 2> "$out/$1.profile.txt"
}
run ea presets/pa-ea3d-L8.json "$ea_steps" "$ea_r"
run potts presets/pa-potts2d-q10-L16.json "$potts_steps" "$potts_r"
run xy presets/pa-xy2d-L32.json "$xy_steps" "$xy_r"
run heisenberg presets/pa-heisenberg3d-L16.json "$heisenberg_steps" "$heisenberg_r"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def sub_sweeps(a): # O(n) models: the move's sub-sweeps and the over-relaxation ones
    return a.get("hits", 1) + a.get("overrelaxation_steps", 0)
for name, updates_per_member in (("ea", lambda p: 2 * p["model"]["L"] ** p["model"]["dim"]),
                                 ("potts", lambda p: p["model"]["L"] ** p["model"]["dim"]),
                                 ("xy", lambda p: p["model"]["L"] ** p["model"]["dim"] * sub_sweeps(p["algorithm"])),
                                 ("heisenberg",
                                  lambda p: p["model"]["L"] ** p["model"]["dim"] * sub_sweeps(p["algorithm"]))):
    r = json.load(open(f"{out}/{name}/result.json"))
    pre, perf = r["preset"], r["performance"]
    e = pre["ensemble"]
    flips = float(updates_per_member(pre)) * e["population"] * e["sweeps_per_step"] * e["steps"]
    wall, kernels = perf["wall_seconds"], perf["seconds"]
    last = r["observables"]["temperatures"][-1]
    doc = {"schema": "clmc-population-annealing", "format_version": 1, "device": r["device"], "preset": pre,
           "flips": flips, "wall_seconds": wall, "update_kernel_seconds": kernels,
           "ps_per_flip_wall": wall / flips * 1e12, "ps_per_flip_update_kernels": kernels / flips * 1e12,
           "outside_updates_fraction": (wall - kernels) / wall,
           "final": {"beta": last["beta"], "energy": last["energy"]["mean"], "population": last["population"]}}
    json.dump(doc, open(f"{out}/{name}-summary.json", "w"), indent=1)
    print(f'{r["device"]["name"]}: {pre["name"]} R={e["population"]} theta={e["sweeps_per_step"]} '
          f'steps={e["steps"]}: {doc["ps_per_flip_wall"]:.2f} ps/flip wall, '
          f'{doc["ps_per_flip_update_kernels"]:.2f} ps/flip in updates, '
          f'{100 * doc["outside_updates_fraction"]:.1f}% outside the updates; final beta {last["beta"]}: '
          f'energy {last["energy"]["mean"]:.5f}, effective families '
          f'{last["population"]["effective_families"]:.1f}')
PY
