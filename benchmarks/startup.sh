#!/usr/bin/env bash
# Start-up of every preset (issue 19: "time from clmc run to the first sweep with a warm
# program cache under 0.3 s on a GPU for every preset"): each preset runs twice, first with
# an empty program cache (cold) and then warm, and is killed as soon as --profile has printed
# its start-up line (`clmc profile: start-up T s to the first sweep: PHASE S ...`,
# performance.startup in docs/results.md), so no preset runs its sweeps.
# Usage (on the GPU machine, from the repository root):
#   benchmarks/startup.sh [DEVICE] [OUT.txt] [PRESET...]
# DEVICE defaults to "nvidia"; PRESETs default to the run presets (those with a "model") of presets/*.json and
# presets/rng-study/*.json.
# Smoke test on PoCL: CLMC=build/clmc benchmarks/startup.sh pocl /tmp/startup.txt presets/quickstart.json
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -n ${CLMC:-} ]] || source tools/gpu-env.sh
device=${1:-nvidia} out=${2:-out/startup.txt}
shift 2 2>/dev/null || shift $#
presets=("$@")
if [[ ${#presets[@]} -eq 0 ]]; then # every run preset (study.json configures tools/rng_study.py, not clmc run)
  for f in presets/*.json presets/rng-study/*.json; do grep -q '"model"' "$f" && presets+=("$f"); done
fi
if [[ -z ${CLMC:-} ]]; then
  [[ -d build ]] || meson setup build -Dtests=false >/dev/null
  ninja -C build >/dev/null || exit 1
fi
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
export CLMC_CACHE_DIR=$work/clmc-cache POCL_CACHE_DIR=$work/pocl-cache
mkdir -p "$(dirname "$out")"
# Runs one preset until its start-up line appears (at most 120 s), prints that line's tail.
startup_line() {
  local preset=$1 log=$work/log
  rm -rf "$work/out"
  "$clmc" run "$preset" --device "$device" --profile --quiet --out "$work/out" 2>"$log" &
  local pid=$! waited=0
  while kill -0 $pid 2>/dev/null && ! grep -q "clmc profile: start-up" "$log" && (( waited < 2400 )); do
    sleep 0.05
    waited=$((waited + 1))
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  local line
  line=$(grep -m1 "clmc profile: start-up" "$log" | sed 's/^clmc profile: start-up //')
  if [[ -z $line ]]; then line="no start-up line: $(tr '\n' ' ' < "$log" | cut -c1-300)"; fi
  echo "$line"
}
{
  echo "# clmc start-up per preset, $(date -u +%F), device: $("$clmc" devices 2>/dev/null | grep -i -m1 "$device")"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null); cold = empty program caches, warm = the second run"
  for preset in "${presets[@]}"; do
    rm -rf "$CLMC_CACHE_DIR" "$POCL_CACHE_DIR"
    cold=$(startup_line "$preset")
    warm=$(startup_line "$preset")
    printf '%-52s cold: %s\n%-52s warm: %s\n' "$preset" "$cold" "" "$warm"
  done
} | tee "$out"
rm -rf "$work"
