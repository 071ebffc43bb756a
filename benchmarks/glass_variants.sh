#!/usr/bin/env bash
# ps per spin update and GB/s of the benchmarking variants of the Heisenberg
# spin glass's global-memory over-relaxation (issue 6; CLMC_GLASS_VARIANT,
# src/models/heisenberg_glass_variant.c, cl/heisenberg_glass_update.h): 3D,
# n = 3, L = 128 and 256, one hit, float, two replicas; then the best float
# variant of each L and the default again with fast_math.  First a check
# that every variant's series equals the default's on this device (L = 16).
# Usage: benchmarks/glass_variants.sh DEVICE OUTDIR
#   writes OUTDIR/glass_variants.json (every clmc bench document) and
#   OUTDIR/glass_variants.txt (the printed table).
# VARIANTS (space-separated) replaces the list, LGLASS (default "128 256")
# the sizes, UPDATES_LOG2 (default 33) the updates per point, BUDGET_S
# (default 200) the seconds after which the remaining points are skipped.
# Smoke test on PoCL: LGLASS=16 UPDATES_LOG2=16 benchmarks/glass_variants.sh pocl /tmp/gv
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 outdir=$2
clmc=${CLMC:-build/clmc}
mkdir -p "$outdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
variants=(${VARIANTS:-default plain batch or x2v or,x2v x2 x2s j6 or,j6,x2v wg128 wg256 wg512 x4 x4s or,x2s wg64})
start=$SECONDS

# Same series as the default variant (bit for bit) on this device.
check='{"model": {"type": "heisenberg_glass", "L": 16, "couplings": "gaussian"},
 "algorithm": {"type": "heatbath", "layout": "naive", "overrelaxation_steps": 2},
 "ensemble": {"beta": 1.5}, "run": {"thermalization": 20, "sweeps": 100, "measure_every": 5, "seed": 3}}'
echo "$check" > "$work/check.json"
for v in "${variants[@]}"; do
  CLMC_GLASS_VARIANT=$v "$clmc" run "$work/check.json" --device "$device" --quiet --out "$work/check-$v" \
    >/dev/null 2>&1 || echo "   (check run failed: $v)" >&2
done
for v in "${variants[@]}"; do
  if cmp -s "$work/check-default/series.csv" "$work/check-$v/series.csv"; then same=identical; else same=DIFFERS; fi
  echo "series of $v: $same" | tee -a "$work/table.txt"
done

point() { # name variant L [--set arguments]
  local name=$1 variant=$2 L=$3
  shift 3
  if (( SECONDS - start > ${BUDGET_S:-200} )); then echo "   (skipped $name: time budget)" >&2; return 0; fi
  local sets=() arg
  for arg in "$@"; do sets+=(--set "$arg"); done
  local sweeps=$(( (1 << ${UPDATES_LOG2:-33}) / (L * L * L * 2) ))
  (( sweeps < 5 )) && sweeps=5
  (( sweeps > 2000 )) && sweeps=2000
  echo "== $name ($sweeps sweeps, $(( SECONDS - start )) s)" >&2
  CLMC_GLASS_VARIANT=$variant "$clmc" bench presets/heisenberg-glass3d-L128.json --devices "$device" --quiet \
    --json "$work/$name.json" --set model.L="$L" --set run.sweeps="$sweeps" --set algorithm.layout=naive \
    "${sets[@]}" >/dev/null || echo "   (failed: $name)" >&2
}

ps_of() { # bench JSON -> ps per update (empty if failed)
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["devices"][0]
print(1000*d["metrics"]["ns_per_update"]["value"] if "metrics" in d else "")' "$1" 2>/dev/null || true
}

# Variant-major (both sizes of a variant before the next), in the order of
# VARIANTS, so that a cut by the time budget loses the last variants only.
declare -A best best_ps
for v in "${variants[@]}"; do
  for L in ${LGLASS:-128 256}; do
    point "L$L-$v" "$v" "$L"
    ps=$(ps_of "$work/L$L-$v.json")
    if [[ -n $ps ]] && { [[ -z ${best_ps[$L]:-} ]] || python3 -c "import sys; sys.exit(not $ps < ${best_ps[$L]})"; }; then
      best[$L]=$v best_ps[$L]=$ps
    fi
    [[ $v == default ]] && point "L$L-default-fast" default "$L" algorithm.fast_math=true
  done
done
for L in ${LGLASS:-128 256}; do
  b=${best[$L]:-default}
  [[ $b != default ]] && point "L$L-$b-fast" "$b" "$L" algorithm.fast_math=true
done

python3 - "$work" "$outdir" <<'PY' | tee -a "$work/table.txt"
import glob, json, os, sys
work, outdir = sys.argv[1], sys.argv[2]
points = []
for path in sorted(glob.glob(os.path.join(work, "L*.json")), key=os.path.getmtime):
    with open(path) as f:
        doc = json.load(f)
    doc["point"] = os.path.basename(path)[:-5]
    points.append(doc)
with open(os.path.join(outdir, "glass_variants.json"), "w") as f:
    json.dump({"schema": "clmc-bench-scan", "format_version": 1, "benchmark": "glass_variants", "points": points},
              f, indent=1)
for p in points:
    for d in p["devices"]:
        m = d.get("metrics")
        if not m:
            print(f'{p["point"]:28s} {d.get("reason", "failed")}')
            continue
        print(f'{p["point"]:28s} {1000 * m["ns_per_update"]["value"]:8.2f} ps/update '
              f'{m["achieved_bandwidth"]["value"] * 1e-9:7.1f} GB/s {100 * m["bandwidth_fraction"]["value"]:5.1f}% of copy '
              f'({m["bytes_per_update"]["value"]:.0f} B/update, {d["device"]["name"][:24]})')
PY
cp "$work/table.txt" "$outdir/glass_variants.txt"
echo "total $(( SECONDS - start )) s; results in $outdir/glass_variants.{json,txt}"
