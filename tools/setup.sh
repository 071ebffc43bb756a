#!/usr/bin/env bash
# Installs what clmc needs on Debian/Ubuntu (only what is missing), then
# configures and builds it in build/.  Usage: tools/setup.sh [meson options]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc meson ninja-build pkg-config ocl-icd-opencl-dev opencl-c-headers
          pocl-opencl-icd clinfo libcjson-dev libcriterion-dev)
# For the fuzz test (clang with libFuzzer and the sanitizer runtimes) and the
# opt-in valgrind test, Oclgrind for the oclgrind test, Open MPI for the mpi test (docs/mpi.md);
# installed where the distribution has them; libhdf5 for output.format "hdf5" (docs/results.md).
optional=(clang libclang-rt-dev valgrind oclgrind openmpi-bin libopenmpi-dev libhdf5-dev)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}" "${optional[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  available=()
  for p in "${missing[@]}"; do
    if [[ " ${optional[*]} " == *" $p "* ]] && ! apt-cache show "$p" >/dev/null 2>&1; then
      echo "setup: optional package $p is not available here; skipped" >&2
    else
      available+=("$p")
    fi
  done
  echo "setup: installing ${available[*]}" >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q "${available[@]}"
fi

# The plotting tools (tools/plot_*.py) need matplotlib for the python3 on PATH.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "setup: installing matplotlib for $(command -v python3)" >&2
  python3 -m pip install --quiet matplotlib 2>/dev/null ||
    python3 -m pip install --quiet --user matplotlib 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages matplotlib ||
    echo "setup: matplotlib not installed; the plotting tools and their test will be skipped" >&2
fi

# result.h5, GSD export and the freud example (docs/python.md) need h5py, gsd and
# freud-analysis for the python3 on PATH; without them those parts are skipped.
for module in h5py gsd freud; do
  python3 -c "import $module" 2>/dev/null && continue
  package=$module; [ "$module" = freud ] && package=freud-analysis
  echo "setup: installing $package for $(command -v python3)" >&2
  python3 -m pip install --quiet "$package" 2>/dev/null ||
    python3 -m pip install --quiet --user "$package" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "$package" ||
    echo "setup: $package not installed; its tests and example parts will be skipped" >&2
done

if [ ! -f build/build.ninja ]; then
  meson setup build "$@"
elif [ $# -gt 0 ]; then
  meson configure build "$@"
fi
ninja -C build
