"""Runs the Triton twin of the fp16 matmul (bench/gpu/triton_kernels.py) at
M = N = K = 4096 with one fixed configuration, the one its autotuner picks
there on the H100, without autotuning, so that a profiler sees a few plain
launches; writes the kernel's TTGIR, PTX and cubin into the directory given
as the first argument."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_kernels import matmul_kernel  # noqa: E402

out = sys.argv[1]
size = 4096
a = torch.empty(size, size, device="cuda").uniform_(-1, 1).half()
b = torch.empty(size, size, device="cuda").uniform_(-1, 1).half()
c = torch.empty(size, size, device="cuda").half()
grid = (size // 128 * (size // 256),)
for _ in range(5):
    compiled = matmul_kernel.fn[grid](a, b, c, size, size, size, IEEE=False,
                                      BM=128, BN=256, BK=64, GROUP_M=8,
                                      num_warps=8, num_stages=3)
torch.cuda.synchronize()
err = ((c.double() - a.double() @ b.double()).norm() /
       (a.double() @ b.double()).norm()).item()
print("triton matmul 4096^3, BM=128 BN=256 BK=64 warps=8 stages=3: rel err %.2e" % err)
for key in ("ttgir", "ptx"):
    with open(os.path.join(out, "triton_matmul." + key), "w") as f:
        f.write(compiled.asm[key])
with open(os.path.join(out, "triton_matmul.cubin"), "wb") as f:
    f.write(compiled.asm["cubin"])
