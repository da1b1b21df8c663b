#!/usr/bin/env bash
# The e4m3 wgmma matmuls' accuracy per variant (docs/kernels.md, "e4m3
# accumulation on the tensor cores is not fp32-exact").
#   CPU side: bash bench/gpu/e4m3_accuracy.sh bundles
#     writes bench/out/e4m3-accuracy/KERNEL.TAG.tuna, each the kernel with
#     one variant as its default:
#       matmul_e4m3_wgmma (256-column tiles): bm = 64, bk = 128, 4 stages,
#         mask = 0, split 1, 4, 16 (TAG split1, split4, split16);
#       matmul_e4m3_wgmma_n64 and matmul_e4m3_wgmma_n64_exact (promoted
#         accumulation; wgmma_types.py derives both): bm = 64, bk = 128,
#         4 stages, mask = 1, split 1, 4, 16; and the exact kernel's
#         bk = 256 (6 stages, split 1: TAG bk256), which promotes every 256
#         bytes of K instead of 128;
#   GPU side (carry bench/out): bash bench/gpu/e4m3_accuracy.sh run
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/bench/out/e4m3-accuracy
# KERNEL TAG CONFIG: KERNEL's source with CONFIG as its default, compiled
# into $dir/KERNEL.TAG.tuna.
variant() {
  local src=$dir/$1.$2.mlir
  if [ "$1" = matmul_e4m3_wgmma ]; then
    cp "$root/kernels-mlir/matmul_wgmma_fp8.mlir" "$src"
  else
    python3 "$root/kernels-mlir/wgmma_types.py" "$1" -o "$src"
  fi
  sed -i "s/defaults = {[^}]*}/defaults = {$3}/" "$src"
  grep -q "defaults = {$3}" "$src"
  "$root/build/bin/tuna-compile" "$src" --target=nvptx:sm_90a --no-ptxas \
    --max-shared-memory=232448 -o "$dir/$1.$2.tuna" | tail -1
}
case "${1:-}" in
bundles)
  mkdir -p "$dir"
  rm -f "$dir"/*.tuna
  for split in 1 4 16; do
    variant matmul_e4m3_wgmma split$split \
      "bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = $split"
    for kernel in matmul_e4m3_wgmma_n64 matmul_e4m3_wgmma_n64_exact; do
      variant $kernel split$split \
        "bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = $split"
    done
  done
  variant matmul_e4m3_wgmma_n64_exact bk256 \
    "bm = 64, bk = 256, stages = 6, gm = 8, deep = 1, mask = 1, split = 1" ;;
run)
  build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
  cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build" --target tuna_runtime_shared > /dev/null
  python3 "$root/bench/gpu/e4m3_accuracy.py" "$build/lib/libtuna_runtime_shared.so" \
    "$dir"/*.tuna ;;
*)
  echo "usage: bash bench/gpu/e4m3_accuracy.sh bundles|run" >&2; exit 2 ;;
esac
