#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and no network: register the NVIDIA OpenCL
# driver, build clmc against extracted Debian packages in .deps/root (cJSON,
# Criterion), list devices, run the device-agreement and RNG tests, and record
# the Ising scans.  Usage: [SCAN_3D="L..."] [SCAN_POCL="L..."] tools/gpu-session.sh OUTDIR [2D sizes...]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
mkdir -p "$out"
source tools/gpu-env.sh
rm -rf build
meson setup build -Dtests=true >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
ninja -C build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
build/clmc devices | tee "$out/devices.txt"
meson test -C build rng_device cli --print-errorlogs --verbose >"$out/tests.log" 2>&1
echo "tests exit $?"; grep -E "device |configuration|Synthesis|SKIP|FAIL" "$out/tests.log"
# Bit-identity of a few more configurations between PoCL and the GPU.
for cfg in "2 64 naive 1 0" "2 96 tiled 3 0" "3 24 tiled 2 8" "3 16 naive 1 0" "2 40 tiled 1 10"; do
  read -r dim L layout hits tile <<<"$cfg"
  for dev in pocl nvidia; do
    build/clmc run presets/quickstart.json --quiet --device "$dev" --out "/tmp/xdev-$dev" \
      --set model.dim="$dim" --set model.L="$L" --set algorithm.layout="$layout" \
      --set algorithm.hits="$hits" --set algorithm.tile="$tile" --set run.sweeps=500 --set run.thermalization=100
  done
  same=$(cmp -s /tmp/xdev-pocl/series.csv /tmp/xdev-nvidia/series.csv && echo identical || echo DIFFERENT)
  echo "cross-device $cfg: series $same; hashes $(grep -h fnv1a /tmp/xdev-*/result.json | tr -d ' \n\t')"
done | tee "$out/cross-device.txt"
build/benchmarks/rng_throughput nvidia --json "$out/rng-throughput-nvidia.json"
benchmarks/ising_scan.sh nvidia 2 "$out/ising2d-scan-nvidia.json" "$@"
[ -n "${SCAN_3D:-}" ] && benchmarks/ising_scan.sh nvidia 3 "$out/ising3d-scan-nvidia.json" $SCAN_3D
benchmarks/tempering_overhead.sh nvidia "$out/tempering-overhead-nvidia.json" 2048 16 10
[ -n "${SCAN_POCL:-}" ] && UPDATES_LOG2=27 benchmarks/ising_scan.sh pocl 2 "$out/ising2d-scan-pocl.json" $SCAN_POCL
true
