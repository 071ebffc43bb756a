#!/usr/bin/env bash
# dead_border's artefacts against exact random-site dynamics (issue 23,
# docs/models/ising.md "dead_border artefacts"): after a quench from a random
# start to beta, the mean energy per site over COPIES independent copies at
# whole sweeps 1 .. SWEEPS of `dead_border` (tile, shift_every) minus that of
# `sequential_reference` (per-copy site sequences), with its standard error
# and z, for each beta, tile and shift_every.  Each line: beta, tile,
# shift_every, then "t: deviation (z)" at t = 1, 2, 5, SWEEPS, and the
# largest |z|; the device's name heads the table.
# Usage: benchmarks/random_site_artefacts.sh [DEVICE, default pocl]
#   (PoCL, 2 cores: about a minute per beta with the defaults, kernels
#   compiled once: beta is a table, not a define)
# Settings: L (default 32), COPIES (default 256), SWEEPS (default 10),
# TILES (default "8 16"), SHIFTS (default "1 4"), BETAS (default
# "0.3 0.4406868 0.6"), SEED (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-pocl}
clmc=${CLMC:-build/clmc}
[ -x "$clmc" ] || { meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null; }
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$PWD/build/test-cache/pocl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
L=${L:-32} copies=${COPIES:-256} sweeps=${SWEEPS:-10} seed=${SEED:-1}

# run NAME BETA ALGORITHM_JSON: a quench into $work/NAME.
run() {
  cat > "$work/$1.json" <<EOF
{"name": "$1", "model": {"type": "ising", "dim": 2, "L": $L, "start": "random"}, "algorithm": $3,
 "ensemble": {"type": "independent", "betas": [$2], "copies": $copies},
 "run": {"thermalization": 0, "sweeps": $sweeps, "measure_every": 1, "seed": $seed}}
EOF
  "$clmc" run "$work/$1.json" --device "$device" --quiet --out "$work/$1" 2>&1 | grep -v "warning generated" >&2 || true
  [ -f "$work/$1/series.csv" ] || { echo "$1: failed" >&2; exit 1; }
}

# compare REFERENCE RUN LABEL: the table line.
compare() {
  python3 - "$work/$1" "$work/$2" "$3" "$sweeps" <<'EOF'
import csv, math, sys
def curve(folder):
    rows = {}
    for r in csv.DictReader(open(folder + "/series.csv")):
        rows.setdefault(int(r["sweep"]), []).append(float(r["energy"]))
    out = {}
    for t, e in rows.items():
        n = len(e); m = sum(e) / n
        out[t] = (m, math.sqrt(sum((x - m) ** 2 for x in e) / (n - 1) / n))
    return out
ref, run = curve(sys.argv[1]), curve(sys.argv[2])
sweeps = int(sys.argv[4])
cells, worst = [], 0.0
for t in sorted(ref):
    d = run[t][0] - ref[t][0]
    z = d / math.hypot(run[t][1], ref[t][1])
    worst = max(worst, abs(z))
    if t in (1, 2, 5, sweeps):
        cells.append(f"t={t}: {d:+.4f} ({z:+5.1f})")
print(f"{sys.argv[3]:<28} " + "  ".join(cells) + f"  max|z| {worst:.1f}")
EOF
}

name=$("$clmc" devices 2>/dev/null | grep -i -m1 "$device" || "$clmc" devices 2>/dev/null | head -1)
echo "# dead_border energy per site minus sequential_reference after a quench, L = $L, $copies copies, seed $seed: $name"
for beta in ${BETAS:-0.3 0.4406868 0.6}; do
  run "ref-$beta" "$beta" '{"layout": "random_site", "random_site": "sequential_reference"}'
  for tile in ${TILES:-8 16}; do
    for shift in ${SHIFTS:-1 4}; do
      run "db-$beta-$tile-$shift" "$beta" \
        "{\"layout\": \"random_site\", \"random_site\": \"dead_border\", \"tile\": $tile, \"shift_every\": $shift}"
      compare "ref-$beta" "db-$beta-$tile-$shift" "beta $beta tile $tile shift $shift"
    done
  done
done
