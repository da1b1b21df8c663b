#!/usr/bin/env python3
"""Prints the PTX of the one gpu.object in the MLIR on stdin.

    tuna-opt k.mlir --tuna-lower-nvptx=chip=sm_90a \\
        --gpu-module-to-binary=format=isa | gpu-object-ptx.py > k.ptx

The assembly string is unescaped as MLIR escapes strings (\\XX hex, \\\\), as
scripts/compare-kernels-ptx.py does for the runtime's comparison kernels.
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


objects = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', sys.stdin.read())
if len(objects) != 1:
    sys.exit("gpu-object-ptx.py: expected one gpu.object with an assembly, "
             "found %d" % len(objects))
sys.stdout.buffer.write(unescape(objects[0]))
