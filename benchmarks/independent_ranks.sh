#!/usr/bin/env bash
# Independent work over the GPUs of one host (issue 25): the same per-GPU
# load on 1, 2, 4, 8 GPUs under mpirun -np K, throughput per GPU against one
# GPU, and series.csv of the K-GPU run against the 1-GPU run of the same
# systems.  (1) 2D Ising tiled L = 256, 4 betas x 64 copies per GPU;
# (2) 3D EA msc L = 32, 32 betas (the ea3d-L32-tempering ladder, as
# independent systems) x 64 realizations per GPU; (3) the same ladder as
# parallel tempering (exchange every 10 sweeps), the ranks sharing the
# realizations.  NAMES="ising ea eapt" picks cases; EAPT_SWEEPS sets (3)'s
# sweeps (4000 by default: about 0.13 s of sweeps on an H200, where a
# millisecond of start-up or final exchange is nearly 1 %).
# Usage: benchmarks/independent_ranks.sh [OUT]   (build/ with MPI, tools/gpu-env.sh sourced)
# MPIRUN_ARGS: more mpirun options (e.g. "--bind-to none", docs/mpi.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/independent-ranks}
mkdir -p "$out"
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
betas=$(python3 -c "import json; print(json.load(open('presets/ea3d-L32-tempering.json'))['ensemble']['betas'])")
preset() { # NAME K
  case $1 in
  ising) echo "{ \"model\": { \"type\": \"ising\", \"dim\": 2, \"L\": 256, \"start\": \"random\" },
  \"algorithm\": { \"type\": \"metropolis\", \"layout\": \"tiled\", \"hits\": 1 },
  \"ensemble\": { \"type\": \"independent\", \"betas\": [0.40, 0.44, 0.48, 0.52], \"copies\": $((64 * $2)) },
  \"run\": { \"thermalization\": 0, \"sweeps\": 20000, \"measure_every\": 1000, \"seed\": 5 } }" ;;
  ea) echo "{ \"model\": { \"type\": \"ea_ising\", \"dim\": 3, \"L\": 32, \"couplings\": \"bimodal\", \"realizations\": $((64 * $2)) },
  \"algorithm\": { \"type\": \"metropolis\", \"layout\": \"msc\", \"word_bits\": 64 },
  \"ensemble\": { \"type\": \"independent\", \"betas\": $betas },
  \"run\": { \"thermalization\": 0, \"sweeps\": 2000, \"measure_every\": 100, \"seed\": 42 } }" ;;
  eapt) echo "{ \"model\": { \"type\": \"ea_ising\", \"dim\": 3, \"L\": 32, \"couplings\": \"bimodal\", \"realizations\": $((64 * $2)) },
  \"algorithm\": { \"type\": \"metropolis\", \"layout\": \"msc\", \"word_bits\": 64 },
  \"ensemble\": { \"type\": \"parallel_tempering\", \"betas\": $betas, \"exchange_every\": 10 },
  \"run\": { \"thermalization\": 0, \"sweeps\": ${EAPT_SWEEPS:-4000}, \"measure_every\": 100, \"seed\": 42 } }" ;;
  esac
}
rate() { python3 -c "
import json, sys
p = json.load(open(sys.argv[1] + '/result.json'))['performance']
print(p['updates'] / p['wall_seconds'] / 1e9)" "$1"; }
for name in ${NAMES:-ising ea eapt}; do
  one=
  for k in 1 2 4 8; do
    [ "$k" -le "$gpus" ] || continue
    preset $name $k > "$out/$name-k$k.json"
    if [ "$k" = 1 ]; then build/clmc run "$out/$name-k$k.json" --device nvidia --out "$out/$name-k$k" --quiet --overwrite
    else mpirun -np "$k" ${MPIRUN_ARGS:-} build/clmc run "$out/$name-k$k.json" --device nvidia --out "$out/$name-k$k" --quiet --overwrite; fi
    r=$(rate "$out/$name-k$k")
    [ -n "$one" ] || one=$r
    python3 -c "import sys; k, r, one = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]); print(f'{sys.argv[1]:<6} K={k}  {r:9.1f} updates/ns (wall)  {r / k:8.1f} per GPU  {100 * r / k / one:6.1f} % of one GPU')" $name $k "$r" "$one"
    if [ "$k" -gt 1 ]; then
      # the 1-GPU run of the same systems
      build/clmc run "$out/$name-k$k.json" --device nvidia --out "$out/$name-k$k-one" --quiet --overwrite
      cmp -s "$out/$name-k$k/series.csv" "$out/$name-k$k-one/series.csv" &&
        echo "    series.csv identical to one GPU running all $((64 * k)) units" || echo "    series.csv DIFFERS from one GPU"
    fi
  done
done
