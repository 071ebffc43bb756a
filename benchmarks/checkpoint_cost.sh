#!/usr/bin/env bash
# Cost of checkpoints and of the spin-length guard on a GPU: wall seconds of
# `clmc run` for the Heisenberg ferromagnet (L = 128, 3D) and glass (L = 128,
# 3D, 4 temperatures of tempering) without checkpoints, with a checkpoint every
# 100 sweeps (guard before each), and of `clmc run --resume`; the checkpoint
# size; whether the resumed series equals the uninterrupted one.  The guard
# itself runs after every measurement batch in every run.
# Usage: benchmarks/checkpoint_cost.sh DEVICE OUTPUT.txt [--set PATH=VALUE]...
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2
shift 2
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLMC_DEVICE="$device"

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc; }

case_() { # name preset [--set ...]
  local name=$1 preset=$2; shift 2
  local plain ckpt resume size same
  "$clmc" run "$preset" --quiet --out "$work/$name-warm" "$@" --set run.sweeps=10 >/dev/null # kernel builds
  plain=$(seconds "$clmc" run "$preset" --quiet --out "$work/$name-plain" "$@")
  ckpt=$(seconds "$clmc" run "$preset" --quiet --out "$work/$name-ckpt" --set run.checkpoint_every=100 "$@")
  # A resume from the checkpoint half-way (checkpoint.prev is one interval older).
  rm -f "$work/$name-ckpt/result.json"
  resume=$(seconds "$clmc" run --resume "$work/$name-ckpt" --quiet)
  size=$(stat -c %s "$work/$name-ckpt/checkpoint.clmc")
  same=$(cmp -s "$work/$name-plain/series.csv" "$work/$name-ckpt/series.csv" && echo identical || echo DIFFERENT)
  printf '%-22s plain %8.2f s  checkpoints/100 %8.2f s  resume(last) %8.2f s  checkpoint %12d B  series %s\n' \
    "$name" "$plain" "$ckpt" "$resume" "$size" "$same" | tee -a "$output"
}

: >"$output"
"$clmc" --version | tee -a "$output" || true
case_ heisenberg3d-L128 presets/heisenberg3d-critical.json --set model.L=128 --set run.thermalization=0 \
  --set run.sweeps=1000 --set run.measure_every=10 "$@"
cat >"$work/glass.json" <<'JSON'
{"model": {"type": "heisenberg_glass", "dim": 3, "L": 128, "n": 3},
 "algorithm": {"type": "heatbath", "layout": "naive", "overrelaxation_steps": 1},
 "ensemble": {"type": "parallel_tempering", "betas": [3, 4, 5, 6], "exchange_every": 10},
 "run": {"thermalization": 0, "sweeps": 1000, "measure_every": 10, "seed": 1}}
JSON
case_ glass3d-L128-pt4 "$work/glass.json" "$@"
