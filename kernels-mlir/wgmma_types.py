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
    (N128_CONFIGS, with cp.async and with TMA). The accumulator's type is fixed per kernel, hence a
    kernel of its own rather than a parameter.
  - `matmul_bf16_wgmma_n128`, `matmul_bf16_wgmma_n64`: the 128- and
    64-column kernels' tiles and spaces with matmul_bf16_wgmma's element
    types: both rewrites of matmul_f16_wgmma, chained.
  - `matmul_f16_wgmma_n64`: matmul_f16_wgmma with 64-column tiles of C
    (wgmma n64, 32 accumulator floats a thread, one 64-column atom of B),
    for skinny (decode) shapes, where 128-column tiles leave most SMs idle;
    its own space (N64_CONFIGS: bm = 64, 4 to 8 stages, split 1 to 16,
    mask 0 to 2).
  - `matmul_bf16_wgmma_ws`: the warp-specialized persistent kernel
    (matmul_f16_wgmma_ws, matmul_wgmma_ws.mlir) with bf16 element types.
  - `matmul_e4m3_wgmma_ws`: the warp-specialized persistent kernel
    (matmul_f16_wgmma_ws) with matmul_e4m3_wgmma's operands: K-major e4m3
    A and B, k32 wgmma, the scales and a bf16 C (E4M3_WS_EDITS).
  - `matmul_e4m3_wgmma_f16out`: e4m3 A and B with an fp16 C, from
    matmul_e4m3_wgmma (matmul_wgmma_fp8.mlir, bf16 C): only C's type, the
    rounding of the scaled sum and the kernel's name change.
  - `matmul_e4m3_wgmma_n64`: matmul_e4m3_wgmma with 64-column tiles of C
    (wgmma m64n64k32, 32 accumulator floats a thread, B tiles of 64 K-major
    rows), the rewrite of matmul_f16_wgmma_n64 applied to the e4m3 kernel
    (n_tile with e4m3=True), for skinny (decode) shapes; its own space
    (E4M3_N64_CONFIGS: bm = 64, bk 128/256, 4 to 8 stages, split 1 to 16,
    mask 0 to 2).
  - `matmul_e4m3_wgmma_n64_f16out`: matmul_e4m3_wgmma_n64 with an fp16 C
    (both rewrites chained).
  - `matmul_e4m3_wgmma_n64_exact`: matmul_e4m3_wgmma_n64 with promoted
    (fp32-exact) accumulation: after each k tile (bk / 32 k32 wgmma) the
    tile's tensor-core sum is added to fp32 registers of its own and the
    next tile's first wgmma starts from zero (scale-d 0), as CUTLASS's and
    DeepGEMM's fp8 kernels do (the e4m3 wgmma keeps about 14 bits over a
    long k chain); the same space. `matmul_e4m3_wgmma_n64_exact_f16out`:
    the same with an fp16 C.
Derived, the kernels cannot drift apart from their source. docs/kernels.md
describes the kernels.
"""

import argparse
import os
import re
import sys

from wide_spaces import drop_kernel_tensor_maps, write

HERE = os.path.dirname(os.path.abspath(__file__))


def sixteen_bit_inputs(text, mlir_type):
    """matmul_f16_wgmma's memref and vector element types (memref<?xf16>,
    vector<8xf16>) and wgmma operand types (A [<f16>, ...]) -> `mlir_type`."""
    text = re.sub(r"(?<=x)f16(?=[>,])", mlir_type, text)
    return re.sub(r"(?<=\[<)f16(?=>)", mlir_type, text)


def skinny_space(stages, splits):
    """bm = 64 configurations for skinny and K-heavy shapes, masked and not:
    the narrower-tile kernels' spaces."""
    return [dict(bm=64, bk=64, stages=depth, gm=8, deep=1, mask=mask,
                 order=0, l1=0, split=split, tma=0)
            for mask in (1, 0) for depth in stages for split in splits]


SKINNY_DEFAULT = dict(bm=64, bk=64, stages=4, gm=8, deep=1, mask=1, order=0,
                      l1=0, split=1, tma=0)


def tile_note(cols, floats, atoms, passes, more=").\n"):
    """What the comments of the derived text say that n_tile changes:
    the 256-column figures the comments give, read for `cols` columns."""
    return ("// %d-column tiles: where the comments below say 256 columns (the N\n"
            "// tile, 128 accumulator floats a thread, m64n256k16, four 64-column\n"
            "// atoms of B, 32 copy chunks a row, 16 epilogue passes), read %d\n"
            "// (%d floats, m64n%dk16, %s, %d chunks, %d passes, the last\n"
            "// of a block's share partial where split does not divide them%s"
            % (cols, cols, floats, cols, atoms, cols // 8, passes, more))


def tma_space(stages, splits):
    """TMA configurations (tma = 1; mask = 1, as TMA fills what lies past
    the matrices with zeros) of the skinny space's tiles."""
    return [dict(c, tma=1) for c in skinny_space(stages, splits)
            if c["mask"] == 1]


# matmul_f16_wgmma_n128's space: the stages a 128-column B tile leaves room
# for, with cp.async and with TMA (the kernel keeps matmul_f16_wgmma's
# tensor maps; 8 TMA stages are what 256 x 256 x 65536 picks on the H200).
# The 64-column kernel stays cp.async only, so that it declares no tensor
# map and can be planned before it is built (tuna-compile --variants, the
# JIT's lazy mode).
N128_CONFIGS = (skinny_space((4, 6), (1, 2, 4, 8, 16)) +
                tma_space((4, 8), (1, 2, 4, 8, 16)))
N128_NOTE = tile_note(128, 64, "two atoms", 8)

# matmul_f16_wgmma_n192's space: 128 x 192 tiles, for shapes whose 128 x 256
# tiles leave part of the GPU idle (1000 x 3000: 96 tiles of 128 x 256 for
# 132 SMs, 128 of 128 x 192). TMA loads (the cp.async default is there for
# buffers a tensor map cannot describe): 4 or 5 stages of 40 KiB (3 leave
# too little room for the epilogue's fp32 tile).
N192_CONFIGS = [dict(bm=128, bk=64, stages=stages, gm=gm, deep=deep, mask=1,
                     order=0, l1=0, split=1, tma=1)
                for stages in (4, 5) for deep in (0, 1) for gm in (8, 1)] + [
    dict(bm=128, bk=64, stages=4, gm=8, deep=0, mask=1, order=0, l1=0,
         split=1, tma=0)]
N192_DEFAULT = N192_CONFIGS[-1]
N192_NOTE = tile_note(192, 96, "three atoms", 12, more=(
    ").\n// B's copies: a thread copies chunk tid + i threads of the tile, its\n"
    "// row, column and swizzle computed per copy (24 chunks a row do not\n"
    "// divide the threads).\n"))

# matmul_f16_wgmma_n64's space, for skinny (decode) shapes, where 64-column
# tiles make 64 blocks of C for N = 4096 (cuBLAS takes 16- to 64-column
# tiles with 11-16 stages there). A stage is 16 KiB (A's 64 x 64 and B's
# 64 x 64 halfs), so 8 stages take 129 KiB of the 227; deeper is no use:
# the cp.async waits stop at 6 pending groups (stages 8 with deep 1),
# beyond which a tile waits for every group. split up to 16 (a cluster's
# most): 16 tiles of 64 x 64 times 8 or 16 fill the GPU on 256 x 256 x K.
# The masked configurations come again with mask = 2 (M masked, B's copies
# whole), for M = 1 and 16 with N and K multiples of 64.
N64_CONFIGS = skinny_space((4, 6, 8), (1, 2, 4, 8, 16))
N64_CONFIGS += [dict(c, mask=2) for c in N64_CONFIGS if c["mask"] == 1]
N64_NOTE = tile_note(
    64, 32, "one atom", 4,
    "); where they say the epilogue's rows are padded to 264\n"
    "// floats (bm x 264, 1056 bytes a row), read 72 (bm x 72, 288 bytes):\n"
    "// 64 x 264 floats would not fit 4 stages of 16 KiB.\n")


# matmul_e4m3_wgmma_n64's space, for skinny (decode) shapes: 64 blocks of C
# for N = 4096 instead of 16. A stage is bm + 64 rows of bk bytes (16 KiB
# with bk = 128, 32 KiB with bk = 256), so the rings run from 65 KiB (bk
# 128, 4 stages: three blocks an SM) to 193 KiB (bk 256, 6 stages), four to
# six tiles in flight (deep 1) where the 256-column kernel keeps two; the
# waits go to 6 pending groups (n_tile's e4m3 rewrite adds cases 4 to 6).
# mask = 1 for any M (M = 1 and 16 need it), mask = 0 only for the two
# deepest rings, mask = 2 (M masked, B's copies whole) as mask = 1. split
# up to 16 (a cluster's most).
E4M3_N64_CONFIGS = [dict(bm=64, bk=bk, stages=stages, gm=8, deep=1, mask=mask,
                         split=split)
                    for mask, tiles in ((1, ((128, 4), (128, 6), (128, 8), (256, 6))),
                                        (0, ((128, 8), (256, 6))))
                    for bk, stages in tiles for split in (1, 2, 4, 8, 16)]
E4M3_N64_CONFIGS += [dict(c, mask=2) for c in E4M3_N64_CONFIGS
                     if c["mask"] == 1]
E4M3_SKINNY_DEFAULT = dict(bm=64, bk=128, stages=4, gm=8, deep=1, mask=1,
                           split=1)


def e4m3_tile_note(cols, more=""):
    """What the comments of matmul_e4m3_wgmma say that n_tile changes."""
    return ("// %d-column tiles: where the comments below say 256 columns (the N\n"
            "// tile, 128 accumulator floats a thread, m64n256k32, B's 256 rows,\n"
            "// B's next column block 32 KiB on, 16 epilogue passes), read %d\n"
            "// (%d floats, m64n%dk32, %d rows, %d KiB on, %d passes, the last of\n"
            "// a block's share partial where split does not divide them).\n%s"
            "// The configurations are this kernel's own (wgmma_types.py), not\n"
            "// the ones the header counts; the cp.async waits go to 6 pending\n"
            "// groups (stages 8 with deep 1), not 3.\n"
            % (cols, cols, cols // 2, cols, cols, cols // 8, cols // 16, more))


E4M3_N64_NOTE = e4m3_tile_note(
    64, "// Where they say the epilogue's rows are 264 floats (bm x 264, 1056\n"
    "// bytes a row), read 72 (bm x 72, 288 bytes).\n")


def config_text(config):
    return "{" + ", ".join("%s = %d" % item for item in config.items()) + "}"


def n_tile(text, cols, configs, default, note, e4m3=False):
    """matmul_f16_wgmma with `cols`-column tiles of C (128 or 64): the
    wgmma's n, the accumulator (cols / 2 floats a thread), the B tile and its
    copy (cols / 8 chunks of 16 bytes a row), the epilogue's rows and passes
    (cols / 16, a block's share of them ending in a partial pass where
    split does not divide them), the grid and the constraints; the space
    lists `configs`. With 64 columns the epilogue's fp32 rows shrink from
    264 floats to 72 (still 8 banks past a multiple of 32 floats: the same
    bank pattern), whose 64 x 264 floats (67,584 bytes) would not fit 4
    stages (65,536 bytes).

    e4m3: the same for matmul_e4m3_wgmma (matmul_wgmma_fp8.mlir), whose
    text lines up but for three things. Its wgmma is k32. Its B tile is
    `cols` K-major rows of bk bytes in 128-byte column blocks, copied as
    A's is: the copy loop already reads the tile's rows from %bn (bn / rpp
    passes) and its column-block stride from %bn (128 bn bytes), but the
    descriptor of bk = 256's second column block steps 2048 (32 KiB, in the
    descriptor's 16-byte units), now 8 cols. And its cp.async waits stop at
    3 pending groups (stages 5 with deep 1); the narrower tiles leave room
    for deeper rings, so cases 4 to 6 are added, as matmul_f16_wgmma has
    them (stages 8 with deep 1)."""
    def sub(pattern, replacement, count=1):
        nonlocal text
        text, made = re.subn(pattern, replacement, text)
        if made != count:
            sys.exit("wgmma_types.py: %r matched %d times, not %d" % (pattern, made, count))
    chunks = cols // 8
    sub(r"!acc = !llvm\.struct<\((?:f32, ){127}f32\)>",
        "!acc = !llvm.struct<(" + ", ".join(["f32"] * (cols // 2)) + ")>")
    k = 32 if e4m3 else 16
    sub(r"n = 256, k = %d" % k, "n = %d, k = %d" % (cols, k), 16)
    sub(r"%bn = arith\.constant 256 : index", "%%bn = arith.constant %d : index" % cols)
    sub(r"64x256xf32", "64x%dxf32" % cols, 4)
    sub(r"sizes: \[64, 256\]", "sizes: [64, %d]" % cols)
    sub(r"\(bm \+ 256\)", "(bm + %d)" % cols, 2)
    sub(r"n ceildiv 256", "n ceildiv %d" % cols)
    sub(r"\(n mod 256\)", "(n mod %d)" % cols)
    # B's and the epilogue's cols / 8 chunks a row (32 with 256 columns).
    if not re.search(r"%%c%d = arith\.constant %d : index\n" % (chunks, chunks), text):
        sub(r"(%c8 = arith\.constant 8 : index\n)",
            r"\1      %%c%d = arith.constant %d : index\n" % (chunks, chunks))
    for name, op, lhs in (() if e4m3 else
                          (("b_chunks", "muli", "%bk"), ("b_rpp", "divui", "%nthreads"),
                           ("b_tr", "divui", "%tid"), ("b_tc", "remui", "%tid"))) + (
                              ("out_chunks", "muli", "%bm"),):
        sub(r"%%%s = arith\.%s %s, %%c32" % (name, op, lhs),
            "%%%s = arith.%s %s, %%c%d" % (name, op, lhs, chunks))
    if e4m3:
        # B's second column block (bk = 256) is 128 cols bytes on: cols * 8
        # in the descriptor's 16-byte units (2048 with 256 columns).
        step = cols * 8
        sub(r"%i2048 = arith\.constant 2048 : i64",
            "%%i%d = arith.constant %d : i64" % (step, step))
        sub(r"%i2048\b", "%%i%d" % step, 2)
        # The cp.async waits for 4 to 6 pending groups, after the one for 3
        # (in the peeled tile 0 and in the loop).
        sub(r"( *)(case 3 \{\n *nvvm\.cp\.async\.wait\.group 3\n *scf\.yield\n *\}\n)",
            lambda m: m.group(1) + m.group(2) + "".join(
                "%scase %d {\n%s  nvvm.cp.async.wait.group %d\n%s  scf.yield\n%s}\n"
                % (m.group(1), n, m.group(1), n, m.group(1), m.group(1))
                for n in (4, 5, 6)), 2)
    sub(r"%r = arith\.divui %ch, %c32", "%%r = arith.divui %%ch, %%c%d" % chunks)
    sub(r"%cc = arith\.remui %ch, %c32", "%%cc = arith.remui %%ch, %%c%d" % chunks)
    if cols == 64:
        # The epilogue's fp32 tile: rows of 72 floats (288 bytes).
        sub(r"%c264 = arith\.constant 264 : index", "%c72 = arith.constant 72 : index")
        sub(r"%ro = arith\.muli %r, %c264 : index", "%ro = arith.muli %r, %c72 : index")
        sub(r"128x264xf32", "128x72xf32", 4)
        sub(r"\[264, 1\]", "[72, 1]", 3)
        sub(r"bm \* 1056 >= 0", "bm * 288 >= 0")
        # The rows split >= 16 adds to the workspace.
        sub(r"%srow = arith\.muli %tid, %c264", "%srow = arith.muli %tid, %c72")
    sub(r"configs = \[\{[^]]*\}\],",
        "configs = [" + ",\n                   ".join(
            config_text(c) for c in configs) + "],")
    sub(r"defaults = \{[^}]*\},", "defaults = " + config_text(default) + ",")
    if not e4m3 and not any(c["tma"] for c in configs):
        # cp.async loads only (tma = 0): the kernel declares no tensor map.
        text = drop_kernel_tensor_maps(text, "matmul_f16_wgmma")
        note += ("// tma = 0 only: the space declares no tensor map, and the\n"
                 "// comments' tma = 1 does not apply.\n")
    return note + text


def n_tile_128(text):
    """matmul_f16_wgmma_n128's rewrite: 128-column tiles (wgmma n128, 64
    accumulator floats a thread, 16 copy chunks a row, 8 epilogue passes);
    the space lists N128_CONFIGS."""
    return n_tile(text, 128, N128_CONFIGS, SKINNY_DEFAULT, N128_NOTE)


def n_tile_192(text):
    """matmul_f16_wgmma_n192's rewrite: 192-column tiles (wgmma n192, 96
    accumulator floats a thread, three 64-column atoms of B, 24 copy chunks
    a row, 12 epilogue passes); the space lists N192_CONFIGS. 24 chunks a
    row do not divide a block's threads, so a thread's B copies take chunk
    tid + i threads of the tile (row and column, and so the swizzle, per
    copy) instead of one column of every rpp-th row."""
    text = n_tile(text, 192, N192_CONFIGS, N192_DEFAULT, N192_NOTE)
    text, made = re.subn(
        r"%ci = arith\.muli %i, %b_rpp : index\n( *)%r = arith\.addi %ci, "
        r"%b_tr : index\n( *)%col = arith\.muli %b_tc, %c8 : index\n"
        r"((?:.*\n){4})( *)%atom = arith\.divui %b_tc, %c8 : index\n"
        r"( *)%j = arith\.remui %b_tc, %c8 : index\n",
        lambda m: ("%%ci = arith.muli %%i, %%nthreads : index\n"
                   "%s%%cflat = arith.addi %%ci, %%tid : index\n"
                   "%s%%r = arith.divui %%cflat, %%c24 : index\n"
                   "%s%%b_tcf = arith.remui %%cflat, %%c24 : index\n"
                   "%s%%col = arith.muli %%b_tcf, %%c8 : index\n%s"
                   "%s%%atom = arith.divui %%b_tcf, %%c8 : index\n"
                   "%s%%j = arith.remui %%b_tcf, %%c8 : index\n"
                   % (m.group(1), m.group(1), m.group(1), m.group(2),
                      m.group(3), m.group(4), m.group(5))), text)
    if made != 2:
        sys.exit("wgmma_types.py: the B copy loops matched %d times, not 2" % made)
    return text


def n_tile_64(text):
    """matmul_f16_wgmma_n64's rewrite: 64-column tiles (wgmma n64, 32
    accumulator floats a thread, 8 copy chunks a row, 4 epilogue passes,
    72-float epilogue rows); the space lists N64_CONFIGS."""
    return n_tile(text, 64, N64_CONFIGS, SKINNY_DEFAULT, N64_NOTE)


def e4m3_n_tile_64(text):
    """matmul_e4m3_wgmma_n64's rewrite: n_tile's 64-column tiles of
    matmul_e4m3_wgmma (wgmma m64n64k32, 32 accumulator floats a thread, B
    tiles of 64 rows, 4 epilogue passes over 72-float rows, waits to 6
    pending groups); the space lists E4M3_N64_CONFIGS."""
    return n_tile(text, 64, E4M3_N64_CONFIGS, E4M3_SKINNY_DEFAULT,
                  E4M3_N64_NOTE, e4m3=True)


# What the comments of matmul_e4m3_wgmma (64-column tiles) say that
# `promote` changes.
PROMOTE_NOTE = (
    "// Promoted (fp32-exact) accumulation: the e4m3 wgmma keeps about 14\n"
    "// bits of its accumulator over a chain of k32 steps, so each k tile's\n"
    "// sum (bk / 32 wgmma: 4 with bk = 128, 8 with bk = 256) is added, once\n"
    "// its group has completed, to a second set of fp32 registers (%sum, the\n"
    "// loop's second iter_arg, an !acc like the accumulator), and the next\n"
    "// tile's first wgmma ignores the accumulator (scale-d 0), as tile 0's\n"
    "// does: zeros written by moves while a group is pending would make\n"
    "// ptxas serialize every wgmma (C7515). Iteration kt waits for tile\n"
    "// kt - 1's group (wgmma.wait_group 0) and adds it after the refill and\n"
    "// the wait for tile kt's copies, just before tile kt's wgmma: tile\n"
    "// kt - 1's tensor-core work overlaps the copies, not tile kt's wgmma\n"
    "// (one accumulator). The last tile's sum is added after the loop, and\n"
    "// the epilogue stores %sum where the comments below say the\n"
    "// accumulators (a split tile's cluster sums the blocks' promoted\n"
    "// sums).\n")


def promotion(indent, acc, total, out, prefix, floats):
    """MLIR lines that add the `floats` floats of the !acc `acc` to those
    of the !acc `total` (one fp32 add each) into the !acc `out`, naming the
    values between with `prefix`."""
    lines = []
    last = total
    for i in range(floats):
        step = out if i == floats - 1 else "%%%ss%d" % (prefix, i)
        lines += ["%%%sa%d = llvm.extractvalue %s[%d] : !acc" % (prefix, i, acc, i),
                  "%%%st%d = llvm.extractvalue %s[%d] : !acc" % (prefix, i, total, i),
                  "%%%sf%d = arith.addf %%%st%d, %%%sa%d : f32"
                  % (prefix, i, prefix, i, prefix, i),
                  "%s = llvm.insertvalue %%%sf%d, %s[%d] : !acc" % (step, prefix, i, last, i)]
        last = step
    return "".join(indent + line + "\n" for line in lines)


def promote(text):
    """matmul_e4m3_wgmma's text with promoted accumulation (PROMOTE_NOTE):
    the main loop carries the fp32 sum %sum (zeros before it) beside the
    accumulator; iteration kt waits for every wgmma group and adds the
    accumulator (tile kt - 1's sum) to %sum just before tile kt's first
    wgmma, which becomes scale-d 0; after the loop the last tile is added
    and the epilogue stores the sum. For any tile width: the floats a
    thread are read off !acc."""
    def sub(pattern, replacement, count=1):
        nonlocal text
        text, made = re.subn(pattern, replacement, text)
        if made != count:
            sys.exit("wgmma_types.py: %r matched %d times, not %d" % (pattern, made, count))
    acc = re.search(r"^!acc = !llvm\.struct<\(((?:f32, )*f32)\)>$", text, re.M)
    if not acc:
        sys.exit("wgmma_types.py: no !acc struct of f32")
    floats = acc.group(1).count("f32")
    sub(r"( *)(%accf) = (scf\.for %kt = %c1 to %ktiles step %c1) "
        r"iter_args\(%acc = %r7s_0\) -> \(!acc\) \{\n",
        lambda m: ("%s// The promoted sum (fp32), before tile 0's.\n"
                   "%s%%sum0 = llvm.mlir.zero : !acc\n"
                   "%s%%accf, %%sumf = %s iter_args(%%acc = %%r7s_0, %%sum = %%sum0)"
                   " -> (!acc, !acc) {\n" % (m.group(1), m.group(1), m.group(1),
                                              m.group(3))))
    sub(r"( *)(nvvm\.wgmma\.fence\.aligned\n *%r0 = nvvm\.wgmma\.mma_async "
        r"%da0, %db0, %acc, [^\n]*wgmma_scale_out<)one>",
        lambda m: ("%s// Promotion: tile kt - 1's group completes, its sum joins\n"
                   "%s// %%sum, and tile kt's first wgmma ignores the accumulator.\n"
                   "%snvvm.wgmma.wait.group.sync.aligned 0\n"
                   % ((m.group(1),) * 3)
                   + promotion(m.group(1), "%acc", "%sum", "%sumk", "pk", floats)
                   + m.group(1) + m.group(2) + "zero>"))
    sub(r"scf\.yield %r7s : !acc\n( *)\}\n( *)nvvm\.wgmma\.wait\.group\.sync\.aligned 0\n",
        lambda m: ("scf.yield %%r7s, %%sumk : !acc, !acc\n%s}\n"
                   "%snvvm.wgmma.wait.group.sync.aligned 0\n"
                   "%s// The last tile's sum.\n" % (m.group(1), m.group(2), m.group(2))
                   + promotion(m.group(2), "%accf", "%sumf", "%exact", "pe", floats)))
    sub(r"llvm\.insertvalue %accf, %accp0\[0\]", "llvm.insertvalue %exact, %accp0[0]")
    return PROMOTE_NOTE + text


def e4m3_n_tile_64_exact(text):
    """matmul_e4m3_wgmma_n64_exact's rewrite: 64-column tiles, then
    promoted accumulation."""
    return promote(e4m3_n_tile_64(text))


def e4m3_n_tile_64_exact_fp16_output(text):
    """matmul_e4m3_wgmma_n64_exact_f16out's rewrite: 64-column tiles,
    promoted accumulation, an fp16 C."""
    return fp16_output(e4m3_n_tile_64_exact(text))


def bf16_inputs(text):
    """matmul_bf16_wgmma's rewrite."""
    return sixteen_bit_inputs(text, "bf16")


# matmul_e4m3_wgmma_ws: matmul_f16_wgmma_ws (matmul_wgmma_ws.mlir) with
# matmul_e4m3_wgmma's operands. E4M3_WS_HEADER replaces the source's header
# comment; E4M3_WS_EDITS are (text, replacement, count) in order.
E4M3_WS_HEADER = """\
// C = scale_a scale_b A B^T for fp8 e4m3 matrices on Hopper's warpgroup
// tensor cores (wgmma, sm_90a), warp-specialized and persistent: A is
// M x K and B is N x K, both row-major (K-major) bytes in the OCP e4m3
// encoding, C is M x N bf16 (overwritten); the tensor cores' own fp32
// accumulation (the fast path, torch._scaled_mm's use_fast_accum=True);
// scale_a and scale_b are per-tensor scales. The layout and scales of
// matmul_e4m3_wgmma (kernels-mlir/matmul_wgmma_fp8.mlir: 8-bit operands
// are read K-major only) on the fp16 warp-specialized kernel's schedule
// (kernels-mlir/matmul_wgmma_ws.mlir, whose header describes the producer
// and consumer warpgroups, the mbarrier phases, the persistent tile order
// and the epilogue); what differs:
//  - A k tile is 128 bytes of K (bk = 128): A's 128 x 128 and B's 256 x 128
//    bytes, both K-major 128-byte swizzled rows (B's tile is one column
//    block of 256 rows), 48 KiB a stage as with fp16. TMA loads A as two
//    boxes of 128 x 64 (at (k, row0) and (k, row0 + 64)) and B as two of
//    128 x 128 (at (k, col0) and (k, col0 + 128)), which clusters (mc, nc)
//    share as the fp16 kernel shares its A halves and B atoms.
//  - Per k tile four m64n256k32 wgmma; both descriptors are K-major
//    (leading byte offset 16, stride byte offset 1024, swizzle 128 B) and
//    advance 32 bytes a k32 slice.
//  - cp.async (the default): a producer thread copies the 16-byte chunk
//    ptid mod 8 of rows ptid / 8 + 16 i of A's tile (8 copies) and of B's
//    (16 copies).
//  - The epilogue multiplies by scale_a scale_b before the bf16 rounding.
// Shapes: any M, N a multiple of 8 (C's 16-byte rows), K a multiple of 16
// (A's and B's). Needs sm_90a and --max-shared-memory=232448.

"""

def kmajor_copies(operand, first, bound, copies, element="i8", chunk=16):
    """The cp.async copy loop of a K-major operand's tile (`operand` a or
    b), 128-byte rows of 16-byte chunks of `chunk` `element`s (16 e4m3 or
    8 halfs): `copies` chunks a producer thread, chunk ptid mod 8 of rows
    ptid / 8 + 16 i, the tile's rows from `first`, rows at or past `bound`
    zero-filled. With halfs it is the fp16 ws kernel's A loop, which
    E4M3_WS_EDITS replaces."""
    row = 8 * chunk
    return ("""\
                scf.for %i = %c0 to COPIES step %c1 {
                  %ri = arith.muli %i, %c16 : index
                  %r = arith.addi %a_r, %ri : index
                  %gr = arith.addi FIRST, %r : index
                  %row_in = arith.cmpi ult, %gr, BOUND : index
                  %in = arith.andi %row_in, %ak_in : i1
                  %gro = arith.muli %gr, %k : index
                  %gi0 = arith.addi %gro, %gk : index
                  %gi = arith.select %in, %gi0, %c0 : index
                  %nsrc = arith.select %in, %cCHUNK, %c0 : index
                  %so0 = arith.muli %ri, %cROW : index
                  %so1 = arith.addi %sX_base, %so0 : index
                  %si = arith.addi %so1, %a_soff : index
                  %tok = nvgpu.device_async_copy %X[%gi], %sX[%si], CHUNK, %nsrc {bypassL1} : memref<?xELEM> to memref<?xELEM, #gpu.address_space<workgroup>>
                } {tuna.unroll}
""".replace("COPIES", copies).replace("FIRST", first).replace("BOUND", bound)
            .replace("CHUNK", str(chunk)).replace("ROW", str(row))
            .replace("ELEM", element)
            .replace("%sX", "%s" + operand).replace("%X", "%" + operand))


E4M3_WS_EDITS = [
    ("""\
#shapes = affine_set<(m, n, k)[stages, gm, tma, mc, nc, ctas] : (n mod 8 == 0, k mod 8 == 0,""",
     """\
#shapes = affine_set<(m, n, k)[stages, gm, tma, mc, nc, ctas] : (n mod 8 == 0, k mod 16 == 0,""", 1),
    ("""\
    gpu.func @matmul_f16_wgmma_ws(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf16>,
                                  %m: index, %n: index, %k: index) kernel attributes {""",
     """\
    gpu.func @matmul_e4m3_wgmma_ws(%a: memref<?xi8>, %b: memref<?xi8>, %c: memref<?xbf16>,
                                   %m: index, %n: index, %k: index,
                                   %scale_a: f32, %scale_b: f32) kernel attributes {""", 1),
    ("""\
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (64, 64)>,""",
     """\
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (128, 64)>,""", 1),
    ("""\
                       #tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (64, 64)>,
                                        shape = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (k, n)>,""",
     """\
                       #tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (128, 128)>,
                                        shape = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (n, k)>,""", 1),
    ("""\
      // The tile's width and what follows from it: B's stage (halfs,
      // bytes), a stage's transaction bytes (A's 16 KiB and B's), B's
      // 64-column atoms, 16-byte chunks of a row of B and copies of them a
      // producer thread, the epilogue's 8-column groups of a row.
      %bn = arith.constant 256 : index
      %b_stage = arith.constant 16384 : index
      %b_stage_bytes = arith.constant 32768 : index
      %tx = arith.constant 49152 : i32
      %b_atoms = arith.constant 4 : index
      %b_row_chunks = arith.constant 32 : index
      %b_copies = arith.constant 16 : index
      %col_groups = arith.constant 32 : index
""",
     """\
      // The tile's width, k tile, B's stage (bytes), a stage's transaction
      // bytes (A's 16 KiB and B's), B's 128-row boxes, the epilogue's
      // 8-column groups of a row.
      %bn = arith.constant 256 : index
      %bk = arith.constant 128 : index
      %b_stage = arith.constant 32768 : index
      %b_stage_bytes = arith.constant 32768 : index
      %tx = arith.constant 49152 : i32
      %b_atoms = arith.constant 2 : index
      %col_groups = arith.constant 32 : index
""", 1),
    ("""\
      %ktiles = arith.ceildivui %k, %c64 : index""",
     """\
      %ktiles = arith.ceildivui %k, %bk : index""", 1),
    ("""\
      %na = arith.muli %stages, %c8192 : index""",
     """\
      %na = arith.muli %stages, %c16384 : index""", 1),
    ("""\
      %sa = memref.view %smem[%shift][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %na2 = arith.muli %na, %c2 : index
      %sb_off = arith.addi %shift, %na2 : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %saddr_b = arith.addi %saddr, %na2 : index
      %nb2 = arith.muli %nb, %c2 : index
      %ebufs = arith.addi %saddr_b, %nb2 : index""",
     """\
      %sa = memref.view %smem[%shift][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %sb_off = arith.addi %shift, %na : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %saddr_b = arith.addi %saddr, %na : index
      %ebufs = arith.addi %saddr_b, %nb : index""", 1),
    ("""\
        // A thread's cp.async chunks (tma = 0): A's column chunk ptid mod 8
        // of rows ptid / 8 + 16 i (the swizzle, by row mod 8, is the
        // thread's own), B's chunks ptid + 128 i of the tile's.
        %a_j = arith.remui %ptid, %c8 : index
        %a_r = arith.divui %ptid, %c8 : index
        %a_r7 = arith.andi %a_r, %c7 : index
        %a_sj = arith.xori %a_j, %a_r7 : index
        %a_scol = arith.muli %a_sj, %c8 : index
        %a_srow = arith.muli %a_r, %c64 : index
        %a_soff = arith.addi %a_srow, %a_scol : index
        %a_col = arith.muli %a_j, %c8 : index""",
     """\
        // A thread's cp.async chunks (tma = 0): chunk ptid mod 8 of rows
        // ptid / 8 + 16 i of A's tile (8) and of B's (16); the swizzle, by
        // row mod 8, is the thread's own.
        %a_j = arith.remui %ptid, %c8 : index
        %a_r = arith.divui %ptid, %c8 : index
        %a_r7 = arith.andi %a_r, %c7 : index
        %a_sj = arith.xori %a_j, %a_r7 : index
        %a_scol = arith.muli %a_sj, %c16 : index
        %a_srow = arith.muli %a_r, %c128 : index
        %a_soff = arith.addi %a_srow, %a_scol : index
        %a_col = arith.muli %a_j, %c16 : index""", 1),
    ("""\
              %ka = arith.muli %kt, %c64 : index
              %sa_base = arith.muli %s, %c8192 : index
              %sb_base = arith.muli %s, %b_stage : index""",
     """\
              %ka = arith.muli %kt, %bk : index
              %sa_base = arith.muli %s, %c16384 : index
              %sb_base = arith.muli %s, %b_stage : index""", 1),
    ("""\
                %sa_bytes = arith.muli %sa_base, %c2 : index
                %da = arith.addi %saddr, %sa_bytes : index""",
     """\
                %da = arith.addi %saddr, %sa_base : index""", 1),
    ("""\
                %sb_bytes = arith.muli %sb_base, %c2 : index
                %db0 = arith.addi %saddr_b, %sb_bytes : index""",
     """\
                %db0 = arith.addi %saddr_b, %sb_base : index""", 1),
    ("""\
                // tile: block rm loads atoms j = rm mod mc into every block""",
     """\
                // tile: block rm loads boxes j = rm mod mc into every block""", 1),
    ("""\
                    %jo = arith.muli %j, %c8192 : index""",
     """\
                    %jo = arith.muli %j, %c16384 : index""", 1),
    ("""\
                    %nj = arith.muli %j, %c64 : index""",
     """\
                    %nj = arith.muli %j, %c128 : index""", 1),
    ("""\
%map_b, %fp, box[%nx32, %ka32]""",
     """\
%map_b, %fp, box[%ka32, %nx32]""", 2),
    (kmajor_copies("a", "%row0", "%m", "%c8", element="f16", chunk=8) + """\
                scf.for %i = %c0 to %b_copies step %c1 {
                  %ci = arith.muli %i, %c128 : index
                  %chunk = arith.addi %ci, %ptid : index
                  %r = arith.divui %chunk, %b_row_chunks : index
                  %cc = arith.remui %chunk, %b_row_chunks : index
                  %col = arith.muli %cc, %c8 : index
                  %gc = arith.addi %col0, %col : index
                  %col_in = arith.cmpi ult, %gc, %n : index
                  %gkr = arith.addi %ka, %r : index
                  %k_in = arith.cmpi ult, %gkr, %k : index
                  %in = arith.andi %col_in, %k_in : i1
                  %gro = arith.muli %gkr, %n : index
                  %gi0 = arith.addi %gro, %gc : index
                  %gi = arith.select %in, %gi0, %c0 : index
                  %nsrc = arith.select %in, %c8, %c0 : index
                  %atom = arith.divui %cc, %c8 : index
                  %j = arith.remui %cc, %c8 : index
                  %r7 = arith.andi %r, %c7 : index
                  %sj = arith.xori %j, %r7 : index
                  %scol = arith.muli %sj, %c8 : index
                  %ao = arith.muli %atom, %c4096 : index
                  %srow = arith.muli %r, %c64 : index
                  %so1 = arith.addi %sb_base, %ao : index
                  %so2 = arith.addi %so1, %srow : index
                  %si = arith.addi %so2, %scol : index
                  %tok = nvgpu.device_async_copy %b[%gi], %sb[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
                } {tuna.unroll}
""",
     kmajor_copies("a", "%row0", "%m", "%c8") +
     kmajor_copies("b", "%col0", "%n", "%c16"), 1),
    ("""\
        // Descriptor constants (matmul_wgmma.mlir: swizzle 128 B; A: LBO
        // 16, SBO 1024; B: LBO 128 bk = 8192, SBO 1024), this warpgroup's""",
     """\
        // Descriptor constants (both K-major: swizzle 128 B, LBO 16, SBO
        // 1024; a k32 slice is 32 bytes on), this warpgroup's""", 1),
    ("""\
        %hi_b = arith.constant 4611686293338849280 : i64""",
     """\
        %hi_b = arith.constant 4611686293305360384 : i64""", 1),
    ("""\
        %i128 = arith.constant 128 : i64
        %i256 = arith.constant 256 : i64
        %i384 = arith.constant 384 : i64
""",
     """\
""", 1),
    ("""\
%db1_0 = arith.addi %db0_0, %i128 : i64""",
     """\
%db1_0 = arith.addi %db0_0, %i2 : i64""", 1),
    ("""\
%db2_0 = arith.addi %db0_0, %i256 : i64""",
     """\
%db2_0 = arith.addi %db0_0, %i4 : i64""", 1),
    ("""\
%db3_0 = arith.addi %db0_0, %i384 : i64""",
     """\
%db3_0 = arith.addi %db0_0, %i6 : i64""", 1),
    ("""\
%db1 = arith.addi %db0, %i128 : i64""",
     """\
%db1 = arith.addi %db0, %i2 : i64""", 1),
    ("""\
%db2 = arith.addi %db0, %i256 : i64""",
     """\
%db2 = arith.addi %db0, %i4 : i64""", 1),
    ("""\
%db3 = arith.addi %db0, %i384 : i64""",
     """\
%db3 = arith.addi %db0, %i6 : i64""", 1),
    ("""\
#nvvm.shape<m = 64, n = 256, k = 16>""",
     """\
#nvvm.shape<m = 64, n = 256, k = 32>""", 8),
    ("""\
A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>]""",
     """\
A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>]""", 8),
    ("""\
          llvm.store %accf, %accbuf : !acc, !llvm.ptr""",
     """\
          llvm.store %accf, %accbuf : !acc, !llvm.ptr
          %scale = arith.mulf %scale_a, %scale_b : f32
          %scale4 = vector.broadcast %scale : f32 to vector<4xf32>""", 1),
    ("""\
                %h = arith.truncf %v : vector<4xf32> to vector<4xf16>""",
     """\
                %vs = arith.mulf %v, %scale4 : vector<4xf32>
                %h = arith.truncf %vs : vector<4xf32> to vector<4xbf16>""", 1),
    ("""\
              %h = arith.truncf %v : vector<4xf32> to vector<4xf16>""",
     """\
              %vs = arith.mulf %v, %scale4 : vector<4xf32>
              %h = arith.truncf %vs : vector<4xf32> to vector<4xbf16>""", 1),
    ("""\
vector<4xf16>, vector<4xf16>""",
     """\
vector<4xbf16>, vector<4xbf16>""", 4),
    ("""\
vector<2xf16>, !llvm.ptr<3>""",
     """\
vector<2xbf16>, !llvm.ptr<3>""", 2),
    ("""\
memref<?xf16>, vector<2xf16>""",
     """\
memref<?xbf16>, vector<2xbf16>""", 2),
    ("""\
            scf.for %ch = %c0 to %b_atoms step %c1 {""",
     """\
            scf.for %ch = %c0 to %c4 step %c1 {""", 1),
]


def e4m3_ws(text):
    """matmul_e4m3_wgmma_ws's rewrite of matmul_f16_wgmma_ws: its header
    (E4M3_WS_HEADER), then E4M3_WS_EDITS: the signature (e4m3 bytes, a bf16
    C, the scales), K a multiple of 16, the tensor maps (A 128 x 128 and B
    128 x 256 bytes, B as N x K), 128-byte k tiles in byte-sized stages,
    one TMA box for B, the cp.async copies, K-major B descriptors, k32
    wgmma on e4m3, the scaled bf16 epilogue."""
    text = E4M3_WS_HEADER + text[text.index("#shapes = "):]
    return apply_edits(text, E4M3_WS_EDITS)


def apply_edits(text, edits):
    """`text` with each (old, new, count) of `edits` replaced in order,
    `old` found exactly `count` times."""
    for old, new, count in edits:
        if text.count(old) != count:
            sys.exit("wgmma_types.py: %r found %d times, not %d"
                     % (old.split("\n")[0], text.count(old), count))
        text = text.replace(old, new)
    return text


def constant_edit(name, old, new, type_="index"):
    """The edit of `%name = arith.constant OLD : TYPE` to NEW."""
    line = "%{0} = arith.constant {1} : {2}"
    return (line.format(name, old, type_), line.format(name, new, type_), 1)


# The edits from 128 x 256 to 128 x 192 tiles of C that both
# warp-specialized derivations make (matmul_e4m3_wgmma_ws_n192's and
# matmul_f16_wgmma_ws_n192's): 96 accumulator floats; a stage of A's 16 KiB,
# B's 24 KiB and 16 bytes of mbarriers (4 stages at most: 5 would need
# 238,672 bytes); the tile's width, B's stage bytes and a stage's
# transaction bytes; 24 groups of 8 columns in the epilogue.
# (text, replacement, count).
WS_N192_COMMON_EDITS = [
    ("!acc = !llvm.struct<(" + ", ".join(["f32"] * 128) + ")>",
     "!acc = !llvm.struct<(" + ", ".join(["f32"] * 96) + ")>", 1),
    ("-> (stages * 49168 + 33792)>", "-> (stages * 40976 + 33792)>", 1),
    constant_edit("bn", 256, 192),
    constant_edit("b_stage_bytes", 32768, 24576),
    constant_edit("tx", 49152, 40960, "i32"),
    constant_edit("col_groups", 32, 24),
]

# matmul_e4m3_wgmma_ws_n192's edits of matmul_e4m3_wgmma_ws: 128 x 192
# tiles of C, for shapes whose 128 x 256 tiles divide unevenly among the
# SMs (4000 x 4016 x 3984 picks it; docs/kernels.md has where it loses).
E4M3_WS_N192_EDITS = WS_N192_COMMON_EDITS + [
    ("n = 256, k = 32", "n = 192, k = 32", 8),
    # B's TMA boxes: three of 64 rows (one 128-row box would leave half of
    # the second outside the tile), loaded j mod mc == rm as before.
    ("""#tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (128, 128)>""",
     """#tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (128, 64)>""", 1),
    ("      %c128 = arith.constant 128 : index\n",
     "      %c128 = arith.constant 128 : index\n"
     "      %c3 = arith.constant 3 : index\n"
     "      %c12 = arith.constant 12 : index\n", 1),
    constant_edit("b_stage", 32768, 24576),
    constant_edit("b_atoms", 2, 3),
    ("%jo = arith.muli %j, %c16384 : index", "%jo = arith.muli %j, %c8192 : index", 1),
    ("%nj = arith.muli %j, %c128 : index", "%nj = arith.muli %j, %c64 : index", 1),
    # cp.async: B's 192 rows in 12 passes of 16 (the one loop of 16 passes).
    ("scf.for %i = %c0 to %c16 step %c1 {", "scf.for %i = %c0 to %c12 step %c1 {", 1),
    # The epilogue: three 64-column chunks (TMA).
    ("scf.for %ch = %c0 to %c4 step %c1 {", "scf.for %ch = %c0 to %c3 step %c1 {", 1),
]

E4M3_WS_N192_NOTE = (
    "// 128 x 192 tiles (E4M3_WS_N192_EDITS): where the comments below say\n"
    "// 256 columns (m64n256k32, 128 accumulator floats a thread, B's 256\n"
    "// rows in two 128-row TMA boxes or 16 cp.async passes, a 32 KiB B stage\n"
    "// and 48 KiB a stage, four 64-column epilogue chunks, 32 groups of 8\n"
    "// columns), read 192 (m64n192k32, 96 floats, three 64-row boxes or 12\n"
    "// passes, 24 KiB and 40 KiB, three chunks, 24 groups).\n")


def e4m3_ws_n192(text):
    """matmul_e4m3_wgmma_ws_n192's rewrite: e4m3_ws, then
    E4M3_WS_N192_EDITS (128 x 192 tiles)."""
    text = apply_edits(e4m3_ws(text), E4M3_WS_N192_EDITS)
    text = re.sub(r"matmul_e4m3_wgmma_ws\b", "matmul_e4m3_wgmma_ws_n192", text)
    return E4M3_WS_N192_NOTE + text


# matmul_f16_wgmma_ws_n192's edits of matmul_f16_wgmma_ws (and, after
# bf16_inputs, matmul_bf16_wgmma_ws_n192's): 128 x 192 tiles of C, 128
# tiles for 1000 x 3000 where 128 x 256 makes 96 for 132 SMs. B's stage is
# three 64-column atoms (64 x 192 halfs, 24 chunks of 16 bytes a row, 12
# copies a producer thread); the descriptors' strides do not change.
WS_N192_EDITS = WS_N192_COMMON_EDITS + [
    ("n = 256, k = 16", "n = 192, k = 16", 8),
    constant_edit("b_stage", 16384, 12288),
    constant_edit("b_atoms", 4, 3),
    constant_edit("b_row_chunks", 32, 24),
    constant_edit("b_copies", 16, 12),
]

WS_N192_NOTE = (
    "// 128 x 192 tiles (WS_N192_EDITS): where the comments below say 256\n"
    "// columns (m64n256k16, 128 accumulator floats a thread, B's four 64 x 64\n"
    "// atoms, a 32 KiB B stage and 48 KiB a stage, four 64-column epilogue\n"
    "// chunks), read 192 (m64n192k16, 96 floats, three atoms, 24 KiB and 40\n"
    "// KiB, three chunks).\n")


def ws_n192(text):
    """matmul_f16_wgmma_ws_n192's rewrite: WS_N192_EDITS (128 x 192
    tiles)."""
    return WS_N192_NOTE + apply_edits(text, WS_N192_EDITS)


def bf16_ws_n192(text):
    """matmul_bf16_wgmma_ws_n192's rewrite: bf16 element types, then
    128 x 192 tiles."""
    return ws_n192(bf16_inputs(text))


def bf16_n_tile_128(text):
    """matmul_bf16_wgmma_n128's rewrite: bf16 element types, then
    128-column tiles (the two touch different text)."""
    return n_tile_128(bf16_inputs(text))


def bf16_n_tile_64(text):
    """matmul_bf16_wgmma_n64's rewrite: bf16 element types, then 64-column
    tiles."""
    return n_tile_64(bf16_inputs(text))


def bf16_n_tile_192(text):
    """matmul_bf16_wgmma_n192's rewrite: bf16 element types, then 192-column
    tiles."""
    return n_tile_192(bf16_inputs(text))


def fp16_output(text):
    """matmul_e4m3_wgmma's bf16 C (memref<?xbf16>, vector<8xbf16>) -> fp16."""
    return re.sub(r"(?<=x)bf16(?=>)", "f16", text)


def e4m3_n_tile_64_fp16_output(text):
    """matmul_e4m3_wgmma_n64_f16out's rewrite: 64-column tiles, then an
    fp16 C."""
    return fp16_output(e4m3_n_tile_64(text))


# What the comments of matmul_e4m3_wgmma say of its bf16 C, said of fp16.
FP16_OUTPUT_PROSE = [(r"(?<!\.)\bbf16\b", "fp16")]


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
    "matmul_f16_wgmma_n64": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                             n_tile_64, []),
    "matmul_f16_wgmma_n192": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                              n_tile_192, []),
    "matmul_bf16_wgmma_n64": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                              bf16_n_tile_64, BF16_PROSE),
    "matmul_bf16_wgmma_n192": ("matmul_wgmma.mlir", "matmul_f16_wgmma",
                               bf16_n_tile_192, BF16_PROSE),
    "matmul_bf16_wgmma_ws": ("matmul_wgmma_ws.mlir", "matmul_f16_wgmma_ws",
                             bf16_inputs, BF16_PROSE),
    "matmul_f16_wgmma_ws_n192": ("matmul_wgmma_ws.mlir", "matmul_f16_wgmma_ws",
                                 ws_n192, []),
    "matmul_bf16_wgmma_ws_n192": ("matmul_wgmma_ws.mlir", "matmul_f16_wgmma_ws",
                                  bf16_ws_n192, BF16_PROSE),
    "matmul_e4m3_wgmma_ws": ("matmul_wgmma_ws.mlir", "matmul_f16_wgmma_ws",
                             e4m3_ws, []),
    "matmul_e4m3_wgmma_ws_n192": ("matmul_wgmma_ws.mlir", "matmul_f16_wgmma_ws",
                                  e4m3_ws_n192, []),
    "matmul_e4m3_wgmma_f16out": ("matmul_wgmma_fp8.mlir", "matmul_e4m3_wgmma",
                                 fp16_output, FP16_OUTPUT_PROSE),
    "matmul_e4m3_wgmma_n64": ("matmul_wgmma_fp8.mlir", "matmul_e4m3_wgmma",
                              e4m3_n_tile_64, []),
    "matmul_e4m3_wgmma_n64_f16out": ("matmul_wgmma_fp8.mlir",
                                     "matmul_e4m3_wgmma",
                                     e4m3_n_tile_64_fp16_output,
                                     FP16_OUTPUT_PROSE),
    "matmul_e4m3_wgmma_n64_exact": ("matmul_wgmma_fp8.mlir",
                                    "matmul_e4m3_wgmma",
                                    e4m3_n_tile_64_exact, []),
    "matmul_e4m3_wgmma_n64_exact_f16out": ("matmul_wgmma_fp8.mlir",
                                           "matmul_e4m3_wgmma",
                                           e4m3_n_tile_64_exact_fp16_output,
                                           FP16_OUTPUT_PROSE),
}


# Families (`tuna.family`): one module with a matmul's tile widths, whose
# accumulator types differ, and one kernel over all their variants, so that
# one tuning picks the tile width too.
FAMILIES = {
    "matmul_f16_wgmma_tiles": ["matmul_f16_wgmma", "matmul_f16_wgmma_n128",
                               "matmul_f16_wgmma_n64", "matmul_f16_wgmma_n192",
                               "matmul_f16_wgmma_ws", "matmul_f16_wgmma_ws_n192"],
    "matmul_bf16_wgmma_tiles": ["matmul_bf16_wgmma", "matmul_bf16_wgmma_n128",
                                "matmul_bf16_wgmma_n64", "matmul_bf16_wgmma_n192",
                                "matmul_bf16_wgmma_ws", "matmul_bf16_wgmma_ws_n192"],
    "matmul_e4m3_wgmma_tiles": ["matmul_e4m3_wgmma", "matmul_e4m3_wgmma_n64",
                                "matmul_e4m3_wgmma_ws", "matmul_e4m3_wgmma_ws_n192"],
}

# The kernels written by hand, and their files.
SOURCES = {"matmul_f16_wgmma": "matmul_wgmma.mlir",
           "matmul_f16_wgmma_ws": "matmul_wgmma_ws.mlir",
           "matmul_e4m3_wgmma": "matmul_wgmma_fp8.mlir"}


def source_text(kernel):
    """The text of a kernel of kernels-mlir/ or of one this script derives."""
    if kernel in SOURCES:
        return open(os.path.join(HERE, SOURCES[kernel])).read()
    return derive(kernel)


def kernel_parts(kernel):
    """A kernel's top-level alias definitions, the globals of its gpu.module
    and its gpu.func, the aliases renamed after the kernel (each kernel
    defines its own #tiles and !acc; the globals are shared)."""
    text = source_text(kernel)
    aliases = re.findall(r"^([#!][A-Za-z_]\w*) = ", text, re.M)
    for alias in aliases:
        text = re.sub(re.escape(alias) + r"(?![\w$.])",
                      "%s_%s" % (alias, kernel), text)
    lines = text.split("\n")
    definitions = [line for line in lines if re.match(r"[#!]\w+ = ", line)]
    globals_ = [line for line in lines if line.startswith("    llvm.mlir.global ")]
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("    gpu.func @%s(" % kernel))
    end = lines.index("    }", start)
    return definitions, globals_, lines[start:end + 1]


def family(name):
    """One module with the kernels of family `name` and the family."""
    kernels = FAMILIES[name]
    definitions, globals_, funcs = [], [], []
    for kernel in kernels:
        kernel_definitions, kernel_globals, func = kernel_parts(kernel)
        definitions += kernel_definitions
        globals_ += [g for g in kernel_globals if g not in globals_]
        funcs += func
    return "\n".join(
        ["// Generated by kernels-mlir/wgmma_types.py %s. Do not edit; edit"
         % name,
         "// the kernels' sources or the script. The kernels %s" % ", ".join(kernels),
         "// (their comments are in their sources) and the family %s," % name,
         "// whose variants are all of theirs: one tuning picks the tile width.",
         ""] + definitions +
        ["", "module attributes {gpu.container_module} {",
         "  gpu.module @kernels {"] + globals_ + funcs +
        ["  }",
         '  tuna.family @%s kernels [%s]'
         % (name, ", ".join('"%s"' % k for k in kernels)),
         "}", ""])


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
    parser.add_argument("kernel", choices=sorted(KERNELS) + sorted(FAMILIES))
    parser.add_argument("-o", dest="output", help="file to write (default: stdout)")
    args = parser.parse_args()
    write(family(args.kernel) if args.kernel in FAMILIES
          else derive(args.kernel), args.output)


if __name__ == "__main__":
    main()
