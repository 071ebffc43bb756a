#!/usr/bin/env bash
# Parallel-tempering overhead: wall time of the same run with exchanges every
# N sweeps versus none (exchange_every larger than the run), on one device.
# Usage: benchmarks/tempering_overhead.sh DEVICE OUT.json [L] [TEMPERATURES] [EVERY]
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2 L=${3:-1024} temperatures=${4:-16} every=${5:-10}
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
betas=$(python3 -c "n=$temperatures; print(','.join(f'{0.40 + 0.08 * i / (n - 1):.6f}' for i in range(n)))")
run() { # name exchange_every
  "$clmc" run presets/quickstart.json --quiet --device "$device" --out "$work/$1" \
    --set model.L="$L" --set ensemble='{"type": "parallel_tempering", "betas": ['"$betas"'], "exchange_every": '"$2"'}' \
    --set run.thermalization=0 --set run.sweeps=2000 --set run.measure_every=100
}
run warm-up "$every"   # first launches compile (PoCL) and warm caches
run none 1000000000
run exchanges "$every"
python3 - "$work" "$output" "$every" <<'PY'
import json, sys
work, output, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
none = json.load(open(f"{work}/none/result.json"))
ex = json.load(open(f"{work}/exchanges/result.json"))
wall0, wall1 = none["performance"]["wall_seconds"], ex["performance"]["wall_seconds"]
doc = {"schema": "clmc-tempering-overhead", "format_version": 1, "device": ex["device"],
       "preset": ex["preset"], "exchange_every": every,
       "wall_seconds_without_exchanges": wall0, "wall_seconds_with_exchanges": wall1,
       "overhead_fraction": (wall1 - wall0) / wall0,
       "acceptance": ex["observables"]["tempering"]["acceptance"]}
json.dump(doc, open(output, "w"), indent=1)
print(f'{ex["device"]["name"]}: wall {wall0:.3f} s without, {wall1:.3f} s with exchanges every {every} sweeps: '
      f'overhead {100 * (wall1 - wall0) / wall0:.2f}%')
PY
