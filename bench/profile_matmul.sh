#!/usr/bin/env bash
# Nsight Compute on the fp16 matmuls at M = N = K = 4096, on the GPU machine:
# matmul_f16_wgmma's default variant (TUNA_AUTOTUNE=0) and the Triton twin
# with the configuration its autotuner picks there (triton_matmul_once.py);
# SASS of both. Needs bench/out/bundles/matmul_wgmma.tuna and the variant's
# cubin in bench/out/wgmma-cubin (bench/make_bundles.sh writes both).
# Writes everything to bench/out/profile (and, when $OUT is set, one archive
# $OUT/profile.tgz: the device tool brings back only a few files) and prints
# the headline metrics of both kernels last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bench/out/profile
rm -rf "$out"
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
mkdir -p "$out"
if [ -n "${OUT:-}" ]; then
  trap 'tar czf "$OUT/profile.tgz" -C "$out" .' EXIT
fi
cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 &&
  cmake --build "$build" --target tuna-kernels-bench > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
          --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy
          --section SourceCounters --section InstructionStats)
TUNA_AUTOTUNE=0 TUNA_CACHE_DIR=$(mktemp -d) ncu -k regex:matmul_f16_wgmma --launch-skip 3 --launch-count 1 \
  "${sections[@]}" "$build/bin/tuna-kernels-bench" "$root/bench/out/bundles" matmul_f16_wgmma \
  > "$out/ncu-tuna.txt" 2>&1
python3 "$root/bench/gpu/triton_matmul_once.py" "$out" > "$out/triton.log" 2>&1
ncu -k regex:matmul_kernel --launch-skip 2 --launch-count 1 "${sections[@]}" \
  python3 "$root/bench/gpu/triton_matmul_once.py" "$out" > "$out/ncu-triton.txt" 2>&1
cuobjdump -sass "$out/triton_matmul.cubin" > "$out/triton_matmul.sass" 2>&1
for cubin in "$root"/bench/out/wgmma-cubin/*.cubin; do
  cuobjdump -sass "$cubin" > "$out/$(basename "$cubin" .cubin).sass" 2>&1
done
cat "$out/triton.log"
for f in ncu-tuna ncu-triton; do
  echo "== $f"
  grep -E "^  [a-z_]+|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Achieved Occupancy|Issue Slots Busy|Executed Ipc Active|No Eligible|Warp Cycles Per Issued|Block Limit|One or More Eligible|Active Warps Per" "$out/$f.txt" | head -40
done
