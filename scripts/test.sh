#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite, the runtime's unit
# tests, and the GPU tests (skipped, and counted as such, without a driver).
# Usage: bash scripts/test.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

bash "$root/scripts/setup.sh"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
