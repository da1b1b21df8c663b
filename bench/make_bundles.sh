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
# Its bf16 twin (derived from it by kernels-mlir/wgmma_types.py) and the
# e4m3 kernel, same target and limit.
python3 "$root/kernels-mlir/wgmma_types.py" matmul_bf16_wgmma \
  -o "$root/bench/out/matmul_wgmma_bf16.mlir"
"$build/bin/tuna-compile" "$root/bench/out/matmul_wgmma_bf16.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_bf16.tuna" | tail -2
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma_fp8.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_fp8.tuna" | tail -2
# The fp16 kernel with 128-column tiles (derived by wgmma_types.py).
python3 "$root/kernels-mlir/wgmma_types.py" matmul_f16_wgmma_n128 \
  -o "$root/bench/out/matmul_wgmma_n128.mlir"
"$build/bin/tuna-compile" "$root/bench/out/matmul_wgmma_n128.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_n128.tuna" | tail -2
# The e4m3 kernel with an fp16 C (derived from it by wgmma_types.py).
python3 "$root/kernels-mlir/wgmma_types.py" matmul_e4m3_wgmma_f16out \
  -o "$root/bench/out/matmul_wgmma_fp8_f16out.mlir"
"$build/bin/tuna-compile" "$root/bench/out/matmul_wgmma_fp8_f16out.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_fp8_f16out.tuna" | tail -2
# TF32 (opt-in fp32), the e4m3 kernel's layout with 4-byte elements.
"$build/bin/tuna-compile" "$root/kernels-mlir/matmul_wgmma_tf32.mlir" --target=nvptx:sm_90a \
  --max-shared-memory=232448 -o "$root/bench/out/bundles/matmul_wgmma_tf32.tuna" | tail -2
# The mma.sync ceiling that matmul_f16 is compared with.
"$build/bin/tuna-compile" "$root/bench/gpu/mma_peak.mlir" --target=nvptx:sm_90 \
  -o "$root/bench/out/bundles/mma_peak.tuna" | tail -1
