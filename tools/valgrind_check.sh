#!/usr/bin/env bash
# Runs clmc under valgrind (memcheck) through the checkpoint paths: a
# tempering run with checkpoints, --resume, a refused damaged checkpoint, a
# refused too-large preset, a refused bad preset.  Fails on a leak whose
# allocation clmc made itself or an invalid access inside clmc; leaks and
# errors inside PoCL, LLVM or the dynamic loader are counted but not blamed.
# Slow (about 4 minutes: PoCL's compiler under valgrind), so the meson test
# (--opt-in) is a skip unless CLMC_VALGRIND=1.
# Usage: tools/valgrind_check.sh [--opt-in] [BUILD_DIR, default build]
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --opt-in ]; then
  shift
  if [ "${CLMC_VALGRIND:-0}" != 1 ]; then
    echo "valgrind check: skipped (opt-in: CLMC_VALGRIND=1 meson test -C build valgrind)"; exit 77
  fi
fi
build="${1:-build}"
command -v valgrind >/dev/null || { echo "valgrind check: valgrind not installed; skipped"; exit 77; }
bin="$PWD/$build/clmc"
[ -x "$bin" ] || bin="$build/clmc"
export CLMC_KERNEL_DIR="${CLMC_KERNEL_DIR:-$PWD/cl}"
work=$(mktemp -d "${TMPDIR:-/tmp}/clmc-valgrind.XXXXXX")
failures=0

# Records (blank-line separated) of a valgrind log that are clmc's: a leak or
# an invalid access whose first frame, after allocators, string functions and
# cJSON (which hands its allocations to clmc), is in the clmc binary.
blame() {
  awk -v bin="(in $bin)" '
    /== *$/ { if (rec != "") check(); rec = ""; next }
    { rec = rec "\n" $0 }
    END { if (rec != "") check() }
    function check(   n, lines, i, first) {
      n = split(rec, lines, "\n")
      if (rec !~ /definitely lost|indirectly lost|Invalid (read|write|free)|uninitialised|Mismatched/) return
      first = ""
      for (i = 1; i <= n; i++) {
        if (lines[i] !~ /(at|by) 0x/) continue
        if (lines[i] ~ /vgpreload|libcjson|: (malloc|calloc|realloc|operator new|strn?dup|memalign|mem(cpy|move|set)|strn?(len|cmp|cpy)) /) continue
        first = lines[i]; break
      }
      if (index(first, bin) > 0) { print rec; blamed++ }
    }
    END { exit blamed > 0 }'
}

check() { # name, expected exit status, clmc arguments...
  local name=$1 expected=$2; shift 2
  local log="$work/$name.valgrind"
  valgrind --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --log-file="$log" \
    "$bin" "$@" >"$work/$name.out" 2>&1
  local rc=$?
  local summary; summary=$(grep -E "definitely lost:|ERROR SUMMARY" "$log" | sed 's/==[0-9]*== *//' | tr '\n' ' ')
  if [ $rc -ne "$expected" ]; then
    echo "valgrind check: $name: exit $rc, expected $expected"; tail -5 "$work/$name.out"; failures=$((failures + 1))
  elif ! blame <"$log" >"$work/$name.blamed"; then
    echo "valgrind check: $name: leaks or errors in clmc's own code:"; cat "$work/$name.blamed"; failures=$((failures + 1))
  else
    echo "valgrind check: $name: clean in clmc's code (exit $rc; whole process: $summary)"
  fi
}

cat >"$work/tempering.json" <<'JSON'
{"model": {"type": "ising", "dim": 2, "L": 16},
 "ensemble": {"type": "parallel_tempering", "betas": [0.3, 0.4, 0.5], "exchange_every": 2},
 "run": {"thermalization": 10, "sweeps": 200, "checkpoint_every": 50, "seed": 1}}
JSON
check run 0 run "$work/tempering.json" --quiet --out "$work/run"
check resume 0 run --resume "$work/run" --quiet
cp -r "$work/run" "$work/damaged"
printf 'x' | dd of="$work/damaged/checkpoint.clmc" bs=1 seek=100 conv=notrunc status=none
check damaged_refused 2 run --resume "$work/damaged" --quiet
betas=$(python3 -c 'print(", ".join("%.3f" % (0.1 + 0.01 * i) for i in range(64)))')
echo "{\"model\": {\"type\": \"ising\", \"L\": 65534}, \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [$betas]}}" \
  >"$work/huge.json"
check memory_refused 2 run "$work/huge.json" --quiet --out "$work/huge"
check bad_preset_refused 2 check tests/fuzz/corpus/preset/bad-checkpoint-every-unit.json
[ $failures -eq 0 ] && rm -rf "$work"
exit $((failures > 0))
