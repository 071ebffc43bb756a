#!/usr/bin/env bash
# ensemble.type "independent" beyond Ising (issue 19): kernel ps per update of
# many small systems per launch against one large system, for Potts
# (Swendsen-Wang q = 2, all systems labelled in the same launches, and
# Metropolis q = 3), the 3D Heisenberg ferromagnet (tiled heat-bath) and bond
# percolation (likewise labelled together).  Each line: the point, R systems x
# L^dim sites (about 2^24 sites in all, SITES_LOG2 changes it), ps/update.
# Usage: benchmarks/independent_models.sh DEVICE   (a few minutes on an H100)
# L2D (default "4096 256 128 64") and L3D (default "256 64 32 16") set the
# edges; MODELS (default "potts-sw potts-metropolis heisenberg percolation")
# picks the models; CLMC the binary (e.g. a reference build's, to compare).
# Smoke test on PoCL: SITES_LOG2=12 L2D="64 16" L3D="16 8" benchmarks/independent_models.sh pocl
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1
clmc=${CLMC:-build/clmc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total=$(( 1 << ${SITES_LOG2:-24} ))

# point NAME DIM L MODEL_JSON ALGORITHM_JSON BETA SWEEPS: one system of L^dim sites
# when L^dim >= total, else total / L^dim copies.
point() {
  local name=$1 dim=$2 L=$3 model=$4 algorithm=$5 beta=$6 sweeps=$7
  local sites=$(( dim == 3 ? L * L * L : L * L )) copies=1 ensemble
  (( sites < total )) && copies=$(( total / sites ))
  if [[ $beta == none ]]; then
    ensemble=$([[ $copies -gt 1 ]] && echo "{\"type\": \"independent\", \"copies\": $copies}" || echo "{}")
  elif (( copies > 1 )); then
    ensemble="{\"type\": \"independent\", \"betas\": [$beta], \"copies\": $copies}"
  else
    ensemble="{\"beta\": $beta}"
  fi
  cat > "$work/$name.json" <<EOF
{"name": "$name", "model": {$model, "dim": $dim, "L": $L}, "algorithm": $algorithm, "ensemble": $ensemble,
 "run": {"thermalization": 0, "sweeps": $sweeps}}
EOF
  if "$clmc" bench "$work/$name.json" --devices "$device" --quiet --repetitions 3 --json "$work/$name.out.json" \
       >/dev/null 2>"$work/$name.err"; then
    python3 - "$work/$name.out.json" "$name" "$copies" "$L" "$dim" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
ps = d["metrics"]["ns_per_update"]["value"] * 1e3
print(f"{sys.argv[2]:<28} {sys.argv[3]:>7} x L={sys.argv[4]:<5} {sys.argv[5]}D {ps:12.4f} ps/update  ({d['device']['name']})")
EOF
  else
    echo "$name: failed: $(tail -1 "$work/$name.err")"
  fi
}

models=" ${MODELS:-potts-sw potts-metropolis heisenberg percolation} "
potts_sw='"type": "potts", "q": 2' sw='{"type": "swendsen_wang"}'
[[ $models == *" potts-sw "* ]] &&
  for L in ${L2D:-4096 256 128 64}; do point "potts-sw-q2-L$L" 2 "$L" "$potts_sw" "$sw" 0.8813736 50; done
potts_m='"type": "potts", "q": 3' metro='{"type": "metropolis"}'
[[ $models == *" potts-metropolis "* ]] &&
  for L in ${L2D:-4096 256 128 64}; do point "potts-metropolis-q3-L$L" 2 "$L" "$potts_m" "$metro" 1.0 100; done
heis='"type": "heisenberg", "n": 3' hb='{"type": "heatbath", "layout": "tiled", "overrelaxation_steps": 1}'
[[ $models == *" heisenberg "* ]] &&
  for L in ${L3D:-256 64 32 16}; do point "heisenberg3d-L$L" 3 "$L" "$heis" "$hb" 0.693 20; done
perc='"type": "percolation", "p": 0.5' labeling='{}'
[[ $models == *" percolation "* ]] &&
  for L in ${L2D:-4096 256 128 64}; do point "percolation2d-bond-L$L" 2 "$L" "$perc" "$labeling" none 20; done
exit 0
