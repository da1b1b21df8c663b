#!/bin/sh
# Times the host bias + tanh-GELU kernel (bench/host/bias_gelu.mlir) compiled
# by two tuna-compile builds, for the generic and this machine's CPU, on a
# 1024 x 4096 matrix: docs/host-math.md's "before and after".
#   bench/host/host_math.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR
set -eu
before="$1"; after="$2"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for build in "$before" "$after"; do
  for cpu in generic native; do
    "$build/bin/tuna-compile" "$here/bias_gelu.mlir" --target=host \
      --host-cpu=$cpu -o "$work/gelu.tuna" > /dev/null
    printf '%s %s: ' "$build" "$cpu"
    "$after/bin/tuna-tune" "$work/gelu.tuna" --shape 'd0=1024 d1=4096' \
      --dims a0=d0*d1 --dims a1=d1 --dims a2=d0*d1 --no-isolate --no-cache \
      --verbose 2>&1 | sed -n 's/^tuna:   \[[0-9]*\] [^ ]* (\(step=[0-9]*\)): \([0-9.]*\) ms.*/\1 \2 ms/p' |
      tr '\n' ' '
    echo
  done
done
