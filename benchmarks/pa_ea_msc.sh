#!/usr/bin/env bash
# Population annealing of the 3D EA spin glass with many members per
# multi-spin word (algorithm.layout "msc", issue 20) against the naive layout
# (one byte per spin): ps per spin flip attempt over the whole anneal (wall
# time, resampling and measurement included; both replicas of a member
# counted), ps per flip in the update kernels (device time), the part of the
# wall time outside the update kernels, and --profile's device time outside
# the sweeps, for L = 8 and 16, R = 1e5 (102400, a multiple of 64) and 1e6,
# theta = 10, beta 0 -> 5 (presets/pa-ea3d-L8-msc.json, pa-ea3d-L8.json).
# Target (issue 20): at most 0.4 ps per flip at theta = 10, R >= 1e5 (msc).
# The naive layout at L = 16, R = 1e6 exceeds the 2^32 spins its kernels
# index (refused, reported as such).  Each line names the device; the JSON
# documents land in OUT.
# Usage: benchmarks/pa_ea_msc.sh [DEVICE] [OUT] [STEPS]   (a few minutes on an H100)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia} out=${2:-out/pa-ea-msc} steps=${3:-100}
if [ -f tools/gpu-env.sh ] && [ -z "${CLMC:-}" ]; then
  source tools/gpu-env.sh
  [ -d build ] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null
fi
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
run() { # name preset L R; a warm-up of one step first compiles the kernels (L and R are defines)
  "$clmc" run "$2" --quiet --overwrite --device "$device" --out "$out/warm-up" --set model.L="$3" \
    --set ensemble.population="$4" --set ensemble.steps=1 --set ensemble.sweeps_per_step=1 2> "$out/$1.profile.txt" &&
  "$clmc" run "$2" --quiet --profile --overwrite --device "$device" --out "$out/$1" --set model.L="$3" \
    --set ensemble.population="$4" --set ensemble.steps="$steps" --set ensemble.sweeps_per_step=10 \
    2> "$out/$1.profile.txt"
}
cases=""
for L in 8 16; do
  for R in 102400 1000000; do
    for layout in msc naive; do
      preset=presets/pa-ea3d-L8-msc.json
      [ "$layout" = naive ] && preset=presets/pa-ea3d-L8.json
      name="$layout-L$L-R$R"
      if run "$name" "$preset" "$L" "$R"; then cases="$cases $name"; else
        echo "$layout L=$L R=$R: refused or failed: $(grep -m1 'error' "$out/$name.profile.txt" || true)"; fi
    done
  done
done
python3 - "$out" $cases <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
docs = {}
for name in names:
    r = json.load(open(f"{out}/{name}/result.json"))
    pre, perf = r["preset"], r["performance"]
    e = pre["ensemble"]
    flips = 2.0 * pre["model"]["L"] ** 3 * e["population"] * e["sweeps_per_step"] * e["steps"]
    wall, kernels = perf["wall_seconds"], perf["seconds"]
    share = None  # "clmc profile: population annealing: W s wall, D s device outside the sweeps (...): P% of the wall time"
    for line in open(f"{out}/{name}.profile.txt"):
        if line.startswith("clmc profile: population annealing:"):
            share = float(line.rsplit(":", 1)[1].split("%")[0]) / 100
    last = r["observables"]["temperatures"][-1]
    doc = {"schema": "clmc-population-annealing", "format_version": 2, "device": r["device"], "preset": pre,
           "flips": flips, "wall_seconds": wall, "update_kernel_seconds": kernels,
           "ps_per_flip_wall": wall / flips * 1e12, "ps_per_flip_update_kernels": kernels / flips * 1e12,
           "outside_updates_fraction": (wall - kernels) / wall, "profile_outside_sweeps_fraction": share,
           "final": {"beta": last["beta"], "energy": last["energy"]["mean"], "population": last["population"]}}
    json.dump(doc, open(f"{out}/{name}-summary.json", "w"), indent=1)
    docs[name] = doc
    print(f'{r["device"]["name"]}: EA3d {name} theta=10 steps={e["steps"]}: {doc["ps_per_flip_wall"]:.3f} ps/flip wall, '
          f'{doc["ps_per_flip_update_kernels"]:.3f} ps/flip in updates, '
          f'{100 * doc["outside_updates_fraction"]:.1f}% outside the updates; --profile: '
          f'{100 * share:.1f}% of the wall time on the device outside the sweeps; final beta {last["beta"]}: '
          f'energy {last["energy"]["mean"]:.5f}, effective families {last["population"]["effective_families"]:.1f}'
          f'{"  (target 0.4 ps/flip: " + ("met" if doc["ps_per_flip_wall"] <= 0.4 else "missed") + ")" if name.startswith("msc") else ""}')
for name, doc in docs.items():
    other = name.replace("msc-", "naive-")
    if name.startswith("msc") and other in docs:
        print(f'{name}: {docs[other]["ps_per_flip_wall"] / doc["ps_per_flip_wall"]:.1f}x faster than naive (wall)')
PY
