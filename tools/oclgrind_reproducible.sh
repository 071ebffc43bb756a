#!/usr/bin/env bash
# Reproducible mode (algorithm.reproducible, docs/reproducibility.md) across
# two OpenCL implementations: each tiny preset of tools/reproducible_cases.sh
# runs on PoCL (optimised, the device's correctly rounded division and sqrt)
# and on Oclgrind (-cl-opt-disable, which lacks them: the integer paths of
# cl/common/repro_math.h), and series.csv, configuration.csv and the final
# checkpoint's state must be equal bit for bit (tools/reproducible_compare.py).
# The guard: the same presets in the default mode must differ somewhere, or
# the comparison could not see a difference (they run until the first
# difference; CLMC_LONG_TESTS=1 runs every case in the default mode too).  Prints PoCL's sha256 of every
# series.csv (and the final spins' configuration_fnv1a where reported), to compare with a GPU's
# (benchmarks/reproducible_check.sh).
# About a minute on 2 busy cores.
# Usage: tools/oclgrind_reproducible.sh [BUILD_DIR, default build] [CASE...]
set -uo pipefail
cd "$(dirname "$0")/.." || exit
build="${1:-build}"
shift $(($# > 0 ? 1 : 0))
command -v oclgrind >/dev/null || { echo "reproducible check: oclgrind not installed; skipped"; exit 77; }
bin="$PWD/$build/clmc"
[ -x "$bin" ] || bin="$build/clmc"
export CLMC_KERNEL_DIR="${CLMC_KERNEL_DIR:-$PWD/cl}"
unset CLMC_DEVICE
# shellcheck source=tools/reproducible_cases.sh
. tools/reproducible_cases.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/clmc-reproducible.XXXXXX")
failures=0 fast_differences=0 default_runs=0

run_both() { # name preset mode: PoCL and Oclgrind runs (side by side) into $work/NAME-MODE-{pocl,oclgrind}
  printf '%s\n' "$2" >"$work/$1.json"
  local out="$work/$1-$3" set=(--set "algorithm.reproducible=$([ "$3" = reproducible ] && echo true || echo false)")
  "$bin" run "$work/$1.json" "${set[@]}" --device pocl --out "$out-pocl" --quiet >"$out-pocl.log" 2>&1 &
  local pocl=$!
  CLMC_NO_CACHE=1 CLMC_BUILD_OPTIONS=-cl-opt-disable oclgrind "$bin" run "$work/$1.json" "${set[@]}" \
    --device oclgrind --out "$out-oclgrind" --quiet >"$out-oclgrind.log" 2>&1
  local simulated=$?
  wait "$pocl" && [ $simulated -eq 0 ]
}

for entry in "${repro_cases[@]}"; do
  IFS='|' read -r name preset <<<"$entry"
  [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
  start=$SECONDS
  if ! run_both "$name" "$preset" reproducible; then
    echo "reproducible check: $name: a run failed"; tail -5 "$work/$name-reproducible-"*.log; failures=$((failures + 1))
    continue
  fi
  hash=$(sha256sum <"$work/$name-reproducible-pocl/series.csv" | cut -c1-64)$(repro_spins_hash "$work/$name-reproducible-pocl")
  if python3 tools/reproducible_compare.py "$work/$name-reproducible-pocl" "$work/$name-reproducible-oclgrind"; then
    echo "reproducible check: $name: PoCL = Oclgrind, series.csv sha256 $hash ($((SECONDS - start)) s)"
  else
    echo "reproducible check: $name: PoCL and Oclgrind differ"; failures=$((failures + 1))
  fi
  [ $fast_differences -gt 0 ] && [ "${CLMC_LONG_TESTS:-}" != 1 ] && continue # the guard has its difference
  default_runs=$((default_runs + 1))
  if run_both "$name" "$preset" default; then
    python3 tools/reproducible_compare.py "$work/$name-default-pocl" "$work/$name-default-oclgrind" >/dev/null \
      || fast_differences=$((fast_differences + 1))
  fi
done
echo "reproducible check: the default mode differs between PoCL and Oclgrind in $fast_differences of the $default_runs case(s) run in it"
if [ $# -eq 0 ] && [ $fast_differences -eq 0 ]; then
  echo "reproducible check: guard failed: no difference in the default mode, so the comparison proves nothing"
  failures=$((failures + 1))
fi
[ $failures -eq 0 ] && rm -rf "$work"
[ $failures -eq 0 ] || echo "reproducible check: $failures failure(s); runs in $work"
exit $((failures > 0))
