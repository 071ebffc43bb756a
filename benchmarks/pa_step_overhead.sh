#!/usr/bin/env bash
# Population annealing's work outside the sweeps (issue 20: "resampling plus
# measurement under 5 % of the run at theta = 10, reported by --profile") for
# the multi-spin coded presets with lcg64_reseeded and Philox: 3D EA L = 8
# (presets/pa-ea3d-L8-msc-lcg.json, pa-ea3d-L8-msc.json; 1024 spins a member,
# its two replicas) and 2D Ising L = 64 (pa-ising2d-L64-msc-lcg.json), theta =
# 10.  Per case and build: ps per flip over the whole anneal (wall) and in the
# update kernels, the wall time outside the update kernels, --profile's share
# of the device time outside the sweeps and its launches, and the final
# configuration hash.  With REF (the source tree of another commit, built
# into REF/build here) every case runs with both builds in turn, so the two
# are compared on one device in one call, and their hashes must agree.
# CASES (a space-separated list of the case names below) keeps a subset.
# Usage: benchmarks/pa_step_overhead.sh [DEVICE] [OUT_DIR] [STEPS] [REF]
#   (about three minutes on an H200 with REF; sources tools/gpu-env.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia} out=${2:-out/pa-step-overhead} steps=${3:-100} ref=${4:-}
source tools/gpu-env.sh
build() { # source tree
  (cd "$1" && { [ -d build ] || meson setup build -Dtests=false -Dmpi=disabled -Dhdf5=disabled >/dev/null; } &&
    ninja -C build >/dev/null)
}
build .
builds=("new:$PWD/build/clmc")
if [ -n "$ref" ]; then
  build "$ref"
  builds=("ref:$(cd "$ref" && pwd)/build/clmc" "${builds[@]}")
fi
mkdir -p "$out"
cases=("ea-lcg-R102400:pa-ea3d-L8-msc-lcg:102400:1024" "ea-lcg-R262144:pa-ea3d-L8-msc-lcg:262144:1024"
       "ea-lcg-R1048576:pa-ea3d-L8-msc-lcg:1048576:1024" "ea-philox-R102400:pa-ea3d-L8-msc:102400:1024"
       "ising2d-lcg-R100000:pa-ising2d-L64-msc-lcg:100000:4096"
       "ising2d-lcg-R1000000:pa-ising2d-L64-msc-lcg:1000000:4096")
for c in "${cases[@]}"; do
  IFS=: read -r name preset population spins <<< "$c"
  [ -z "${CASES:-}" ] || [[ " $CASES " == *" $name "* ]] || continue
  for b in "${builds[@]}"; do
    tag=${b%%:*} clmc=${b#*:}
    common=(--quiet --overwrite --device "$device" --set ensemble.population="$population")
    "$clmc" run "presets/$preset.json" "${common[@]}" --out "$out/warm-up" --set ensemble.steps=2 >/dev/null 2>&1
    "$clmc" run "presets/$preset.json" "${common[@]}" --out "$out/$name-$tag" --set ensemble.steps="$steps" \
      2> "$out/$name-$tag.txt"
    "$clmc" run "presets/$preset.json" "${common[@]}" --profile --out "$out/$name-$tag-profile" \
      --set ensemble.steps="$steps" 2> "$out/$name-$tag-profile.txt"
    python3 - "$out" "$name" "$tag" "$population" "$spins" "$steps" <<'PY'
import json, sys
out, name, tag, population, spins, steps = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:])
r = json.load(open(f"{out}/{name}-{tag}/result.json"))
perf, flips = r["performance"], population * spins * 10 * steps
share = launches = "-"
for line in open(f"{out}/{name}-{tag}-profile.txt"):
    if line.startswith("clmc profile: population annealing:"):
        share = line.rsplit(":", 1)[1].split("%")[0].strip() + " %"
    if " launches per sweep" in line:
        launches = "%.2f" % (10 * float(line.split(":")[2].split("launches")[0]))
print(f'{r["device"]["name"]}: {name} {tag}: {perf["wall_seconds"] / flips * 1e12:.4f} ps/flip wall, '
      f'{perf["seconds"] / flips * 1e12:.4f} in the updates, {100 * (1 - perf["seconds"] / perf["wall_seconds"]):.2f} % '
      f'of the wall outside them; --profile outside the sweeps {share}, {launches} launches a step; '
      f'fused {perf.get("fused_steps", {}).get("used")}; hash {r["checks"]["configuration_fnv1a"]}')
PY
  done
done
