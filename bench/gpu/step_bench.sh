#!/usr/bin/env bash
# Contextual tuning on the GPU machine (docs/benchmarks.md): a step of
# layernorm, matmul_f32 and softmax tuned jointly by tuna::TunedStep against
# kernel by kernel, in one run of tuna-step-bench (bench/gpu/step_bench.cpp).
# On the CPU side first
#   bash bench/make_bundles.sh          # bench/out/bundles
# then carry bench/out and run
#   bash bench/gpu/step_bench.sh [M,K,N ...]
# It builds the runtime and the tool from source (no MLIR there), runs the
# tool, and prints per shape the step's device time with each choice, their
# ratio, the tuning walls and whether every output matched the reference.
# Logs go to $OUT/step (default bench/out/step).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out}/step
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
bundles=${TUNA_STEP_BUNDLES:-$root/bench/out/bundles}
mkdir -p "$out"
for name in layernorm matmul softmax; do
  [ -f "$bundles/$name.tuna" ] || { echo "no $bundles/$name.tuna: run bench/make_bundles.sh and carry bench/out" >&2; exit 1; }
done
cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1
cmake --build "$build" --target tuna-step-bench > "$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
status=0
"$build/bin/tuna-step-bench" "$bundles" "$@" 2>&1 | tee "$out/step.log" || status=$?
python3 - "$out/step.log" <<'PY'
import json, sys
rows = [json.loads(l[5:]) for l in open(sys.argv[1]) if l.startswith("STEP ")]
if not rows:
    sys.exit("no STEP lines: see step.log")
print("\n%-22s %10s %10s %10s %8s %10s %10s %5s %3s" % (
    "shape", "kbk us", "joint us", "dflt us", "joint/kbk", "kbk wall", "joint wall", "evals", "ok"))
for r in rows:
    print("%-22s %10.2f %10.2f %10.2f %8.3f %8.0fms %8.0fms %5d %3s" % (
        r["shape"], r["step_us_kernel_by_kernel"], r["step_us_joint"], r["step_us_default"],
        r["joint_over_kernel_by_kernel"], r["tuning_wall_ms_kernel_by_kernel"],
        r["tuning_wall_ms_joint"], r["joint_evaluations"], "yes" if r["ok"] else "NO"))
    print("  kernel by kernel: %s\n  jointly:          %s" % (r["picks_kernel_by_kernel"], r["picks_joint"]))
PY
exit $status
