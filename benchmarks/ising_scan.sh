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
import glob, json, os, sys
work, output = sys.argv[1], sys.argv[2]
points = []
for path in sorted(glob.glob(os.path.join(work, "*.json"))):
    with open(path) as f:
        points.append(json.load(f))
doc = {"schema": "clmc-bench-scan", "format_version": 1, "benchmark": "ising_scan", "points": points}
with open(output, "w") as f:
    json.dump(doc, f, indent=1)
for p in points:
    pre = p["preset"]
    for d in p["devices"]:
        m = d.get("metrics", {})
        ns = m.get("ns_per_update", {}).get("value")
        frac = m.get("bandwidth_fraction", {}).get("value")
        print(f'{d["device"]["name"][:28]:28s} {pre["model"]["dim"]}D L={pre["model"]["L"]:6d} {pre["algorithm"]["layout"]:5s} '
              f'hits={pre["algorithm"]["hits"]:3d} tile={pre["algorithm"]["tile"]:2d} '
              + (f'{1000*ns:9.3f} ps/flip  {100*frac:5.1f}% of copy bandwidth' if ns else d.get("reason", "failed")))
PY
