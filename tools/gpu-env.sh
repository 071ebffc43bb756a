# Sourced on a machine with an NVIDIA GPU and no network: registers the NVIDIA
# OpenCL driver beside the installed ICDs and points the build at extracted
# Debian packages in .deps/root (cJSON, Criterion; see tools/gpu-session.sh).
mkdir -p /tmp/icd
cp /etc/OpenCL/vendors/*.icd /tmp/icd/ 2>/dev/null
echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
deps=$PWD/.deps/root
export PKG_CONFIG_PATH=$deps/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$deps
export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu
export CPATH=$deps/usr/include POCL_CACHE_DIR=/tmp/pocl-cache CLMC_CACHE_DIR=/tmp/clmc-cache
# MPI (docs/mpi.md): the machine's own Open MPI, if it has one (the build finds
# it through mpicc); Open MPI refuses root without these two.
# hwloc's OpenCL component, loaded by mpirun, makes the ICD loader cut
# OCL_ICD_FILENAMES to its first entry (PoCL) for the ranks: keep it off.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-opencl
