#!/usr/bin/env bash
# The wgmma matmul rows of bench/gpu/compare.py alone, on the GPU machine:
# builds the runtime as bench/run_gpu.sh does (same build folder), then runs
# compare.py on the kernels whose name starts with one of the prefixes (by
# default the bf16 and e4m3 kernels; "matmul_f16_wgmma" for the fp16 rows,
# split-K included; "matmul_tf32" for the TF32 rows, against cuBLAS with
# TF32 allowed) with every candidate variant checked against the
# default variant's output (TUNA_CHECK=1) besides compare.py's own check of
# the tuned pick, the default and cuBLAS against a float64 reference. Fails
# when an output is wrong against the reference; prints how many variants
# the check rejected (expected on 256 x 256 x 65536, where split-K changes
# a 65,536-term sum's rounding, and on the e4m3 kernels, whose tensor-core
# accumulator is not fp32-exact: docs/kernels.md).
#
#   bash bench/run_matmul_rows.sh [PREFIX,...]
# Needs bench/out/bundles from bench/make_bundles.sh; logs in
# bench/out/logs/matmul-rows.log (and $OUT/matmul-rows.log when $OUT is set).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
only=${1:-matmul_bf16,matmul_e4m3}
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
bundles=$root/bench/out/bundles
log=$root/bench/out/logs/matmul-rows.log
mkdir -p "$(dirname "$log")"
if [ -n "${OUT:-}" ]; then
  trap 'cp "$log" "$OUT"/ 2>/dev/null' EXIT
fi

cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release > /dev/null &&
  cmake --build "$build" --target tuna_runtime_shared > /dev/null ||
  { echo "runtime build failed"; exit 1; }

TUNA_CACHE_DIR=$(mktemp -d) TUNA_CHECK=1 TUNA_PRINT_AUTOTUNING=1 \
  timeout "${TUNA_KERNELS_TIMEOUT:-280}" \
  python3 "$root/bench/gpu/compare.py" --bundles "$bundles" \
  --lib "$build/lib/libtuna_runtime_shared.so" --only "$only" > "$log" 2>&1
rc=$?
sed -n '/^tables:/,$p' "$log"
grep 'FAILED' "$log"
wrong=$(grep -c 'wrong result' "$log")
echo "variants rejected as wrong by TUNA_CHECK: $wrong (lines with 'wrong result' in $log)"
echo "compare.py rc=$rc"
[ $rc -eq 0 ] && [ "$wrong" -eq 0 ]
