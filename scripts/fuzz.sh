#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz with clang-22 (ASan + UBSan) in a
# build directory of their own and runs each for the given time, starting
# from the committed corpus (test/fuzz/corpus/<target>, findings included)
# and seeds made by the build (bundles and manifests written by the runtime;
# the kernels of kernels-mlir/ and the lit tests' inputs, split at `// -----`).
# Prints one line per target; fails when a target finds a crash, a hang
# (an input running over 10 s), a leak or an input it runs out of memory on.
# New corpus inputs stay in <build-dir>/fuzz-corpus/<target>; findings are
# written to <build-dir>/fuzz-findings/. See docs/reliability.md.
#
# Usage: bash scripts/fuzz.sh [seconds-per-target] [build-dir]
#   (default 60 s, build-fuzz/). TUNA_FUZZ_TARGETS="bundle cache" picks
#   targets (default: bundle manifest cache expr expand); without expand the
#   compiler is not built. TUNA_FUZZ_SEED=N fixes libFuzzer's random seed
#   (default 0: a new seed each run), so that a run can be repeated.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
targets=(${TUNA_FUZZ_TARGETS:-bundle manifest cache expr expand})
seed=${TUNA_FUZZ_SEED:-0}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

bash "$root/scripts/setup.sh"
compiler=OFF
for t in "${targets[@]}"; do [ "$t" = expand ] && compiler=ON; done
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DTUNA_ENABLE_COMPILER=$compiler -DTUNA_ENABLE_FUZZERS=ON \
  -DTUNA_SANITIZERS=address,undefined >/dev/null
cmake --build "$build" --target tuna-fuzz-write-seeds \
  "${targets[@]/#/tuna-fuzz-}"

seeds=$build/fuzz-seeds
rm -rf "$seeds"
"$build/bin/tuna-fuzz-write-seeds" "$seeds"
mkdir -p "$seeds/cache" "$seeds/expr" "$seeds/expand"
for file in "$root"/kernels-mlir/*.mlir "$root"/test/Transforms/*.mlir \
  "$root"/test/Dialect/Tuna/*.mlir; do
  awk -v out="$seeds/expand/$(basename "$file" .mlir)" \
    '/^\/\/ -----/ { ++n; next } { print > (out "-" n+0 ".mlir") }' "$file"
done

failed=0
printf '%-9s %10s %8s %12s %9s\n' target seconds corpus executions findings
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t
  findings=$build/fuzz-findings/$t
  rm -rf "$findings"
  mkdir -p "$corpus" "$findings"
  inputs=("$corpus" "$seeds/$t")
  [ -d "$root/test/fuzz/corpus/$t" ] && inputs+=("$root/test/fuzz/corpus/$t")
  log=$build/fuzz-$t.log
  status=0
  "$build/bin/tuna-fuzz-$t" -max_total_time="$seconds" -seed="$seed" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$findings/" \
    "${inputs[@]}" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  size=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  found=$(find "$findings" -type f | wc -l)
  printf '%-9s %10s %8s %12s %9s\n' "$t" "$seconds" "${size:-?}" \
    "${runs:-?}" "$found"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    echo "fuzz: $t failed (exit $status); the end of $log:" >&2
    tail -n 40 "$log" >&2
  fi
done
exit $failed
