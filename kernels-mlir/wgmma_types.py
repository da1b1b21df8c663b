#!/usr/bin/env python3
"""Writes a wgmma matmul of kernels-mlir/ for other element types or tiles.

    python3 kernels-mlir/wgmma_types.py KERNEL [-o OUT.mlir]

KERNEL is
  - `matmul_bf16_wgmma`: bf16 A, B and C, fp32 accumulation, from
    matmul_f16_wgmma (matmul_wgmma.mlir). A bf16 element is two bytes like
    an fp16 one, so the shared-memory layouts, the descriptors, the pipeline
    and the space are matmul_f16_wgmma's: the element types (memrefs,
    vectors, the wgmma's A and B types) and the kernel's name change.
  - `matmul_f16_wgmma_n128`: matmul_f16_wgmma with 128-column tiles of C
    (wgmma n128, 64 accumulator floats a thread), whose smaller B tiles
    leave room for more stages, for skinny and K-heavy shapes; its own space
    (N128_CONFIGS). The accumulator's type is fixed per kernel, hence a
    kernel of its own rather than a parameter.
  - `matmul_bf16_wgmma_n128`: matmul_f16_wgmma_n128's tiles and space
    with matmul_bf16_wgmma's element types: both rewrites of
    matmul_f16_wgmma, chained.
  - `matmul_e4m3_wgmma_f16out`: e4m3 A and B with an fp16 C, from
    matmul_e4m3_wgmma (matmul_wgmma_fp8.mlir, bf16 C): only C's type, the
    rounding of the scaled sum and the kernel's name change.
Derived, the kernels cannot drift apart from their source. docs/kernels.md
describes the kernels.
"""

import argparse
import os
import re
import sys

from wide_spaces import write

HERE = os.path.dirname(os.path.abspath(__file__))


def sixteen_bit_inputs(text, mlir_type):
    """matmul_f16_wgmma's memref and vector element types (memref<?xf16>,
    vector<8xf16>) and wgmma operand types (A [<f16>, ...]) -> `mlir_type`."""
    text = re.sub(r"(?<=x)f16(?=[>,])", mlir_type, text)
    return re.sub(r"(?<=\[<)f16(?=>)", mlir_type, text)


# matmul_f16_wgmma_n128's space: bm = 64 tiles for skinny and K-heavy
# shapes, with the stages a 128-column B tile leaves room for.
N128_CONFIGS = [dict(bm=64, bk=64, stages=stages, gm=8, deep=1, mask=mask,
                     order=0, l1=0, split=split)
                for mask in (1, 0) for stages in (4, 6) for split in (1, 2, 4, 8)]
N128_DEFAULT = dict(bm=64, bk=64, stages=4, gm=8, deep=1, mask=1, order=0,
                    l1=0, split=1)

# What the comments of the derived text say that n_tile_128 changes.
N128_NOTE = ("// 128-column tiles: where the comments below say 256 columns (the N\n"
             "// tile, 128 accumulator floats a thread, m64n256k16, four 64-column\n"
             "// atoms of B, 32 copy chunks a row, 16 epilogue passes), read 128\n"
             "// (64 floats, m64n128k16, two atoms, 16 chunks, 8 passes: split\n"
             "// divides 8).\n")


def config_text(config):
    return "{" + ", ".join("%s = %d" % item for item in config.items()) + "}"


def n_tile_128(text):
    """matmul_f16_wgmma with 128-column tiles of C: the wgmma's n, the
    accumulator (64 floats a thread), the B tile and its copy (16 chunks of
    16 bytes a row), the epilogue's rows, the grid and the constraints; the
    space lists N128_CONFIGS."""
    def sub(pattern, replacement, count=1):
        nonlocal text
        text, made = re.subn(pattern, replacement, text)
        if made != count:
            sys.exit("wgmma_types.py: %r matched %d times, not %d" % (pattern, made, count))
    sub(r"!acc = !llvm\.struct<\((?:f32, ){127}f32\)>",
        "!acc = !llvm.struct<(" + ", ".join(["f32"] * 64) + ")>")
    sub(r"n = 256, k = 16", "n = 128, k = 16", 16)
    sub(r"%bn = arith\.constant 256 : index", "%bn = arith.constant 128 : index")
    sub(r"64x256xf32", "64x128xf32", 4)
    sub(r"sizes: \[64, 256\]", "sizes: [64, 128]")
    sub(r"\(bm \+ 256\)", "(bm + 128)", 2)
    sub(r"n ceildiv 256", "n ceildiv 128")
    sub(r"\(n mod 256\)", "(n mod 128)")
    # The epilogue's 8 passes of 2 bm chunks (16 with 256 columns).
    sub(r"16 mod split == 0", "8 mod split == 0")
    sub(r"(%c8 = arith\.constant 8 : index\n)",
        r"\1      %c16 = arith.constant 16 : index\n")
    for name, op, lhs in (("b_chunks", "muli", "%bk"), ("b_rpp", "divui", "%nthreads"),
                          ("b_tr", "divui", "%tid"), ("b_tc", "remui", "%tid"),
                          ("out_chunks", "muli", "%bm")):
        sub(r"%%%s = arith\.%s %s, %%c32" % (name, op, lhs),
            "%%%s = arith.%s %s, %%c16" % (name, op, lhs))
    sub(r"%r = arith\.divui %ch, %c32", "%r = arith.divui %ch, %c16")
    sub(r"%cc = arith\.remui %ch, %c32", "%cc = arith.remui %ch, %c16")
    sub(r"configs = \[\{[^]]*\}\],",
        "configs = [" + ",\n                   ".join(
            config_text(c) for c in N128_CONFIGS) + "],")
    sub(r"defaults = \{[^}]*\},", "defaults = " + config_text(N128_DEFAULT) + ",")
    return N128_NOTE + text


def bf16_inputs(text):
    """matmul_bf16_wgmma's rewrite."""
    return sixteen_bit_inputs(text, "bf16")


def bf16_n_tile_128(text):
    """matmul_bf16_wgmma_n128's rewrite: bf16 element types, then
    128-column tiles (the two touch different text)."""
    return n_tile_128(bf16_inputs(text))


def fp16_output(text):
    """matmul_e4m3_wgmma's bf16 C (memref<?xbf16>, vector<8xbf16>) -> fp16."""
    return re.sub(r"(?<=x)bf16(?=>)", "f16", text)


# What the comments of matmul_f16_wgmma say of fp16, said of bf16.
BF16_PROSE = [(r"\bfp16\b", "bf16")]

# kernel -> (source file, source kernel, rewrite of the text, prose
# replacements in the comments).
KERNELS = {
    "matmul_bf16_wgmma": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                          bf16_inputs, BF16_PROSE),
    "matmul_f16_wgmma_n128": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                              n_tile_128, []),
    "matmul_bf16_wgmma_n128": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                               bf16_n_tile_128, BF16_PROSE),
    "matmul_e4m3_wgmma_f16out": ("matmul_wgmma_fp8.mlir", "matmul_e4m3_wgmma",
                                 fp16_output,
                                 [(r"(?<!\.)\bbf16\b", "fp16")]),
}


def derive(kernel):
    """The source text of `kernel`."""
    source, base, rewrite, prose = KERNELS[kernel]
    text = open(os.path.join(HERE, source)).read()
    if not re.search(r"func @%s\(" % base, text):
        sys.exit("wgmma_types.py: no kernel @%s in %s" % (base, source))
    text = rewrite(text)
    text = re.sub(r"%s(?!_wide)" % base, kernel, text)
    for pattern, replacement in prose:
        text = re.sub(pattern, replacement, text)
    note = ("// Generated by kernels-mlir/wgmma_types.py %s from %s. Do not\n"
            "// edit; edit %s or the script.\n" % (kernel, source, source))
    return note + text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernel", choices=sorted(KERNELS))
    parser.add_argument("-o", dest="output", help="file to write (default: stdout)")
    args = parser.parse_args()
    write(derive(args.kernel), args.output)


if __name__ == "__main__":
    main()
