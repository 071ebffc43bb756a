#!/usr/bin/env bash
# Domain decomposition of one Ising msc lattice over the GPUs of one host
# (docs/mpi.md, issue 25): weak scaling in 2D with about 65536^2 sites per GPU
# (L = 65536 sqrt(K) rounded to a multiple of 2048, so that a row of a colour
# plane, L / 64 words, is a whole number of 128-byte lines: 65536, 92160,
# 131072, 186368 on K = 1, 2, 4, 8; WEAK_ROUND=64 rounds to a multiple of
# 64 K instead, the earlier 92672 and 185344), strong scaling of 2D L = 65536 and of 3D
# L = 1024 on K = 1, 2, 4 (8).  K runs over 1, 2, 4, 8 up to the GPUs that
# nvidia-smi -L lists; K = 1 is the plain single-process run.  Each run prints
# the spin flips per ns from the wall time of its sweep loop (measurements and
# halo exchanges included; performance.wall_seconds of rank 0) and from the
# ranks' summed device time of the update kernels, and the efficiency against
# K = 1: weak (flips/ns per GPU) / (flips/ns of 1 GPU), strong (flips/ns) /
# (K x flips/ns of 1 GPU).  Where a lattice ran on 1 and on K GPUs, series.csv
# and the configuration hash of the K-rank run are compared with the 1-rank run.
# Usage: benchmarks/mpi_domain.sh [OUT] [SWEEPS]   (SWEEPS 500 by default; about 4 minutes on 4 H100,
# most of it the start-up and the configuration hash of each run, not the sweeps)
# MPIRUN_ARGS: more mpirun options (e.g. "--bind-to none", docs/mpi.md); PARTS: which
# series to run (default "weak strong 3d"); SET: more clmc options for every run (e.g.
# "--set algorithm.update_group=256", docs/models/ising.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/mpi-domain} sweeps=${2:-500}
source tools/gpu-env.sh
if [ ! -x build/clmc ]; then
  meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null
fi
grep -q CLMC_HAVE_MPI build/build.ninja || { echo "mpi_domain: build/ has no MPI (meson -Dmpi=enabled)"; exit 1; }
mkdir -p "$out"
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
nvidia-smi -L
mpirun --version | head -1
ks=()
for k in 1 2 4 8; do [ "$k" -le "$gpus" ] && ks+=("$k"); done
echo "GPUs: $gpus; K = ${ks[*]}; $sweeps sweeps (3D: $((2 * sweeps)))"

run() { # NAME K DIM L SWEEPS
  local name=$1 k=$2 dim=$3 L=$4 n=$5
  cat > "$out/$name.json" <<JSON
{ "name": "mpi-domain", "model": { "type": "ising", "dim": $dim, "L": $L, "start": "random" },
  "algorithm": { "type": "metropolis", "layout": "msc" }, "ensemble": { "beta": $([ "$dim" = 2 ] && echo 0.44 || echo 0.22) },
  "run": { "thermalization": 0, "sweeps": $n, "measure_every": $((n / 4)), "seed": 11 } }
JSON
  if [ "$k" = 1 ]; then
    build/clmc run "$out/$name.json" --device nvidia --out "$out/$name" --quiet --overwrite ${SET:-}
  else
    mpirun -np "$k" ${MPIRUN_ARGS:-} build/clmc run "$out/$name.json" --device nvidia --out "$out/$name" --quiet --overwrite ${SET:-}
  fi
}

report() { # NAME K BASELINE_NAME KIND(weak|strong)
  python3 - "$out/$1" "$2" "$out/$3" "$4" <<'PY'
import json, os, sys
path, k, base, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
r = json.load(open(path + "/result.json"))
p, pre = r["performance"], r["preset"]
wall = p["updates"] / p["wall_seconds"] / 1e9
device = p["updates"] / (p["seconds"] / k) / 1e9  # summed device time over K ranks
names = [d["name"] for d in r["device"].get("ranks", [r["device"]])]
line = (f"{pre['model']['dim']}D L={pre['model']['L']:<6} K={k}  {p['updates']:.3e} flips  wall {p['wall_seconds']:7.3f} s"
        f"  {wall:8.1f} flips/ns (wall)  {wall / k:7.1f} per GPU  {device:8.1f} flips/ns (device time)")
if os.path.exists(base + "/result.json") and base != path:
    b = json.load(open(base + "/result.json"))["performance"]
    one = b["updates"] / b["wall_seconds"] / 1e9
    eff = (wall / k) / one if kind == "weak" else wall / (k * one)
    line += f"  {kind} efficiency {100 * eff:5.1f} %"
print(line + f"  [{', '.join(names)}]")
if domain := p.get("domain"):
    print(f"    performance.domain {domain}")
PY
}

same() { # NAME BASELINE_NAME
  local hash1 hash2
  hash1=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checks']['configuration_fnv1a'])" "$out/$1/result.json")
  hash2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checks']['configuration_fnv1a'])" "$out/$2/result.json")
  if cmp -s "$out/$1/series.csv" "$out/$2/series.csv" && [ "$hash1" = "$hash2" ]; then
    echo "    series.csv and configuration hash ($hash1) identical to the 1-GPU run"
  else
    echo "    DIFFERS from the 1-GPU run: series.csv $(cmp -s "$out/$1/series.csv" "$out/$2/series.csv" && echo same || echo different), hashes $hash1 / $hash2"
  fi
}

parts=" ${PARTS:-weak strong 3d} "
[[ $parts == *" weak "* || $parts == *" strong "* ]] && echo "== weak scaling, 2D msc, about 65536^2 sites per GPU"
for k in "${ks[@]}"; do
  [[ $parts == *" weak "* || $k == 1 ]] || continue
  L=$(python3 -c "import math; k=$k; m=${WEAK_ROUND:-2048}; m=64*k if m==64 else m; print(round(65536*math.sqrt(k)/m)*m)")
  run "weak2d-k$k" "$k" 2 "$L" "$sweeps"
  report "weak2d-k$k" "$k" weak2d-k1 weak
done
[[ $parts == *" strong "* ]] && echo "== strong scaling, 2D msc, L = 65536"
for k in "${ks[@]}"; do
  [[ $parts == *" strong "* ]] || break
  [ "$k" = 1 ] && { report weak2d-k1 1 weak2d-k1 strong; continue; }  # the weak series' K = 1 run
  run "strong2d-k$k" "$k" 2 65536 "$sweeps"
  report "strong2d-k$k" "$k" weak2d-k1 strong
  same "strong2d-k$k" weak2d-k1
done
[[ $parts == *" 3d "* ]] && echo "== strong scaling, 3D msc, L = 1024"
for k in "${ks[@]}"; do
  [[ $parts == *" 3d "* ]] || break
  run "strong3d-k$k" "$k" 3 1024 $((2 * sweeps))
  report "strong3d-k$k" "$k" strong3d-k1 strong
  [ "$k" = 1 ] || same "strong3d-k$k" strong3d-k1
done
