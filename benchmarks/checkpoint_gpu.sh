#!/usr/bin/env bash
# Checkpoints on a GPU: (1) the cost of one checkpoint of a 2D Ising lattice
# of L = 16384 (268 MB of spins) as wall time with and without checkpoints;
# (2) SIGKILL after a checkpoint then --resume equals the uninterrupted run bit
# for bit on the GPU (Ising, Ising tempering, Potts SW); (3) a checkpoint
# written on the GPU resumed on PoCL (when present) equals the GPU run;
# (4) the memory refusal message on the GPU.  Writes OUTPUT.json and prints it.
# Usage: benchmarks/checkpoint_gpu.sh DEVICE OUTPUT.json   (e.g. nvidia out.json)
# (SMOKE=1 shrinks every lattice for a quick check of the script on PoCL.)
set -uo pipefail
cd "$(dirname "$0")/.."
device=$1 output=$2
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.txt"
: >"$results"
note() { echo "$1=$2" | tee -a "$results" >&2; }
wall() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['performance']['wall_seconds'])" "$1/result.json"; }
same() { # dir_a dir_b: series.csv, observables and checks identical
  cmp -s "$1/series.csv" "$2/series.csv" && python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(d + "/result.json")) for d in sys.argv[1:3])
sys.exit(0 if a["observables"] == b["observables"] and a["checks"] == b["checks"] else 1)
PY
}

# (1) cost of a checkpoint
if [ "${SMOKE:-0}" = 1 ]; then big_L=256 kill_L=128 temper_L=16 potts_L=32; else big_L=16384 kill_L=2048 temper_L=256 potts_L=512; fi
big=(presets/bench-ising2d-L16384-hits1.json --set model.L=$big_L --set run.thermalization=0 --set run.sweeps=2000 --set run.measure_every=10)
"$clmc" run "${big[@]}" --device "$device" --quiet --out "$work/big-warm-up" || echo "(failed: warm-up)" >&2
"$clmc" run "${big[@]}" --device "$device" --quiet --out "$work/big-plain" || echo "(failed: big-plain)" >&2
"$clmc" run "${big[@]}" --set run.checkpoint_every=500 --device "$device" --quiet --out "$work/big-ckpt" \
  || echo "(failed: big-ckpt)" >&2
if [ -f "$work/big-plain/result.json" ] && [ -f "$work/big-ckpt/result.json" ]; then
  plain=$(wall "$work/big-plain") ckpt=$(wall "$work/big-ckpt")
  note wall_seconds_without_checkpoints "$plain"
  note wall_seconds_with_3_checkpoints "$ckpt"
  note seconds_per_checkpoint "$(python3 -c "print(($ckpt - $plain) / 3)")"
  note checkpoint_bytes "$(stat -c %s "$work/big-ckpt/checkpoint.clmc")"
  note big_runs_identical "$(same "$work/big-plain" "$work/big-ckpt" && echo yes || echo NO)"
fi

# (2) kill and resume on the GPU
kill_resume() { # name preset [--set ...]
  local name=$1 preset=$2; shift 2
  "$clmc" run "$preset" "$@" --device "$device" --quiet --out "$work/$name-ref" || { note "$name" failed; return; }
  "$clmc" run "$preset" "$@" --device "$device" --quiet --out "$work/$name" & local pid=$!
  for _ in $(seq 6000); do [ -f "$work/$name/checkpoint.clmc" ] && break; sleep 0.01; done
  sleep "0.$((RANDOM % 3))"
  kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  if [ -f "$work/$name/result.json" ]; then note "$name" "run-ended-before-kill"; return; fi
  "$clmc" run --resume "$work/$name" --device "$device" --quiet || { note "$name" resume-failed; return; }
  note "${name}_resumed_identical" "$(same "$work/$name-ref" "$work/$name" && echo yes || echo NO)"
}
kill_resume ising presets/bench-ising2d-L16384-hits1.json --set model.L=$kill_L --set run.thermalization=0 \
  --set run.sweeps=20000 --set run.checkpoint_every=1000
kill_resume tempering presets/ising2d-critical.json --set model.L=$temper_L --set algorithm.tile=0 \
  --set 'ensemble={"type": "parallel_tempering", "betas": [0.40, 0.42, 0.44, 0.46], "exchange_every": 5}' \
  --set run.thermalization=0 --set run.sweeps=20000 --set run.checkpoint_every=1000
kill_resume potts presets/potts2d-q3-sw-critical.json --set model.L=$potts_L --set run.thermalization=0 \
  --set run.sweeps=5000 --set run.checkpoint_every=200

# (3) a GPU checkpoint resumed on PoCL
cross=(presets/ising2d-critical.json --set model.L=64 --set algorithm.tile=0 --set run.thermalization=0 --set run.sweeps=4000
       --set run.checkpoint_every=1000)
if "$clmc" devices | grep -qi "pocl\|portable computing"; then
  "$clmc" run "${cross[@]}" --device "$device" --quiet --out "$work/cross-ref"
  "$clmc" run "${cross[@]}" --device "$device" --quiet --out "$work/cross"
  cp "$work/cross/checkpoint.prev" "$work/cross/checkpoint.clmc" # the one at sweep 2000
  rm "$work/cross/result.json" "$work/cross/series.csv"
  "$clmc" run --resume "$work/cross" --device pocl --quiet
  note gpu_checkpoint_resumed_on_pocl_identical "$(same "$work/cross-ref" "$work/cross" && echo yes || echo NO)"
else
  note gpu_checkpoint_resumed_on_pocl_identical "skipped-no-pocl"
fi

# (4) memory refusal
betas=$(python3 -c 'print(", ".join("%.3f" % (0.1 + 0.01 * i) for i in range(64)))')
"$clmc" run presets/ising2d-critical.json --device "$device" --quiet --out "$work/huge" --set model.L=65534 \
  --set algorithm.tile=0 \
  --set "ensemble={\"type\": \"parallel_tempering\", \"betas\": [$betas]}" 2>"$work/huge.err"
note memory_refusal_exit "$?"
note memory_refusal_message "\"$(tail -1 "$work/huge.err" | tr -d '"')\""

python3 - "$results" "$output" "$device" "$("$clmc" devices | tr '\n' ';')" <<'PY'
import json, sys
entries = dict(line.rstrip("\n").split("=", 1) for line in open(sys.argv[1]) if "=" in line)
doc = {"schema": "clmc-checkpoint-bench", "device_selector": sys.argv[3], "devices": sys.argv[4], "results": entries}
json.dump(doc, open(sys.argv[2], "w"), indent=2)
print(json.dumps(doc, indent=2))
PY
