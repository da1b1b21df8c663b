"""The Triton twins of kernels-mlir/ (the same algorithms, each with
@triton.autotune), and what a PyTorch user would call instead where it is
not one torch call (color_torch). bench/gpu/compare.py checks and times
them beside Tuna's kernels; bench/gpu/triton_matmul_once.py runs the matmul
alone for a profiler."""

import torch
import triton
import triton.language as tl


def configs(**grid):
    """Every combination of the given values; `num_warps` is Triton's own."""
    out = [{}]
    for name, values in grid.items():
        out = [dict(c, **{name: v}) for c in out for v in values]
    return [triton.Config({k: v for k, v in c.items() if k != "num_warps"},
                          num_warps=c["num_warps"]) for c in out]


@triton.autotune(configs=configs(BLOCK=[256, 1024, 4096], num_warps=[1, 4, 8]),
                 key=["n"], restore_value=["y_ptr"])
@triton.jit
def axpy_kernel(a, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def axpy(a, x, y):
    n = x.numel()
    axpy_kernel[lambda m: (triton.cdiv(n, m["BLOCK"]),)](a, x, y, n)


@triton.autotune(
    configs=configs(ROWS=[1], BLOCK=[256, 1024, 4096], num_warps=[4, 8])
    + configs(ROWS=[4, 16], BLOCK=[256], num_warps=[4, 8]),
    key=["rows", "cols"])
@triton.jit
def row_sum_kernel(x_ptr, y_ptr, rows, cols, ROWS: tl.constexpr,
                   BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    acc = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        mask = (r[:, None] < rows) & (c[None, :] < cols)
        acc += tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask,
                       other=0.0)
    tl.store(y_ptr + r, tl.sum(acc, axis=1), mask=r < rows)


def row_sum(x, y):
    rows, cols = x.shape
    row_sum_kernel[lambda m: (triton.cdiv(rows, m["ROWS"]),)](
        x, y, rows, cols)


@triton.autotune(configs=configs(BLOCK=[1024, 2048, 4096],
                                 num_warps=[4, 8, 16]),
                 key=["rows", "cols"])
@triton.jit
def softmax_kernel(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    # Pass 1: online (max, sum of exp) per lane; pass 2: write.
    base = tl.program_id(0).to(tl.int64) * cols
    m = tl.full([BLOCK], -3.0e38, dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + c, mask=c < cols, other=-3.0e38)
        nm = tl.maximum(m, x)
        s = s * tl.exp(m - nm) + tl.exp(x - nm)
        m = nm
    row_max = tl.max(m, axis=0)
    inv = 1.0 / tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + c, mask=c < cols)
        tl.store(y_ptr + base + c, tl.exp(x - row_max) * inv, mask=c < cols)


def softmax(x, y):
    rows, cols = x.shape
    softmax_kernel[(rows,)](x, y, rows, cols)


@triton.autotune(configs=configs(BLOCK=[1024, 2048, 4096],
                                 num_warps=[4, 8, 16]),
                 key=["rows", "cols"])
@triton.jit
def layernorm_kernel(x_ptr, g_ptr, b_ptr, y_ptr, eps, rows, cols,
                     BLOCK: tl.constexpr):
    # Pass 1: sums of d and d * d, d = x - x[r, 0]; pass 2: write.
    base = tl.program_id(0).to(tl.int64) * cols
    shift = tl.load(x_ptr + base)
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        d = tl.where(c < cols, tl.load(x_ptr + base + c, mask=c < cols) - shift,
                     0.0)
        s1 += d
        s2 += d * d
    md = tl.sum(s1, axis=0) / cols
    var = tl.maximum(tl.sum(s2, axis=0) / cols - md * md, 0.0)
    mean = shift + md
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        mask = c < cols
        x = tl.load(x_ptr + base + c, mask=mask)
        g = tl.load(g_ptr + c, mask=mask)
        b = tl.load(b_ptr + c, mask=mask)
        tl.store(y_ptr + base + c, (x - mean) * rstd * g + b, mask=mask)


def layernorm(x, g, b, y, eps):
    rows, cols = x.shape
    layernorm_kernel[(rows,)](x, g, b, y, eps, rows, cols)


@triton.autotune(configs=configs(BM=[32, 64], BN=[32, 64, 128],
                                 num_warps=[4, 8]),
                 key=["rows", "cols"])
@triton.jit
def transpose_kernel(x_ptr, y_ptr, rows, cols, BM: tl.constexpr,
                     BN: tl.constexpr):
    r = tl.program_id(1) * BM + tl.arange(0, BM)
    c = tl.program_id(0) * BN + tl.arange(0, BN)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask)
    tl.store(y_ptr + c[:, None] * rows + r[None, :], tl.trans(tile),
             mask=tl.trans(mask))


def transpose(x, y):
    rows, cols = x.shape
    transpose_kernel[lambda m: (triton.cdiv(cols, m["BN"]),
                                triton.cdiv(rows, m["BM"]))](x, y, rows, cols)


@triton.autotune(configs=configs(BLOCK=[512, 1024, 2048, 4096],
                                 num_warps=[4, 8]),
                 key=["images", "hw"])
@triton.jit
def color_kernel(x_ptr, y_ptr, images, hw, brightness, saturation, mr, mg, mb,
                 sr, sg, sb, BLOCK: tl.constexpr):
    p = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = p < hw
    base = tl.program_id(1).to(tl.int64) * 3 * hw
    r = tl.load(x_ptr + base + p, mask=mask)
    g = tl.load(x_ptr + base + hw + p, mask=mask)
    b = tl.load(x_ptr + base + 2 * hw + p, mask=mask)
    r = tl.minimum(tl.maximum(r * brightness, 0.0), 1.0)
    g = tl.minimum(tl.maximum(g * brightness, 0.0), 1.0)
    b = tl.minimum(tl.maximum(b * brightness, 0.0), 1.0)
    gray = 0.299 * r + 0.587 * g + 0.114 * b
    r = tl.minimum(tl.maximum(gray + saturation * (r - gray), 0.0), 1.0)
    g = tl.minimum(tl.maximum(gray + saturation * (g - gray), 0.0), 1.0)
    b = tl.minimum(tl.maximum(gray + saturation * (b - gray), 0.0), 1.0)
    tl.store(y_ptr + base + p, (r - mr) * sr, mask=mask)
    tl.store(y_ptr + base + hw + p, (g - mg) * sg, mask=mask)
    tl.store(y_ptr + base + 2 * hw + p, (b - mb) * sb, mask=mask)


MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def color(x, y, brightness, saturation):
    images, _, h, w = x.shape
    hw = h * w
    color_kernel[lambda m: (triton.cdiv(hw, m["BLOCK"]), images)](
        x, y, images, hw, brightness, saturation, *MEAN,
        *(1.0 / s for s in STD))


def color_torch(x, brightness, saturation):
    """torchvision's three steps, in PyTorch eager (several kernels)."""
    x = (x * brightness).clamp(0, 1)
    w = torch.tensor([0.299, 0.587, 0.114], device=x.device, dtype=x.dtype)
    gray = (x * w.view(1, 3, 1, 1)).sum(dim=1, keepdim=True)
    x = (gray + saturation * (x - gray)).clamp(0, 1)
    mean = torch.tensor(MEAN, device=x.device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=x.device).view(1, 3, 1, 1)
    return (x - mean) / std


def matmul_configs():
    """The Triton tutorial's CUDA configurations (03-matrix-multiplication),
    with the larger Hopper tiles."""
    out = []
    for bm, bn, bk, stages, warps in (
            (128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
            (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
            (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 64, 4, 8),
            (256, 128, 64, 3, 8), (256, 128, 64, 4, 8), (128, 128, 64, 4, 4),
            (128, 128, 64, 3, 8), (128, 256, 32, 3, 8)):
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8},
                                 num_stages=stages, num_warps=warps))
    return out


@triton.jit
def grouped_tile(M, N, BM: tl.constexpr, BN: tl.constexpr,
                 GROUP_M: tl.constexpr):
    """This program's tile of C (row, column), the blocks grouped GROUP_M
    block rows at a time for L2 reuse, as in the tutorial."""
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = pid // (GROUP_M * grid_n)
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * grid_n)) % size_m
    pid_n = (pid % (GROUP_M * grid_n)) // size_m
    return pid_m, pid_n


@triton.autotune(configs=matmul_configs(), key=["M", "N", "K", "IEEE"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, IEEE: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP_M)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        if IEEE:
            acc = tl.dot(x, y, acc, input_precision="ieee")
        else:
            acc = tl.dot(x, y, acc)
        a += BK
        b += BK * N
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * N + cn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def matmul(a, b, c, tf32=False):
    """c = a b; fp32 inputs are multiplied in IEEE fp32 unless `tf32` (then
    by tl.dot's default, TF32 tensor cores)."""
    M, K = a.shape
    N = b.shape[1]
    matmul_kernel[lambda m: (triton.cdiv(M, m["BM"]) * triton.cdiv(N, m["BN"]),)](
        a, b, c, M, N, K, IEEE=a.dtype == torch.float32 and not tf32)


def matmul_e4m3_configs():
    """Hopper fp8 tiles: 128 or 256 bytes of K a stage row (Triton's fp8
    wgmma reads B K-major, as matmul_e4m3_wgmma does)."""
    out = []
    for bm, bn, bk, stages, warps in (
            (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (128, 128, 128, 4, 8),
            (128, 128, 128, 4, 4), (64, 256, 128, 4, 4), (128, 64, 128, 4, 4),
            (64, 128, 128, 4, 4), (64, 64, 128, 4, 4), (64, 64, 256, 3, 4),
            (128, 128, 256, 3, 8)):
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8},
                                 num_stages=stages, num_warps=warps))
    return out


@triton.autotune(configs=matmul_e4m3_configs(), key=["M", "N", "K", "PROMOTE"])
@triton.jit
def matmul_e4m3_kernel(a_ptr, b_ptr, c_ptr, M, N, K, scale,
                       PROMOTE: tl.constexpr, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr,
                       GROUP_M: tl.constexpr):
    # A is M x K and B is N x K, both e4m3: B's K x N tile is read K-major.
    # tl.dot on e4m3 accumulates in the tensor cores' own precision unless
    # max_num_imprecise_acc bounds the run: PROMOTE adds each k tile's sum
    # to fp32 registers, as the _exact kernels do.
    pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP_M)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rn[None, :] * K + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        if PROMOTE:
            acc = tl.dot(x, y, acc, max_num_imprecise_acc=BK)
        else:
            acc = tl.dot(x, y, acc)
        a += BK
        b += BK
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * N + cn[None, :],
             (acc * scale).to(c_ptr.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def matmul_e4m3(a, b, c, scale, promote=False):
    """c = scale a b^T with a (M x K) and b (N x K) in e4m3 (as
    matmul_e4m3_wgmma and torch._scaled_mm(a, b.t()) take them); `promote`:
    fp32 sums of each k tile (torch._scaled_mm's use_fast_accum=False)."""
    M, K = a.shape
    N = b.shape[0]
    matmul_e4m3_kernel[lambda m: (triton.cdiv(M, m["BM"]) * triton.cdiv(N, m["BN"]),)](
        a, b, c, M, N, K, scale, PROMOTE=promote)
