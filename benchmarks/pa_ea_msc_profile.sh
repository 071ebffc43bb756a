#!/usr/bin/env bash
# EA msc population annealing (issue 20, "resampling plus measurement under
# 5 % of the run at theta = 10"): --profile's device time outside the sweeps
# at L = 8, R = 1e6 (presets/pa-ea3d-L8-msc.json: theta = 10, 200 steps to
# beta 5), three ways on the same device:
#   pass     the default: members measured by the last sweep's colour-1 pass
#            (ea_msc_member_update), the parallel-segment bit gather;
#   measure  algorithm.tempering_energies "measure": the separate measurement
#            (ea_msc_measure + ea_sum_groups + ea_member_totals) after the sweeps;
#   old-gather  pass, with the bit gather of commit 6a25a8d
#            (cl/ensembles/population_lanes.cl before this change, through a
#            copy of cl/ in CLMC_KERNEL_DIR, the deployment variable).
# Prints per case the share outside the sweeps, the per-launch times of the
# gather, the member pass, the update and the measurement, and the final
# configuration hash (all three must be equal: the same run bit for bit).
# Further arguments go to every clmc run, e.g. --set algorithm.energy_sites=4
# (the member pass's sites per work-item; default 8 at this size; the
# measure case refuses that key and is then reported as failed).
# Usage: benchmarks/pa_ea_msc_profile.sh [DEVICE] [OUT] [R] [CLMC ARGS...]   (about a minute on an H100)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia} out=${2:-out/pa-ea-msc-profile} population=${3:-1000000}
shift $(($# < 3 ? $# : 3))
extra=("$@")
if [ -f tools/gpu-env.sh ] && [ -z "${CLMC:-}" ]; then
  source tools/gpu-env.sh
  [ -d build ] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null
fi
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
old_cl="$(cd "$out" && pwd)/cl-old-gather"
rm -rf "$old_cl" && cp -r cl "$old_cl"
# The device machine's copy of the tree may lack the commit (a stale .git): then no old-gather case.
if ! git show 6a25a8d:cl/ensembles/population_lanes.cl > "$old_cl/ensembles/population_lanes.cl" 2>/dev/null; then
  echo "old-gather: left out (commit 6a25a8d not in this checkout)"
  rm -rf "$old_cl"
fi
run() { # name kernel-dir extra-set...; a one-step warm-up first compiles the kernels
  local name=$1 dir=$2
  shift 2
  CLMC_KERNEL_DIR="$dir" "$clmc" run presets/pa-ea3d-L8-msc.json --quiet --overwrite --device "$device" \
    --out "$out/warm-up" --set ensemble.population="$population" --set ensemble.steps=1 "${extra[@]}" "$@" 2> "$out/$name.warm-up.txt" || return 1
  CLMC_KERNEL_DIR="$dir" "$clmc" run presets/pa-ea3d-L8-msc.json --quiet --overwrite --profile --device "$device" \
    --out "$out/$name" --set ensemble.population="$population" "${extra[@]}" "$@" 2> "$out/$name.profile.txt"
}
ran=()
run pass "$PWD/cl" && ran+=(pass) || echo "pass: failed ($out/pass.*.txt)"
run measure "$PWD/cl" --set 'algorithm.tempering_energies="measure"' && ran+=(measure) || echo "measure: failed ($out/measure.*.txt)"
if [ -d "$old_cl" ]; then run old-gather "$old_cl" && ran+=(old-gather) || echo "old-gather: failed ($out/old-gather.*.txt)"; fi
python3 - "$out" "${ran[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
hashes = {}
for name in names:
    r = json.load(open(f"{out}/{name}/result.json"))
    hashes[name] = r["checks"]["configuration_fnv1a"]
    print(f"== {name} on {r['device']['name']}: "
          f"R = {r['preset']['ensemble']['population']}, hash {hashes[name]}")
    for line in open(f"{out}/{name}.profile.txt"):
        if line.startswith("clmc profile: population annealing:") or any(
                k in line for k in ("pa_gather_lanes", "ea_msc_member_update", "ea_msc_update", "ea_msc_measure",
                                    "ea_sum_groups", "ea_member_totals")):
            print("  " + line.rstrip())
print("final configurations", "identical" if len(set(hashes.values())) == 1 else "DIFFERENT", "across", ", ".join(names))
PY
