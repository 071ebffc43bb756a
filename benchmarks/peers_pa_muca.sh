#!/usr/bin/env bash
# The population-annealing and multicanonical peers (the shared peers README),
# built and timed on this machine's GPU, for comparison in the same device call
# as clmc's own figures (benchmarks/muca_scan.sh and the population-annealing
# bench).  PEERS holds the sources after `port_to_cuda13.py paising|cudamuca DIR`.
# Usage: benchmarks/peers_pa_muca.sh PEERS OUT
set -uo pipefail
peers=${1:?PEERS dir}; out=${2:?OUT dir}
mkdir -p "$out"
nvcc --version | tail -1
( cd "$peers/paising" &&
  nvcc -O3 -arch=sm_90 -o PAisingMSC PAisingMSC.cu && nvcc -O3 -arch=sm_90 -o PAisingSSC PAisingSSC.cu ) || echo "PAising: build failed"
( cd "$peers/cudamuca" &&
  nvcc -arch=sm_90 -rdc=true -I./Random123/include/ -Xcompiler -O3 ising2D.cu -o ising2D_gpu ) || echo "cudamuca: build failed"
for args in "-R 100000 -t 10" "-R 1000000 -t 10" "-R 20000 -t 100"; do
  echo "== PAisingMSC (L = 64) $args -s 7"
  ( cd "$out" && timeout 300 "$peers/paising/PAisingMSC" $args -s 7 2>&1 | grep -E "Elapsed|per spin" )
done
echo "== PAisingSSC (L = 64) -R 100000 -t 10 -s 7"
( cd "$out" && timeout 300 "$peers/paising/PAisingSSC" -R 100000 -t 10 -s 7 2>&1 | grep -E "Elapsed|per spin" )
for point in "16 26624" "16 270336" "32 270336"; do
  set -- $point
  echo "== cudamuca ising2D_gpu -L $1 -m -W $2"
  mkdir -p "$out/muca-L$1-W$2"
  ( cd "$out/muca-L$1-W$2" && /usr/bin/time -f "wall %e s" timeout 300 "$peers/cudamuca/ising2D_gpu" -L "$1" -m -W "$2" > log.txt 2>&1;
    tail -3 log.txt; grep -i -E "time|flip" stats.dat 2>/dev/null | head -8 )
done
