#!/usr/bin/env bash
# Nsight Compute on named variants of a wgmma matmul family and on cuBLAS's
# kernel for the same shape, on the GPU machine: for each kernel its
# duration, clock and cycles, throughputs, the bytes the SMs received from
# the L2, the warps' stall reasons and the hottest SASS instructions
# (bench/gpu/ncu_report.py). tuna-tune launches every variant of the family
# (--no-prune, in process); ncu profiles the fourth launch of each named
# one. ncu flushes the caches before a profiled launch (L2-cold) and leaves
# the clocks unlocked (--clock-control none: the boost clocks the
# benchmarks run at). Needs the family's bundle in bench/out/bundles
# (bench/make_bundles.sh), or in TUNA_BUNDLES=DIR (relative to the
# repository root, or absolute), e.g. a family with a kernel under work.
#   bash bench/gpu/profile_variant.sh f16|bf16|e4m3 M N K VARIANT...
#   e.g. bash bench/gpu/profile_variant.sh e4m3 1000 3008 5008 matmul_e4m3_wgmma_ws_n192__v5
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 5 ] || { sed -n '2,15p' "$0"; exit 2; }
kind=$1 m=$2 n=$3 k=$4
shift 4
bundles=$(cd "$root" && realpath -m "${TUNA_BUNDLES:-bench/out/bundles}")
dims="--dims a0=d0*d2 --dims a1=d2*d1 --dims a2=d0*d1"  # A M x K, B K x N
case $kind in
  f16) bundle=matmul_wgmma_tiles kernel=matmul_f16_wgmma_tiles ;;
  bf16) bundle=matmul_wgmma_bf16_tiles kernel=matmul_bf16_wgmma_tiles ;;
  e4m3) bundle=matmul_wgmma_fp8_tiles kernel=matmul_e4m3_wgmma_tiles  # B N x K, the scales
        dims="--dims a0=d0*d2 --dims a1=d1*d2 --dims a2=d0*d1 --arg a6=0.75 --arg a7=1.5" ;;
  *) echo "profile_variant.sh: unknown type $kind (f16, bf16 or e4m3)"; exit 2 ;;
esac
[ -f "$bundles/$bundle.tuna" ] ||
  { echo "profile_variant.sh: no $bundles/$bundle.tuna (bash bench/make_bundles.sh)"; exit 1; }
# shellcheck source=bench/gpu/ncu_common.sh
source "$root/bench/gpu/ncu_common.sh"
for variant in "$@"; do
  # shellcheck disable=SC2086
  profile "$variant" --kernel-id "::regex:^${variant}\$:4" -- \
    "$build/bin/tuna-tune" "$bundles/$bundle.tuna" --kernel "$kernel" \
    --shape "d0=$m d1=$n d2=$k" $dims --device cuda --no-cache --no-prune --no-isolate
done
profile cublas --kernel-name regex:"nvjet|gemm|sm90_xmma" --launch-skip 3 --launch-count 1 -- \
  python3 "$root/bench/gpu/cublas_once.py" "$kind" "$m" "$n" "$k"
