#!/usr/bin/env bash
# Small Ising systems resident in local memory (issues 19 and 27; algorithm.resident,
# docs/models/ising.md): wall time / update-kernel time, with algorithm.resident "auto"
# (one work-group per configuration, many sweeps per launch) against "off" (one launch
# per colour per sweep), on the same device in one call:
#   1. presets/ising2d-L16-scan.json (112 systems of 16^2, 22000 sweeps, measure every 10);
#      issue 19 wants wall / kernel <= 1.2 for the small presets (2.0 on an H100 before);
#   2. one 2D system L = 64 (tiled, tile 16, as benchmarks/scan_overlap.sh), 1e5 sweeps,
#      measure every 100;
#   3. benchmarks/scan_overlap.sh's scan (64 tasks of 2. with seeds 1..64, --jobs 8),
#      resident auto and off (issue 27: keep the GPU busy).
# Each run of 1. and 2. prints the device, wall and kernel seconds, their ratio, the
# resident record (performance.resident) and --profile's line of launches and device
# idle time per sweep.  The --profile events add a little to every launch.  Resident launches
# that end at a measurement make it too (no ising_measure launch), so their kernel time
# includes the measurement; with "off" ising_measure is not in the kernel time.
# Usage (on the GPU machine, from the repository root; a few minutes on an H100):
#   benchmarks/small_systems.sh [DEVICE] [OUT_DIR]
# DEVICE defaults to "nvidia"; SCAN=0 skips the scans; SWEEPS (default 100000) the
# L = 64 runs' sweeps (smoke test on PoCL: CLMC=build/clmc SWEEPS=2000 SCAN=0
# benchmarks/small_systems.sh pocl /tmp/small; on PoCL "auto" is "off": emulated local memory).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -n ${CLMC:-} ]] || source tools/gpu-env.sh
device=${1:-nvidia} out=${2:-out/small-systems} sweeps=${SWEEPS:-100000}
if [[ -z ${CLMC:-} ]]; then
  [[ -d build ]] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null
fi
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
single=$out/single-L64.json
cat > "$single" <<JSON
{ "name": "single-L64", "model": { "type": "ising", "dim": 2, "L": 64 },
  "algorithm": { "layout": "tiled", "tile": 16 }, "ensemble": { "beta": 0.44 },
  "run": { "thermalization": 0, "sweeps": $sweeps, "measure_every": 100, "seed": 1 } }
JSON
report() { # dir label profile-log
  python3 - "$1" "$2" "$3" <<'PY' | tee -a "$out/report.txt"
import json, sys
d, label, log = sys.argv[1:4]
r = json.load(open(d + "/result.json"))
p = r["performance"]
res = p.get("resident", {})
how = (f"resident, {res['sweeps_per_launch']:.1f} sweeps per launch, {res['work_group']} items per group"
       if res.get("used") else f"not resident ({res.get('reason', '?')})")
profile = [l.strip().replace("clmc profile: ", "") for l in open(log) if "launches per sweep" in l]
print(f"{r['device']['name']}: {label}: wall {p['wall_seconds']:.3f} s, update kernels {p['seconds']:.3f} s, "
      f"wall/kernel {p['wall_seconds'] / p['seconds']:.2f}, {1e3 * p['ns_per_update']:.2f} ps/update (kernel), "
      f"{p['updates'] / p['wall_seconds'] / 1e9:.3f} updates/ns (wall); {how}; {profile[0] if profile else ''}")
PY
}
for resident in auto off; do # warm-up: the program cache (not timed)
  "$clmc" run presets/ising2d-L16-scan.json --device "$device" --quiet --overwrite --out "$out/warm-up" \
    --set run.sweeps=100 --set run.thermalization=0 --set algorithm.resident="\"$resident\"" >/dev/null
  "$clmc" run "$single" --device "$device" --quiet --overwrite --out "$out/warm-up" --set run.sweeps=100 \
    --set algorithm.resident="\"$resident\"" >/dev/null
done
for rep in 1 2; do
  for resident in auto off; do
    name=L16-scan-$resident-$rep
    "$clmc" run presets/ising2d-L16-scan.json --device "$device" --quiet --overwrite --profile --out "$out/$name" \
      --set algorithm.resident="\"$resident\"" 2> "$out/$name.profile"
    report "$out/$name" "ising2d-L16-scan.json (112 x 16^2, 22000 sweeps) resident $resident (rep $rep)" "$out/$name.profile"
    name=L64-single-$resident-$rep
    "$clmc" run "$single" --device "$device" --quiet --overwrite --profile --out "$out/$name" \
      --set algorithm.resident="\"$resident\"" 2> "$out/$name.profile"
    report "$out/$name" "one 2D L = 64 system, $sweeps sweeps, resident $resident (rep $rep)" "$out/$name.profile"
  done
done
if [[ ${SCAN:-1} != 0 ]]; then
  for resident in auto off; do
    RESIDENT=$resident CLMC_BIN=$clmc benchmarks/scan_overlap.sh "$device" "$out/scan-$resident" 64 "$sweeps" 8 \
      | tee -a "$out/report.txt"
  done
fi
