#!/usr/bin/env bash
# What bounds a row kernel at 128 MiB a side: bench/gpu/row_pipelines.cu
# (softmax of 8192-float rows brought in several ways, against the copy and
# a stream of as many bytes, one harness), built with nvcc and run on the
# GPU machine:
#   bash bench/gpu/row_pipelines.sh [ROWS]   (default 4096)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-4096} in
  '' | *[!0-9]*) sed -n '2,6p' "$0"; exit 2 ;;
esac
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "row_pipelines.sh: no nvcc (CUDA toolkit) on this machine"; exit 1; }
bin=${TMPDIR:-/tmp}/tuna-row-pipelines
"$nvcc" -O3 -std=c++17 -arch=sm_90a -o "$bin" "$root/bench/gpu/row_pipelines.cu"
date -u
"$bin" "${1:-4096}"
