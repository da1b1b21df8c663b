"""The scale kernel (y = s * x) in Triton with @triton.autotune over 15
configurations: Tuna's reference on the GPU machine. Prints `TRITON {json}`
lines for bench/run_gpu.sh: first-call time (compile + tune) per shape and
host time per cached call. Its device time is measured beside Tuna's by
bench/gpu/compare.py (which imports scale() from here)."""

import json
import statistics
import time

import torch
import triton
import triton.language as tl

CONFIGS = [
    triton.Config({"BLOCK": block}, num_warps=warps)
    for block in (256, 512, 1024, 2048, 4096)
    for warps in (1, 4, 8)
]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * s, mask=mask)


def scale(x, y, s, n):
    scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, s, n)


def host_us_per_call(fn, batch=20, batches=400):
    for _ in range(10 * batch):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        samples.append((t1 - t0) / batch * 1e6)
    return statistics.median(samples)


def main():
    s = 1.75
    for n in (1 << 12, 1 << 16, 1 << 20, 1 << 24, 1 << 26):
        x = torch.empty(n, device="cuda").uniform_(-1000, 1000)
        y = torch.full((n,), float("nan"), device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        scale(x, y, s, n)
        torch.cuda.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        wrong = int((y != x * s).sum().item())
        print("TRITON " + json.dumps({
            "n": n, "wrong": wrong, "first_call_ms": round(first_ms, 1),
            "pick": str(scale_kernel.best_config)}), flush=True)
    n = 1 << 12
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    print("TRITON " + json.dumps({
        "dispatch_n": n,
        "launch_us": round(host_us_per_call(lambda: scale(x, y, s, n)), 3)}),
        flush=True)


if __name__ == "__main__":
    main()
