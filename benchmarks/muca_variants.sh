#!/usr/bin/env bash
# Multicanonical and Wang-Landau walker speed of this tree's build against a
# reference build (REF, e.g. main's build/clmc) on the same card in one call,
# the two builds taking turns case by case (issue 21: at most 3 ps per update
# at L = 16 ... 64 with walkers filling the device, Wang-Landau with windows
# in the same range).  One line per case and build, each naming the device
# (result.json device.name):
#  - multicanonical 2D Ising, MUCA cases L:walkers:iteration_sweeps (default
#    16:540672:100 32:540672:100 48:270336:50 64:270336:25): iterations and
#    wall seconds to converged weights, production flatness and production
#    ps per update (SWEEPS sweeps, default 400).  L = 48 and 64 take shorter
#    weight iterations (50, 25 sweeps) to keep the call short: coarser
#    weights (the flatness column says how coarse), the same kernel.  L = 48
#    is the size whose group histograms moved into local memory (1/4 of it,
#    was 1/8); L = 64 moved into local memory with groups of 256 walkers
#    (2026-11-27).
#  - Wang-Landau with energy windows and replica exchange, WL cases
#    L:windows:walkers_per_window:final_ln_f (default 16:8:67584:1e-3
#    32:8:67584:1e-3, 540,672 walkers): wall seconds to the joined weights,
#    halvings, the exchange acceptance's range, and the production ps per
#    update after it (the windowed program with every window's weights the
#    same).
# Each run is cut at CASE_TIMEOUT seconds (default 150).  About 3 minutes on
# an H100 for both builds with the defaults (an estimate from the 2026-11-26
# records, not yet run: L = 64 weights took 90 s there with 100-sweep
# iterations).
# Usage: [REF=CLMC_BINARY | REF_TREE=SOURCE_TREE] benchmarks/muca_variants.sh [DEVICE, default nvidia] [OUTDIR, default out/muca-variants]
# e.g.   REF_TREE=MAIN_TREE benchmarks/muca_variants.sh nvidia out/muca-variants
# REF: the reference clmc binary (it reads the kernels of the tree it was
# built in, or CLMC_KERNEL_DIR); REF_TREE: a source tree (e.g. a copy of
# main) built here into REF_TREE/build-ref (-Dtests=false), its clmc the
# reference.  CLMC: this tree's binary (default: build/clmc, built with
# -Dtests=false if absent).
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
[[ -n ${CLMC:-} ]] || [ -x build/clmc ] || { meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null; }
device=${1:-nvidia} outdir=${2:-out/muca-variants}
if [ -n "${REF_TREE:-}" ] && [ -z "${REF:-}" ]; then
  [ -x "$REF_TREE/build-ref/clmc" ] ||
    { (cd "$REF_TREE" && meson setup build-ref -Dtests=false >/dev/null && ninja -C build-ref >/dev/null) ||
        { echo "REF_TREE $REF_TREE: build failed" >&2; exit 1; }; }
  REF=$(cd "$REF_TREE" && pwd)/build-ref/clmc
fi
clmc=${CLMC:-build/clmc} sweeps=${SWEEPS:-400} limit=${CASE_TIMEOUT:-150}
mkdir -p "$outdir"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# device: /'
echo "# this: $clmc at $(git describe --always --dirty 2>/dev/null || cat .commit 2>/dev/null)"
[ -n "${REF:-}" ] && echo "# ref:  $REF ($("$REF" --version 2>/dev/null | head -1)${REF_TREE:+, $(cd "$REF_TREE" && (git describe --always --dirty 2>/dev/null || cat .commit 2>/dev/null))})"
builds=(this)
[ -n "${REF:-}" ] && builds+=(ref)
binary() { [ "$1" = this ] && echo "$clmc" || echo "$REF"; }

report() { # result.json build label
  python3 - "$@" <<'PY'
import json, sys
path, build, label = sys.argv[1:4]
r = json.load(open(path))
d = r["density_of_states"]
t = d["timing"]
wl = d.get("wang_landau")
extra = f"iterations {d.get('iterations', '-')!s:>4}"
if wl:
    acc = [a for a in (wl.get("exchange_acceptance") or []) if a is not None]
    extra = (f"halvings {wl['halvings']:>3} final_ln_f {wl['final_ln_f']:.1e}"
             + (f" exchange acceptance {min(acc):.2f}..{max(acc):.2f}" if acc else ""))
print(f"{r['device']['name']}: {build:<4} {label:<34} walkers {d['walkers']:>7} {extra}  weights {t['weights_seconds']:8.3f} s"
      f"  production flatness {d.get('production_flatness', float('nan')):.3f}  {t['production_ps_per_update']:6.2f} ps/update")
PY
}

run_case() { # build name label ensemble-json L
  local build=$1 name=$2 label=$3 ensemble=$4 L=$5 out="$outdir/$1-$2"
  if timeout "$limit" "$(binary "$build")" run presets/muca-ising2d-L16.json --quiet --overwrite --device "$device" \
      --out "$out" --set model.L="$L" --set ensemble="$ensemble" --set run.thermalization=0 \
      --set run.sweeps="$sweeps" 2>"$out.log"; then
    report "$out/result.json" "$build" "$label"
  else
    echo "$build $label: failed or over ${limit} s ($(tail -c 300 "$out.log" | tr '\n' ' '))"
  fi
}

echo "== multicanonical 2D Ising, production $sweeps sweeps"
for case in ${MUCA:-16:540672:100 32:540672:100 48:270336:50 64:270336:25}; do
  IFS=: read -r L walkers iteration <<<"$case"
  ensemble='{"type": "multicanonical", "betas": [0.4406868], "walkers": '$walkers',
             "iteration_sweeps": '$iteration', "max_iterations": 100000}'
  for build in "${builds[@]}"; do
    run_case "$build" "muca-L$L-w$walkers" "muca L=$L iteration_sweeps=$iteration" "$ensemble" "$L"
  done
done

echo "== Wang-Landau 2D Ising with energy windows (overlap 0.5), production $sweeps sweeps"
for case in ${WL:-16:8:67584:1e-3 32:8:67584:1e-3}; do
  IFS=: read -r L windows per final <<<"$case"
  ensemble='{"type": "wang_landau", "betas": [0.4406868], "windows": '$windows', "walkers_per_window": '$per',
             "final_ln_f": '$final', "max_iterations": 100000000}'
  for build in "${builds[@]}"; do
    run_case "$build" "wl-L$L-k$windows-w$per" "wang_landau L=$L windows=$windows" "$ensemble" "$L"
  done
done
