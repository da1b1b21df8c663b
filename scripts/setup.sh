#!/usr/bin/env bash
# Installs every Debian package Tuna's build and tests need (Debian 12);
# clang-22 and its sanitizer and libFuzzer runtimes are for scripts/fuzz.sh
# and scripts/sanitize.sh, which the tests run too; python3-torch for the
# bench-compare test (bench/gpu/compare.py, the benchmark harness, on the
# CPU).
# Idempotent: when everything is present it does nothing.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3 git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-22 libzstd-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  rocm-device-libs
  clang-22 libclang-rt-22-dev
  openmpi-bin libopenmpi-dev
  python3-torch
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
