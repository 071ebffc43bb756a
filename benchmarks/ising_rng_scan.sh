#!/usr/bin/env bash
# ps per spin flip of the 2D Ising kernels for every algorithm.rng generator
# (docs/rng.md): naive, tiled (hits 1 and 10) and msc at one L, the per-flip
# speed-up over the default philox4x32_10 printed per layout (the seed's
# comparison of generators in the tiled and multi-spin coded kernels).  Usage:
#   benchmarks/ising_rng_scan.sh DEVICE OUTPUT.json [L]
# DEVICE is a clmc selector (nvidia, pocl, 0:0); L defaults to 4096 (use 256 on
# CPUs, with UPDATES_LOG2=26).  A few minutes on one GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2 L=${3:-4096}
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
generators="philox4x32_10 philox4x32_7 lcg32 lcg64 lcg32_random lcg64_random lagged_fibonacci_521 lagged_fibonacci_1279 lagged_fibonacci_1279_418 xorwow"

point() { # rng layout hits
  local rng=$1 layout=$2 hits=$3
  local sweeps=$(( (1 << ${UPDATES_LOG2:-33}) / (L * L * hits) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 10000 )) && sweeps=10000
  local name="L${L}-${layout}-h${hits}-${rng}"
  echo "== $name ($sweeps sweeps)" >&2
  "$clmc" bench presets/quickstart.json --devices "$device" --quiet --json "$work/$name.json" \
    --set model.dim=2 --set model.L="$L" --set algorithm.layout="$layout" --set algorithm.hits="$hits" \
    --set algorithm.rng="$rng" --set run.sweeps="$sweeps" --set run.thermalization=0 >&2 \
    || echo "   (failed: $name)" >&2
}

for rng in $generators; do
  point "$rng" naive 1
  point "$rng" tiled 1
  point "$rng" tiled 10
  (( L % 64 == 0 )) && point "$rng" msc 1
done

python3 - "$work" "$output" <<'PY'
import sys
sys.path.insert(0, "benchmarks")
from scanlib import device_name, failed, gather, results
rows = list(results(gather(sys.argv[1], sys.argv[2], "ising_rng_scan")))
base = {}
for _, pre, d, ns, _ in rows:
    a = pre["algorithm"]
    if a.get("rng", "philox4x32_10") == "philox4x32_10" and ns:
        base[(device_name(d, 28), a["layout"], a["hits"])] = ns
for _, pre, d, ns, _ in rows:
    a = pre["algorithm"]
    key = (device_name(d, 28), a["layout"], a["hits"])
    speedup = f'  x{base[key] / ns:5.2f} vs philox4x32_10' if ns and key in base else ''
    print(f'{key[0]} L={pre["model"]["L"]:5d} {a["layout"]:5s} hits={a["hits"]:3d} {a.get("rng", "philox4x32_10"):26s} '
          + (f'{1000*ns:9.3f} ps/flip{speedup}' if ns else failed(d)))
PY
