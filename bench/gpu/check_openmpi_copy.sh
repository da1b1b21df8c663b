#!/usr/bin/env bash
# Checks the OpenMPI copy of fetch_openmpi.sh HERE, with the system's
# OpenMPI hidden (a private mount namespace, as root: unshare -m), so that
# only the copy can be used, as on a GPU machine without MPI:
#
#   bash bench/gpu/check_openmpi_copy.sh [DIR] [PROGRAM ARGS...]
#
# Compiles an MPI program with the carried mpicc, runs it on 2 ranks with the
# carried mpirun, then runs PROGRAM (e.g. build/bin/tuna-mpi-agreement-test
# agree) on 2 ranks too.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(realpath "${1:-$root/.mpi}")
shift || true
if [ "${TUNA_MPI_HIDDEN:-}" != 1 ]; then
  exec unshare -m env TUNA_MPI_HIDDEN=1 bash "$0" "$dir" "$@"
fi
empty=$(mktemp -d)
emptyfile=$(mktemp)
mounts=()
work=
cleanup() {
  for m in "${mounts[@]}"; do umount "$m"; done
  rm -rf "$empty" "$emptyfile" "$work"
}
trap cleanup EXIT
lib=/usr/lib/x86_64-linux-gnu
for d in $lib/openmpi /usr/share/openmpi /etc/openmpi $lib/pmix2; do
  [ ! -d "$d" ] || { mount --bind "$empty" "$d" && mounts+=("$d"); }
done
for f in /usr/bin/mpirun /usr/bin/mpiexec /usr/bin/orterun /usr/bin/mpicc \
  /usr/bin/opal_wrapper $lib/libmpi.so.40 $lib/libopen-pal.so.40 \
  $lib/libopen-rte.so.40 $lib/libhwloc.so.15 $lib/libevent_core-2.1.so.7 \
  $lib/libevent_pthreads-2.1.so.7; do
  [ ! -e "$f" ] || {
    mount --bind "$emptyfile" "$(realpath "$f")" && mounts+=("$(realpath "$f")")
  }
done
. "$dir/env.sh"
echo "mpirun: $(command -v mpirun)"
work=$(mktemp -d)
cat >"$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d: sum of ranks %d\n", rank, size, sum);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
C
mpicc "$work/hello.c" -o "$work/hello"
ldd "$work/hello" | grep -E "libmpi|libopen-pal|libhwloc"
timeout 60 mpirun -np 2 "$work/hello"
if [ $# -gt 0 ]; then
  ldd "$1" | grep -E "libmpi|libopen-pal" || true
  timeout 120 mpirun -np 2 "$@"
fi
echo "check_openmpi_copy: passed"
