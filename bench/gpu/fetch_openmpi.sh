#!/usr/bin/env bash
# Carries Debian 12's OpenMPI to a machine that has none (the GPU machines):
# run HERE, on the Debian 12 CPU machine, from anywhere in the checkout:
#
#   bash bench/gpu/fetch_openmpi.sh [DIR]     # default: .mpi/ at the root
#
# It `apt-get download`s OpenMPI's runtime, its headers and the libraries
# it needs that a CUDA image may lack, unpacks them with `dpkg -x` into
# DIR/root (never into /), deletes the .deb files and writes DIR/env.sh.
# .mpi/ is ignored by git; name it in the device call's `carry` and start
# the command with `. .mpi/env.sh`; then `mpirun -np 2 PROGRAM` runs there,
# and CMake finds MPI through the carried mpicc (tuna_mpi, test/mpi).
# glibc, libstdc++, zlib and libgcc come from the machine's own system.
# Leaves out the network transports (UCX, libfabric, PSM): env.sh keeps
# OpenMPI to shared memory on one host. docs/toolchain-notes.md says what
# was tested and the size.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-$root/.mpi}")
packages=(
  openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libhwloc15 libpmix2
  libnuma1 libudev1
)
rm -rf "$out"
mkdir -p "$out/debs"
# _apt cannot write into a folder of root's: download as the caller.
(cd "$out/debs" && apt-get -q -o APT::Sandbox::User=root download "${packages[@]}")
for deb in "$out"/debs/*.deb; do
  dpkg -x "$deb" "$out/root"
done
# Debian names its commands through alternatives (mpirun ->
# mpirun.openmpi), which dpkg -x does not make.
for command in "$out"/root/usr/bin/*.openmpi; do
  ln -sf "$(basename "$command")" "${command%.openmpi}"
done
# Not needed to build or run C and C++ programs: documentation, Fortran.
rm -rf "$out/debs" "$out/root/usr/share/doc" "$out/root/usr/share/man" \
  "$out/root/usr/lib/x86_64-linux-gnu/fortran"
cat >"$out/env.sh" <<'ENV'
# Source me: the OpenMPI that bench/gpu/fetch_openmpi.sh unpacked here.
mpi_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/root
export OPAL_PREFIX=$mpi_root/usr
# PMIx (its plugins and help texts) relocates on its own variable.
export PMIX_PREFIX=$mpi_root/usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path=$PMIX_PREFIX/lib/pmix
export PATH=$mpi_root/usr/bin:$PATH
export LD_LIBRARY_PATH=$mpi_root/usr/lib/x86_64-linux-gnu:$mpi_root/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# One host, shared memory: the components for networks are not carried.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=sm,pt2pt
export OMPI_MCA_mca_base_component_show_load_errors=0
# The machines run commands as root; more ranks than cores is fine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
ENV
echo "fetch_openmpi: $(du -sb "$out" | cut -f1) bytes in $(find "$out" -type f | wc -l) files"
echo "fetch_openmpi: $out ready; in a device call: carry it and begin with '. ${out#$root/}/env.sh'"
