#!/usr/bin/env bash
# The main job: set up, build, compile the kernel library into variants for
# the GPU targets and the host, then tune and run the host kernels end to end
# (the CUDA path runs on a GPU machine: bench/run_gpu.sh).
# Usage: bash scripts/demo.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$build/demo

bash "$root/scripts/setup.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --target tuna-opt tuna-compile tuna-demo
mkdir -p "$out"

echo "== scale: 15 GPU variants for NVIDIA sm_90 and AMD gfx942, 6 host variants"
"$build/bin/tuna-compile" "$root/kernels-mlir/scale.mlir" \
  --target=nvptx:sm_90 --target=amdgcn:gfx942 --target=host -o "$out/scale.tuna"
echo
echo "== matmul_host: 18 host variants"
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_host.mlir" --target=host \
  -o "$out/matmul_host.tuna"
echo
echo "== row_sum_host, softmax_host, layernorm_host: 9 host variants each"
for f in reduce softmax layernorm; do
  "$build/bin/tuna-compile" "$root/kernels-mlir/$f.mlir" --target=host \
    -o "$out/$f.tuna"
done
echo
echo "== tuning on the host CPU (TUNA_PRINT_AUTOTUNING=1 shows every candidate;"
echo "   decisions persist in ${TUNA_CACHE_DIR:-~/.cache/tuna}: a second run starts warm,"
echo "   TUNA_ALWAYS_TUNE=1 tunes again)"
TUNA_PRINT_AUTOTUNING=${TUNA_PRINT_AUTOTUNING:-1} \
  "$build/bin/tuna-demo" "$out/scale.tuna" "$out/matmul_host.tuna" \
  "$out/reduce.tuna" "$out/softmax.tuna" "$out/layernorm.tuna"
