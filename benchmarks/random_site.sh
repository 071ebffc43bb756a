#!/usr/bin/env bash
# Random-site dynamics of the 2D Ising model (issue 23): attempted updates per
# second per variant at L = 4096 (one system; `copies` also with 16 copies;
# double_tiling and dead_border with tiles 16 and 64)
# and at L = 64 with many copies, beside the checkerboard (tiled, hits 1) at
# the same sizes, the target the issue sets (within 2x); then the q = 3 Potts
# model at L = 64 with many copies (copies layout, Metropolis and heat bath,
# beside the checkerboard Metropolis) at beta_c = ln(1 + sqrt 3).  Each line: the
# point, copies x L, attempts (updates) per second, ps per attempt.
# Usage: benchmarks/random_site.sh DEVICE   (a few minutes on an H100/H200)
# Sizes: BIG (default 4096), SMALL (default 64), MANY (default "4096 65536",
# copies at SMALL), SUBSTEPS_BIG (default 256: steps of N/256 attempts at
# BIG, since one work-item per copy runs a sweep serially).
# Smoke test on PoCL: BIG=128 SMALL=16 MANY="64" SUBSTEPS_BIG=4 benchmarks/random_site.sh pocl
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=${BIG:-4096} small=${SMALL:-64} substeps_big=${SUBSTEPS_BIG:-256}

# point NAME L COPIES ALGORITHM_JSON STEPS [MODEL_TYPE: ising (default) or potts]
point() {
  local name=$1 L=$2 copies=$3 algorithm=$4 steps=$5 model=${6:-ising}
  local extra="" beta=0.4406868
  [ "$model" = potts ] && extra=', "q": 3' beta=1.0050525
  cat > "$work/$name.json" <<EOF
{"name": "$name", "model": {"type": "$model", "dim": 2, "L": $L$extra}, "algorithm": $algorithm,
 "ensemble": {"type": "independent", "betas": [$beta], "copies": $copies},
 "run": {"thermalization": 0, "sweeps": $steps, "measure_every": $steps}}
EOF
  if "$clmc" bench "$work/$name.json" --devices "$device" --quiet --repetitions 3 --json "$work/$name.out.json" \
       >/dev/null 2>"$work/$name.err"; then
    python3 - "$work/$name.out.json" "$name" "$copies" "$L" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
ns = d["metrics"]["ns_per_update"]["value"]
print(f"{sys.argv[2]:<34} {sys.argv[3]:>7} x L={sys.argv[4]:<5} {1e9 / ns:12.4g} attempts/s {ns * 1e3:12.3f} ps/attempt  ({d['device']['name']})")
EOF
  else
    echo "$name: failed: $(tail -1 "$work/$name.err")"
  fi
}

rs() { echo "{\"layout\": \"random_site\", \"random_site\": \"$1\", \"substeps\": $2}"; }
checkerboard='{"layout": "tiled", "hits": 1}'
point "checkerboard-tiled-L$big" "$big" 1 "$checkerboard" 20
point "sequential_reference-L$big" "$big" 1 "$(rs sequential_reference "$substeps_big")" 4
point "copies-L$big-x1" "$big" 1 "$(rs copies "$substeps_big")" 4
point "copies-L$big-x16" "$big" 16 "$(rs copies "$substeps_big")" 4
point "double_tiling-L$big-tile16" "$big" 1 '{"layout": "random_site", "random_site": "double_tiling", "tile": 16}' 20
point "double_tiling-L$big-tile64" "$big" 1 '{"layout": "random_site", "random_site": "double_tiling", "tile": 64}' 20
point "dead_border-L$big-tile16" "$big" 1 '{"layout": "random_site", "random_site": "dead_border", "tile": 16}' 20
point "dead_border-L$big-tile64" "$big" 1 '{"layout": "random_site", "random_site": "dead_border", "tile": 64}' 20
for copies in ${MANY:-4096 65536}; do
  point "checkerboard-tiled-L$small" "$small" "$copies" "$checkerboard" 20
  point "sequential_reference-L$small" "$small" "$copies" "$(rs sequential_reference 1)" 20
  point "copies-L$small" "$small" "$copies" "$(rs copies 1)" 20
done
for copies in ${MANY:-4096 65536}; do
  point "potts3-checkerboard-L$small" "$small" "$copies" '{"type": "metropolis"}' 20 potts
  point "potts3-copies-metropolis-L$small" "$small" "$copies" \
    '{"type": "metropolis", "layout": "random_site", "random_site": "copies"}' 20 potts
  point "potts3-copies-heatbath-L$small" "$small" "$copies" \
    '{"type": "heatbath", "layout": "random_site", "random_site": "copies"}' 20 potts
done
