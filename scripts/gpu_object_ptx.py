#!/usr/bin/env python3
"""Prints the PTX of the one gpu.object in the MLIR on stdin.

    tuna-opt k.mlir --tuna-lower-nvptx=chip=sm_90a \\
        --gpu-module-to-binary=format=isa | gpu_object_ptx.py > k.ptx

ptx_of() is the same for other scripts (compare-kernels-ptx.py): the
assembly string of the one gpu.object, unescaped as MLIR escapes strings
(\\XX hex, \\\\).
"""

import re
import sys


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] != "\\":
            out += text[i].encode()
            i += 1
        elif text[i + 1] == "\\":
            out += b"\\"
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def ptx_of(printed, who):
    """The PTX of the one gpu.object in `printed` MLIR; exits naming `who`
    when there is not exactly one."""
    objects = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', printed)
    if len(objects) != 1:
        sys.exit("%s: expected one gpu.object with an assembly, found %d"
                 % (who, len(objects)))
    return unescape(objects[0])


if __name__ == "__main__":
    sys.stdout.buffer.write(ptx_of(sys.stdin.read(), "gpu_object_ptx.py"))
