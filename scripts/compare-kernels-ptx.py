#!/usr/bin/env python3
"""Builds the PTX of the check's comparison kernels, or checks it is current.

    compare-kernels-ptx.py --update TUNA_OPT   rewrites the checked-in PTX
    compare-kernels-ptx.py --check TUNA_OPT    exit 1 (with a diff) if stale

The runtime embeds runtime/lib/cuda/CompareKernels.ptx (it links no MLIR);
this is the one place that says how it is made from CompareKernels.mlir:
Tuna's NVPTX pipeline for sm_75, symbol-dce (drops the C interface wrappers
of the private helpers), gpu-module-to-binary to PTX text, and the text of
the one gpu.object (gpu_object_ptx.py).
`cmake --build build --target update-compare-kernels-ptx` runs --update;
test/Target/compare-kernels-ptx.mlir runs --check.
"""

import difflib
import os
import subprocess
import sys

from gpu_object_ptx import ptx_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "runtime", "lib", "cuda", "CompareKernels.mlir")
PTX = os.path.join(ROOT, "runtime", "lib", "cuda", "CompareKernels.ptx")
PIPELINE = ["--tuna-lower-nvptx=chip=sm_75", "--symbol-dce",
            "--gpu-module-to-binary=format=isa"]


def compile_ptx(tuna_opt):
    printed = subprocess.run([tuna_opt, SOURCE] + PIPELINE, check=True,
                             capture_output=True, text=True).stdout
    return ptx_of(printed, "compare-kernels-ptx.py")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("--update", "--check"):
        sys.exit(__doc__)
    ptx = compile_ptx(sys.argv[2])
    if sys.argv[1] == "--update":
        with open(PTX, "wb") as f:
            f.write(ptx)
        return
    with open(PTX, "rb") as f:
        current = f.read()
    if current == ptx:
        return
    diff = difflib.unified_diff(
        current.decode().splitlines(True), ptx.decode().splitlines(True),
        "CompareKernels.ptx (checked in)", "CompareKernels.ptx (compiled now)")
    sys.stdout.writelines(diff)
    sys.exit("runtime/lib/cuda/CompareKernels.ptx is stale: run `cmake "
             "--build build --target update-compare-kernels-ptx` and commit it")


if __name__ == "__main__":
    main()
