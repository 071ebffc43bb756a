#!/usr/bin/env bash
# Many hard-disk systems per launch (issue 19, ensemble.type "independent"):
# N = 256^2 at phi = 0.708 (the seed's Table 1 point, lattice start so that no
# host work precedes the loop), R = 1, 8, 32, 64 systems advanced by the same
# launches.  Per R: aggregate trial moves per second (wall and update-kernel
# time), the wall time of one sweep of all R systems and per system-sweep
# (wall / sweeps / R), and the wall / kernel ratio; also the check that the
# last system of the R = 8 run equals its one-system run bit for bit on this
# device.  Target (issue 19): >= 2e10 trial moves per second with many systems.
# Usage (on the GPU machine, from the repository root; about 2 minutes on an H100):
#   benchmarks/independent_hard_disks.sh [DEVICE] [OUT_DIR]
# BASE=PATH/clmc (optional, e.g. a build of main) also times one system with that
# binary (preset without the ensemble block) beside R = 1, to show what the
# systems dimension costs a single system (same device, same run).
# DEVICE defaults to "nvidia"; SWEEPS (default 2000) sets the measured sweeps, N
# (default 65536) the disks (smoke test on PoCL: CLMC=build/clmc N=1024 SWEEPS=20
# benchmarks/independent_hard_disks.sh pocl /tmp/ihd).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
device=${1:-nvidia} out=${2:-out/independent-hard-disks} sweeps=${SWEEPS:-2000} N=${N:-65536}
if [[ -z ${CLMC:-} ]]; then
  [[ -d build ]] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null
fi
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
preset=$out/preset.json
cat > "$preset" <<JSON
{ "name": "independent-hard-disks", "model": { "type": "hard_disks", "N": $N, "packing_fraction": 0.708,
    "start": "lattice", "write_configuration": false },
  "algorithm": { "type": "mpmc", "moves_per_cell": 4, "max_displacement": 0.16,
    "pressure_bin": 0.01, "pressure_range": 0.2, "pressure_degree": 3 },
  "ensemble": { "type": "independent", "copies": 1 },
  "run": { "thermalization": 0, "sweeps": $sweeps, "measure_every": $sweeps, "seed": 5 } }
JSON
# warm-up: builds the kernels into the program cache, one and several systems (not timed)
for R in 1 8; do
  "$clmc" run "$preset" --device "$device" --quiet --overwrite --out "$out/warm-up" --set run.sweeps=10 \
    --set run.measure_every=10 --set ensemble.copies=$R >/dev/null
done
for R in 1 8 32 64; do
  "$clmc" run "$preset" --device "$device" --quiet --overwrite --out "$out/R$R" --set ensemble.copies="$R"
done
if [[ -n ${BASE:-} ]]; then
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p.pop('ensemble'); json.dump(p, open(sys.argv[2], 'w'))" \
    "$preset" "$out/preset-base.json"
  "$BASE" run "$out/preset-base.json" --device "$device" --quiet --overwrite --out "$out/base-warm-up" \
    --set run.sweeps=10 --set run.measure_every=10 >/dev/null
  for rep in 1 2; do
    "$clmc" run "$preset" --device "$device" --quiet --overwrite --out "$out/R1-rep$rep"
    "$BASE" run "$out/preset-base.json" --device "$device" --quiet --overwrite --out "$out/base-rep$rep"
  done
fi
# bit for bit: system 7 of R = 8 alone
"$clmc" run "$preset" --device "$device" --quiet --overwrite --out "$out/alone7" --set ensemble.first_system=7
python3 - "$out" "$sweeps" "$N" <<'PY'
import json, sys
out, sweeps, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
base = None
for R in (1, 8, 32, 64):
    r = json.load(open(f"{out}/R{R}/result.json"))
    p = r["performance"]
    moves, wall, kernels = p["updates"], p["wall_seconds"], p["seconds"]
    per_sweep = wall / sweeps
    line = (f"{r['device']['name']}: N={N} phi=0.708 R={R:<3} {moves / wall:10.3e} moves/s (wall) "
            f"{moves / kernels:10.3e} moves/s (kernels)  {per_sweep * 1e6:9.1f} us per sweep of all systems  "
            f"{per_sweep / R * 1e6:8.2f} us per system-sweep  wall/kernel {wall / kernels:5.2f}  "
            f"{p['ns_per_update'] * 1e3:7.2f} ps/move (kernels)")
    if base is None: base = moves / wall
    else: line += f"  x{moves / wall / base:5.1f} vs R=1"
    print(line)
    if R == 64:
        print(f"target >= 2e10 moves/s with many systems: {'met' if moves / wall >= 2e10 else 'NOT met'} (wall)")
import os
for rep in (1, 2):
    if os.path.exists(f"{out}/base-rep{rep}/result.json"):
        a = json.load(open(f"{out}/R1-rep{rep}/result.json"))["performance"]
        b = json.load(open(f"{out}/base-rep{rep}/result.json"))["performance"]
        print(f"one system, this build vs BASE (rep {rep}): {a['wall_seconds'] / sweeps * 1e6:.1f} vs "
              f"{b['wall_seconds'] / sweeps * 1e6:.1f} us per sweep (wall), {a['ns_per_update'] * 1e3:.2f} vs "
              f"{b['ns_per_update'] * 1e3:.2f} ps/move (kernels): ratio {a['ns_per_update'] / b['ns_per_update']:.3f}")
def rows(path, system):
    lines = open(path).read().splitlines()[1:]
    return [l.split(",", 2)[0] + "," + l.split(",", 2)[2] for l in lines if l.split(",")[1] == str(system)]
a, b = rows(f"{out}/R8/series.csv", 7), rows(f"{out}/alone7/series.csv", 7)
print(f"system 7 of R=8 vs alone: {len(a)} and {len(b)} rows, {'identical' if a == b and a else 'DIFFERENT'}")
PY
