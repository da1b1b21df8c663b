#!/usr/bin/env bash
# Everything on the GPU machine in one call: build the runtime, the GPU tests
# and the benchmarks from source (no LLVM/MLIR there), run the tests, run
# Tuna's scale benchmark (first calls, the disk cache, the tuning database,
# launch overhead; Triton's first call and launch overhead beside it), then
# bench/gpu/compare.py (device time of scale and the kernel library against
# Triton, PyTorch/cuBLAS and the copy, one harness for every side), and
# print short tables last. Logs go to $OUT when set.
#
# On the CPU side first: bash bench/make_bundles.sh (writes bench/out/bundles)
# then carry bench/out to the GPU machine and run: bash bench/run_gpu.sh
# Logs: bench/out/logs, and $OUT/logs.tgz when $OUT is set.
# A run longer than one device call (TUNA_KERNELS_TIMEOUT stops compare.py
# before its last cases) is finished by a second call with
# TUNA_BENCH_AFTER=LOG, LOG the first call's kernels.log (carried, e.g. in
# bench/out): it skips the tests and the scale benchmark and runs the cases
# LOG has no result for; its tables show both calls' cases.
# Without bench/out/bundles/scale.tuna the scale benchmark runs on the
# nvcc-made PTX variants of test/gpu/scale_variants.cu instead (the "code"
# column says which); without the kernel library's bundles, that part is
# skipped.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/bench/out/logs
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
# TUNA_BUNDLES=DIR (relative to the repository root, or absolute) runs
# other bundles, e.g. a kernel under work next to the merged ones.
bundles=$(cd "$root" && realpath -m "${TUNA_BUNDLES:-bench/out/bundles}")
after=${TUNA_BENCH_AFTER:+$(cd "$root" && realpath -m "$TUNA_BENCH_AFTER")}
if [ -n "$after" ]; then
  [ -f "$after" ] || { echo "TUNA_BENCH_AFTER: no file $after"; exit 1; }
  case $after in
    "$logs"/*) echo "TUNA_BENCH_AFTER: $after is in $logs, which this run clears"; exit 1 ;;
  esac
fi
rm -rf "$logs" && mkdir -p "$logs"
# The device tool brings back only a few files from $OUT: all logs go in one
# archive, next to the tuning report.
if [ -n "${OUT:-}" ]; then
  trap 'tar czf "$OUT/logs.tgz" -C "$logs" . ; cp "$logs"/*.html "$OUT"/ 2>/dev/null' EXIT
fi
scale_args=()
if [ -f "$bundles/scale.tuna" ]; then
  scale_args=("$bundles/scale.tuna")
  export TUNA_GPU_BUNDLE=$bundles/scale.tuna
else
  echo "no $bundles/scale.tuna (bench/make_bundles.sh): scale runs on nvcc-made PTX"
fi

# The TMA prototype (test/kernels/tma-prototype.mlir) for CudaTensorMapTest.
if [ -f "$bundles/tma_tile.tuna" ]; then
  export TUNA_GPU_TMA_BUNDLE=$bundles/tma_tile.tuna
fi
# The kernel with module state (test/kernels/module-state.mlir) for
# CudaModuleStateTest.
if [ -f "$bundles/module_state.tuna" ]; then
  export TUNA_GPU_STATE_BUNDLE=$bundles/module_state.tuna
fi

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$logs/gpu.txt"
date -u +"%Y-%m-%d %H:%M UTC" | tee -a "$logs/gpu.txt"

cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > "$logs/configure.log" 2>&1 &&
  cmake --build "$build" > "$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }

if [ -n "$after" ]; then
  echo "TUNA_BENCH_AFTER=$after: the tests and the scale benchmark skipped"
  tests_rc=0
else
  ctest --test-dir "$build" --output-on-failure > "$logs/ctest.log" 2>&1
  tests_rc=$?
  tail -12 "$logs/ctest.log"
fi

only=${TUNA_BENCH_ONLY:-}
if [ -n "$after" ]; then
  scale_ok=$tests_rc
elif [ -z "$only" ]; then
# Two processes on one fresh disk cache: the first tunes, the second starts
# warm and must decide every shape from the cache.
export TUNA_CACHE_DIR=$(mktemp -d)
"$build/bin/tuna-gpu-bench" "${scale_args[@]}" 2>&1 | tee "$logs/tuna.log"
bench_rc=${PIPESTATUS[0]}
"$build/bin/tuna-gpu-bench" "${scale_args[@]}" > "$logs/tuna-warm.log" 2>&1 || bench_rc=1
# Tuning ahead of time: tuna-tune writes a tuning database (and an HTML
# report) for the benchmark's shapes; a third process with an empty cache
# and that database must decide every shape without tuning. --shortlist 0:
# entries with a shortlist would make that first call time the shortlist
# (docs/cache.md, "Shortlists"), which search_table.sh measures instead.
if [ ${#scale_args[@]} -gt 0 ]; then
  "$build/bin/tuna-tune" "${scale_args[0]}" --kernel scale --device cuda \
    --shape d0=4096,65536,1048576,16777216,67108864 --no-cache --shortlist 0 \
    -o "$logs/scale-db.json" --report "$logs/scale-tuning.html" \
    > "$logs/tuna-tune.log" 2>&1 || bench_rc=1
  TUNA_CACHE_DIR=$(mktemp -d) TUNA_TUNING_DB=$logs/scale-db.json \
    "$build/bin/tuna-gpu-bench" "${scale_args[@]}" > "$logs/tuna-db.log" 2>&1 || bench_rc=1
fi
unset TUNA_CACHE_DIR
python3 "$root/bench/gpu/triton_scale.py" 2>&1 | tee "$logs/triton.log"

python3 - "$logs/tuna.log" "$logs/triton.log" "$logs/tuna-warm.log" "$logs/tuna-db.log" "$logs/tuna-tune.log" <<'PY'
import os
import json, sys
def rows(path, tag):
    out = []
    for line in open(path):
        if line.startswith(tag + " "):
            out.append(json.loads(line[len(tag) + 1:]))
    return out
tuna, triton = rows(sys.argv[1], "TUNA"), rows(sys.argv[2], "TRITON")
tshape = {r["n"]: r for r in triton if "n" in r}
if not tuna:
    sys.exit("no results from tuna-gpu-bench: see tuna.log")
print("\nscale, code: %s (%d variants; default %s)" % (
    "nvcc-made PTX" if tuna[0]["source"] == "nvcc-ptx" else "bench/out/bundles/scale.tuna",
    tuna[0]["variants"], tuna[0]["default"]))
# Device time against Triton: the kernel library's tables (compare.py).
print("%-10s %-16s %9s %9s %9s %9s %9s %10s %7s" % (
    "n", "tuna pick", "tuna GB/s", "dflt GB/s", "copy GB/s", "tuna 1st", "triton 1st", "tuna/copy", "wrong"))
for r in tuna:
    if "n" not in r:
        continue
    t = tshape.get(r["n"], {})
    print("%-10d %-16s %9.1f %9.1f %9.1f %8.0fms %8sms %9.1f%% %7d" % (
        r["n"], r["pick"], r["tuned_gbps"], r["default_gbps"], r["copy_gbps"],
        r["first_call_ms"], t.get("first_call_ms", "-"),
        100 * r["tuned_gbps"] / r["copy_gbps"], r["wrong"] + t.get("wrong", 0)))
d = [r for r in tuna if "dispatch_n" in r]
td = [r for r in triton if "dispatch_n" in r]
if d:
    print("\nhost time per cached launch (n=%d, %s; median of 10^5): raw cuLaunchKernel %.3f us, tuna %.3f us (+%.3f us; untyped %.3f us), triton %s us" % (
        d[0]["dispatch_n"], d[0]["dispatch_pick"], d[0]["raw_launch_us"], d[0]["tuna_launch_us"], d[0]["overhead_us"],
        d[0]["tuna_untyped_us"], td[0]["launch_us"] if td else "-"))
cold = {r["n"]: r for r in tuna if "n" in r}
warm = {r["n"]: r for r in rows(sys.argv[3], "TUNA") if "n" in r}
print("\nsecond process on the same disk cache (TUNA_CACHE_DIR):")
for n, w in warm.items():
    print("  n=%-9d first call %7.2f ms (first process %8.2f ms), from cache: %s" % (
        n, w["first_call_ms"], cold[n]["first_call_ms"], "yes" if w["from_cache"] else "NO"))
if os.path.exists(sys.argv[4]):
    tune_log = open(sys.argv[5]).read().splitlines()
    print("\ntuna-tune --device cuda (tuning ahead of time): " +
          "; ".join(l for l in tune_log if "default config" in l or l.startswith("database:")))
    db = {r["n"]: r for r in rows(sys.argv[4], "TUNA") if "n" in r}
    print("third process, empty cache, TUNA_TUNING_DB from tuna-tune:")
    for n, w in db.items():
        print("  n=%-9d first call %7.2f ms, pick %-16s from the database: %s, wrong %d" % (
            n, w["first_call_ms"], w["pick"], "yes" if w["from_cache"] else "NO", w["wrong"]))
c = [r for r in tuna if "check_n" in r]
if c:
    print("first call with TUNA_CHECK=1 at n=%d: %.0f ms (checked=%d, rejected=%d)" % (
        c[0]["check_n"], c[0]["check_tuning_ms"], c[0]["checked"], c[0]["rejected"]))
PY
echo "tests rc=$tests_rc bench rc=$bench_rc"
[ $tests_rc -eq 0 ] && [ $bench_rc -eq 0 ]
scale_ok=$?
else
  echo "TUNA_BENCH_ONLY=$only: scale benchmark skipped"
  [ $tests_rc -eq 0 ]
  scale_ok=$?
fi

# The kernel library (kernels-mlir/) against the Triton twins, PyTorch
# (cuBLAS for the matmuls) and a copy of as many bytes, every side checked
# and timed by one harness (bench/gpu/compare.py: the same events, samples,
# statistic and L2 policy; L2-warm back-to-back and L2-cold single calls);
# Tuna through its C API, tuned on a fresh cache. TUNA_BENCH_ONLY=matmul
# (say) runs only the kernels whose name starts with it (or with one of
# several prefixes separated by commas), and skips the scale part.
if [ ! -f "$bundles/axpy.tuna" ] && [ ! -f "$bundles/matmul.tuna" ]; then
  echo "no kernel library bundles in $bundles: kernel library skipped"
  exit $scale_ok
fi
# TUNA_KERNELS_TIMEOUT=S bounds it (a new kernel that hangs must not take
# the rest down with it; 0, the default: no bound).
TUNA_CACHE_DIR=$(mktemp -d) timeout "${TUNA_KERNELS_TIMEOUT:-0}" \
  python3 "$root/bench/gpu/compare.py" --bundles "$bundles" \
  --lib "$build/lib/libtuna_runtime_shared.so" --only "$only" \
  ${after:+--after "$after"} > "$logs/kernels.log" 2>&1
kernels_rc=$?
if grep -q '^tables:' "$logs/kernels.log"; then
  sed -n '/^tables:/,$p' "$logs/kernels.log"
  grep 'FAILED' "$logs/kernels.log"
else
  # Stopped (TUNA_KERNELS_TIMEOUT) before its tables: those of its cases.
  tail -5 "$logs/kernels.log"
  python3 "$root/bench/gpu/compare.py" --tables-from ${after:+"$after"} \
    "$logs/kernels.log"
fi
echo "kernels rc=$kernels_rc"
[ $scale_ok -eq 0 ] && [ $kernels_rc -eq 0 ]
