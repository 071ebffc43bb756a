#!/usr/bin/env bash
# ns per spin flip versus L for the Ising model, naive, msc and tiled (hits 1, 10,
# 100) and, at the largest L, several tile edges; one clmc bench JSON per point,
# merged into one document.  Usage:
#   benchmarks/ising_scan.sh DEVICE DIM OUTPUT.json [L ...]
# DEVICE is a clmc selector (nvidia, pocl, 0:0), DIM 2 or 3.  Sweeps per point
# scale with the lattice so that every timed repetition covers enough updates
# (2^UPDATES_LOG2 in all, default 33; use less on CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 dim=$2 output=$3
shift 3
if [ "$dim" = 3 ]; then default_sizes="32 64 128 256"; tiles="4 8 16"; else default_sizes="256 1024 4096 16384"; tiles="8 16 32 64"; fi
sizes=("${@:-$default_sizes}")
read -r -a sizes <<<"${sizes[*]}"
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

point() { # L layout hits tile
  local L=$1 layout=$2 hits=$3 tile=$4
  local sites=$(( dim == 3 ? L * L * L : L * L ))
  local sweeps=$(( (1 << ${UPDATES_LOG2:-33}) / (sites * hits) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 10000 )) && sweeps=10000
  local name="d${dim}-L${L}-${layout}-h${hits}-t${tile}"
  echo "== $name ($sweeps sweeps)" >&2
  "$clmc" bench presets/quickstart.json --devices "$device" --quiet --json "$work/$name.json" \
    --set model.dim="$dim" --set model.L="$L" --set algorithm.layout="$layout" --set algorithm.hits="$hits" \
    --set algorithm.tile="$tile" --set run.sweeps="$sweeps" --set run.thermalization=0 \
    || echo "   (failed: $name)" >&2
}

largest=0
for L in "${sizes[@]}"; do
  (( L > largest )) && largest=$L
  point "$L" naive 1 0
  (( L % 64 == 0 )) && point "$L" msc 1 0
  for hits in 1 10 100; do point "$L" tiled "$hits" 0; done
done
for tile in $tiles; do point "$largest" tiled 1 "$tile"; point "$largest" tiled 10 "$tile"; done

python3 - "$work" "$output" <<'PY'
import sys
sys.path.insert(0, "benchmarks")
from scanlib import device_name, failed, gather, results
for _, pre, d, ns, frac in results(gather(sys.argv[1], sys.argv[2], "ising_scan")):
    print(f'{device_name(d, 28)} {pre["model"]["dim"]}D L={pre["model"]["L"]:6d} {pre["algorithm"]["layout"]:5s} '
          f'hits={pre["algorithm"]["hits"]:3d} tile={pre["algorithm"]["tile"]:2d} '
          + (f'{1000*ns:9.3f} ps/flip  {100*frac:5.1f}% of copy bandwidth' if ns else failed(d)))
PY
