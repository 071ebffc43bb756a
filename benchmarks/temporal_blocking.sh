#!/usr/bin/env bash
# Temporal blocking (issue 19 item 2; algorithm.sweeps_per_launch and algorithm.block,
# docs/models/ising.md#temporal-blocking-several-sweeps-per-launch): one 2D Ising system at
# L = 1024, 2048, 4096 and 16384 (beta_c), ps per spin update of
#   - naive, ordinary kernels (k = 0: one launch per colour per sweep),
#   - naive, temporally blocked with k = 1, 2, 4, 8 sweeps per launch and blocks of 32 and 64,
#   - tiled (hits 1, default tile) and msc (algorithm.resident "off"), ordinary kernels, for
#     comparison, and msc with the defaults (on a GPU temporal blocking chosen automatically for
#     L = 256 ... 16384),
#   - tiled, temporally blocked (TILED_KS, default k = 2, 4; TILED_BLOCKS, default 64),
#   - msc, temporally blocked (bands of whole rows): k = 1, 2, 4, 8 and bands of 4, 8 and 12 rows.
# Each point: the update kernels' device time per update from `clmc bench` (median of 3
# repetitions) and, from one `clmc run` of the same sweeps measured once at the end, the
# wall time of the sweep loop per update and the run's kernel time per update, their ratio,
# and for blocked runs the sweeps per launch and work-group size (performance.temporal_blocking).
# Issue 19's target: within 1.5x of the L = 16384 figure (tiled 2.76 ps, msc 0.75 ps on an H100).
# A box that does not fit the device's local memory prints "failed" with clmc's message.
# Usage (on the GPU machine, from the repository root; a few minutes on an H100):
#   benchmarks/temporal_blocking.sh [DEVICE] [OUT_DIR]
# DEVICE defaults to "nvidia", OUT_DIR to out/temporal-blocking (report.txt there).
# SIZES, KS, BLOCKS, TILED_KS, TILED_BLOCKS, MSC_KS, MSC_BLOCKS override the lists, LAYOUTS (default "naive tiled msc") the
# layouts, MSC_MORE more keys of the msc blocked points' algorithm (e.g. ', "update_group": 128');
# UPDATES_LOG2 (default 32) the updates per point
# (sweeps = 2^UPDATES_LOG2 / L^2, 16 .. 2048).
# Smoke test on PoCL: CLMC=build/clmc SIZES="128" KS="1 2" BLOCKS="32" UPDATES_LOG2=18 \
#   benchmarks/temporal_blocking.sh pocl /tmp/tblock
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -n ${CLMC:-} ]] || source tools/gpu-env.sh
device=${1:-nvidia} out=${2:-out/temporal-blocking}
if [[ -z ${CLMC:-} ]]; then
  [[ -d build ]] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null
fi
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
: > "$out/report.txt"
read -r -a sizes <<<"${SIZES:-1024 2048 4096 16384}"
read -r -a ks <<<"${KS:-1 2 4 8}"
read -r -a blocks <<<"${BLOCKS:-32 64}"
read -r -a msc_ks <<<"${MSC_KS:-1 2 4 8}"
read -r -a msc_blocks <<<"${MSC_BLOCKS:-4 8 12}"
layouts=${LAYOUTS:-naive tiled msc}

# point NAME L SWEEPS ALGORITHM_JSON
point() {
  local name=$1 L=$2 sweeps=$3 algorithm=$4
  cat > "$out/$name.json" <<EOF
{"name": "$name", "model": {"type": "ising", "dim": 2, "L": $L}, "algorithm": $algorithm,
 "ensemble": {"beta": 0.4406868},
 "run": {"thermalization": 0, "sweeps": $sweeps, "measure_every": $sweeps, "seed": 1}}
EOF
  if ! "$clmc" bench "$out/$name.json" --devices "$device" --quiet --repetitions 3 --json "$out/$name.bench.json" \
       >/dev/null 2>"$out/$name.err" ||
     ! "$clmc" run "$out/$name.json" --device "$device" --quiet --overwrite --out "$out/$name" 2>>"$out/$name.err"; then
    echo "$name: failed: $(tail -1 "$out/$name.err")" | tee -a "$out/report.txt"
    return
  fi
  python3 - "$out/$name.bench.json" "$out/$name/result.json" "$name" <<'PY' | tee -a "$out/report.txt"
import json, sys
bench = json.load(open(sys.argv[1]))["devices"][0]
run = json.load(open(sys.argv[2]))
p = run["performance"]
kernel_bench = 1e3 * bench["metrics"]["ns_per_update"]["value"]
wall = 1e12 * p["wall_seconds"] / p["updates"]
blocked = p.get("temporal_blocking", {})
how = (f"; {blocked['sweeps_per_launch']:.2f} sweeps per launch, block {blocked['block']}, halo {blocked['halo']}, "
       f"{blocked['work_group']} items per group{', planes' if blocked.get('planes') else ''}"
       if blocked.get("used") else "")
print(f"{sys.argv[3]:<26} bench kernel {kernel_bench:8.3f} ps/update | run: wall {wall:8.3f} ps/update, kernel "
      f"{1e3 * p['ns_per_update']:8.3f}, wall/kernel {p['wall_seconds'] / p['seconds']:5.2f}{how}  ({bench['device']['name']})")
PY
}

# blocked LAYOUT K BLOCK [MORE]: the algorithm object of a temporally blocked point
blocked() {
  echo "{\"layout\": \"$1\", \"sweeps_per_launch\": $2, \"block\": $3${4:-}}"
}

for L in "${sizes[@]}"; do
  sweeps=$(( (1 << ${UPDATES_LOG2:-32}) / (L * L) ))
  (( sweeps < 16 )) && sweeps=16
  (( sweeps > 2048 )) && sweeps=2048
  echo "# L = $L, $sweeps sweeps per point" | tee -a "$out/report.txt"
  if [[ " $layouts " == *" naive "* ]]; then
    point "naive-L$L-k0" "$L" "$sweeps" '{"layout": "naive", "resident": "off"}'
    for block in "${blocks[@]}"; do
      for k in "${ks[@]}"; do
        point "naive-L$L-k$k-b$block" "$L" "$sweeps" "$(blocked naive "$k" "$block")"
      done
    done
  fi
  if [[ " $layouts " == *" tiled "* ]]; then
    point "tiled-L$L" "$L" "$sweeps" '{"layout": "tiled", "hits": 1, "resident": "off"}'
    for block in ${TILED_BLOCKS:-64}; do
      for k in ${TILED_KS:-2 4}; do
        point "tiled-L$L-k$k-b$block" "$L" "$sweeps" "$(blocked tiled "$k" "$block" ', "hits": 1')"
      done
    done
  fi
  if [[ " $layouts " == *" msc "* ]]; then
    point "msc-L$L" "$L" "$sweeps" '{"layout": "msc", "resident": "off"}'
    point "msc-L$L-auto" "$L" "$sweeps" '{"layout": "msc"}'
    for rows in "${msc_blocks[@]}"; do
      for k in "${msc_ks[@]}"; do
        point "msc-L$L-k$k-b$rows" "$L" "$sweeps" "$(blocked msc "$k" "$rows" "${MSC_MORE:-}")"
      done
    done
  fi
done
