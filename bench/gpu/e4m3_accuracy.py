#!/usr/bin/env python3
"""How exact each e4m3 wgmma variant is against float64, on the GPU.

    python3 bench/gpu/e4m3_accuracy.py LIBTUNA_RUNTIME_SHARED BUNDLE...

Each BUNDLE, named KERNEL.TAG.tuna, is one of the e4m3 kernels with a bf16
C (matmul_e4m3_wgmma, matmul_e4m3_wgmma_n64, matmul_e4m3_wgmma_n64_exact)
compiled with the variant to measure as its default
(bench/gpu/e4m3_accuracy.sh bundles writes them), launched untuned
(TUNA_AUTOTUNE=0) on 64 x 4096 x 4096 with scales 1, on two kinds of
inputs: uniform in [-1, 1], and the bytes 0 to 15 (tiny e4m3 values, what
tuna-tune draws for an i8 buffer). Prints the relative L2 error of C
against float64 for each.
"""

import os
import sys

os.environ["TUNA_AUTOTUNE"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import tuna_ctypes as tc  # noqa: E402

M, N, K = 64, 4096, 4096


def inputs(kind):
    generator = torch.Generator(device="cuda").manual_seed(
        2 if kind == "bytes" else 1)
    if kind == "bytes":
        return [torch.randint(0, 16, shape, device="cuda", generator=generator,
                              dtype=torch.uint8).view(torch.float8_e4m3fn)
                for shape in ((M, K), (N, K))]
    return [(torch.rand(shape, device="cuda", generator=generator) * 2 - 1)
            .to(torch.float8_e4m3fn) for shape in ((M, K), (N, K))]


def main():
    runtime = tc.Runtime(sys.argv[1])
    for bundle in sys.argv[2:]:
        name = os.path.basename(bundle).split(".")[0]
        kernel = runtime.load(bundle, "cuda").kernel(name)
        for kind in ("uniform", "bytes"):
            a, b = inputs(kind)
            c = torch.full((M, N), float("nan"), device="cuda",
                           dtype=torch.bfloat16)
            kernel.launch(kernel.args(
                tc.memref(a.data_ptr(), a.numel(), "i8"),
                tc.memref(b.data_ptr(), b.numel(), "i8"),
                tc.memref(c.data_ptr(), c.numel(), "bf16"),
                *(tc.scalar("index", v) for v in (M, N, K)),
                tc.scalar("f32", 1.0), tc.scalar("f32", 1.0)))
            torch.cuda.synchronize()
            want = a.double() @ b.double().t()
            error = ((c.double() - want).norm() / want.norm()).item()
            print("%s %s: %s relative L2 error %.3g" % (
                os.path.basename(bundle), kernel.last_choice()[1], kind, error))


if __name__ == "__main__":
    main()
