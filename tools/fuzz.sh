#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer (LeakSanitizer included) and runs each for a
# fixed time on its checked-in corpus (tests/fuzz/corpus/<target>/).
# Usage: tools/fuzz.sh [SECONDS per target, default $CLMC_FUZZ_SECONDS or 10] [BUILD_DIR, default build]
# Exit 77 (a skip for meson test) when clang is missing (a failure with -Dfuzz=enabled)
# or with -Dfuzz=disabled.  Longer runs: CLMC_FUZZ_SECONDS=600 meson test -C build fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${CLMC_FUZZ_SECONDS:-10}}"
build="${2:-build}"
clang="${CLANG:-clang}"
if [ "${CLMC_FUZZ_OPTION:-auto}" = disabled ]; then echo "fuzz: skipped (-Dfuzz=disabled)"; exit 77; fi
if ! command -v "$clang" >/dev/null; then
  echo "fuzz: $clang not found (tools/setup.sh installs clang)"
  [ "${CLMC_FUZZ_OPTION:-auto}" = enabled ] && exit 1
  echo "fuzz: skipped"
  exit 77
fi
version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" meson.build | head -1)
out="$build/fuzz"
mkdir -p "$out/obj"
flags=(-g -O1 -std=c11 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
       -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 "-DCLMC_VERSION=\"$version\""
       "-DCLMC_SOURCE_KERNEL_DIR=\"$PWD/cl\"" "-DCLMC_INSTALL_KERNEL_DIR=\"/usr/share/clmc/cl\""
       -Iinclude -Isrc -Icl -Wno-unknown-pragmas)
# The library's sources: not the executables' own files (clmc's cli.c and its
# scan, clmc-sequential's main).
sources=$(find src -name '*.c' ! -path src/cli/cli.c ! -path 'src/cli/scan*.c' ! -path src/cli/sequential.c | sort)
# Rebuild the library objects when any source or header is newer than the stamp.
if [ ! -f "$out/stamp" ] || [ -n "$(find src include -newer "$out/stamp" -name '*.[ch]' | head -1)" ]; then
  echo "fuzz: compiling $(echo "$sources" | wc -l) sources with $clang (ASan + UBSan)"
  rm -f "$out"/obj/*.o # objects of files since moved or removed would link twice
  echo "$sources" | xargs -P "$(nproc)" -I{} sh -c \
    'f="{}"; "$0" "$@" -fsanitize=fuzzer-no-link -c "$f" -o "'"$out"'/obj/$(echo "$f" | tr / _).o"' \
    "$clang" "${flags[@]}"
  touch "$out/stamp"
fi
status=0
for target in preset checkpoint; do
  "$clang" "${flags[@]}" -fsanitize=fuzzer "tests/fuzz/fuzz_$target.c" "$out"/obj/*.o \
    -lOpenCL -lcjson -lm -o "$out/fuzz_$target"
  corpus="$out/corpus_$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for $seconds s (seed corpus tests/fuzz/corpus/$target)"
  if ! "$out/fuzz_$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/crash_$target-" "$corpus" "tests/fuzz/corpus/$target" \
      $([ $target = preset ] && echo presets) 2>"$out/fuzz_$target.log"; then
    status=1
    tail -60 "$out/fuzz_$target.log"
    echo "fuzz: $target FAILED (crash input saved as $out/crash_$target-*; log $out/fuzz_$target.log)"
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|Done [0-9]+ runs" "$out/fuzz_$target.log" || true
    echo "fuzz: $target clean (no crash, leak or sanitizer report)"
  fi
done
exit $status
