#!/usr/bin/env bash
# Population annealing with the multi-spin coded Ising layout, algorithm.resident
# "off" (two launches per sweep and a measurement launch per step) against "on"
# (theta sweeps and the members' measurement in one launch per step,
# cl/ising/ising_msc.cl ising_msc_resident_update): per case the wall ps per
# flip (the whole anneal: resampling, measurement, launch gaps), the device ps
# per flip of the update kernels, and --profile's share of the wall time the
# device spends outside the sweeps; the issue's target is 0.4 ps per flip at
# theta = 10, R >= 1e5, all overheads included.  Cases: 2D L = 64 and 128, 3D
# L = 64 (msc needs L a multiple of 64), R = 1e5 and 1e6 (3D R = 1e6 with a
# fifth of the steps: 32 GiB of members), theta = 10, equal steps to beta 1
# (3D: 0.4).  Writes OUT_DIR/pa-resident.json and one line per run; the
# --profile events add a little to every launch.
# Usage: benchmarks/pa_resident.sh [DEVICE] [OUT_DIR] [STEPS] [CASES]
#   CASES: space-separated DIM:L:R (default all of the above)
# e.g.   benchmarks/pa_resident.sh nvidia out/pa-resident          (a few minutes on an H100)
#        benchmarks/pa_resident.sh nvidia out/pa-resident 100 "2:64:1000000"
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
device=${1:-nvidia} out=${2:-out/pa-resident} steps=${3:-100}
cases=${4:-"2:64:100000 2:64:1000000 2:128:100000 2:128:1000000 3:64:100000 3:64:1000000"}
mkdir -p "$out"
[ -d build ] || meson setup build -Dtests=false >/dev/null
ninja -C build >/dev/null
clmc=build/clmc
run() { # name dim L R steps resident
  local beta_end=1.0
  [ "$2" = 3 ] && beta_end=0.4
  "$clmc" run presets/pa-ising2d-L64-msc.json --quiet --profile --device "$device" --out "$out/$1" --overwrite \
    --set model.dim="$2" --set model.L="$3" --set ensemble.population="$4" \
    --set ensemble.steps="$5" --set ensemble.sweeps_per_step=10 --set ensemble.beta_end="$beta_end" \
    --set algorithm.resident="\"$6\"" 2> "$out/$1.profile"
}
names=()
for c in $cases; do
  IFS=: read -r dim L R <<< "$c"
  n=$steps
  [ "$dim" = 3 ] && [ "$R" -ge 1000000 ] && n=$(( (steps + 4) / 5 ))
  for mode in off on; do # a small anneal first compiles the kernels (program cache)
    run "warm-up-$dim-$L-$mode" "$dim" "$L" 1000 2 "$mode" || true
    name="pa-msc-${dim}d-L$L-R$R-$mode"
    if run "$name" "$dim" "$L" "$R" "$n" "$mode"; then names+=("$name")
    else echo "$name: clmc failed (exit $?): $(tail -1 "$out/$name.profile")"; fi
  done
done
python3 - "$out" "${names[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
rows = []
for name in names:
    r = json.load(open(f"{out}/{name}/result.json"))
    p, perf = r["preset"], r["performance"]
    sites = p["model"]["L"] ** p["model"]["dim"]
    flips = float(sites) * p["ensemble"]["population"] * p["ensemble"]["sweeps_per_step"] * p["ensemble"]["steps"]
    share = None  # "clmc profile: population annealing: W s wall, D s device outside the sweeps (...): P% of the wall time"
    for line in open(f"{out}/{name}.profile"):
        if line.startswith("clmc profile: population annealing:"):
            share = float(line.rsplit(":", 1)[1].split("%")[0]) / 100
    row = {"name": name, "dim": p["model"]["dim"], "L": p["model"]["L"], "population": p["ensemble"]["population"],
           "steps": p["ensemble"]["steps"], "theta": p["ensemble"]["sweeps_per_step"],
           "resident": perf.get("resident", {}), "flips": flips, "wall_seconds": perf["wall_seconds"],
           "update_kernel_seconds": perf["seconds"], "ps_per_flip_wall": perf["wall_seconds"] / flips * 1e12,
           "ps_per_flip_device": perf["seconds"] / flips * 1e12, "profile_outside_sweeps_fraction": share,
           "final_energy": r["observables"]["temperatures"][-1]["energy"]["mean"]}
    rows.append(row)
    print(f'{r["device"]["name"]}: {name}: {row["ps_per_flip_wall"]:.3f} ps/flip wall, {row["ps_per_flip_device"]:.3f} '
          f'ps/flip device (updates), --profile outside the sweeps {100 * share:.1f}% of the wall time; resident '
          f'{row["resident"].get("used")} ({row["resident"].get("configs_per_group", "-")} per group); '
          f'final energy {row["final_energy"]:.6f}')
if not rows:
    sys.exit("no run finished")
doc = {"schema": "clmc-pa-resident", "format_version": 1, "device": r["device"], "target_ps_per_flip": 0.4,
       "runs": rows}
json.dump(doc, open(f"{out}/pa-resident.json", "w"), indent=1)
PY
