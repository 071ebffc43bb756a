#!/usr/bin/env bash
# Set up, build and run the whole test suite (host suites in parallel, device
# suites one at a time on the default OpenCL device), then print a summary.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh -Dtests=true || exit 1
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/test-cache/pocl}"
meson test -C build --print-errorlogs --num-processes 2 "$@"
status=$?
python3 - <<'PY' || echo "(python3 missing: see build/meson-logs/testlog.txt for the summary)"
import json, re
passed = failed = 0
for line in open("build/meson-logs/testlog.json"):
    r = json.loads(line)
    text = (r.get("stdout") or "") + (r.get("stderr") or "")
    m = re.findall(r"Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", text)
    if m and r["result"] in ("OK", "FAIL"):
        tested, ok, bad, crashed = map(int, m[-1])
        passed += ok
        failed += bad + crashed
        if r["result"] == "FAIL" and bad + crashed == 0:
            failed += 1
    elif r["result"] != "SKIP":
        ok = r["result"] in ("OK", "EXPECTEDFAIL")  # an expected failure (should_fail) passed
        passed += ok
        failed += not ok
print(f"tests: {passed} passed, {failed} failed")
PY
exit $status
