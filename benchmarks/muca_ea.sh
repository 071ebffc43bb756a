#!/usr/bin/env bash
# Multicanonical density of states of the EA spin glass per disorder
# realization (issue 21 item 3) on a GPU: +-J, 2D L = 16 and 3D L = 4, 6, 8
# with 4 realizations each (run one after another by the same walkers) and
# 4096 or 65536 walkers per realization: per realization the wall seconds to
# converged W/H weights and the production ps per spin update
# (density_of_states.realizations[r].timing), with the device's name.
# The JSON documents land in OUT.
# Usage: source tools/gpu-env.sh; benchmarks/muca_ea.sh [DEVICE] [OUT]
#   (CASES "dim:L:walkers ..." to change the cases; SWEEPS production sweeps, default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
device=${1:-nvidia}; out=${2:-out/muca-ea}
mkdir -p "$out"
[ -d build ] || meson setup build -Dtests=false >/dev/null
ninja -C build >/dev/null
sweeps=${SWEEPS:-200}
read -r -a cases <<< "${CASES:-2:16:4096 2:16:65536 3:4:4096 3:4:65536 3:6:65536 3:8:65536}"
for case in "${cases[@]}"; do
  IFS=: read -r dim L walkers <<< "$case"
  name="muca-ea${dim}d-L$L-w$walkers"
  build/clmc run presets/muca-ea2d-L4.json --quiet --overwrite --device "$device" --out "$out/$name" \
    --set model.dim="$dim" --set model.L="$L" --set model.realizations=4 \
    --set ensemble='{"type": "multicanonical", "betas": [1.0], "walkers": '"$walkers"',
                     "iteration_sweeps": 100, "max_iterations": 100000}' \
    --set run.thermalization=0 --set run.sweeps="$sweeps" || { echo "$name failed" >&2; continue; }
  python3 - "$out/$name/result.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["density_of_states"]
for u in d["realizations"]:
    t = u["timing"]
    print(f'{r["device"]["name"]}: {sys.argv[2]} realization {u["realization"]}: {u["iterations"]} iterations, '
          f'weights {t["weights_seconds"]:.3f} s, production {t["production_ps_per_update"]:.2f} ps per update, '
          f'{len(u["energies"])} energies {u["energies"][0]} .. {u["energies"][-1]}')
print(f'{r["device"]["name"]}: {sys.argv[2]}: all realizations {d["seconds"]:.2f} s')
PY
done
