#!/usr/bin/env bash
# MPI ranks on one GPU (docs/mpi.md, issue 24): (1) the cost of an MPI build run
# without mpirun and with mpirun -np 1 against a build without MPI; (2) two ranks
# sharing the device against one rank: same series.csv, throughput of both.
# Usage: benchmarks/mpi_gpu.sh BUILD_WITH_MPI BUILD_WITHOUT_MPI [DEVICE] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
with=${1:?build with MPI}; without=${2:?build without MPI}; device=${3:-nvidia}; out=${4:-out/mpi-gpu}
mkdir -p "$out"
preset=$out/preset.json
cat > "$preset" <<'JSON'
{ "name": "mpi-gpu", "model": { "type": "ising", "dim": 2, "L": 256, "start": "random" },
  "algorithm": { "type": "metropolis", "layout": "tiled", "hits": 1 },
  "ensemble": { "type": "independent", "betas": [0.40, 0.44, 0.48, 0.52], "copies": 64 },
  "run": { "thermalization": 0, "sweeps": 20000, "measure_every": 1000, "seed": 5 } }
JSON
summary() { python3 -c "
import json, sys
r = json.load(open(sys.argv[1] + '/result.json')); p = r['performance']
print(f\"{sys.argv[2]:<34} wall {p['wall_seconds']:8.3f} s  kernels {p['seconds']:8.3f} s  {1e3 * p['ns_per_update']:7.3f} ps/update (device time)  {p['updates'] / p['wall_seconds'] / 1e9:7.2f} updates/ns (wall)\")
" "$1" "$2"; }
for rep in 1 2 3; do
  "$without/clmc" run "$preset" --device "$device" --out "$out/none-$rep" --quiet --overwrite
  summary "$out/none-$rep" "no MPI in the build (rep $rep)"
  "$with/clmc" run "$preset" --device "$device" --out "$out/with-$rep" --quiet --overwrite
  summary "$out/with-$rep" "MPI build, no mpirun (rep $rep)"
  mpirun -np 1 "$with/clmc" run "$preset" --device "$device" --out "$out/np1-$rep" --quiet --overwrite
  summary "$out/np1-$rep" "MPI build, mpirun -np 1 (rep $rep)"
  mpirun -np 2 --oversubscribe "$with/clmc" run "$preset" --device "$device" --out "$out/np2-$rep" --quiet --overwrite
  summary "$out/np2-$rep" "mpirun -np 2, one shared GPU (rep $rep)"
done
for d in with-1 np1-1 np2-1; do
  cmp -s "$out/none-1/series.csv" "$out/$d/series.csv" && echo "series.csv of $d identical to the build without MPI" ||
    echo "series.csv of $d DIFFERS"
done
