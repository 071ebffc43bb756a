#!/usr/bin/env bash
# Parallel multicanonical 2D Ising (issue 21): picoseconds per spin update in
# production and wall time to converged weights (W/H iterations), against the
# peer (cudamuca on an H100: 6.3 ps per flip at L = 16 with 270,336 walkers,
# 45 ps with 26,624; 8.0 ps at L = 32; 6.5 s to converge the L = 32 weights).
# One result.json per case in OUTDIR (density_of_states.timing), a table on stdout.
# Usage: benchmarks/muca_scan.sh DEVICE OUTDIR [L:WALKERS...]
#   default cases 16:26624 16:270336 32:26624 32:270336 64:26624;
#   SWEEPS (default 200) production sweeps, ITERATION_SWEEPS (default 100),
#   TYPE (default multicanonical; wang_landau for its weights instead).
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 outdir=$2
shift 2
cases=("$@")
(( ${#cases[@]} )) || cases=(16:26624 16:270336 32:26624 32:270336 64:26624)
clmc=${CLMC:-build/clmc} sweeps=${SWEEPS:-200} iteration=${ITERATION_SWEEPS:-100} type=${TYPE:-multicanonical}
mkdir -p "$outdir"
printf '%-6s %-8s %-10s %-12s %-14s %s\n' L walkers iterations weights_s production_s ps_per_update
for case in "${cases[@]}"; do
  L=${case%%:*} walkers=${case##*:} name="$type-ising2d-L$L-w$walkers"
  "$clmc" run presets/muca-ising2d-L16.json --quiet --overwrite --device "$device" --out "$outdir/$name" \
    --set model.L="$L" \
    --set ensemble='{"type": "'"$type"'", "betas": [0.4406868], "walkers": '"$walkers"',
                     "iteration_sweeps": '"$iteration"', "max_iterations": 100000}' \
    --set run.thermalization=0 --set run.sweeps="$sweeps" || { echo "$name failed" >&2; continue; }
  python3 - "$outdir/$name/result.json" "$L" "$walkers" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["density_of_states"]
t = d["timing"]
print(f'{sys.argv[2]:<6} {sys.argv[3]:<8} {d.get("iterations", "-")!s:<10} {t["weights_seconds"]:<12.3f} '
      f'{t["production_seconds"]:<14.3f} {t["production_ps_per_update"]:.2f}')
PY
done
