#!/usr/bin/env bash
# ps per spin flip of the Edwards-Anderson kernels (every realization's spin
# counted): msc with 64- and 32-bit words in 3D (L = 32, 64, 128) and 2D, the
# single-spin-coded kernel, and msc with parallel tempering over 16
# temperatures (kernel time, and the wall-time overhead of exchanges every 10
# sweeps).  One clmc bench JSON per point, merged into one document.
# Usage: benchmarks/ea_scan.sh DEVICE OUTPUT.json
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
betas16=$(python3 -c "print(','.join(f'{0.6 * 2.5 ** (i / 15):.6f}' for i in range(16)))")
tempering='{"type": "parallel_tempering", "betas": ['"$betas16"'], "exchange_every": 10}'

point() { # name dim L realizations layout word_bits [extra --set arguments]
  local name=$1 dim=$2 L=$3 realizations=$4 layout=$5 bits=$6
  shift 6
  local sites=$(( dim == 3 ? L * L * L : L * L ))
  local sweeps=$(( (1 << ${UPDATES_LOG2:-36}) / (sites * realizations * 2) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 2000 )) && sweeps=2000
  echo "== $name ($sweeps sweeps)" >&2
  "$clmc" bench presets/bench-ea3d-msc-L64.json --devices "$device" --quiet --json "$work/$name.json" \
    --set model.dim="$dim" --set model.L="$L" --set model.realizations="$realizations" \
    --set algorithm.layout="$layout" --set algorithm.word_bits="$bits" --set algorithm.shared_randoms=false \
    --set run.sweeps="$sweeps" "$@" || echo "   (failed: $name)" >&2
}

for bits in 64 32; do
  point "3d-msc$bits-L32" 3 32 4096 msc "$bits"
  point "3d-msc$bits-L32-x1024" 3 32 1024 msc "$bits"
  point "3d-msc$bits-L64" 3 64 1024 msc "$bits"
  point "3d-msc$bits-L128" 3 128 256 msc "$bits"
  point "2d-msc$bits-L512" 2 512 1024 msc "$bits"
  point "2d-msc$bits-L4096" 2 4096 64 msc "$bits"
done
point 3d-naive-L32 3 32 64 naive 64
point 2d-naive-L512 2 512 16 naive 64
point 3d-msc64-L32-pt16 3 32 256 msc 64 --set ensemble="$tempering"

# Wall time of tempering runs with exchanges every 10 sweeps against none.
overhead() { # L realizations name exchange_every
  "$clmc" run presets/bench-ea3d-msc-L64.json --quiet --device "$device" --out "$work/run-L$1-$3" \
    --set model.L="$1" --set model.realizations="$2" \
    --set ensemble='{"type": "parallel_tempering", "betas": ['"$betas16"'], "exchange_every": '"$4"'}' \
    --set run.thermalization=0 --set run.sweeps="${OVERHEAD_SWEEPS:-2000}" --set run.measure_every=$(( ${OVERHEAD_SWEEPS:-2000} / 10 ))
}
for L in 32 64; do
  overhead "$L" 256 warm-up 10 && overhead "$L" 256 none 1000000000 && overhead "$L" 256 exchanges 10 \
    || echo "   (failed: tempering overhead L=$L)" >&2
done

python3 - "$work" "$output" <<'PY'
import json, os, sys
sys.path.insert(0, "benchmarks")
from scanlib import device_name, failed, gather, results
work, output = sys.argv[1], sys.argv[2]
overhead = []
for L in (32, 64):
    paths = {k: os.path.join(work, f"run-L{L}-{k}", "result.json") for k in ("none", "exchanges")}
    if not all(os.path.exists(path) for path in paths.values()):
        continue
    runs = {k: json.load(open(path)) for k, path in paths.items()}
    wall0, wall1 = (runs[k]["performance"]["wall_seconds"] for k in ("none", "exchanges"))
    overhead.append({
        "preset": runs["exchanges"]["preset"], "device": runs["exchanges"]["device"], "exchange_every": 10,
        "wall_seconds_without_exchanges": wall0, "wall_seconds_with_exchanges": wall1,
        "overhead_fraction": (wall1 - wall0) / wall0,
        "acceptance": runs["exchanges"]["observables"]["tempering"]["acceptance"]})
points = gather(work, output, "ea_scan", {"tempering_overhead": overhead})
for _, pre, d, ns, frac in results(points):
    a = pre["algorithm"]
    t = len(pre["ensemble"].get("betas", [1]))
    print(f'{device_name(d, 20)} {pre["model"]["dim"]}D L={pre["model"]["L"]:5d} x{pre["model"]["realizations"]:5d} '
          f'{a["layout"]:5s} w{a["word_bits"]} T={t:2d} '
          + (f'{1000*ns:7.3f} ps/flip  {100*frac:5.1f}% of copy bandwidth' if ns else failed(d)))
for o in overhead:
    m = o["preset"]["model"]
    print(f'tempering overhead (3D L={m["L"]} x{m["realizations"]} msc, 16 temperatures, every 10 sweeps): wall '
          f'{o["wall_seconds_without_exchanges"]:.3f} s without, {o["wall_seconds_with_exchanges"]:.3f} s with: '
          f'{100 * o["overhead_fraction"]:.2f}%')
PY
