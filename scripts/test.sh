#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite, the runtime's unit
# tests, and the GPU tests (skipped, and counted as such, without a driver);
# then the runtime's tests under sanitizers and a short run of each fuzzer.
# Usage: bash scripts/test.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

bash "$root/scripts/setup.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
# The runtime's tests under ASan + UBSan, and every fuzzer for 30 s from a
# fixed seed, so that a failure repeats with the same command
# (docs/reliability.md); each in a build directory of its own.
bash "$root/scripts/sanitize.sh" asan --runtime "$build-asan-runtime"
TUNA_FUZZ_SEED=${TUNA_FUZZ_SEED:-1} bash "$root/scripts/fuzz.sh" 30 "$build-fuzz"
