#!/usr/bin/env bash
# The hard-disk Table 1 test (seed: no particle shuffling raises P* at
# phi = 0.708, N = 256^2) on a GPU, with the timings it rests on:
# (1) kernel ns per trial move and seconds per sweep at N = 256^2 (clmc bench);
# (2) a plain run of 20000 sweeps from the compressed start, measured every
#     100 sweeps as in the test: wall seconds per sweep with measurements, and
#     the start's cost;
# (3) the opt-in test tests/test_hard_disks unshuffled_particles_raise_the_pressure
#     (CLMC_LONG_TESTS=1), its printed numbers and wall time.
# Usage: benchmarks/hard_disks_table1.sh DEVICE OUTDIR   (e.g. nvidia out/table1)
#   SWEEPS=N passes CLMC_TABLE1_SWEEPS=N (measured sweeps per run; default 1e6).
#   Needs the build with tests (meson setup build -Dtests=true).
#   SMOKE=1: 20-sweep bench, 600-sweep run, SWEEPS=1500: a check of the script on PoCL.
set -uo pipefail
cd "$(dirname "$0")/.."
device=$1
mkdir -p "$2"
outdir=$(cd "$2" && pwd) clmc=$(realpath "${CLMC:-build/clmc}")
export CLMC_KERNEL_DIR=$PWD/cl CLMC_BIN=$clmc CLMC_PRESET_DIR=$PWD/presets CLMC_TEST_TMP=$outdir/test-tmp
export CLMC_DEVICE=$device
if [ "${SMOKE:-0}" = 1 ]; then bench_sweeps=20 run_sweeps=600 SWEEPS=${SWEEPS:-1500}; else bench_sweeps=20000 run_sweeps=20000; fi
table1=(--set model.write_configuration=false --set algorithm.pressure_range=0.2 --set algorithm.pressure_degree=3
        --set algorithm.pressure_bin=0.01)

echo "== (1) bench: N = 256^2, phi = 0.708, $bench_sweeps sweeps" >&2
"$clmc" bench presets/hard-disks-table1-N256.json --devices "$device" --quiet --json "$outdir/bench.json" \
  --set run.sweeps=$bench_sweeps "${table1[@]}"
python3 - "$outdir/bench.json" <<'PY'
import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    ns = d.get("metrics", {}).get("ns_per_update", {}).get("value")
    if ns:
        print(f'{d["device"]["name"]}: {ns:.4f} ns per trial move, {ns * 147456 / 1000:.1f} us per sweep '
              f'(147456 trial moves per sweep: 192^2 cells x n_M = 4)')
PY

echo "== (2) run: compressed start, $run_sweeps sweeps measured every 100" >&2
start=$(date +%s.%N)
"$clmc" run presets/hard-disks-table1-N256.json --device "$device" --quiet --out "$outdir/run" \
  --set model.start=compress --set run.thermalization=0 --set run.sweeps=$run_sweeps --set run.measure_every=100 "${table1[@]}"
end=$(date +%s.%N)
python3 - "$outdir/run/result.json" "$start" "$end" "$run_sweeps" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["performance"]
total, n = float(sys.argv[3]) - float(sys.argv[2]), int(sys.argv[4])
print(f'{n} sweeps: loop {p["wall_seconds"]:.2f} s wall ({p["wall_seconds"] / n * 1e6:.1f} us per sweep with '
      f'measurements), kernels {p["seconds"]:.2f} s; process {total:.1f} s (start, build, loop); '
      f'P* {r["observables"]["pressure"]["mean"]:.4f}')
loop = p["wall_seconds"] / n
print(f'expected Table 1 test: 2 runs x 1.8e6 sweeps = {2 * 1.8e6 * loop:.0f} s + 2 starts')
PY

echo "== (3) the opt-in Table 1 test" >&2
start=$(date +%s)
env CLMC_LONG_TESTS=1 ${SWEEPS:+CLMC_TABLE1_SWEEPS=$SWEEPS} ./build/tests/test_hard_disks -j1 \
  --filter 'hard_disks/unshuffled_particles_raise_the_pressure' 2>&1 | tee "$outdir/table1.txt"
echo "Table 1 test: $(( $(date +%s) - start )) s wall" | tee -a "$outdir/table1.txt"
