#!/usr/bin/env bash
# The RNG study's GPU figures in one go (docs/rng-study.md): generator throughput at
# 256 and at 4 numbers per work-item and launch, and Table 1 in full mode (sequential
# column on the host's cores, checkerboard column on the device).
# Usage: benchmarks/rng_gpu.sh [DEVICE] [OUT_DIR]   (defaults: nvidia, out/rng-gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia}
out=${2:-out/rng-gpu}
mkdir -p "$out"
build/benchmarks/rng_throughput "$device" --json "$out/rng-throughput-256.json" | tee "$out/rng-throughput.txt"
build/benchmarks/rng_throughput "$device" --numbers 4 --json "$out/rng-throughput-4.json" | tee -a "$out/rng-throughput.txt"
tools/rng_study.py --mode full --device "$device" --device-jobs 4 --out "$out/study" \
  --json "$out/rng-study.json" | tee "$out/rng-study.txt"
