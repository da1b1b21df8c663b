#!/usr/bin/env bash
# Builds Tuna with clang-22 and sanitizers in a build directory of its own
# and runs its tests there (docs/reliability.md says what is covered).
#
# Usage: bash scripts/sanitize.sh asan|tsan [--runtime] [build-dir]
#   asan: AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer
#   tsan: ThreadSanitizer
#   --runtime: the runtime alone (-DTUNA_ENABLE_COMPILER=OFF): its unit
#   tests and tools, no LLVM/MLIR. Without it the compiler is built and
#   instrumented too (LLVM/MLIR's own libraries are not) and every test runs.
#   The build directory defaults to build-<asan|tsan>[-runtime]/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bash scripts/sanitize.sh asan|tsan [--runtime] [build-dir]"
kind=${1:?$usage}
shift
case $kind in
asan) sanitizers=address,undefined ;;
tsan) sanitizers=thread ;;
*) echo "$usage" >&2; exit 2 ;;
esac
compiler=ON
suffix=
if [ "${1:-}" = --runtime ]; then
  compiler=OFF
  suffix=-runtime
  shift
fi
build=${1:-$root/build-$kind$suffix}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

# Any report fails the test (or the build step) that printed it: the build
# runs the instrumented tuna-compile to make test bundles. abort_on_error:
# a process that faults dies of SIGABRT, as it would of its signal without
# a sanitizer, not with the sanitizer's exit status (IsolationTest checks
# how a crashed worker died). allow_user_poisoning=0: LLVM's allocator
# templates, instrumented in our code, poison memory that the uninstrumented
# libMLIR then writes (docs/toolchain-notes.md). The TSan suppressions cover
# two false reports about synchronization inside the uninstrumented
# libLLVM/libMLIR (scripts/tsan-suppressions.txt says which).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export TSAN_OPTIONS=suppressions=$root/scripts/tsan-suppressions.txt:${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1}

bash "$root/scripts/setup.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DTUNA_ENABLE_COMPILER=$compiler -DTUNA_SANITIZERS=$sanitizers >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
