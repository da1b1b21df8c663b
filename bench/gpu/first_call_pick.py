#!/usr/bin/env python3
"""An application's first call of a matmul on one shape, then its steady
rate: the tuned pick and the L2-warm time of the pick alone (25 samples of
20 back-to-back launches between CUDA events, the median; compare.py's
"warm" regime). With TUNA_PRINT_AUTOTUNING=1 the runtime prints every
candidate's tuning time too. Run it in fresh processes to see how stable
the first call's pick is.

    python3 bench/gpu/first_call_pick.py LIBTUNA_RUNTIME_SHARED BUNDLE KERNEL TYPE M N K

TYPE is f16 or bf16 (A is M x K, B is K x N, C is M x N, row-major).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import tuna_ctypes as tc  # noqa: E402

TYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def main():
    library, bundle, kernel_name, type_name = sys.argv[1:5]
    m, n, k = (int(v) for v in sys.argv[5:8])
    kernel = tc.Runtime(library).load(bundle, "cuda").kernel(kernel_name)
    dtype = TYPES[type_name]
    a = (torch.rand(m, k, device="cuda") - 0.5).to(dtype)
    b = (torch.rand(k, n, device="cuda") - 0.5).to(dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    args = kernel.args(*(tc.memref(t.data_ptr(), t.numel(), type_name) for t in (a, b, c)),
                       *(tc.scalar("index", v) for v in (m, n, k)))
    kernel.launch(args)  # Tunes.
    torch.cuda.synchronize()
    print("pick: %s (%s)" % kernel.last_choice(), flush=True)
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(25):
        start.record()
        for _ in range(20):
            kernel.launch(args)
        stop.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(stop) / 20)
    median = sorted(samples)[len(samples) // 2]
    print("steady: %.4f ms, %.1f TFLOP/s" % (median, 2e-9 * m * n * k / median))


if __name__ == "__main__":
    main()
