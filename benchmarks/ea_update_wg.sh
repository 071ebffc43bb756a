#!/usr/bin/env bash
# ps per spin flip of the EA msc update (3D, 64-bit words, every realization's
# spin counted) with the driver's work-group size against fixed ones
# (algorithm.update_group; the results are the same bit for bit), at L = 32 (4096
# realizations) and 64 (1024).  One clmc bench JSON per point in OUTDIR.
# Usage: benchmarks/ea_update_wg.sh DEVICE OUTDIR [WORK_GROUP_SIZES...]
#   sizes default to 32 64 128 256 512 1024; SWEEPS (default 500) per repetition.
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 outdir=$2
shift 2
sizes=("$@")
(( ${#sizes[@]} )) || sizes=(32 64 128 256 512 1024)
clmc=${CLMC:-build/clmc} sweeps=${SWEEPS:-500}
mkdir -p "$outdir"

point() { # L realizations wg (0: the driver's)
  local name="ea3d-msc64-L$1-x$2-wg$3"
  echo "== $name" >&2
  "$clmc" bench presets/bench-ea3d-msc-L64.json --devices "$device" --quiet \
    --json "$outdir/$name.json" --set algorithm.update_group="$3" --set model.dim=3 --set model.L="$1" --set model.realizations="$2" \
    --set algorithm.layout=msc --set algorithm.word_bits=64 --set algorithm.shared_randoms=false \
    --set run.sweeps="$sweeps" || echo "   (failed: $name)" >&2
}

for case in 32:4096 64:1024; do
  for wg in 0 "${sizes[@]}"; do point "${case%%:*}" "${case##*:}" "$wg"; done
done

python3 - "$outdir" <<'PY'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ea3d-msc64-*.json")),
                   key=lambda p: (len(p), p)):
    doc = json.load(open(path))
    for d in doc["devices"]:
        ns = d.get("metrics", {}).get("ns_per_update", {}).get("value")
        name = os.path.basename(path)[:-5].replace("wg0", "wg-driver")
        print(f'{d["device"]["name"][:20]:20s} {name:28s} ' + (f'{1000 * ns:7.3f} ps/flip' if ns else d.get("reason", "failed")))
PY
