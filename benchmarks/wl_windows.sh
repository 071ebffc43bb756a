#!/usr/bin/env bash
# Wang-Landau with energy windows and replica exchange (issue 21) and q = 10
# Potts multicanonical on a GPU.  (1) 2D Ising L = 16 (exact density of
# states in tests/data, ising2d_dos.txt and ising2d_dos_L32.txt): windows 1,
# 4 and 8 with 256 and 2048 walkers per window: wall seconds to the joined
# weights, production ps per update, the exchange acceptance per window pair,
# and the accuracy of ln g (largest |ln g - exact| and largest |z|) against
# the total number of walkers.  (2) q = 10 Potts, presets/muca-potts10-L{16,32}.json:
# seconds to converged weights, ps per update, the peaks of the histogram at
# the equal-height temperature and the latent heat against Baxter's 0.69605.
# Every line names the device (result.json device.name).
# Usage: benchmarks/wl_windows.sh [DEVICE, default nvidia] [OUTDIR, default out/wl-windows]
# e.g.   benchmarks/wl_windows.sh nvidia out/wl-windows      (about 10-20 minutes on an H100)
# SIZES, WINDOWS, WALKERS, POTTS (space-separated lists) pick a subset: defaults "16 32", "1 4 8", "256 2048", "16 32".
# POTTS sizes without a preset of their own run presets/muca-potts10-L32.json at that edge; each Potts run is cut
# at POTTS_TIMEOUT seconds (default 600).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
[[ -n ${CLMC:-} ]] || [ -x build/clmc ] || { meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null; }
device=${1:-nvidia} outdir=${2:-out/wl-windows}
clmc=${CLMC:-build/clmc}
mkdir -p "$outdir"
cp tests/data/ising2d_dos.txt "$outdir/exact_dos.txt"
cat tests/data/ising2d_dos_L32.txt >> "$outdir/exact_dos.txt"

summary() { # result_dir label L
  python3 - "$1/result.json" "$2" "$3" "$outdir/exact_dos.txt" <<'PY'
import json, math, sys
path, label, L, exact_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
r = json.load(open(path))
d = r["density_of_states"]
exact, current = {}, None
for line in open(exact_file):
    if line.startswith("#"):
        current = int(line.split()[2]); continue
    if current == L and line.strip():
        e, g = line.split(); exact[int(e)] = math.log(int(g))
wl = d.get("wang_landau", {})
acc = wl.get("exchange_acceptance")
accuracy = "no exact DOS"
if exact:
    dev = [(abs(g - exact[e]), abs(g - exact[e]) / s if s else float("inf"))
           for e, g, s in zip(d["energies"], d["ln_g"], d["error"])]
    accuracy = f"max|dln g| {max(x for x, _ in dev):.4f} max|z| {max(z for _, z in dev):.2f}"
t = d["timing"]
print(f"{r['device']['name']}: {label:<28} walkers {d['walkers']:>7} weights {t['weights_seconds']:8.2f} s "
      f"production {t['production_ps_per_update']:7.2f} ps/update  {accuracy}"
      + (f"  exchange acceptance {' '.join(f'{a:.2f}' for a in acc if a is not None)}" if acc else ""))
PY
}

for L in ${SIZES:-16 32}; do
  for windows in ${WINDOWS:-1 4 8}; do
    for per in ${WALKERS:-256 2048}; do
      name=wl-L$L-k$windows-w$per
      if [ "$windows" = 1 ]; then
        ensemble='{"type": "wang_landau", "betas": [0.4406868], "walkers": '$per', "final_ln_f": 1e-5, "max_iterations": 100000000}'
      else
        ensemble='{"type": "wang_landau", "betas": [0.4406868], "windows": '$windows', "walkers_per_window": '$per', "final_ln_f": 1e-5, "max_iterations": 100000000}'
      fi
      "$clmc" run presets/wl-ising2d-L16.json --quiet --overwrite --device "$device" --out "$outdir/$name" \
        --set model.L=$L --set ensemble="$ensemble" --set run.thermalization=100 --set run.sweeps=20000 \
        || { echo "$name failed" >&2; continue; }
      summary "$outdir/$name" "Ising L=$L windows=$windows" $L
    done
  done
done

for L in ${POTTS:-16 32}; do
  name=muca-potts10-L$L preset=presets/muca-potts10-L$L.json
  [ -f "$preset" ] || preset=presets/muca-potts10-L32.json  # other sizes: the L = 32 set-up at edge L
  timeout "${POTTS_TIMEOUT:-600}" "$clmc" run "$preset" --quiet --overwrite --device "$device" --out "$outdir/$name" \
    --set model.L="$L" || { echo "$name failed or over ${POTTS_TIMEOUT:-600} s" >&2; continue; }
  python3 - "$outdir/$name/result.json" $L <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1])); L = int(sys.argv[2]); N = L * L
d = r["density_of_states"]; E, g = d["energies"], d["ln_g"]
def peaks(beta):
    h = [x - beta * e for x, e in zip(g, E)]
    o = max((i for i in range(len(E)) if E[i] < -4 * N / 3), key=lambda i: h[i])
    s = max((i for i in range(len(E)) if E[i] >= -4 * N / 3), key=lambda i: h[i])
    return h, o, s
lo, hi = 0.5, 3.0
for _ in range(80):
    beta = (lo + hi) / 2
    h, o, s = peaks(beta)
    lo, hi = (lo, beta) if h[o] > h[s] else (beta, hi)
dip = 1 - math.exp(min(h[o:s + 1]) - max(h[o], h[s]))
theta = math.acosh(math.sqrt(10) / 2)
baxter = 2 * (1 + 1 / math.sqrt(10)) * math.tanh(theta / 2) * math.prod(math.tanh(n * theta) ** 2 for n in range(1, 200))
t = d["timing"]
print(f"{r['device']['name']}: Potts q=10 L={L} walkers {d['walkers']} weights {t['weights_seconds']:.2f} s "
      f"({d.get('iterations')} iterations) production {t['production_ps_per_update']:.2f} ps/update; equal peaks at "
      f"beta {beta:.5f}, e = {E[o] / N:.4f} and {E[s] / N:.4f}: latent heat {(E[s] - E[o]) / N:.4f} "
      f"(Baxter {baxter:.5f}), dip {100 * dip:.1f} %")
PY
done
