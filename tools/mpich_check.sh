#!/usr/bin/env bash
# The MPI checks (tools/mpi_check.sh, the `mpi` test) against MPICH instead of
# Open MPI (issue 24: "MPICH must work too"), opt-in: builds clmc without tests
# into BUILD_DIR against MPICH (meson -Dmpi_implementation=mpich) and runs
# mpi_check.sh with its launcher, mpiexec.mpich.  Needs the Debian packages
# mpich and libmpich-dev beside Open MPI (which stays the default mpicc).
# Usage: tools/mpich_check.sh [BUILD_DIR, default build-mpich]   (exit 77: no MPICH)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-mpich}
if ! command -v mpiexec.mpich >/dev/null || ! pkg-config --exists mpich; then
  echo "mpich_check: MPICH not installed (apt-get install mpich libmpich-dev); skipped"
  exit 77
fi
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dtests=false -Dmpi=enabled -Dmpi_implementation=mpich -Dhdf5=disabled >/dev/null || exit 1
fi
ninja -C "$build" clmc >/dev/null || exit 1
echo "mpich_check: $(mpiexec.mpich --version | grep -m1 -i version), clmc linked against $(ldd "$build/clmc" | grep -o 'libmpich[^ ]*')"
MPIRUN=mpiexec.mpich exec tools/mpi_check.sh "$build"
