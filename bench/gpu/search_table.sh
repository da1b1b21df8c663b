#!/usr/bin/env bash
# The search table (docs/search.md) in one call: compiler, runtime, then
# bench/gpu/search_table.py. Arguments go to search_table.py.
#
# GPU machine (no LLVM/MLIR there): on the CPU side first
#   bash ../shared/tools/pack-compiler.sh build .device-carry tuna-compile
# then carry .device-carry and run
#   bash bench/gpu/search_table.sh            # --device cuda: wgmma and softmax
# It unpacks the compiler under /tmp/tuna-cc, builds tuna-tune and
# tuna-worker from source (runtime only) in $TUNA_GPU_BUILD
# (/tmp/tuna-gpu-build), and writes the table to $OUT/search_table.md with
# the raw results (search_table.json) and the log beside it.
#
# CPU machine: bash bench/gpu/search_table.sh --device host
# (matmul_host_wide; tuna-compile and tuna-tune from build/bin).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out}
work=${TUNA_SEARCH_WORK:-/tmp/tuna-search-table}
mkdir -p "$out" "$work"

if [[ " $* " == *" --device host "* ]]; then
  compiler=$root/build/bin
  tools=$root/build/bin
else
  compiler=/tmp/tuna-cc/bin
  if [ ! -x "$compiler/tuna-compile" ]; then
    [ -f "$root/.device-carry/compiler.tar.xz" ] ||
      { echo "no .device-carry/compiler.tar.xz: run pack-compiler.sh and carry it" >&2; exit 1; }
    mkdir -p /tmp/tuna-cc && tar xJf "$root/.device-carry/compiler.tar.xz" -C /tmp/tuna-cc
  fi
  export LD_LIBRARY_PATH=/tmp/tuna-cc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # ptxas, and libdevice for softmax's exp2 (found through CUDA_HOME).
  export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} PATH=/usr/local/cuda/bin:$PATH
  build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
  cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    > "$work/configure.log" 2>&1
  cmake --build "$build" --target tuna-tune tuna-worker > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; exit 1; }
  tools=$build/bin
fi

status=0
python3 "$root/bench/gpu/search_table.py" --compiler-bin "$compiler" --tools-bin "$tools" \
  --work "$work" "$@" | tee "$out/search_table.md" || status=$?
cp "$work/search_table.json" "$work/search_table.log" "$out/" 2>/dev/null || true
exit $status
