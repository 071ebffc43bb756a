#!/usr/bin/env bash
# Multicanonical 2D Ising speed on a GPU against the peer cudamuca (issue 21's
# performance targets), all in one device call:
#  (1) benchmarks/muca_scan.sh: production ps per spin update and wall time to
#      converged weights (W/H iterations) at L = 16, 32, 64 for the walker
#      counts of CASES (default 16:26624 16:270336 32:26624 32:270336
#      64:26624 64:270336; ITERATION_SWEEPS, default 100; each case at most
#      CASE_TIMEOUT seconds, default 200);
#  (2) the peer (benchmarks/peers_pa_muca.sh builds it: PEERS/cudamuca) with
#      -m at PEER_CASES (default 16:26624 16:270336 32:26624 32:67584
#      32:135168 32:270336; each at most PEER_TIMEOUT seconds, default 120):
#      its "Total simulation time" is its time to
#      converged weights, "per spin flip" its rate;
#  (3) L = 32 weights time against walkers and iteration sweeps (WEIGHTS:
#      walkers:iteration_sweeps, default 8192:100 16384:100 26624:100
#      26624:50 65536:50 65536:25), clmc's best against the peer's best;
#  (4) time to a given accuracy of ln g at L = 32 against the number of
#      walkers (ACCURACY: walkers:production_sweeps, default 4096 26624
#      270336 walkers x 250 1000 4000 sweeps): weights + production wall
#      seconds and the largest |ln g - exact| over the energies (exact ln g
#      of tools/exact_dos.py 32 from the file EXACT32, default
#      tests/data/ising2d_dos_L32.txt; the section is skipped without it).
#      The production starts after THERMALIZATION unrecorded sweeps
#      (default 2000; its time is part of production_s): at L = 32 the
#      walkers need thousands of sweeps to cross the energies after the
#      weights (the opt-in exact test found ln g 0.12 too high at the low
#      energies with 100 and agreement within 2.4 standard errors with
#      4000); THERMALIZATION=0 shows that start bias.
# REF: a second clmc build (e.g. main's) timed on (1)'s cases too (or on
# REF_CASES), the baseline on the same card.  SKIP: sections to leave out
# (e.g. "1 2 3": only the accuracy table).  Every section names the device.
# Usage: benchmarks/muca_speed.sh DEVICE OUTDIR PEERS
#   e.g. benchmarks/muca_speed.sh nvidia /tmp/muca-speed .peers   (about 5 minutes on an H100)
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:?DEVICE} outdir=${2:?OUTDIR} peers=$(cd "${3:?PEERS}" && pwd)
mkdir -p "$outdir"
clmc=${CLMC:-build/clmc}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# device: /'
"$clmc" devices | grep -i "$device" | head -1 | sed 's/^/# clmc device: /'

skip() { [[ " ${SKIP:-} " == *" $1 "* ]]; }

read -r -a cases <<<"${CASES:-16:26624 16:270336 32:26624 32:270336 64:26624 64:270336}"
skip 1 && cases=()
skip 1 || echo "== (1) clmc $(cat .commit 2>/dev/null || git describe --always --dirty 2>/dev/null): muca_scan ITERATION_SWEEPS=${ITERATION_SWEEPS:-100}"
skip 1 || printf '%-6s %-8s %-10s %-12s %-14s %s\n' L walkers iterations weights_s production_s ps_per_update
for case in "${cases[@]}"; do  # each case at most CASE_TIMEOUT seconds (default 200)
  CLMC=$clmc timeout "${CASE_TIMEOUT:-200}" benchmarks/muca_scan.sh "$device" "$outdir/scan" "$case" | tail -n +2 ||
    echo "$case: no result within ${CASE_TIMEOUT:-200} s"
done
if [ -n "${REF:-}" ] && ! skip 1; then
  read -r -a ref_cases <<<"${REF_CASES:-${cases[*]}}"
  echo "== (1) reference build $REF"
  CLMC=$REF benchmarks/muca_scan.sh "$device" "$outdir/scan-ref" "${ref_cases[@]}"
fi

skip 2 || echo "== (2) peer cudamuca -m"
skip 2 || for point in ${PEER_CASES:-16:26624 16:270336 32:26624 32:67584 32:135168 32:270336}; do
  L=${point%%:*} W=${point##*:} dir="$outdir/peer-L$L-W$W"
  mkdir -p "$dir"
  ( cd "$dir" && /usr/bin/time -f "wall %e s" timeout "${PEER_TIMEOUT:-120}" "$peers/cudamuca/ising2D_gpu" -L "$L" -m -W "$W" \
      > log.txt 2>&1; tail -1 log.txt )
  printf 'peer L=%-3s W=%-7s %s\n' "$L" "$W" "$(grep -h -E "Total simulation time|per spin flip" "$dir"/*.dat "$dir/log.txt" 2>/dev/null | tr '\n' ' ')"
done

skip 3 || echo "== (3) clmc L = 32 weights: walkers:iteration_sweeps"
skip 3 || for point in ${WEIGHTS:-8192:100 16384:100 26624:100 26624:50 65536:50 65536:25}; do
  W=${point%%:*} S=${point##*:}
  line=$(SWEEPS=20 ITERATION_SWEEPS=$S CLMC=$clmc benchmarks/muca_scan.sh "$device" "$outdir/weights" "32:$W" | tail -1)
  printf 'iteration_sweeps %-4s %s\n' "$S" "$line"
done

exact=${EXACT32:-tests/data/ising2d_dos_L32.txt}
if ! skip 4 && [ -s "$exact" ]; then
  therm=${THERMALIZATION:-2000}
  echo "== (4) clmc L = 32 accuracy of ln g ($therm unrecorded sweeps first): walkers, production sweeps, weights_s + production_s, max|ln g - exact|"
  for point in ${ACCURACY:-4096:250 4096:1000 4096:4000 26624:250 26624:1000 26624:4000 270336:250 270336:1000 270336:4000}; do
    W=${point%%:*} S=${point##*:} name="$outdir/accuracy-$W-$S"
    "$clmc" run presets/muca-ising2d-L16.json --quiet --overwrite --device "$device" --out "$name" \
      --set model.L=32 --set ensemble='{"type": "multicanonical", "betas": [0.4406868], "walkers": '"$W"',
                                        "iteration_sweeps": 100, "max_iterations": 100000}' \
      --set run.thermalization="$therm" --set run.sweeps="$S" || { echo "$name failed" >&2; continue; }
    python3 - "$name/result.json" "$exact" "$W" "$S" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))["density_of_states"]
exact = {}
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith("#"):
        e, g = line.split(); exact[int(e)] = math.log(int(g))
worst = max(abs(g - exact[e]) for e, g in zip(d["energies"], d["ln_g"]))
t = d["timing"]
print(f'walkers {sys.argv[3]:>7} sweeps {sys.argv[4]:>5} weights {t["weights_seconds"]:7.3f} s + production '
      f'{t["production_seconds"]:7.3f} s = {t["weights_seconds"] + t["production_seconds"]:7.3f} s  '
      f'max|ln g - exact| {worst:.4f}')
PY
  done
fi
