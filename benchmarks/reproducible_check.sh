#!/usr/bin/env bash
# Reproducible float models on one device (docs/reproducibility.md):
# (1) each tiny preset of tools/reproducible_cases.sh in reproducible mode,
#     printing the sha256 of its series.csv and, where the model reports it,
#     the final spins' checks.configuration_fnv1a (population annealing has
#     no series rows) (compare with PoCL's, printed by
#     tools/oclgrind_reproducible.sh, or here when PoCL is on this machine:
#     then the whole output is compared, tools/reproducible_compare.py);
# (2) the cost of the mode: `clmc bench` of the float bench presets with
#     algorithm.reproducible false and true (fast_math false), ns per
#     update and the cost in %.
# Usage: benchmarks/reproducible_check.sh DEVICE   (e.g. nvidia; a few minutes)
# SMOKE=1 shrinks the bench presets for a quick check of the script on PoCL.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
device=${1:?usage: benchmarks/reproducible_check.sh DEVICE}
clmc=${CLMC:-build/clmc}
export CLMC_KERNEL_DIR="${CLMC_KERNEL_DIR:-$PWD/cl}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tools/reproducible_cases.sh
. tools/reproducible_cases.sh
"$clmc" devices | grep -i -- "$device" | head -1
have_pocl=0
"$clmc" devices | grep -qi "portable computing language" && [[ "$device" != *pocl* ]] && have_pocl=1

echo "== reproducible mode: sha256 of series.csv on $device"
for entry in "${repro_cases[@]}"; do
  IFS='|' read -r name preset <<<"$entry"
  printf '%s\n' "$preset" >"$work/$name.json"
  if ! "$clmc" run "$work/$name.json" --set algorithm.reproducible=true --device "$device" --out "$work/$name" \
    --quiet >"$work/$name.log" 2>&1; then
    echo "$name: run failed"; tail -3 "$work/$name.log"; continue
  fi
  line="$name $(sha256sum <"$work/$name/series.csv" | cut -c1-64)$(repro_spins_hash "$work/$name")"
  if [ $have_pocl = 1 ] && "$clmc" run "$work/$name.json" --set algorithm.reproducible=true --device pocl \
    --out "$work/$name-pocl" --quiet >/dev/null 2>&1; then
    if python3 tools/reproducible_compare.py "$work/$name" "$work/$name-pocl" >"$work/$name.cmp"; then
      line="$line (= PoCL)"
    else
      line="$line (DIFFERS from PoCL: $(tr -s ' \n' ' ' <"$work/$name.cmp"))"
    fi
  fi
  echo "$line"
done

echo "== cost of reproducible mode on $device (clmc bench, ns per update, median of 5 blocks)"
if [ "${SMOKE:-0}" = 1 ]; then
  disks=(--set model.N=4096 --set run.sweeps=10 --set run.measure_every=5) heis2d=(--set model.L=64)
  heis3d=(--set model.L=16) glass=(--set model.L=16 --set run.sweeps=10)
else
  disks=() heis2d=() heis3d=(--set model.L=128) glass=()
fi
heis2d+=(--set algorithm.fast_math=false) # the 2D bench preset's fast_math would exclude reproducible
benches=(
  "hard-disks-N1024|presets/bench-hard-disks-N1024.json ${disks[*]}"
  "heisenberg2d-L4096-metropolis-hits100|presets/bench-heisenberg2d-L4096-hits100.json ${heis2d[*]}"
  "heisenberg2d-L4096-heatbath-hits100|presets/bench-heisenberg2d-L4096-hits100.json --set algorithm.type=heatbath ${heis2d[*]}"
  "xy2d-L4096-heatbath-hits100|presets/bench-heisenberg2d-L4096-hits100.json --set algorithm.type=heatbath --set model.n=2 ${heis2d[*]}"
  "heisenberg3d-L128-heatbath-or3|presets/heisenberg3d-critical.json --set run.thermalization=0 --set run.sweeps=50 --set run.measure_every=10 ${heis3d[*]}"
  "glass3d-L128-overrelaxation|presets/heisenberg-glass3d-L128.json ${glass[*]}"
  "glass3d-L128-heatbath|presets/heisenberg-glass3d-L128.json --set algorithm.type=heatbath ${glass[*]}"
)
ns() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['devices'][0]['metrics']['ns_per_update']['value'])" "$1"; }
printf '%-40s %14s %14s %8s\n' bench "ns default" "ns reproducible" "cost"
for entry in "${benches[@]}"; do
  IFS='|' read -r name args <<<"$entry"
  for mode in false true; do
    # shellcheck disable=SC2086 # args is a list of words
    "$clmc" bench $args --set algorithm.reproducible=$mode --devices "$device" \
      --json "$work/$name-$mode.bench.json" >"$work/$name-$mode.bench.log" 2>&1 \
      || { echo "$name: bench failed (reproducible $mode)"; tail -3 "$work/$name-$mode.bench.log"; }
  done
  if [ -f "$work/$name-false.bench.json" ] && [ -f "$work/$name-true.bench.json" ]; then
    a=$(ns "$work/$name-false.bench.json") b=$(ns "$work/$name-true.bench.json")
    printf '%-40s %14.4f %14.4f %+7.1f%%\n' "$name" "$a" "$b" "$(python3 -c "print(100 * ($b / $a - 1))")"
  fi
done
