#!/usr/bin/env python3
"""Writes a kernel of kernels-mlir/ with a wide tuning space (1,000+ configurations).

    python3 kernels-mlir/wide_spaces.py KERNEL [-o OUT.mlir] [--sample N]

KERNEL is one of the wide kernels below. The output is the kernel's source
file with that kernel renamed (`matmul_f16_wgmma` -> `matmul_f16_wgmma_wide`)
and its `params` (and `configs`) replaced by the wide candidates. Its body,
defaults, constraints, key and launch maps are the library kernel's, so the
two cannot drift apart, and the library's kernel keeps its small space (the
benchmark's bundles, and users who compile kernels-mlir/ as it is).

`--sample N` writes the defaults and N configurations of the wide product
instead, as a `configs` list spread over the whole product (configuration
i * stride, with a stride prime to the product's size): a few variants to
compile quickly.
The constraints still apply, so tuna-expand drops the ones that break them.
The spaces are described in docs/kernels.md ("Wide spaces").
"""

import argparse
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# wide kernel -> (source file, library kernel, [(parameter, candidates)]).
# The parameters are in the library kernel's order (its maps' symbols).
WIDE = {
    # 2 x 2 x 4 x 10 x 2 x 2 x 2 x 2 (x 1 x 1) = 2,560; 1,040 after the static
    # constraints (shared memory <= 232,448 bytes, the epilogue's tile fits
    # in the stages, stages + deep >= 3).
    "matmul_f16_wgmma_wide": ("matmul_wgmma.mlir", "matmul_f16_wgmma", [
        ("bm", [64, 128]),
        ("bk", [64, 128]),
        ("stages", [2, 3, 4, 5]),
        ("gm", [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]),
        ("deep", [0, 1]),
        ("mask", [0, 1]),
        ("order", [0, 1]),
        ("l1", [0, 1]),
        # Split-K (a cluster per tile) is for skinny and K-heavy shapes,
        # which the search table does not time: left at 1.
        ("split", [1]),
        # cp.async loads only (the space the landscapes were measured on);
        # with tma = 0 alone the kernel reads no tensor map, and the wide
        # kernel declares none (drop_tensor_maps).
        ("tma", [0]),
    ]),
    # 32 x 16 x 2 x 9 = 9,216; 1,030 after tpr rpb <= 1024 and regs > 0 only
    # with vec = 4.
    "softmax_wide": ("softmax.mlir", "softmax", [
        ("tpr", list(range(32, 1025, 32))),
        ("rpb", list(range(1, 17))),
        ("vec", [1, 4]),
        ("regs", list(range(0, 9))),
    ]),
    # 11 x 10 x 10 = 1,100, no constraints (the loops clamp every tile).
    "matmul_host_wide": ("matmul_host.mlir", "matmul_host", [
        ("tm", [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128]),
        ("tn", [16, 32, 48, 64, 96, 128, 192, 256, 512, 1024]),
        ("tk", [8, 16, 24, 32, 48, 64, 96, 128, 256, 512]),
    ]),
}


def bracketed(text, start):
    """The index just past the bracket that closes the one at text[start]
    (the `>` of an affine map's `->` is no bracket)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "[{<":
            depth += 1
        elif text[i] in "]}>" and text[i - 1:i + 1] != "->":
            depth -= 1
            if depth == 0:
                return i + 1
    sys.exit("wide_spaces.py: unbalanced brackets after offset %d" % start)


def field(space, name):
    """(begin, end) of `name = [...]` in the space text, or None."""
    m = re.search(r"\b%s = \[" % name, space)
    if not m:
        return None
    return m.start(), bracketed(space, m.end() - 1)


def drop_tensor_maps(space):
    """The space text without its `tensor_maps = [...]` field: for a space
    whose configurations all have tma = 0, whose variants read no map. A
    kernel that declares maps cannot be planned without being built
    (tuna-expand plan-only: tuna-compile --variants, tuna_jit's lazy mode)
    and gets a bundle of format version 2 and a hidden signature bit."""
    maps = field(space, "tensor_maps")
    if not maps:
        return space
    after = re.match(r",\s*", space[maps[1]:])
    return space[:maps[0]] + space[maps[1] + after.end():]


def drop_kernel_tensor_maps(text, kernel):
    """drop_tensor_maps on the space of `kernel` in the source `text`, whose
    reads of the maps (`tuna.tensor_map i`, in code that tma = 0 folds
    away) become null pointers: a read of a map the space does not declare
    is an error. `text` must hold no other kernel that reads maps."""
    header = re.search(r"func @%s\(" % re.escape(kernel), text)
    if not header:
        sys.exit("wide_spaces.py: no kernel @%s" % kernel)
    begin = text.index("#tuna.space<", header.end())
    end = bracketed(text, begin + len("#tuna.space"))
    text = text[:begin] + drop_tensor_maps(text[begin:end]) + text[end:]
    return re.sub(r"tuna\.tensor_map \d+ : !llvm\.ptr", "llvm.mlir.zero : !llvm.ptr", text)


def sample(params, count):
    """count configurations spread over the product of the candidates."""
    sizes = [len(values) for _, values in params]
    total = math.prod(sizes)
    if not 0 < count <= total:
        sys.exit("wide_spaces.py: --sample %d: expected 1..%d" % (count, total))
    # A stride near total / golden ratio: consecutive picks differ in
    # every digit.
    stride = next(s for s in range(int(total * 0.618), 2 * total)
                  if math.gcd(s, total) == 1)
    configs = []
    for i in range(count):
        index = i * stride % total
        config = {}
        for (name, values), size in reversed(list(zip(params, sizes))):
            index, digit = divmod(index, size)
            config[name] = values[digit]
        configs.append("{" + ", ".join(
            "%s = %d" % (name, config[name]) for name, _ in params) + "}")
    return configs


def widen(kernel, count):
    source, base, params = WIDE[kernel]
    text = open(os.path.join(HERE, source)).read()
    header = re.search(r"func @%s\(" % re.escape(base), text)
    if not header:
        sys.exit("wide_spaces.py: no kernel @%s in %s" % (base, source))
    begin = text.index("#tuna.space<", header.end())
    end = bracketed(text, begin + len("#tuna.space"))
    space = text[begin:end]

    names = re.findall(r'#tuna\.param<"(\w+)"', space[slice(*field(space, "params"))])
    if names != [name for name, _ in params]:
        sys.exit("wide_spaces.py: @%s's parameters are %s, the wide space's %s" %
                 (base, names, [name for name, _ in params]))
    configs = field(space, "configs")
    if configs:
        # Drop `configs = [...],` and the blank it leaves.
        after = re.match(r",\s*", space[configs[1]:])
        space = space[:configs[0]] + space[configs[1] + after.end():]
    start, stop = field(space, "params")
    indent = "\n" + " " * (start - space.rfind("\n", 0, start) - 1)
    if count:
        # The defaults must be one of the configurations.
        defaults = re.search(r"\bdefaults = (\{[^}]*\})", space).group(1)
        configs = [defaults] + [c for c in sample(params, count) if c != defaults]
        wide = ("params = [%s],%sconfigs = [%s]" % (
            ", ".join('#tuna.param<"%s">' % name for name, _ in params), indent,
            ("," + indent + "           ").join(configs)))
    else:
        wide = "params = [%s]" % ("," + indent + "          ").join(
            '#tuna.param<"%s", [%s]>' % (name, ", ".join(map(str, values)))
            for name, values in params)
    start, stop = field(space, "params")
    space = space[:start] + wide + space[stop:]
    text = text[:begin] + space + text[end:]
    if dict(params).get("tma") == [0]:
        text = drop_kernel_tensor_maps(text, base)
    note = ("// Generated by kernels-mlir/wide_spaces.py %s%s from %s: @%s with\n"
            "// a wide space. Do not edit; edit %s or the script.\n" % (
                kernel, " --sample %d" % count if count else "", source, base, source))
    return note + re.sub(r"@%s\(" % re.escape(base), "@%s(" % kernel, text)


def write(text, output):
    """Writes `text` to the file `output`, or to stdout when it is None."""
    if output:
        with open(output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernel", choices=sorted(WIDE))
    parser.add_argument("-o", dest="output", help="file to write (default: stdout)")
    parser.add_argument("--sample", type=int, default=0,
                        help="N configurations spread over the product")
    args = parser.parse_args()
    write(widen(args.kernel, args.sample), args.output)


if __name__ == "__main__":
    main()
