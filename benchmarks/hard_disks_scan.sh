#!/usr/bin/env bash
# Trial moves per second of the MPMC hard-disk kernels versus N at phi = 0.698,
# n_M = 4, d = 0.16 (the seed's Figure 4 and Table 4: N = 253^2 .. 3040^2),
# from a lattice start (the speed barely depends on the configuration at this
# density).  A trial move is one of the n_M moves each cell makes per sweep;
# kernel time (four sub-sweeps and the cell shift) from profiling events.
# One clmc bench JSON per point, merged into one document; the table printed
# at the end gives moves/s and, for CPU devices, moves/s per compute unit.
# Usage: benchmarks/hard_disks_scan.sh DEVICE OUTPUT.json [EDGE...]
#   EDGE: sqrt(N) values (default 253 512 760 1024 1520 2048 3040)
#   PoCL on the CPU: benchmarks/hard_disks_scan.sh pocl OUT.json 253 512 1024
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2
shift 2
edges=("$@")
(( ${#edges[@]} )) || edges=(253 512 760 1024 1520 2048 3040)
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for edge in "${edges[@]}"; do
  n=$(( edge * edge ))
  # About 2^(MOVES_LOG2) trial moves per point (2.25 N moves per sweep), 10..2000 sweeps.
  sweeps=$(( (1 << ${MOVES_LOG2:-33}) / (n * 9 / 4) ))
  (( sweeps < 10 )) && sweeps=10
  (( sweeps > 2000 )) && sweeps=2000
  echo "== N = $edge^2 ($sweeps sweeps)" >&2
  "$clmc" bench presets/bench-hard-disks-N1024.json --devices "$device" --quiet --json "$work/N$(printf %05d "$edge").json" \
    --set model.N="$n" --set run.sweeps="$sweeps" || echo "   (failed: N = $edge^2)" >&2
done

python3 - "$work" "$output" <<'PY'
import sys
sys.path.insert(0, "benchmarks")
from scanlib import device_name, failed, gather, results
for _, pre, d, ns, _ in results(gather(sys.argv[1], sys.argv[2], "hard_disks_scan")):
    n = pre["model"]["N"]
    if not ns:
        print(f'{device_name(d, 24)} N={n:9d}  {failed(d)}')
        continue
    rate = 1e9 / ns
    units = d["device"].get("compute_units", 1) or 1
    per_unit = f'  {rate / units:.3e} moves/s per compute unit' if d["device"].get("type") == "CPU" else ""
    print(f'{device_name(d, 24)} N={n:9d} (= {round(n ** 0.5)}^2)  {rate:.3e} trial moves/s'
          f'  {ns * 1000:8.2f} ps/move{per_unit}')
PY
