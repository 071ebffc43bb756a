#!/usr/bin/env bash
# Swendsen-Wang at the critical 2D Ising point (q = 2 Potts) and pure labeling
# (bond percolation at p = 1/2, site percolation at p = 1/2 and near p_c): ns per site per sweep with its break-down
# into bond activation, local labeling, consolidation and flips, for both
# consolidation methods, both tile labelings and two tile edges.
# Usage: benchmarks/sw_scan.sh DEVICE OUTDIR [L]
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 out=$2 L=${3:-8192}
clmc=${CLMC:-build/clmc}
mkdir -p "$out"
for consolidation in relaxation sewing; do
  for labeling in union_find self_labeling; do
    for tile in 32 64; do
      name="sw-L$L-$labeling-$consolidation-t$tile"
      "$clmc" bench presets/bench-potts2d-q2-sw-L8192.json --devices "$device" --quiet --json "$out/$name.json" \
        --set model.L="$L" --set algorithm.tile="$tile" --set algorithm.labeling="$labeling" \
        --set algorithm.consolidation="$consolidation" --set run.sweeps=20 --repetitions 5 | tail -n 2 |
        sed "s/^/$name: /"
    done
  done
  for kind in "bond 0.5" "site 0.5" "site 0.5927"; do
    set -- $kind
    name="labeling-L$L-$1-p$2-$consolidation"
    "$clmc" bench presets/bench-percolation2d-bond-L8192.json --devices "$device" --quiet --json "$out/$name.json" \
      --set model.L="$L" --set model.kind="$1" --set model.p="$2" --set algorithm.consolidation="$consolidation" \
      --set run.sweeps=20 --repetitions 5 | tail -n 2 | sed "s/^/$name: /"
  done
done
