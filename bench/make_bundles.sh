#!/usr/bin/env bash
# On the CPU side: compile the kernels the GPU benchmark needs into
# bench/out/bundles (ignored by git; carry it to the GPU machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
mkdir -p "$root/bench/out/bundles"
cmake --build "$build" --target tuna-compile
"$build/bin/tuna-compile" "$root/kernels-mlir/scale.mlir" --target=nvptx:sm_90 \
  -o "$root/bench/out/bundles/scale.tuna"
# The kernel library, one bundle per kernel, named after it (for
# bench/gpu/compare.py and tuna-kernels-bench).
for pair in axpy:axpy reduce:row_sum softmax:softmax layernorm:layernorm \
  transpose:transpose color_normalize:color_normalize; do
  "$build/bin/tuna-compile" "$root/kernels-mlir/${pair%%:*}.mlir" \
    --target=nvptx:sm_90 -o "$root/bench/out/bundles/${pair##*:}.tuna" |
    tail -2
done
# Both matmuls in one bundle; sm_90 allows 227 KiB of shared memory a block
# (opt-in), which the deeper cp.async pipelines need.
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul.mlir" --target=nvptx:sm_90 \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul.tuna" | tail -2
# The wgmma matmul needs the sm_90a (arch-specific) target and more than
# 48 KiB of shared memory in every variant.
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma.tuna" \
  --emit-dir "$root/bench/out/wgmma-cubin" | tail -2
# The warp-specialized persistent wgmma matmul (a TMA producer warpgroup
# feeding two consumer warpgroups).
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma_ws.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_ws.tuna" | tail -2
# The wgmma kernels kernels-mlir/wgmma_types.py derives (KERNEL, BUNDLE):
# same target and limit.
derived() {
  python3 "$root/kernels-mlir/wgmma_types.py" "$1" -o "$root/bench/out/$2.mlir"
  "$build/bin/tuna-compile" "$root/bench/out/$2.mlir" --target=nvptx:sm_90a \
    --max-shared-memory=232448 -o "$root/bench/out/bundles/$2.tuna" | tail -2
}
derived matmul_bf16_wgmma matmul_wgmma_bf16         # bf16 A, B, C
derived matmul_f16_wgmma_n128 matmul_wgmma_n128     # 128-column tiles
derived matmul_f16_wgmma_n64 matmul_wgmma_n64       # 64-column tiles
derived matmul_bf16_wgmma_n128 matmul_wgmma_bf16_n128 # bf16, 128-column tiles
derived matmul_bf16_wgmma_n64 matmul_wgmma_bf16_n64   # bf16, 64-column tiles
derived matmul_e4m3_wgmma_ws matmul_wgmma_ws_fp8      # e4m3, warp-specialized
# The e4m3 kernel, its twin with an fp16 C and its 64-column tiles.
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma_fp8.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_fp8.tuna" | tail -2
derived matmul_e4m3_wgmma_f16out matmul_wgmma_fp8_f16out
derived matmul_e4m3_wgmma_n64 matmul_wgmma_fp8_n64   # e4m3, 64-column tiles
derived matmul_e4m3_wgmma_n64_f16out matmul_wgmma_fp8_n64_f16out # and an fp16 C
# The 64-column e4m3 kernel with promoted (fp32-exact) accumulation, and
# its fp16 C twin.
derived matmul_e4m3_wgmma_n64_exact matmul_wgmma_fp8_n64_exact
derived matmul_e4m3_wgmma_n64_exact_f16out matmul_wgmma_fp8_n64_exact_f16out
# The families: each matmul's tile widths in one module, with one kernel
# (matmul_*_wgmma_tiles) over all their variants.
derived matmul_f16_wgmma_tiles matmul_wgmma_tiles
derived matmul_bf16_wgmma_tiles matmul_wgmma_bf16_tiles
derived matmul_e4m3_wgmma_tiles matmul_wgmma_fp8_tiles
# TF32 (opt-in fp32), the e4m3 kernel's layout with 4-byte elements.
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma_tf32.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_tf32.tuna" | tail -2
# The TMA prototype that CudaTensorMapTest runs (a tile load through a
# tensor map the runtime encodes).
"$build/bin/tuna-compile" "$root/test/kernels/tma-prototype.mlir" --target=nvptx:sm_90a \
  -o "$root/bench/out/bundles/tma_tile.tuna" | tail -1
# The kernel whose module keeps a counter, which CudaModuleStateTest
# launches into two streams.
"$build/bin/tuna-compile" "$root/test/kernels/module-state.mlir" --target=nvptx:sm_90 \
  -o "$root/bench/out/bundles/module_state.tuna" | tail -1
# The mma.sync ceiling that matmul_f16 is compared with.
"$build/bin/tuna-compile" "$root/bench/gpu/mma_peak.mlir" --target=nvptx:sm_90 \
  -o "$root/bench/out/bundles/mma_peak.tuna" | tail -1
