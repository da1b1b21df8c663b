#!/usr/bin/env bash
# The e4m3 wgmma matmul's accuracy per variant (docs/kernels.md, "e4m3
# accumulation on the tensor cores is not fp32-exact").
#   CPU side: bash bench/gpu/e4m3_accuracy.sh bundles
#     writes bench/out/e4m3-accuracy/split{1,4,16}.tuna: the kernel with
#     the bm = 64, mask = 0 variant of that split as its default;
#   GPU side (carry bench/out): bash bench/gpu/e4m3_accuracy.sh run
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/bench/out/e4m3-accuracy
case "${1:-}" in
bundles)
  mkdir -p "$dir"
  for split in 1 4 16; do
    config="bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = $split"
    sed "s/defaults = {[^}]*}/defaults = {$config}/" "$root/kernels-mlir/matmul_wgmma_fp8.mlir" \
      > "$dir/split$split.mlir"
    grep -q "defaults = {$config}" "$dir/split$split.mlir"
    "$root/build/bin/tuna-compile" "$dir/split$split.mlir" --target=nvptx:sm_90a --no-ptxas \
      --max-shared-memory=232448 -o "$dir/split$split.tuna" | tail -1
  done ;;
run)
  build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
  cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build" --target tuna_runtime_shared > /dev/null
  python3 "$root/bench/gpu/e4m3_accuracy.py" "$build/lib/libtuna_runtime_shared.so" \
    "$dir"/split1.tuna "$dir"/split4.tuna "$dir"/split16.tuna ;;
*)
  echo "usage: bash bench/gpu/e4m3_accuracy.sh bundles|run" >&2; exit 2 ;;
esac
