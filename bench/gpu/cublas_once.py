#!/usr/bin/env python3
"""cuBLAS on one matmul shape, six plain launches, for a profiler
(bench/gpu/profile_variant.sh runs it under Nsight Compute): the operands
compare.py gives it (uniform inputs; e4m3: A M x K and B N x K, K-major,
torch._scaled_mm with per-tensor scales and use_fast_accum=True, bf16
out).

    python3 bench/gpu/cublas_once.py f16|bf16|e4m3 M N K
"""

import sys

import torch


def main():
    kind = sys.argv[1]
    m, n, k = (int(v) for v in sys.argv[2:5])
    if kind == "e4m3":
        a = (torch.rand((m, k), device="cuda") * 8 - 4).to(torch.float8_e4m3fn)
        b = (torch.rand((n, k), device="cuda") * 8 - 4).to(torch.float8_e4m3fn)
        scale_a = torch.tensor(0.75, device="cuda")
        scale_b = torch.tensor(1.5, device="cuda")

        def run():
            torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b,
                             out_dtype=torch.bfloat16, use_fast_accum=True)
    else:
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[kind]
        a = torch.rand((m, k), device="cuda", dtype=dtype) * 2 - 1
        b = torch.rand((k, n), device="cuda", dtype=dtype) * 2 - 1
        c = torch.empty((m, n), device="cuda", dtype=dtype)

        def run():
            torch.mm(a, b, out=c)
    for _ in range(6):
        run()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
