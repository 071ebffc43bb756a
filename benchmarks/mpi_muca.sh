#!/usr/bin/env bash
# Multicanonical walkers over MPI ranks (docs/mpi.md, issues 21 and 24): a 2D
# Ising multicanonical run (presets/muca-ising2d-L16.json at L and WALKERS)
# from a build without MPI, an MPI build without mpirun, mpirun -np 1, and
# mpirun -np 2 (both ranks on DEVICE, or one device each with a comma list
# such as 0:0,0:1), each with the time to converged weights, the production
# ps per update (wall) and whether density_of_states and observables equal
# the build without MPI; then the cost of checkpoints (run.checkpoint_every
# 200 sweeps, one process) against none.  Prints the device of every run.
# Usage: benchmarks/mpi_muca.sh BUILD_WITH_MPI BUILD_WITHOUT_MPI [DEVICE] [OUT] [L] [WALKERS] [SWEEPS]
# e.g.   source tools/gpu-env.sh; meson setup build -Dtests=false -Dmpi=enabled && ninja -C build
#        meson setup build-nompi -Dtests=false -Dmpi=disabled && ninja -C build-nompi
#        benchmarks/mpi_muca.sh build build-nompi nvidia out/mpi-muca 32 65536 20000
set -euo pipefail
cd "$(dirname "$0")/.."
with=${1:?build with MPI}; without=${2:?build without MPI}; device=${3:-nvidia}; out=${4:-out/mpi-muca}
L=${5:-32}; walkers=${6:-65536}; sweeps=${7:-20000}
mkdir -p "$out"
sets=(--set model.L="$L" --set ensemble.walkers="$walkers" --set run.sweeps="$sweeps" --set ensemble.max_iterations=1000)
first_device=${device%%,*}
summary() { python3 - "$1" "$2" "$out/none/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/result.json")); d = r["density_of_states"]; t = d.pop("timing")
ref = json.load(open(sys.argv[3])); ref_d = ref["density_of_states"]; ref_d.pop("timing")
same = d == ref_d and r["observables"] == ref["observables"]
devices = [x["name"] for x in r["device"].get("ranks", [r["device"]])]
print(f"{sys.argv[2]:<36} weights {t['weights_seconds']:8.3f} s  production {t['production_ps_per_update']:8.3f} "
      f"ps/update (wall)  wall {r['performance']['wall_seconds']:8.3f} s  "
      f"{'identical to no-MPI' if same else 'DIFFERS from no-MPI'}  devices {devices}")
PY
}
"$without/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --device "$first_device" --out "$out/warm" --quiet --overwrite
"$without/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --device "$first_device" --out "$out/none" --quiet --overwrite
summary "$out/none" "no MPI in the build"
"$with/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --device "$first_device" --out "$out/with" --quiet --overwrite
summary "$out/with" "MPI build, no mpirun"
mpirun -np 1 "$with/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --device "$first_device" --out "$out/np1" --quiet --overwrite
summary "$out/np1" "MPI build, mpirun -np 1"
two=$device; [[ $device == *,* ]] || two=$device,$device
mpirun -np 2 --oversubscribe "$with/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --device "$two" --out "$out/np2" --quiet --overwrite
summary "$out/np2" "mpirun -np 2 (devices $two)"
"$without/clmc" run presets/muca-ising2d-L16.json "${sets[@]}" --set run.checkpoint_every=200 --device "$first_device" \
  --out "$out/ckpt" --quiet --overwrite
summary "$out/ckpt" "checkpoint every 200 sweeps"
python3 - "$out" <<'PY'
import json, sys
w = lambda n: json.load(open(f"{sys.argv[1]}/{n}/result.json"))["performance"]["wall_seconds"]
print(f"checkpoints every 200 sweeps: wall {w('ckpt'):.3f} s against {w('none'):.3f} s ({100 * (w('ckpt') / w('none') - 1):+.1f} %)")
PY
