#!/usr/bin/env bash
# Cold cost of test suites, one at a time: for each suite named, empties the
# program caches (build/test-cache), runs `meson test` on it under nice and
# prints wall and CPU seconds (user + sys of the whole process tree) and the
# program builds it needed: clmc's cache entries (one per distinct kernel
# source and -D options) and PoCL's compiled kernels (.so, one per kernel and
# work-group size).  CPU seconds are the figure to compare on a shared machine.
# Each suite's builds (kernel file, -D options, from source or the cache,
# seconds: $CLMC_BUILD_TRACE) go to BUILD_DIR/suite-cost/SUITE.tsv, its test log
# to SUITE.log.
# Usage: tools/suite_cost.sh [BUILD_DIR] SUITE...   (BUILD_DIR defaults to build)
set -uo pipefail
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1; shift; fi
[ $# -gt 0 ] || { echo "usage: tools/suite_cost.sh [BUILD_DIR] SUITE..." >&2; exit 2; }
printf '%-24s %4s %8s %8s %9s %8s\n' suite rc wall_s cpu_s programs pocl_so
mkdir -p "$build/suite-cost"
traces=$(cd "$build/suite-cost" && pwd)
for suite in "$@"; do
  rm -rf "$build/test-cache"
  rm -f "$build/suite-cost/$suite.tsv"
  times=$(mktemp)
  /usr/bin/time -f '%e %U %S' -o "$times" env CLMC_BUILD_TRACE="$traces/$suite.tsv" nice meson test -C "$build" "$suite" >/dev/null 2>&1
  rc=$?
  read -r wall user sys < "$times"
  rm -f "$times"
  cp "$build/meson-logs/testlog.txt" "$traces/$suite.log" 2>/dev/null
  programs=$(find "$build/test-cache/clmc" -name '*.bin' 2>/dev/null | wc -l)
  so=$(find "$build/test-cache/pocl" -name '*.so' 2>/dev/null | wc -l)
  printf '%-24s %4s %8s %8.1f %9s %8s\n' "$suite" "$rc" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$programs" "$so"
done
