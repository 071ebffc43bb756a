#!/usr/bin/env bash
# Set up, build and run the quick-start preset on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"
build/clmc devices
build/clmc run presets/quickstart.json "$@"
python3 - <<'PY' 2>/dev/null || cat out/quickstart/result.json
import json
r = json.load(open("out/quickstart/result.json"))
print("device:", r["device"]["name"])
for name, o in r["observables"].items():
    if isinstance(o, dict):
        print(f"  {name:18s} {o['mean']:.6f} +- {o['error']:.6f}  (tau_int {o['tau_int']:.1f})")
print("  ns per update:", round(r["performance"]["ns_per_update"], 4))
PY
