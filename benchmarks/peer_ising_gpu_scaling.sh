#!/usr/bin/env bash
# NVIDIA ising-gpu `optimized` (the shared peers README: one process drives
# every GPU through CUDA peer access) on 1, 2, 4, 8 GPUs of this host, the
# peer of benchmarks/mpi_domain.sh: weak scaling with 65536 x 65536 spins per
# GPU, strong scaling of one 65536 x 65536 lattice (65536 / K rows per GPU).
# Prints the peer's own "flips/ns" line per run.
# Usage: benchmarks/peer_ising_gpu_scaling.sh CUISING [STEPS]   (CUISING built by
# port_to_cuda13.py ising-gpu DIR; nvcc -O3 --use_fast_math -arch=sm_90 -Xcompiler=-fopenmp main.cu utils.c)
set -uo pipefail
bin=${1:?path of cuIsing} steps=${2:-500}
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
for k in 1 2 4 8; do
  [ "$k" -le "$gpus" ] || continue
  echo "== ising-gpu weak: -x 65536 -y 65536 per GPU, -d $k, $steps steps"
  "$bin" -x 65536 -y 65536 -n "$steps" -d "$k" -t 2.2727 | grep -E "Kernel execution|Using GPUs" -A0
done
for k in 2 4 8; do
  [ "$k" -le "$gpus" ] || continue
  echo "== ising-gpu strong: one 65536 x 65536 lattice, -x 65536 -y $((65536 / k)) per GPU, -d $k, $steps steps"
  "$bin" -x 65536 -y $((65536 / k)) -n "$steps" -d "$k" -t 2.2727 | grep -E "Kernel execution"
done
