#!/usr/bin/env bash
# Runs an MPI test and checks how it ends:
#   run-mpi-test.sh MPIEXEC NP EXPECT REGEX -- PROGRAM ARGS...
# EXPECT is "pass" (exit status 0) or "fail" (nonzero); REGEX must occur in
# the output (grep -E, across lines). A job still running after 60 s is a hang: killed,
# and the test fails. mpirun may run as root here (CI containers) and place
# more ranks than cores (--oversubscribe). Options of mpirun may precede
# PROGRAM.
set -uo pipefail
mpiexec=$1 np=$2 expect=$3 regex=$4
shift 5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
output=$(mktemp)
trap 'rm -f "$output"' EXIT
start=$(date +%s%N)
timeout -k 5 60 "$mpiexec" --oversubscribe -np "$np" "$@" >"$output" 2>&1
status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$output"
echo "run-mpi-test: exit status $status after ${ms} ms"
if [ "$ms" -ge 60000 ]; then
  echo "run-mpi-test: FAILED: the job hung (killed after 60 s)"
  exit 1
fi
if [ "$expect" = pass ] && [ "$status" -ne 0 ]; then
  echo "run-mpi-test: FAILED: expected exit status 0"
  exit 1
fi
if [ "$expect" = fail ] && [ "$status" -eq 0 ]; then
  echo "run-mpi-test: FAILED: expected a nonzero exit status"
  exit 1
fi
if ! grep -Ezq -- "$regex" "$output"; then
  echo "run-mpi-test: FAILED: the output does not match: $regex"
  exit 1
fi
echo "run-mpi-test: passed"
