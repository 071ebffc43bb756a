#!/usr/bin/env bash
# Random-site dynamics of the Ising model (issue 23): attempted updates per
# second per variant, beside the checkerboard (tiled, hits 1) at the same
# size, the target the issue sets (within 2x).  2D at L = BIG (one system;
# `copies` also with 16 copies; double_tiling and dead_border with tiles 16,
# 32 and 64 in local memory and tile 32 in global memory, algorithm.tile_memory),
# 3D at L = BIG3 (dead_border and double_tiling tiles 16 and 32, local), and
# L = SMALL with many copies; then the q = 3 Potts model at L = SMALL with
# many copies (copies layout, Metropolis and heat bath, beside the
# checkerboard Metropolis) at beta_c = ln(1 + sqrt 3).  Each line: the
# point, copies x L, attempts (updates) per second, ps per attempt, the
# device.  A point whose tiles do not fit the device's local memory prints
# "failed" with clmc's message.
# CASES=waves: only the comparison of serial tiles with parallel attempts in
# waves (algorithm.tile_workers, docs/models/ising.md "Parallel attempts in
# waves"): dead_border and double_tiling at L = BIG, tiles 8, 16, 32, local
# memory, tile_workers 1 (serial), 4, 8, 16 and auto; 3D at L = BIG3, tiles 8
# and 16, tile_workers 1, 8, 16 and auto; the checkerboard (tiled, hits 1) at
# both sizes.  CASES=registers: only tiles as bits in private memory
# against local and global memory (algorithm.tile_memory private / local /
# global, docs/models/ising.md "Tiles in registers"): dead_border and
# double_tiling at L = BIG, tiles 8, 16, 32; 3D at L = BIG3, dead_border
# tiles 4, 8, 10, double_tiling tiles 8, 12, 16 (those dividing BIG3: with
# the default 256 not 10 and 12, BIG3=240 runs them); the checkerboard (tiled,
# hits 1) at both sizes in the same run, and each variant's ratio to it.
# CASES=copies: only copies (global and local memory) at L = SMALL against
# the checkerboard at the same number of copies, MANY default 2^20, 2^21,
# 2^22 (the device filled further than the default list's 2^20).
# CASES=all (default): everything, waves and registers included (not copies).
# Usage: benchmarks/random_site.sh DEVICE   (a few minutes on an H100/H200;
#        sources tools/gpu-env.sh unless NO_GPU_ENV is set, builds build/ if
#        it has no clmc)
#        CASES=waves benchmarks/random_site.sh DEVICE   (the waves only)
#        CASES=registers benchmarks/random_site.sh DEVICE   (private against local and global only)
# Sizes: BIG (default 4096), BIG3 (default 256), SMALL (default 64), MANY
# (default "65536 262144 1048576", copies at SMALL; `copies` with
# algorithm.copies_memory "local", packed in local memory, and "global"),
# POTTS_MANY (default "4096 65536", Potts copies at SMALL), SUBSTEPS_BIG
# (default 256: steps of N/256 attempts at BIG, since one work-item per copy
# runs a sweep serially).
# Smoke test on PoCL: NO_GPU_ENV=1 BIG=128 BIG3=32 SMALL=16 MANY="64" POTTS_MANY="64" SUBSTEPS_BIG=4 benchmarks/random_site.sh pocl
#   (waves only: NO_GPU_ENV=1 CASES=waves BIG=64 BIG3=32 benchmarks/random_site.sh pocl)
#   (registers only: NO_GPU_ENV=1 CASES=registers BIG=64 BIG3=48 benchmarks/random_site.sh pocl)
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1
[ -n "${NO_GPU_ENV:-}" ] || source tools/gpu-env.sh
clmc=${CLMC:-build/clmc}
[ -x "$clmc" ] || { meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=${BIG:-4096} big3=${BIG3:-256} small=${SMALL:-64} substeps_big=${SUBSTEPS_BIG:-256} cases=${CASES:-all}
case $cases in all|waves|registers|copies) ;; *) echo "CASES: all, waves, registers or copies, got \"$cases\"" >&2; exit 2 ;; esac

# point NAME L COPIES ALGORITHM_JSON STEPS [DIM, default 2] [BETA] [MODEL_TYPE: ising (default) or potts]
point() {
  local name=$1 L=$2 copies=$3 algorithm=$4 steps=$5 dim=${6:-2} beta=${7:-0.4406868} model=${8:-ising}
  local extra=""
  [ "$model" = potts ] && extra=', "q": 3'
  cat > "$work/$name.json" <<EOF
{"name": "$name", "model": {"type": "$model", "dim": $dim, "L": $L$extra}, "algorithm": $algorithm,
 "ensemble": {"type": "independent", "betas": [$beta], "copies": $copies},
 "run": {"thermalization": 0, "sweeps": $steps, "measure_every": $steps}}
EOF
  if "$clmc" bench "$work/$name.json" --devices "$device" --quiet --repetitions 3 --json "$work/$name.out.json" \
       >/dev/null 2>"$work/$name.err"; then
    python3 - "$work/$name.out.json" "$name" "$copies" "$L" "${reference_ps:-}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
ns = d["metrics"]["ns_per_update"]["value"]
ratio = f"  {ns * 1e3 / float(sys.argv[5]):5.2f}x checkerboard" if sys.argv[5] else ""
print(f"{sys.argv[2]:<34} {sys.argv[3]:>7} x L={sys.argv[4]:<5} {1e9 / ns:12.4g} attempts/s {ns * 1e3:12.3f} ps/attempt{ratio}  ({d['device']['name']})")
EOF
  else
    echo "$name: failed: $(tail -1 "$work/$name.err")"
  fi
}

rs() { echo "{\"layout\": \"random_site\", \"random_site\": \"$1\", \"substeps\": $2${3:-}}"; }
checkerboard='{"layout": "tiled", "hits": 1}'
# tiled VARIANT TILE MEMORY [WORKERS]: the algorithm of a tiled random-site variant (WORKERS: algorithm.tile_workers)
tiled() {
  echo "{\"layout\": \"random_site\", \"random_site\": \"$1\", \"tile\": $2, \"tile_memory\": \"$3\", \"tile_workers\": ${4:-0}}"
}

# Serial tiles against waves (issue 23's target: within 2x of the checkerboard).
waves() {
  point "checkerboard-tiled-L$big" "$big" 1 "$checkerboard" 20
  for variant in dead_border double_tiling; do
    for tile in 8 16 32; do
      for workers in 1 4 8 16 0; do
        point "$variant-L$big-tile$tile-workers$workers" "$big" 1 "$(tiled "$variant" "$tile" local "$workers")" 20
      done
    done
  done
  point "checkerboard-tiled-3d-L$big3" "$big3" 1 "$checkerboard" 20 3 0.2216544
  for variant in dead_border double_tiling; do
    for tile in 8 16; do
      for workers in 1 8 16 0; do
        point "$variant-3d-L$big3-tile$tile-workers$workers" "$big3" 1 "$(tiled "$variant" "$tile" local "$workers")" 20 3 0.2216544
      done
    done
  done
  echo "# workers0 = auto; workers1 = one serial chain per tile (the kernel before the waves)"
}
# ps per update of the point just run (for the ratios of `registers`).
last_ps() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["devices"][0]["metrics"]["ns_per_update"]["value"] * 1e3)' \
    "$work/$1.out.json" 2>/dev/null || true
}

# Tiles in registers (tile_memory private) against local and global memory, beside the checkerboard.
registers() {
  reference_ps=""
  point "checkerboard-tiled-L$big" "$big" 1 "$checkerboard" 20
  reference_ps=$(last_ps "checkerboard-tiled-L$big")
  for variant in dead_border double_tiling; do
    for tile in 8 16 32; do
      for memory in private local global; do
        point "$variant-L$big-tile$tile-$memory" "$big" 1 "$(tiled "$variant" "$tile" "$memory" 1)" 20
      done
    done
  done
  reference_ps=""
  point "checkerboard-tiled-3d-L$big3" "$big3" 1 "$checkerboard" 20 3 0.2216544
  reference_ps=$(last_ps "checkerboard-tiled-3d-L$big3")
  for case in "dead_border 4" "dead_border 8" "dead_border 10" "double_tiling 8" "double_tiling 12" "double_tiling 16"; do
    set -- $case
    [ $((big3 % $2)) -eq 0 ] || continue
    for memory in private local global; do
      point "$1-3d-L$big3-tile$2-$memory" "$big3" 1 "$(tiled "$1" "$2" "$memory" 1)" 20 3 0.2216544
    done
  done
  reference_ps=""
  echo "# tile_workers 1 throughout (one serial chain per tile); ratios: ps per attempt over the checkerboard's at the same L"
}
if [ "$cases" = waves ]; then
  waves
  exit 0
fi
if [ "$cases" = registers ]; then
  registers
  exit 0
fi
if [ "$cases" = copies ]; then # copies at L = SMALL against the checkerboard at the same copies (MANY)
  for copies in ${MANY:-1048576 2097152 4194304}; do
    point "checkerboard-tiled-L$small" "$small" "$copies" "$checkerboard" 20
    reference_ps=$(last_ps "checkerboard-tiled-L$small")
    point "copies-global-L$small" "$small" "$copies" "$(rs copies 1 ', "copies_memory": "global"')" 20
    point "copies-local-L$small" "$small" "$copies" "$(rs copies 1 ', "copies_memory": "local"')" 20
    reference_ps=
  done
  exit 0
fi
point "checkerboard-tiled-L$big" "$big" 1 "$checkerboard" 20
point "sequential_reference-L$big" "$big" 1 "$(rs sequential_reference "$substeps_big")" 4
point "copies-L$big-x1" "$big" 1 "$(rs copies "$substeps_big")" 4
point "copies-L$big-x16" "$big" 16 "$(rs copies "$substeps_big")" 4
for variant in double_tiling dead_border; do
  for tile in 16 32 64; do
    point "$variant-L$big-tile$tile-local" "$big" 1 "$(tiled "$variant" "$tile" local)" 20
  done
  point "$variant-L$big-tile32-global" "$big" 1 "$(tiled "$variant" 32 global)" 20
done
# 3D at the critical point (beta_c = 0.2216544).
point "checkerboard-tiled-3d-L$big3" "$big3" 1 "$checkerboard" 20 3 0.2216544
for variant in double_tiling dead_border; do
  for tile in 16 32; do
    point "$variant-3d-L$big3-tile$tile-local" "$big3" 1 "$(tiled "$variant" "$tile" local)" 20 3 0.2216544
  done
done
for copies in ${MANY:-65536 262144 1048576}; do
  point "checkerboard-tiled-L$small" "$small" "$copies" "$checkerboard" 20
  point "sequential_reference-L$small" "$small" "$copies" "$(rs sequential_reference 1)" 20
  point "copies-local-L$small" "$small" "$copies" "$(rs copies 1 ', "copies_memory": "local"')" 20
  point "copies-global-L$small" "$small" "$copies" "$(rs copies 1 ', "copies_memory": "global"')" 20
done
potts_beta=1.0050525 # beta_c of q = 3
for copies in ${POTTS_MANY:-4096 65536}; do
  point "potts3-checkerboard-L$small" "$small" "$copies" '{"type": "metropolis"}' 20 2 "$potts_beta" potts
  point "potts3-copies-metropolis-L$small" "$small" "$copies" \
    '{"type": "metropolis", "layout": "random_site", "random_site": "copies"}' 20 2 "$potts_beta" potts
  point "potts3-copies-heatbath-L$small" "$small" "$copies" \
    '{"type": "heatbath", "layout": "random_site", "random_site": "copies"}' 20 2 "$potts_beta" potts
done
waves
registers
