#!/usr/bin/env bash
# Swendsen-Wang of one Potts lattice decomposed over the GPUs of one host
# (docs/mpi.md, issue 25: "Swendsen-Wang 2D q = 2 at L = 16384 per GPU: time
# per update against one GPU"), preset presets/potts2d-q2-sw-L16384-ranks.json
# (critical 2D q = 2, union-find tiles of 64, sewing).
# Weak scaling: the lattice is square (model.L), so K = 2 runs the nearest
# square with the same sites per GPU, L = 16384 sqrt(2) rounded to a multiple
# of 128 (slabs of whole tiles): 23168 (268378112 sites per GPU against
# 268435456, 0.02 % fewer).  K = 4 would need L = 32768, 2^30 sites, beyond the
# 2^30 the Potts kernels count (model.L's limit): not run.  Strong scaling:
# L = 16384 on 2 GPUs (and 4 where nvidia-smi lists 4).  L = 23168 also runs on one GPU, as the reference for
# the bit-identity check of the weak K = 2 run (and the strong run against
# L = 16384 on one GPU).
# Per run: ns per update from the wall time of the sweep loop (rank 0's,
# exchanges and merges included) and per GPU (x K), from the ranks' summed
# device time, the weak-scaling efficiency (ns per update per GPU at K = 1
# over that at K), the share of the wall time in the cross-rank merge (host:
# MPI_Allgather of the boundary records, union-find, merged roots queued)
# and in the halo exchange of spins (performance.cross_rank), the merge's
# pieces per sweep (allgather with its waits for the slower rank, host
# union-find, upload), and the device names.  K = 2 needs 2 GPUs (nvidia-smi -L).
# Usage: benchmarks/sw_ranks.sh [OUT] [SWEEPS]   (SWEEPS 200 by default; a few minutes on 2 H100)
# MPIRUN_ARGS: more mpirun options (e.g. "--bind-to none", docs/mpi.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/sw-ranks} sweeps=${2:-200}
source tools/gpu-env.sh
if [ ! -x build/clmc ]; then
  meson setup build -Dtests=false >/dev/null && ninja -C build >/dev/null
fi
grep -q CLMC_HAVE_MPI build/build.ninja || { echo "sw_ranks: build/ has no MPI (meson -Dmpi=enabled)"; exit 1; }
mkdir -p "$out"
gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
nvidia-smi -L
mpirun --version | head -1
echo "GPUs: $gpus; $sweeps sweeps after 20 of thermalization"
preset=presets/potts2d-q2-sw-L16384-ranks.json

run() { # NAME K L
  local name=$1 k=$2 L=$3
  local args=(run "$preset" --device nvidia --out "$out/$name" --quiet --overwrite --set "model.L=$L"
              --set "run.sweeps=$sweeps")
  if [ "$k" = 1 ]; then build/clmc "${args[@]}"; else mpirun -np "$k" ${MPIRUN_ARGS:-} build/clmc "${args[@]}"; fi
}

report() { # NAME K BASELINE_NAME
  python3 - "$out/$1" "$2" "$out/$3" <<'PY'
import json, os, sys
path, k, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = json.load(open(path + "/result.json"))
p, pre = r["performance"], r["preset"]
L = pre["model"]["L"]
wall_ns = p["wall_seconds"] * 1e9 / p["updates"]
device_ns = p["seconds"] * 1e9 / p["updates"]  # device time summed over the ranks
names = [d["name"] for d in r["device"].get("ranks", [r["device"]])]
line = (f"L={L:<6} K={k}  {L * L // k} sites per GPU  wall {p['wall_seconds']:7.3f} s  {wall_ns:.4f} ns/update (wall)"
        f"  {wall_ns * k:.4f} ns/update per GPU  {device_ns:.4f} ns/update (device time)")
if base != path and os.path.exists(base + "/result.json"):
    b = json.load(open(base + "/result.json"))["performance"]
    one = b["wall_seconds"] * 1e9 / b["updates"]
    line += f"  efficiency {100 * one / (wall_ns * k):5.1f} %  speed-up {one / wall_ns:.2f}"
print(line + f"  [{', '.join(names)}]")
if c := p.get("cross_rank"):
    sweeps = pre["run"]["thermalization"] + pre["run"]["sweeps"]
    print(f"    cross-rank merge {c['merge_seconds']:.3f} s ({100 * c['merge_seconds'] / p['wall_seconds']:.1f} % of wall), "
          f"halo {c['halo_seconds']:.3f} s ({100 * c['halo_seconds'] / p['wall_seconds']:.1f} %), "
          f"{c['merged_roots'] / sweeps:.0f} roots merged per sweep on rank 0; domain {p.get('domain')}")
    if "union_find_seconds" in c:
        print("    merge per sweep (ms): " + ", ".join(f"{k.removesuffix('_seconds')} {1e3 * c[k] / sweeps:.3f}" for k in
              ("merge_seconds", "allgather_seconds", "union_find_seconds", "upload_seconds")))
if phases := p.get("phases"):
    print("    device phases (s): " + ", ".join(f"{n} {v['seconds']:.3f}" for n, v in phases.items()))
PY
}

same() { # NAME BASELINE_NAME
  local hash1 hash2
  hash1=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checks']['configuration_fnv1a'])" "$out/$1/result.json")
  hash2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checks']['configuration_fnv1a'])" "$out/$2/result.json")
  if cmp -s "$out/$1/series.csv" "$out/$2/series.csv" && [ "$hash1" = "$hash2" ]; then
    echo "    series.csv and configuration hash ($hash1) identical to the 1-GPU run of the same lattice"
  else
    echo "    DIFFERS from the 1-GPU run: series.csv $(cmp -s "$out/$1/series.csv" "$out/$2/series.csv" && echo same || echo different), hashes $hash1 / $hash2"
  fi
}

echo "== one GPU"
run k1-L16384 1 16384
report k1-L16384 1 k1-L16384
run k1-L23168 1 23168
report k1-L23168 1 k1-L23168
if [ "$gpus" -lt 2 ]; then echo "sw_ranks: one GPU only; K = 2 not run"; exit 0; fi
echo "== weak scaling: K = 2, L = 23168 (about 16384^2 sites per GPU)"
run k2-L23168 2 23168
report k2-L23168 2 k1-L16384
same k2-L23168 k1-L23168
echo "== strong scaling: K = 2, L = 16384"
run k2-L16384 2 16384
report k2-L16384 2 k1-L16384
same k2-L16384 k1-L16384
if [ "$(nvidia-smi -L | grep -c '^GPU')" -ge 4 ]; then
  echo "== strong scaling: K = 4, L = 16384"
  run k4-L16384 4 16384
  report k4-L16384 4 k1-L16384
  same k4-L16384 k1-L16384
fi
