#!/usr/bin/env python3
"""The tuned pick of an fp16 wgmma matmul and cuBLAS on one shape, three
launches each inside an NVTX range "measured", for Nsight Compute
(bench/gpu/profile_vs_cublas.sh runs it under ncu).

    python3 bench/gpu/profile_pick.py LIBTUNA_RUNTIME_SHARED BUNDLE KERNEL M N K

The first launch tunes (outside the range); torch.mm is cuBLAS.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import tuna_ctypes as tc  # noqa: E402


def main():
    library, bundle, kernel = sys.argv[1:4]
    m, n, k = (int(v) for v in sys.argv[4:7])
    runtime = tc.Runtime(library)
    matmul = runtime.load(bundle, "cuda").kernel(kernel)
    a = torch.rand((m, k), device="cuda", dtype=torch.float16) - 0.5
    b = torch.rand((k, n), device="cuda", dtype=torch.float16) - 0.5
    c = torch.empty((m, n), device="cuda", dtype=torch.float16)
    args = matmul.args(*(tc.memref(t.data_ptr(), t.numel(), "f16")
                         for t in (a, b, c)),
                       *(tc.scalar("index", v) for v in (m, n, k)))
    matmul.launch(args)  # Tunes.
    torch.cuda.synchronize()
    print("pick: %s (%s)" % matmul.last_choice(), flush=True)
    torch.cuda.nvtx.range_push("measured")
    for _ in range(3):
        matmul.launch(args)
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    main()
