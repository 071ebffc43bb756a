#!/usr/bin/env bash
# Runs the test suite built with AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer (meson -Db_sanitize=address,undefined) in its own
# build directory, suite by suite; the clmc processes the tests start
# (CLMC_BIN) are the sanitized binary of that directory.  Leaks inside PoCL,
# the OpenCL ICD loader, LLVM and Criterion are suppressed (tools/lsan.supp);
# nothing of clmc's own code is.  A suite fails on any sanitizer report.
# The host code runs about twice as slowly (the kernels, compiled by PoCL,
# are not instrumented); run it suite by suite on a shared machine; meson's
# timeouts are multiplied by CLMC_SANITIZE_TIMEOUT_MULTIPLIER (default 3).
# Usage: tools/sanitize.sh [BUILD_DIR (default build-asan)] [SUITE...]
#   e.g. tools/sanitize.sh build-asan checkpoint preset
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-asan}"
shift || true
if [ ! -d "$build" ]; then
  meson setup "$build" -Dtests=true -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
ninja -C "$build" || exit 1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/$build/test-cache/pocl}"
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  suites=(preset stats exact rng_host checkpoint_format rng_device ising2d ising3d tempering cli ea labeling potts
          hard_disks heisenberg heisenberg_glass bench checkpoint tempering_table tempering_device)
fi
failed=()
for suite in "${suites[@]}"; do
  start=$(date +%s)
  log="$build/sanitize-$suite.log"
  meson test -C "$build" --print-errorlogs --no-rebuild -t "${CLMC_SANITIZE_TIMEOUT_MULTIPLIER:-3}" "$suite" >"$log" 2>&1
  status=$?
  cat "$build/meson-logs/testlog.txt" >>"$log" # the tests' own output (Criterion's synthesis)
  tested=$(grep -oE "Tested: [0-9]+ \| Passing: [0-9]+ \| Failing: [0-9]+ \| Crashing: [0-9]+" "$log" | tail -1)
  if [ $status -eq 0 ] && ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$log"; then
    echo "sanitize: $suite clean ($(( $(date +%s) - start )) s; ${tested:-no Criterion synthesis})"
  else
    echo "sanitize: $suite FAILED ($(( $(date +%s) - start )) s; ${tested:-}; see $log)"
    grep -E -A12 "ERROR: (Address|Leak)Sanitizer|runtime error:" "$log" | head -60
    failed+=("$suite")
  fi
done
[ ${#failed[@]} -eq 0 ] && echo "sanitize: all ${#suites[@]} suites clean" && exit 0
echo "sanitize: failed: ${failed[*]}"
exit 1
