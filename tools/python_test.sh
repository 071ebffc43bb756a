#!/usr/bin/env bash
# The Python package (python/): installs it with its test dependencies into a venv
# under the build directory (once; PyPI needed the first time), then runs its
# pytest suite and the examples (Binder crossing; hard disks through GSD and freud; MBAR
# specific heat with CLMC_LONG_TESTS=1) at CI size against this build's clmc ($CLMC_BIN, set by meson).  The
# tests import the package from the source tree, so edits need no reinstall.  Without python3 -m venv or PyPI: a skip (77).
set -uo pipefail
build=$(cd "${1:?usage: tools/python_test.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
venv=$build/python-venv
if ! "$venv/bin/python" -c "import clmc, pytest, pymbar, pandas" 2>/dev/null; then
    python3 -m venv "$venv" || { echo "SKIP: python3 -m venv failed"; exit 77; }
    "$venv/bin/pip" install -q "$src/python[test]" ||
        { echo "SKIP: pip could not install ./python[test] (no PyPI?)"; exit 77; }
fi
# Optional formats (result.h5, GSD, freud): tried once per venv where PyPI has them for
# this Python; their tests and the freud part of the example skip, saying so, without them.
if [ ! -f "$venv/optional-tried" ]; then
    for package in h5py gsd freud-analysis; do
        "$venv/bin/pip" install -q "$package" || echo "python_test: $package not installable here; its tests skip"
    done
    touch "$venv/optional-tried"
fi
export PYTHONPATH="$src/python/src${PYTHONPATH:+:$PYTHONPATH}"
cd "$build" || exit 1
"$venv/bin/python" -m pytest -q -s -p no:cacheprovider --basetemp="$build/test-tmp/pytest" "$src/python/tests" || exit 1
rm -rf "$build/test-tmp/binder-ci"
"$venv/bin/python" "$src/examples/binder_crossing.py" --sizes 8,16 --betas 5 --seeds 2 --sweeps 20000 \
    --out "$build/test-tmp/binder-ci" || exit 1
# The MBAR example repeats python/tests/test_mbar.py's check (L = 8 tempering
# reweighted against the exact curve): CLMC_LONG_TESTS=1 only.
if [ "${CLMC_LONG_TESTS:-}" = 1 ]; then
    "$venv/bin/python" "$src/examples/mbar_specific_heat.py" --sweeps 10000 --points 5 --bootstrap 8 \
        --out "$build/test-tmp/mbar-ci" || exit 1
fi
"$venv/bin/python" "$src/examples/hard_disks_freud.py" --N 256 --seeds 4 --sweeps 1000 \
    --out "$build/test-tmp/hard-disks-freud-ci"
