#!/usr/bin/env bash
# Everything on the GPU machine in one call: build the runtime from source
# (no LLVM/MLIR there), run the GPU tests and the runtime's unit tests, run
# Tuna's benchmark on the bundle compiled on the CPU side, run the Triton
# twin, and print a short table last. Logs go to $OUT when set.
#
# On the CPU side first: bash bench/make_bundles.sh (writes bench/out/bundles)
# then carry bench/out to the GPU machine and run: bash bench/run_gpu.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=${OUT:-$root/bench/out/logs}
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
bundle=$root/bench/out/bundles/scale.tuna
mkdir -p "$logs"
[ -f "$bundle" ] || { echo "missing $bundle: run bench/make_bundles.sh on the CPU side" >&2; exit 1; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$logs/gpu.txt"
date -u +"%Y-%m-%d %H:%M UTC" | tee -a "$logs/gpu.txt"

cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > "$logs/configure.log" 2>&1 &&
  cmake --build "$build" > "$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }

TUNA_GPU_BUNDLE=$bundle ctest --test-dir "$build" --output-on-failure > "$logs/ctest.log" 2>&1
tests_rc=$?
tail -12 "$logs/ctest.log"

# Two processes on one fresh disk cache: the first tunes, the second starts
# warm and must decide every shape from the cache.
export TUNA_CACHE_DIR=$(mktemp -d)
"$build/bin/tuna-gpu-bench" "$bundle" 2>&1 | tee "$logs/tuna.log"
bench_rc=${PIPESTATUS[0]}
"$build/bin/tuna-gpu-bench" "$bundle" > "$logs/tuna-warm.log" 2>&1 || bench_rc=1
unset TUNA_CACHE_DIR
python3 "$root/bench/gpu/triton_scale.py" 2>&1 | tee "$logs/triton.log"

python3 - "$logs/tuna.log" "$logs/triton.log" "$logs/tuna-warm.log" <<'PY'
import json, sys
def rows(path, tag):
    out = []
    for line in open(path):
        if line.startswith(tag + " "):
            out.append(json.loads(line[len(tag) + 1:]))
    return out
tuna, triton = rows(sys.argv[1], "TUNA"), rows(sys.argv[2], "TRITON")
tshape = {r["n"]: r for r in triton if "n" in r}
print("\n%-10s %-16s %9s %9s %9s %9s %9s %9s %10s %7s" % (
    "n", "tuna pick", "tuna GB/s", "dflt GB/s", "copy GB/s", "triton", "tuna 1st", "triton 1st", "tuna/copy", "wrong"))
for r in tuna:
    if "n" not in r:
        continue
    t = tshape.get(r["n"], {})
    print("%-10d %-16s %9.1f %9.1f %9.1f %9s %8.0fms %8sms %9.1f%% %7d" % (
        r["n"], r["pick"], r["tuned_gbps"], r["default_gbps"], r["copy_gbps"],
        t.get("gbps", "-"), r["first_call_ms"], t.get("first_call_ms", "-"),
        100 * r["tuned_gbps"] / r["copy_gbps"], r["wrong"] + t.get("wrong", 0)))
d = [r for r in tuna if "dispatch_n" in r]
td = [r for r in triton if "dispatch_n" in r]
if d:
    print("\nhost time per cached launch (n=%d): raw cuLaunchKernel %.3f us, tuna %.3f us (+%.3f us; untyped %.3f us), triton %s us" % (
        d[0]["dispatch_n"], d[0]["raw_launch_us"], d[0]["tuna_launch_us"], d[0]["overhead_us"],
        d[0]["tuna_untyped_us"], td[0]["launch_us"] if td else "-"))
cold = {r["n"]: r for r in tuna if "n" in r}
warm = {r["n"]: r for r in rows(sys.argv[3], "TUNA") if "n" in r}
print("\nsecond process on the same disk cache (TUNA_CACHE_DIR):")
for n, w in warm.items():
    print("  n=%-9d first call %7.2f ms (first process %8.2f ms), from cache: %s" % (
        n, w["first_call_ms"], cold[n]["first_call_ms"], "yes" if w["from_cache"] else "NO"))
c = [r for r in tuna if "check_n" in r]
if c:
    print("first call with TUNA_CHECK=1 at n=%d: %.0f ms (checked=%d, rejected=%d)" % (
        c[0]["check_n"], c[0]["check_tuning_ms"], c[0]["checked"], c[0]["rejected"]))
PY
echo "tests rc=$tests_rc bench rc=$bench_rc"
[ $tests_rc -eq 0 ] && [ $bench_rc -eq 0 ]
