#!/usr/bin/env bash
# Population annealing on an NVIDIA GPU (issue 20): builds clmc and runs
# benchmarks/pa_ising.sh for the cases of the issue's targets (2D Ising L = 64,
# beta 0 -> 1 in 200 steps, theta = 10): multi-spin coded at R = 1e5 and 1e6
# (target 0.4 ps per flip, resampling + measurement under 5 %), also with the
# faster Philox4x32-7, and the one-spin-per-byte layouts at R = 1e5 (target
# 2 ps); then the adaptive preset's schedule at R = 1e5 (steps and overlaps).
# Each line names the device; the JSON documents land in OUT.
# Usage: source tools/gpu-env.sh; benchmarks/pa_gpu.sh [DEVICE] [OUT]   (about 3 minutes on an H100)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
device=${1:-nvidia}; out=${2:-out/pa-gpu}
mkdir -p "$out"
[ -d build ] || meson setup build -Dtests=false >/dev/null
ninja -C build >/dev/null
while read -r R layout rng; do
  benchmarks/pa_ising.sh "$device" "$out/pa-64-$R-10-$layout-$rng.json" 64 "$R" 10 "$layout" 200 "$rng"
done <<'CASES'
100000 msc philox4x32_10
1000000 msc philox4x32_10
100000 msc philox4x32_7
100000 tiled philox4x32_10
100000 naive philox4x32_10
CASES
build/clmc run presets/pa-ising2d-L32-adaptive.json --quiet --profile --device "$device" --out "$out/adaptive" \
  --overwrite --set model.L=64 --set algorithm.layout='"msc"' --set ensemble.population=100000 \
  --set run.checkpoint_every='"0"' 2> "$out/adaptive.profile"
python3 - "$out/adaptive" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
t = r["observables"]["temperatures"]
overlaps = [x["population"]["histogram_overlap"] for x in t[1:-1]]
print(f'{r["device"]["name"]}: adaptive schedule (target 0.85) L=64 msc R=1e5: {len(t) - 1} steps to beta '
      f'{t[-1]["beta"]}, measured overlaps {min(overlaps):.3f} ... {max(overlaps):.3f}, '
      f'mean {sum(overlaps) / len(overlaps):.3f}; wall {r["performance"]["wall_seconds"]:.2f} s')
PY
grep "population annealing" "$out/adaptive.profile"
