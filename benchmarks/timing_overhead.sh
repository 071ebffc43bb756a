#!/usr/bin/env bash
# What timing the update launches costs launch-bound runs (issue 19: wall time / kernel time
# <= 1.2 for the small presets): small presets run with this build and with REF (the source
# tree of another commit, built into REF/build here; e.g. one that put a profiling event on
# every update launch) in turn on one device in one call.  Per preset and build: wall seconds
# of the sweep loop, the update launches' device seconds (performance.seconds), their ratio,
# update launches and how many were timed (performance.update_launches, timed_launches; absent
# before the twenty-second session), and an md5 of the result's observables and checks (the
# two builds must agree).  PRESETS overrides the list ("name[:--set ...]" entries, ';'-separated).
# Usage: benchmarks/timing_overhead.sh [DEVICE] [OUT_DIR] [REF]   (sources tools/gpu-env.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-nvidia} out=${2:-out/timing-overhead} ref=${3:-}
[[ $device == pocl ]] || source tools/gpu-env.sh
build() { (cd "$1" && { [ -d build ] || meson setup build -Dtests=false -Dmpi=disabled -Dhdf5=disabled >/dev/null; } &&
  ninja -C build >/dev/null); }
build .
builds=("new:$PWD/build/clmc")
if [ -n "$ref" ]; then build "$ref"; builds=("ref:$(cd "$ref" && pwd)/build/clmc" "${builds[@]}"); fi
mkdir -p "$out"
IFS=';' read -r -a presets <<< "${PRESETS:-hard-disks-quick;hard-disks-quick:--set algorithm.fuse_shift=off;\
bench-hard-disks-N1024:--set run.sweeps=20;ising2d-L16-scan;quickstart;ising2d-critical:--set run.sweeps=20000;\
ea3d-L8-tempering:--set run.sweeps=20000 --set run.thermalization=2000;potts2d-q2-sw-critical;xy3d-critical;\
heisenberg3d-critical;ising3d-critical:--set run.sweeps=20000;ea2d-L16;muca-ising2d-L16;pa-ising2d-L32}"
for entry in "${presets[@]}"; do
  name=${entry%%:*} extra=""
  [[ $entry == *:* ]] && extra=${entry#*:}
  for b in "${builds[@]}"; do
    tag=${b%%:*} clmc=${b#*:}
    # shellcheck disable=SC2086
    "$clmc" run "presets/$name.json" --quiet --overwrite --device "$device" --out "$out/warm" $extra \
      --set run.sweeps=20 --set run.thermalization=0 >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    if ! "$clmc" run "presets/$name.json" --quiet --overwrite --device "$device" --out "$out/$tag" $extra \
         2> "$out/$tag.err"; then
      echo "$name $extra $tag: failed: $(tail -1 "$out/$tag.err")"; continue
    fi
    python3 - "$out/$tag/result.json" "$name $extra" "$tag" <<'PY'
import hashlib, json, sys
r = json.load(open(sys.argv[1])); p = r["performance"]
digest = hashlib.md5(json.dumps([r.get("observables"), r.get("checks")], sort_keys=True).encode()).hexdigest()[:12]
print(f'{r["device"]["name"]}: {sys.argv[2]} {sys.argv[3]}: wall {p["wall_seconds"]:.4f} s, kernels {p["seconds"]:.4f} s, '
      f'wall/kernel {p["wall_seconds"] / p["seconds"]:.3f}, update launches {p.get("update_launches", "-")} '
      f'(timed {p.get("timed_launches", "-")}); results md5 {digest}')
PY
  done
done
