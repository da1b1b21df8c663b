#!/usr/bin/env bash
# Nsight Compute on the variant tuna-tune picks for one kernel of a bundle
# on one shape, on the GPU machine: its duration, clock and cycles,
# throughputs, the bytes the SMs received from the L2, the DRAM bytes read
# and written, the warps' stall reasons and the hottest SASS instructions
# (bench/gpu/ncu_report.py). tuna-tune tunes the shape (every candidate,
# in process), then again under ncu, which profiles the pick's fourth
# launch with the caches flushed before it and the clocks unlocked
# (--clock-control none). For the memory-bound kernels, e.g. transpose
# against scale moving as many bytes:
#   bash bench/gpu/profile_pick.sh BUNDLE KERNEL SHAPE [tuna-tune arguments...]
#   e.g. bash bench/gpu/profile_pick.sh bench/out/bundles/transpose.tuna transpose \
#          "d0=8192 d1=4096" --dims a0=d0*d1 --dims a1=d0*d1
#        bash bench/gpu/profile_pick.sh bench/out/bundles/scale.tuna scale \
#          "d0=33554432" --dims a0=d0 --dims a1=d0 --arg a2=2
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '2,15p' "$0"; exit 2; }
[ -f "$1" ] || { echo "profile_pick.sh: no bundle $1"; exit 1; }
bundle=$(realpath "$1") kernel=$2 shape=$3
shift 3
# shellcheck source=bench/gpu/ncu_common.sh
source "$root/bench/gpu/ncu_common.sh"
tune=("$build/bin/tuna-tune" "$bundle" --kernel "$kernel" --shape "$shape" "$@"
      --device cuda --no-cache --no-prune --no-isolate)
"${tune[@]}" > "$out/tune.log" 2>&1 || { tail -5 "$out/tune.log"; exit 1; }
pick=$(sed -n 's/.*tuned bucket \[[^]]*\]: \([A-Za-z0-9_]*\) .*/\1/p' "$out/tune.log" | head -1)
[ -n "$pick" ] || { echo "profile_pick.sh: no pick in tuna-tune's output:"; tail -5 "$out/tune.log"; exit 1; }
grep "tuned bucket" "$out/tune.log"
profile "$pick" --kernel-id "::regex:^${pick}\$:4" -- "${tune[@]}"
