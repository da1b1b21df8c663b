#!/usr/bin/env bash
# Nsight Compute on the tuned pick of matmul_f16_wgmma and on cuBLAS
# (torch.mm) for the shapes where the pick stays below cuBLAS, on the GPU
# machine: duration, SM and memory throughput, the launch (grid, block,
# cluster, registers, shared memory) and occupancy of both kernels, one
# line each. ncu flushes the caches before each profiled launch (its
# default), so the durations are the L2-cold ones. Needs
# bench/out/bundles/matmul_wgmma.tuna (bench/make_bundles.sh).
#   bash bench/gpu/profile_vs_cublas.sh ["M N K" ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
  > /tmp/profile-configure.log 2>&1 &&
  cmake --build "$build" --target tuna_runtime_shared > /tmp/profile-build.log 2>&1 ||
  { tail -30 /tmp/profile-build.log; exit 1; }
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=("16 4096 4096" "64 4096 4096" "256 256 65536" "4000 4008 3992")
export TUNA_CACHE_DIR=$(mktemp -d)
for shape in "${shapes[@]}"; do
  echo "== M N K = $shape"
  # shellcheck disable=SC2086
  ncu --nvtx --nvtx-include "measured/" --launch-count 2 --section SpeedOfLight \
    --section Occupancy --section LaunchStats --page details --csv \
    python3 "$root/bench/gpu/profile_pick.py" "$build/lib/libtuna_runtime_shared.so" \
    "$root/bench/out/bundles/matmul_wgmma.tuna" matmul_f16_wgmma $shape \
    > /tmp/profile.csv 2> /tmp/profile.err || { tail -5 /tmp/profile.err; exit 1; }
  grep '^pick' /tmp/profile.csv
  python3 - /tmp/profile.csv <<'PY'
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
head = rows[0]
at = {name: head.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value", "Metric Unit")}
wanted = ["Duration", "Compute (SM) Throughput", "DRAM Throughput", "L2 Cache Throughput",
          "Grid Size", "Block Size", "Cluster Size", "Registers Per Thread",
          "Dynamic Shared Memory Per Block", "Achieved Occupancy"]
kernels = {}
for row in rows[1:]:
    if row[at["Metric Name"]] in wanted:
        kernel = kernels.setdefault(row[at["ID"]], {"name": row[at["Kernel Name"]]})
        kernel[row[at["Metric Name"]]] = row[at["Metric Value"]] + " " + row[at["Metric Unit"]]
for kernel in kernels.values():
    print("  %s\n    %s" % (kernel.pop("name")[:70], "; ".join(
        "%s %s" % (name, kernel[name].strip()) for name in wanted if name in kernel)))
PY
done
