#!/usr/bin/env bash
# How busy `clmc scan` keeps a device (issue 27's performance goal: 64 tasks of 2D
# Ising L = 64, 1e5 sweeps each, device busy at least 80 % of the scan's wall time).
# For each --jobs value: the scan's wall time and the sum over tasks of the update
# kernels' device time (result.json performance.seconds, from OpenCL profiling
# events; measurement kernels not counted, so the fraction is a lower bound).
# Concurrent tasks' profiling events overlap, so the 'busy fraction' exceeds 1 with --jobs > 1;
# the aggregate updates per ns of scan wall time and the mean task wall time compare runs instead.
# RESIDENT=auto|off (default auto) sets algorithm.resident (docs/models/ising.md: one work-group
# per system, many sweeps per launch); the line gives the tasks' mean sweeps per launch.
# Usage: benchmarks/scan_overlap.sh DEVICE OUTDIR [TASKS] [SWEEPS] [JOBS...]
#   e.g. benchmarks/scan_overlap.sh nvidia out/scan-overlap            (64 tasks, 1e5 sweeps, jobs 1 4 8)
#        RESIDENT=off benchmarks/scan_overlap.sh nvidia out/scan-off 64 100000 8
set -euo pipefail
device=${1:?usage: scan_overlap.sh DEVICE OUTDIR [TASKS] [SWEEPS] [JOBS...]}
out=${2:?usage: scan_overlap.sh DEVICE OUTDIR [TASKS] [SWEEPS] [JOBS...]}
tasks=${3:-64}
sweeps=${4:-100000}
shift $(($# < 4 ? $# : 4))
jobs_list=("${@:-1 4 8}")
resident=${RESIDENT:-auto}
clmc=${CLMC_BIN:-build/clmc}
mkdir -p "$out"
cat > "$out/job.json" <<JSON
{"preset": {"name": "scan-overlap", "model": {"type": "ising", "dim": 2, "L": 64},
            "algorithm": {"layout": "tiled", "tile": 16, "resident": "$resident"}, "ensemble": {"beta": 0.44},
            "run": {"thermalization": 0, "sweeps": $sweeps, "measure_every": 100}},
 "grid": {"run.seed": {"from": 1, "to": $tasks}}}
JSON
"$clmc" devices > "$out/devices.txt"
for jobs in ${jobs_list[*]}; do
    dir="$out/jobs$jobs"
    rm -rf "$dir"
    start=$(date +%s.%N)
    "$clmc" scan "$out/job.json" --out "$dir" --devices "$device" --jobs "$jobs" --quiet
    end=$(date +%s.%N)
    python3 - "$dir" "$start" "$end" "$jobs" <<'PY' | tee -a "$out/report.txt"
import json, pathlib, sys
d, start, end, jobs = pathlib.Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
results = [json.loads(p.read_text()) for p in sorted(d.glob("tasks/*/result.json"))]
device = sum(r["performance"]["seconds"] for r in results)
wall = end - start
updates = sum(r["performance"]["updates"] for r in results)
task_wall = sum(r["performance"]["wall_seconds"] for r in results) / len(results)
res = [r["performance"].get("resident", {}) for r in results]
per_launch = [x["sweeps_per_launch"] for x in res if x.get("used")]
resident = f"resident, {sum(per_launch) / len(per_launch):.1f} sweeps per launch" if per_launch else "not resident"
print(f"{results[0]['device']['name']}: {len(results)} tasks, --jobs {jobs}, {resident}: scan wall {wall:.1f} s, "
      f"update kernels {device:.1f} s device time, busy fraction {device / wall:.2f}, "
      f"{updates / wall / 1e9:.3f} updates/ns of scan wall, task sweep loop {task_wall:.2f} s mean")
PY
done
