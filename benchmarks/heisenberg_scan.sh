#!/usr/bin/env bash
# ps per spin update of the XY/Heisenberg kernels: the review's Table 1 set-up
# (2D Heisenberg, L = 4096, Metropolis multi-hit 100, tiled) in float with
# fast_math, float with accurate math and double; hits 1 and 10; tile edges
# 16 and 32; heat-bath and over-relaxation alone and the naive layout; XY
# (n = 2); 3D L = 128 and 256 (heat-bath, over-relaxation); the 3D Heisenberg
# spin glass L = 128 and 256 (over-relaxation: global memory, local-memory
# tiles and planes, multi-hit).  One clmc bench JSON per point, merged into one document.
# Usage: benchmarks/heisenberg_scan.sh DEVICE OUTPUT.json
# L2D (default 4096), L3D and LGLASS (default "128 256") change the sizes,
# e.g. for a smoke test on PoCL: L2D=64 L3D=16 LGLASS=16 UPDATES_LOG2=18.
# POINTS, a bash regular expression, keeps only the points whose names match,
# e.g. POINTS='^glass-L[0-9]+-global(-fast)?$' for the glass's global-memory kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

selected() { [[ $1 =~ ${POINTS:-.} ]]; }

point() { # name dim L [--set arguments]; sweeps from 2^UPDATES_LOG2 (default 34) updates
  local name=$1 dim=$2 L=$3
  selected "$name" || return 0
  shift 3
  local hits=1 arg
  for arg in "$@"; do [[ $arg == algorithm.hits=* ]] && hits=${arg#algorithm.hits=}; done
  local sites=$(( dim == 3 ? L * L * L : L * L ))
  local sweeps=$(( (1 << ${UPDATES_LOG2:-34}) / (sites * hits) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 2000 )) && sweeps=2000
  echo "== $name ($sweeps sweeps)" >&2
  local sets=()
  for arg in "$@"; do sets+=(--set "$arg"); done
  "$clmc" bench presets/bench-heisenberg2d-L4096-hits100.json --devices "$device" --quiet --json "$work/$name.json" \
    --set model.dim="$dim" --set model.L="$L" --set run.sweeps="$sweeps" --set run.thermalization=0 "${sets[@]}" \
    || echo "   (failed: $name)" >&2
}

base=(algorithm.type=metropolis algorithm.layout=tiled)
L2=${L2D:-4096}
point 2d-L$L2-metropolis-h100-fast 2 "$L2" "${base[@]}" algorithm.hits=100 algorithm.fast_math=true
point 2d-L$L2-metropolis-h100-accurate 2 "$L2" "${base[@]}" algorithm.hits=100 algorithm.fast_math=false
point 2d-L$L2-metropolis-h100-double 2 "$L2" "${base[@]}" algorithm.hits=100 algorithm.fast_math=false model.precision=double
point 2d-L$L2-metropolis-h100-fast-t16 2 "$L2" "${base[@]}" algorithm.hits=100 algorithm.fast_math=true algorithm.tile=16
point 2d-L$L2-metropolis-h10-fast 2 "$L2" "${base[@]}" algorithm.hits=10 algorithm.fast_math=true
point 2d-L$L2-metropolis-h1-fast 2 "$L2" "${base[@]}" algorithm.hits=1 algorithm.fast_math=true
point 2d-L$L2-xy-metropolis-h100-fast 2 "$L2" "${base[@]}" algorithm.hits=100 algorithm.fast_math=true model.n=2
point 2d-L$L2-heatbath-h100-fast 2 "$L2" algorithm.type=heatbath algorithm.hits=100 algorithm.fast_math=true
point 2d-L$L2-xy-heatbath-h100-fast 2 "$L2" algorithm.type=heatbath algorithm.hits=100 algorithm.fast_math=true model.n=2
point 2d-L$L2-overrelaxation-h100-fast 2 "$L2" algorithm.type=overrelaxation algorithm.hits=100 algorithm.fast_math=true
point 2d-L$L2-metropolis-naive-fast 2 "$L2" algorithm.type=metropolis algorithm.layout=naive algorithm.fast_math=true
for L in ${L3D:-128 256}; do
  point "3d-L$L-heatbath-h1-fast" 3 "$L" algorithm.type=heatbath algorithm.fast_math=true
  point "3d-L$L-heatbath-or3-fast" 3 "$L" algorithm.type=heatbath algorithm.overrelaxation_steps=3 algorithm.fast_math=true
  point "3d-L$L-overrelaxation-h1-fast" 3 "$L" algorithm.type=overrelaxation algorithm.fast_math=true
  point "3d-L$L-overrelaxation-naive-fast" 3 "$L" algorithm.type=overrelaxation algorithm.layout=naive algorithm.fast_math=true
  point "3d-L$L-overrelaxation-planes-fast" 3 "$L" algorithm.type=overrelaxation algorithm.layout=planes algorithm.fast_math=true
done

# Spin glass over-relaxation (Bernaschi et al. Tables 3 and 4): global memory
# (naive: one kernel per colour), local-memory planes (two at a time) and tiles
# (double checkerboard), one hit and multi-hit; two replicas, every replica's spins counted.
glass() { # name L [--set arguments]
  local name=$1 L=$2
  selected "$name" || return 0
  shift 2
  local sets=() arg
  for arg in "$@"; do sets+=(--set "$arg"); done
  local sweeps=$(( (1 << ${UPDATES_LOG2:-34}) / (L * L * L * 2) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 2000 )) && sweeps=2000
  echo "== $name ($sweeps sweeps)" >&2
  "$clmc" bench presets/heisenberg-glass3d-L128.json --devices "$device" --quiet --json "$work/$name.json" \
    --set model.L="$L" --set run.sweeps="$sweeps" "${sets[@]}" || echo "   (failed: $name)" >&2
}
for L in ${LGLASS:-128 256}; do
  glass "glass-L$L-global" "$L" algorithm.layout=naive
  glass "glass-L$L-global-fast" "$L" algorithm.layout=naive algorithm.fast_math=true
  glass "glass-L$L-tiled-t8-h1" "$L" algorithm.layout=tiled algorithm.tile=8
  glass "glass-L$L-tiled-t4-h1" "$L" algorithm.layout=tiled algorithm.tile=4
  glass "glass-L$L-planes-t16-h1" "$L" algorithm.layout=planes algorithm.tile=16
  glass "glass-L$L-planes-t8-h1" "$L" algorithm.layout=planes algorithm.tile=8
  for hits in 2 4 8 16 32; do glass "glass-L$L-planes-t16-h$hits" "$L" algorithm.layout=planes algorithm.tile=16 algorithm.hits=$hits; done
  for hits in 2 4 8 16 32; do glass "glass-L$L-tiled-t8-h$hits" "$L" algorithm.layout=tiled algorithm.tile=8 algorithm.hits=$hits; done
  glass "glass-L$L-global-double" "$L" algorithm.layout=naive model.precision=double
  glass "glass-L$L-heatbath-global" "$L" algorithm.type=heatbath algorithm.layout=naive
done

python3 - "$work" "$output" <<'PY'
import sys
sys.path.insert(0, "benchmarks")
from scanlib import device_name, failed, gather, results
for p, pre, d, ns, _ in results(gather(sys.argv[1], sys.argv[2], "heisenberg_scan")):
    m = pre["model"]
    print(f'{device_name(d, 20)} {p["point"]:40s} n={m["n"]} {m["precision"]:6s} '
          + (f'{1000 * ns:8.2f} ps/update' if ns else failed(d)))
PY
