"""Every side of a comparison timed by one function: Tuna's tuned kernel (and
its default variant) through the C API (bench/gpu/tuna_ctypes.py), the
Triton twin (bench/gpu/triton_kernels.py), PyTorch's call (cuBLAS for the
matmuls) and, for memory-bound kernels, a device-to-device copy of as many
bytes. All run on torch's current stream on the same tensors.

Kernels: scale (Triton twin in bench/gpu/triton_scale.py), the kernel
library and the mma.sync ceiling (bench/gpu/mma_peak.mlir, Tuna alone).

Each side, at each shape:
 - correctness: fresh random inputs, its output poisoned with NaN, one call,
   the relative L2 error against a float64 torch reference (transpose:
   exact). The first call of Tuna's tuned kernel at a shape tunes (the cache
   is fresh in bench/run_gpu.sh); its wall time is the first-call time, and
   tunaKernelLastChoice() the pick. Tuna tunes twice, as an application
   that runs the kernel each way would: back to back for the warm rows,
   and with TUNA_TUNE_COLD=1 (each candidate launch after an L2 eviction)
   for the cold rows, whose pick is checked the same way. Triton's first
   call autotunes (its autotuner times with an L2 flush).
 - device time, in two modes, with the same CUDA events, sample count and
   statistic for every side:
     warm: SAMPLES samples of WARM_BATCH back-to-back calls between two
           events, after one untimed call (L2 keeps what the previous call
           of the same side left);
     cold: SAMPLES single calls, each after a write of a buffer of at
           least twice the L2 size (as triton.testing.do_bench flushes),
           an event pair around the call alone. The L2 is then full of
           dirty lines, whose write-back the measured call pays; --flush
           read reads the buffer instead, which leaves it none of the
           call's data and no dirty lines (docs/benchmarks.md, "What bounds
           row_sum cold").
   The sides take their samples in turn (sample s of every side, then
   sample s + 1), so that the GPU's clocks and temperature, which drift
   while a case runs, meet every side alike.
   Before each sample a spin kernel (torch.cuda._sleep) holds the GPU while
   the host enqueues the sample, so that host launch cost (Triton's is ten
   times Tuna's) is not counted as device time.
   Reported: the median per call, and the spread (10th to 90th percentile,
   relative to the median).

Prints one `COMPARE {json}` line per kernel, shape and mode, then the tables
(after a line "tables:"). Exit status 1 when any side's output is wrong or
a case fails. --dry-run imports nothing CUDA: it lists the plan, checks the
bundles exist and, with --lib, that the library has the C API.

--tables-from LOG... prints the tables of the COMPARE lines of earlier
runs' output (one that a time bound stopped before its tables, or the
kernels.log of each call of a run), with no CUDA and no bundles; with
--markdown, the summary tables of docs/benchmarks.md's "Current results"
instead (the families on the issue-17 shape list, the memory-bound
kernels against the copy).

--case KERNEL:BUNDLE:SHAPE (repeatable) runs these cases instead of the
list below, SHAPE a JSON object of the kernel's shape parameters, e.g.
--case 'layernorm:layernorm:{"rows": 2048, "cols": 16384}'.

usage: compare.py --bundles DIR --lib LIBTUNA_RUNTIME_SHARED [--only PREFIX,...]
                  [--case KERNEL:BUNDLE:SHAPE ...] [--dry-run]
       compare.py --tables-from LOG... [--markdown]
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tuna_ctypes as tc  # noqa: E402

# Imported by main() unless --dry-run.
torch = None
tk = None  # triton_kernels: the twins.

SAMPLES = 25
WARM_BATCH = 20
FLUSH_MIN_BYTES = 128 << 20  # The L2 flush touches max(2 L2, this).
# Where tensors live and Tuna's kernels run (bench/gpu/test_compare.py runs
# the harness on the CPU, with the host kernels "KERNEL_host").
DEVICE = "cuda"
TUNA_DEVICE = "cuda"
TUNA_KERNEL_SUFFIX = ""
MODES = ("warm", "cold")
# The relative L2 error allowed a matmul with TF32 inputs (docs/kernels.md,
# "TF32"): 2^-9, twice the 2^-10 by which dropping the 13 low mantissa bits
# of an operand can change it, about 2.5 times the error expected on this
# harness's inputs (uniform on [-1, 1]); inputs cut to bf16 exceed it.
TF32_TOLERANCE = 2.0 ** -9

SKINNY = [dict(m=m, n=nk, k=nk) for nk in (4096, 8192) for m in (1, 16, 64)]
SKINNY.append(dict(m=256, n=256, k=65536))
SQUARES = [dict(m=s, n=s, k=s) for s in (2048, 4096, 8192)]
RAGGED = [dict(m=4000, n=4008, k=3992), dict(m=1000, n=3000, k=5000)]
# e4m3: cuBLAS's fp8 wants N and K multiples of 16; these rows are as far
# off the 128-byte lines as RAGGED's (row strides 3984 and 5008 bytes).
RAGGED_FP8 = [dict(m=4000, n=4016, k=3984), dict(m=1000, n=3008, k=5008)]

# (kernel, bundle, shape parameters), in the order they run.
CASES = [
    ("scale", "scale", dict(n=1 << 24)),
    ("scale", "scale", dict(n=1 << 26)),
    ("axpy", "axpy", dict(n=1 << 24)),
    ("axpy", "axpy", dict(n=1 << 26)),
    ("row_sum", "row_sum", dict(rows=131072, cols=256)),
    ("row_sum", "row_sum", dict(rows=8192, cols=4096)),
    ("softmax", "softmax", dict(rows=32768, cols=1024)),
    ("softmax", "softmax", dict(rows=4096, cols=8192)),
    ("layernorm", "layernorm", dict(rows=32768, cols=1024)),
    ("layernorm", "layernorm", dict(rows=4096, cols=8192)),
    ("transpose", "transpose", dict(rows=8192, cols=4096)),
    ("transpose", "transpose", dict(rows=4000, cols=6000)),
    ("color_normalize", "color_normalize", dict(images=64, h=512, w=512)),
    ("color_normalize", "color_normalize", dict(images=256, h=224, w=224)),
    # The wgmma matmuls' families (kernels-mlir/wgmma_types.py): one
    # tuning over the 256-, 128- and 64-column kernels' variants (e4m3: 256
    # and 64), so that the tile width is picked too: the rows to read first.
    *[("matmul_%s_wgmma_tiles" % t, bundle, shape)
      for t, bundle, shapes in (
          ("f16", "matmul_wgmma_tiles", SQUARES + RAGGED + SKINNY),
          ("bf16", "matmul_wgmma_bf16_tiles", SQUARES + RAGGED + SKINNY),
          ("e4m3", "matmul_wgmma_fp8_tiles", SQUARES + RAGGED_FP8 + SKINNY))
      for shape in shapes],
    # Warp-specialized and persistent (a TMA producer warpgroup, two
    # consumer warpgroups, one block an SM).
    *[("matmul_f16_wgmma_ws", "matmul_wgmma_ws", shape)
      for shape in SQUARES + RAGGED + SKINNY],
    ("matmul_f16_wgmma", "matmul_wgmma", dict(m=2048, n=2048, k=2048)),
    ("matmul_f16_wgmma", "matmul_wgmma", dict(m=4096, n=4096, k=4096)),
    ("matmul_f16_wgmma", "matmul_wgmma", dict(m=8192, n=8192, k=8192)),
    # No tile divides it: only the masked variants (mask = 1) can run.
    ("matmul_f16_wgmma", "matmul_wgmma", dict(m=4000, n=4008, k=3992)),
    # Skinny (decode) and K-heavy shapes: few 256-column tiles of C.
    *[("matmul_f16_wgmma", "matmul_wgmma", shape) for shape in SKINNY],
    # The same kernel with 128-column tiles (wgmma n128, more stages).
    *[("matmul_f16_wgmma_n128", "matmul_wgmma_n128", shape) for shape in SKINNY],
    # And with 64-column tiles (wgmma n64, up to 8 stages): twice the blocks
    # of C for the decode shapes (64 for N = 4096).
    *[("matmul_f16_wgmma_n64", "matmul_wgmma_n64", shape) for shape in SKINNY],
    ("matmul_bf16_wgmma", "matmul_wgmma_bf16", dict(m=2048, n=2048, k=2048)),
    ("matmul_bf16_wgmma", "matmul_wgmma_bf16", dict(m=4096, n=4096, k=4096)),
    ("matmul_bf16_wgmma", "matmul_wgmma_bf16", dict(m=8192, n=8192, k=8192)),
    ("matmul_bf16_wgmma", "matmul_wgmma_bf16", dict(m=4000, n=4008, k=3992)),
    *[("matmul_bf16_wgmma", "matmul_wgmma_bf16", shape) for shape in SKINNY],
    # The bf16 kernel with 128- and 64-column tiles (matmul_f16_wgmma_n128's
    # and _n64's).
    *[("matmul_bf16_wgmma_n128", "matmul_wgmma_bf16_n128", shape)
      for shape in SKINNY],
    *[("matmul_bf16_wgmma_n64", "matmul_wgmma_bf16_n64", shape)
      for shape in SKINNY],
    # fp8 against torch._scaled_mm; K and N multiples of 16 (cuBLAS's and
    # the kernel's 16-byte rows): RAGGED_FP8 for the ragged rows.
    # The e4m3 layout on the warp-specialized persistent schedule.
    *[("matmul_e4m3_wgmma_ws", "matmul_wgmma_ws_fp8", shape)
      for shape in SQUARES + RAGGED_FP8],
    ("matmul_e4m3_wgmma", "matmul_wgmma_fp8", dict(m=2048, n=2048, k=2048)),
    ("matmul_e4m3_wgmma", "matmul_wgmma_fp8", dict(m=4096, n=4096, k=4096)),
    ("matmul_e4m3_wgmma", "matmul_wgmma_fp8", dict(m=8192, n=8192, k=8192)),
    *[("matmul_e4m3_wgmma", "matmul_wgmma_fp8", shape) for shape in SKINNY],
    # The e4m3 kernel with 64-column tiles (matmul_f16_wgmma_n64's rewrite,
    # up to 8 stages): 64 blocks of C for N = 4096 instead of 16. Its name
    # starts with matmul_e4m3_wgmma: make_case builds it as the e4m3 kernel
    # (bf16 C, scales, torch._scaled_mm as cuBLAS).
    *[("matmul_e4m3_wgmma_n64", "matmul_wgmma_fp8_n64", shape) for shape in SKINNY],
    # The same with an fp16 C (torch._scaled_mm's out_dtype=float16).
    ("matmul_e4m3_wgmma_f16out", "matmul_wgmma_fp8_f16out", dict(m=4096, n=4096, k=4096)),
    ("matmul_e4m3_wgmma_f16out", "matmul_wgmma_fp8_f16out", dict(m=8192, n=8192, k=8192)),
    *[("matmul_e4m3_wgmma_f16out", "matmul_wgmma_fp8_f16out", shape) for shape in SKINNY],
    *[("matmul_e4m3_wgmma_n64_f16out", "matmul_wgmma_fp8_n64_f16out", shape)
      for shape in SKINNY],
    # The 64-column e4m3 kernel with promoted (fp32-exact) accumulation,
    # against cuBLAS's promoting path (use_fast_accum=False); the rows
    # above compare the fast kernels with cuBLAS's fast accumulation.
    *[("matmul_e4m3_wgmma_n64_exact", "matmul_wgmma_fp8_n64_exact", shape)
      for shape in SKINNY],
    *[("matmul_e4m3_wgmma_n64_exact_f16out", "matmul_wgmma_fp8_n64_exact_f16out",
       shape) for shape in SKINNY],
    # TF32 (opt-in fp32) against cuBLAS with TF32 enabled; the fp32 rows
    # below time the same squares at full fp32 precision.
    ("matmul_tf32_wgmma", "matmul_wgmma_tf32", dict(m=2048, n=2048, k=2048)),
    ("matmul_tf32_wgmma", "matmul_wgmma_tf32", dict(m=4096, n=4096, k=4096)),
    ("matmul_tf32_wgmma", "matmul_wgmma_tf32", dict(m=8192, n=8192, k=8192)),
    ("matmul_tf32_wgmma", "matmul_wgmma_tf32", dict(m=4000, n=4008, k=3992)),
    ("matmul_f16", "matmul", dict(m=4096, n=4096, k=4096)),
    ("matmul_f32", "matmul", dict(m=2048, n=2048, k=2048)),
    ("matmul_f32", "matmul", dict(m=4096, n=4096, k=4096)),
    # The mma.sync instruction's ceiling (bench/gpu/mma_peak.mlir): Tuna only.
    ("mma_peak", "mma_peak", dict(blocks=528, iters=65536)),
]


def shape_name(params):
    if "h" in params:
        return "images=%d,hw=%dx%d" % (params["images"], params["h"],
                                       params["w"])
    if "m" in params:
        return "M=%d,N=%d,K=%d" % (params["m"], params["n"], params["k"])
    return ",".join("%s=%d" % kv for kv in params.items())


def selected(kernel, only):
    """`only`: prefixes separated by commas."""
    prefixes = only.split(",")
    return any(kernel.startswith(p) for p in prefixes) or (
        kernel == "mma_peak" and any(p.startswith("matmul") for p in prefixes))


# ---------------------------------------------------------------------------
# Timing: one function for every side.

class Stat:
    def __init__(self, per_call_ms):
        v = sorted(per_call_ms)
        rank = lambda q: v[min(len(v) - 1, int(q * len(v)))]
        mid = len(v) // 2
        self.median = v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
        self.min = v[0]
        self.spread = (rank(0.9) - rank(0.1)) / self.median


class Timer:
    def __init__(self, flush="write"):
        props = torch.cuda.get_device_properties(0)
        self.l2_bytes = getattr(props, "L2_cache_size", 0) or 50 << 20
        self.flush_bytes = max(2 * self.l2_bytes, FLUSH_MIN_BYTES)
        self.flush_mode = flush
        self.flush = torch.zeros(self.flush_bytes // 8, dtype=torch.int64,
                                 device=DEVICE)
        self.sleep = getattr(torch.cuda, "_sleep", None)
        self.cycles_per_ms = 0.0
        if self.sleep is not None:
            start, end = self.events(2)
            self.sleep(1000)
            start.record()
            self.sleep(10_000_000)
            end.record()
            torch.cuda.synchronize()
            self.cycles_per_ms = 10_000_000 / start.elapsed_time(end)

    def evict(self):
        """Empties the L2 of the measured call's data (see the header)."""
        if self.flush_mode == "read":
            self.flush.max()
        else:
            self.flush.zero_()

    @staticmethod
    def events(n):
        return [torch.cuda.Event(enable_timing=True) for _ in range(n)]

    def hold(self, ms):
        """Keeps the GPU busy for about `ms` (nothing when torch has no
        _sleep: host launch time may then count)."""
        if self.cycles_per_ms:
            self.sleep(int(ms * self.cycles_per_ms))

    def measure(self, runs, mode):
        """Times every call of `runs` alike and in turn, one sample of each
        after the other (the first rotating with the sample), so that a
        drift of the GPU's clocks or temperature during the case meets every
        side alike; returns each one's Stat. A warm sample is preceded by
        one untimed call of the same side, which leaves its data (not the
        previous side's) in the L2."""
        host_ms = []
        for run in runs:
            run()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(WARM_BATCH):
                run()
            host_ms.append((time.perf_counter() - t0) * 1e3 / WARM_BATCH)
            torch.cuda.synchronize()
        calls = WARM_BATCH if mode == "warm" else 1
        events = [(self.events(SAMPLES), self.events(SAMPLES)) for _ in runs]
        for s in range(SAMPLES):
            for i in range(len(runs)):
                k = (i + s) % len(runs)
                run, (starts, ends) = runs[k], events[k]
                if mode == "cold":
                    self.evict()
                    self.hold(2 * host_ms[k] + 0.05)
                else:
                    self.hold(2 * (calls + 1) * host_ms[k] + 0.05)
                    run()
                starts[s].record()
                for _ in range(calls):
                    run()
                ends[s].record()
        torch.cuda.synchronize()
        return [Stat([a.elapsed_time(b) / calls for a, b in zip(st, en)])
                for st, en in events]


# ---------------------------------------------------------------------------
# Cases.

class Side:
    def __init__(self, name, run, check, want, work):
        self.name, self.run, self.work = name, run, work
        # check() makes the checked call and returns the output to compare
        # with `want`; None: not checked (the copy, mma_peak).
        self.check, self.want = check, want
        self.err = None
        self.first_ms = None
        self.stats = {}


class Case:
    """One kernel at one shape: its sides, in timing order."""

    def __init__(self, kernel, shape, unit, work, tolerance, tuned, fixed):
        self.kernel, self.shape, self.unit = kernel, shape, unit
        self.work, self.tolerance = work, tolerance
        self.tuned, self.fixed = tuned, fixed
        self.sides = []
        self.tensors = []  # Tuna's arguments hold only their addresses.

    def add(self, name, run, want=None, out=None, reset=None, poison=True,
            work=None):
        """A side: `run` computes into `out` (or returns its result when
        `out` is None); `reset` restores inputs it overwrites."""
        def check():
            if reset is not None:
                reset()
            if out is not None and poison:
                out.fill_(float("nan"))
            got = run()
            return out if out is not None else got
        self.sides.append(Side(name, run, check if want is not None else None,
                               want, self.work if work is None else work))

    def add_tuna(self, values, **check):
        """The tuned kernel and the default variant, on the same arguments:
        tensors (passed as rank-1 memrefs, and kept alive with the case) and
        scalar TunaArgs."""
        self.tensors += [v for v in values if isinstance(v, torch.Tensor)]
        args = tc.Kernel.args(*(mem(v) if isinstance(v, torch.Tensor) else v
                                for v in values))
        stream = torch.cuda.current_stream().cuda_stream
        self.add("tuna", lambda: self.tuned.launch(args, stream), **check)
        self.add("default", lambda: self.fixed.launch(args, stream), **check)

    def add_copy(self):
        """A device-to-device copy that moves as many bytes, half read and
        half written."""
        half = int(self.work / 2) & ~15
        src = torch.empty(half, dtype=torch.uint8, device=DEVICE)
        dst = torch.empty_like(src)
        self.add("copy", lambda: dst.copy_(src), work=2.0 * half)


def uniform(shape, lo, hi, dtype=None):
    x = torch.empty(shape, device=DEVICE).uniform_(lo, hi)
    return x if dtype is None else x.to(dtype)


def nan(shape, dtype=None):
    shape = (shape,) if isinstance(shape, int) else shape
    return torch.full(shape, float("nan"), device=DEVICE,
                      dtype=dtype or torch.float32)


def mem(t):
    types = {torch.float32: "f32", torch.float16: "f16",
             torch.bfloat16: "bf16"}
    # fp8 buffers are bytes to Tuna (the kernel reads them as e4m3); a
    # torch without float8 (Debian's 1.13) has no such buffers.
    fp8 = getattr(torch, "float8_e4m3fn", None)
    if fp8 is not None:
        types[fp8] = "i8"
    return tc.memref(t.data_ptr(), t.numel(), types[t.dtype])


def index(v):
    return tc.scalar("index", v)


def f32(v):
    return tc.scalar("f32", v)


def build_scale(c, n):
    from triton_scale import scale as triton_scale  # Its twin.
    s = 1.75
    x = uniform(n, -1000, 1000)
    y = nan(n)
    check = dict(want=s * x.double(), out=y)
    c.add_tuna([x, y, f32(s), index(n)], **check)
    c.add("triton", lambda: triton_scale(x, y, s, n), **check)
    c.add("torch", lambda: torch.mul(x, s, out=y), **check)


def build_axpy(c, n):
    a = 1.75
    x = uniform(n, -1000, 1000)
    y0 = uniform(n, -1000, 1000)
    y = y0.clone()
    check = dict(want=a * x.double() + y0.double(), out=y,
                 reset=lambda: y.copy_(y0), poison=False)
    c.add_tuna([f32(a), x, y, index(n)], **check)
    c.add("triton", lambda: tk.axpy(a, x, y), **check)
    c.add("torch", lambda: y.add_(x, alpha=a), **check)


def build_row_sum(c, rows, cols):
    x = uniform((rows, cols), -1, 1)
    y = nan(rows)
    check = dict(want=x.double().sum(dim=1), out=y)
    c.add_tuna([x, y, index(rows), index(cols)], **check)
    c.add("triton", lambda: tk.row_sum(x, y), **check)
    ty = nan(rows)
    c.add("torch", lambda: torch.sum(x, dim=1, out=ty), want=check["want"],
          out=ty)


def build_softmax(c, rows, cols):
    x = uniform((rows, cols), -8, 8)
    y = nan((rows, cols))
    check = dict(want=torch.softmax(x.double(), dim=1), out=y)
    c.add_tuna([x, y, index(rows), index(cols)], **check)
    c.add("triton", lambda: tk.softmax(x, y), **check)
    c.add("torch", lambda: torch.softmax(x, dim=1), want=check["want"])


def build_layernorm(c, rows, cols):
    eps = 1e-5
    x = uniform((rows, cols), 2, 6)
    g = uniform(cols, 0.5, 1.5)
    b = uniform(cols, -0.5, 0.5)
    y = nan((rows, cols))
    want = torch.nn.functional.layer_norm(x.double(), (cols,), g.double(),
                                          b.double(), eps)
    c.add_tuna([x, g, b, y, f32(eps), index(rows), index(cols)], want=want,
               out=y)
    c.add("triton", lambda: tk.layernorm(x, g, b, y, eps), want=want, out=y)
    c.add("torch", lambda: torch.nn.functional.layer_norm(x, (cols,), g, b,
                                                          eps), want=want)


def build_transpose(c, rows, cols):
    x = uniform((rows, cols), -1000, 1000)
    y = nan((cols, rows))
    check = dict(want=x.t().double(), out=y)
    c.add_tuna([x, y, index(rows), index(cols)], **check)
    c.add("triton", lambda: tk.transpose(x, y), **check)
    c.add("torch", lambda: y.copy_(x.t()), **check)


def build_color_normalize(c, images, h, w):
    bright, sat = 1.2, 0.7
    x = torch.rand(images, 3, h, w, device=DEVICE)
    y = torch.full_like(x, float("nan"))
    want = tk.color_torch(x.double(), bright, sat)
    inv = [1.0 / s for s in tk.STD]
    c.add_tuna([x, y, index(images), index(h * w), f32(bright), f32(sat),
                *map(f32, tk.MEAN), *map(f32, inv)], want=want, out=y)
    c.add("triton", lambda: tk.color(x, y, bright, sat), want=want, out=y)
    c.add("torch", lambda: tk.color_torch(x, bright, sat), want=want)


def build_matmul(c, m, n, k, dtype):
    a = uniform((m, k), -1, 1, dtype)
    b = uniform((k, n), -1, 1, dtype)
    out = nan((m, n), dtype)
    want = a.double() @ b.double()
    c.add_tuna([a, b, out, index(m), index(n), index(k)], want=want, out=out)
    c.add("triton", lambda: tk.matmul(a, b, out), want=want, out=out)
    cub = nan((m, n), dtype)
    c.add("cublas", lambda: torch.mm(a, b, out=cub), want=want, out=cub)


def build_matmul_e4m3(c, m, n, k, out_dtype=None, fast_accum=True):
    """C = scale_a scale_b A B^T with A (M x K) and B (N x K) in e4m3, C in
    `out_dtype` (bf16 by default); triton: its e4m3 twin (tl.dot on the
    same operands, B read K-major); cublas: torch._scaled_mm on the same
    operands and scales, with `use_fast_accum=fast_accum`: True (the
    tensor cores' own accumulation, as the fast kernels do) or False
    (torch's default: cuBLAS promotes partial sums to fp32, as the _exact
    kernels do)."""
    out_dtype = out_dtype or torch.bfloat16
    sa, sb = 0.75, 1.5
    a = uniform((m, k), -4, 4, torch.float8_e4m3fn)
    b = uniform((n, k), -4, 4, torch.float8_e4m3fn)
    out = nan((m, n), out_dtype)
    want = (a.double() @ b.double().t()) * (sa * sb)
    c.add_tuna([a, b, out, index(m), index(n), index(k), f32(sa), f32(sb)],
               want=want, out=out)
    c.add("triton", lambda: tk.matmul_e4m3(a, b, out, sa * sb,
                                           promote=not fast_accum),
          want=want, out=out)
    scale_a = torch.tensor(sa, device=DEVICE)
    scale_b = torch.tensor(sb, device=DEVICE)
    c.add("cublas", lambda: torch._scaled_mm(a, b.t(), scale_a=scale_a,
                                             scale_b=scale_b,
                                             out_dtype=out_dtype,
                                             use_fast_accum=fast_accum),
          want=want)


def with_tf32(run):
    """`run` with cuBLAS allowed to use TF32 (main() disallows it)."""
    def tf32_run():
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return run()
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
    return tf32_run


def build_matmul_tf32(c, m, n, k):
    """C = A B^T in fp32 with A (M x K) and B (N x K) read as TF32; cublas:
    torch.mm(a, b.t()) with TF32 allowed, triton: tl.dot's TF32 on a K x N
    copy of B (its kernel's layout, made before timing)."""
    a = uniform((m, k), -1, 1)
    b = uniform((n, k), -1, 1)
    out = nan((m, n))
    want = a.double() @ b.double().t()
    c.add_tuna([a, b, out, index(m), index(n), index(k)], want=want, out=out)
    b_kn = b.t().contiguous()
    c.add("triton", lambda: tk.matmul(a, b_kn, out, tf32=True), want=want,
          out=out)
    cub = nan((m, n))
    c.add("cublas", with_tf32(lambda: torch.mm(a, b.t(), out=cub)), want=want,
          out=cub)


def build_mma_peak(c, blocks, iters):
    out = torch.empty(blocks * 512, device=DEVICE)
    c.add_tuna([out, index(iters)])


def make_case(kernel, params, tuned, fixed):
    """(unit, work per call, tolerance) and the sides of `kernel`."""
    p = params
    if kernel.startswith("matmul"):
        flops = 2.0 * p["m"] * p["n"] * p["k"]
        if kernel.startswith("matmul_e4m3_wgmma"):
            # bf16 output: 2^-9 relative rounding of each element (fp16:
            # 2^-11, under the same bound).
            c = Case(kernel, shape_name(p), "TFLOP/s", flops, 1e-2, tuned,
                     fixed)
            build_matmul_e4m3(c, p["m"], p["n"], p["k"],
                              torch.float16 if kernel.endswith("_f16out")
                              else None,
                              fast_accum="_exact" not in kernel)
            return c
        if kernel == "matmul_tf32_wgmma":
            # TF32 inputs (10-bit mantissa): docs/kernels.md ("TF32").
            c = Case(kernel, shape_name(p), "TFLOP/s", flops, TF32_TOLERANCE,
                     tuned, fixed)
            build_matmul_tf32(c, p["m"], p["n"], p["k"])
            return c
        # Every bf16 wgmma kernel (its tile widths) takes bf16 inputs.
        dtype, tolerance = (
            (torch.float32, 1e-4) if kernel == "matmul_f32" else
            (torch.bfloat16, 1e-2) if kernel.startswith("matmul_bf16_wgmma") else
            (torch.float16, 2e-3))
        c = Case(kernel, shape_name(p), "TFLOP/s", flops, tolerance, tuned,
                 fixed)
        build_matmul(c, p["m"], p["n"], p["k"], dtype)
        return c
    if kernel == "mma_peak":
        c = Case(kernel, shape_name(p), "TFLOP/s",
                 float(p["blocks"]) * p["iters"] * 8 * 4096, 0, tuned, fixed)
        build_mma_peak(c, **p)
        return c
    # Memory-bound: each input read once, each output written once.
    bytes_of = {
        "scale": lambda: 8.0 * p["n"],
        "axpy": lambda: 12.0 * p["n"],
        "row_sum": lambda: 4.0 * (p["rows"] * p["cols"] + p["rows"]),
        "softmax": lambda: 8.0 * p["rows"] * p["cols"],
        "layernorm": lambda: 8.0 * p["rows"] * p["cols"] + 8.0 * p["cols"],
        "transpose": lambda: 8.0 * p["rows"] * p["cols"],
        "color_normalize": lambda: 8.0 * p["images"] * 3 * p["h"] * p["w"],
    }
    c = Case(kernel, shape_name(p), "GB/s", bytes_of[kernel](),
             0.0 if kernel == "transpose" else 1e-5, tuned, fixed)
    globals()["build_" + kernel](c, **p)
    c.add_copy()
    return c


def rel_error(got, want):
    if not torch.isfinite(got).all():
        return float("inf")
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm()).item()


class ByMode:
    """The tuned kernel of the current timing mode: warm (tuned back to
    back) or cold (tuned with TUNA_TUNE_COLD=1: each launch after evicting
    the L2), as an application that runs the kernel that way tunes it."""

    def __init__(self, kernels):
        self.kernels, self.mode = kernels, "warm"

    def launch(self, args, stream=None):
        self.kernels[self.mode].launch(args, stream)

    def last_choice(self):
        return self.kernels[self.mode].last_choice()


class TunaPair:
    """The kernel from modules that tune (ByMode: one timing warm, one
    cold) and from one that does not (the default variant: TUNA_AUTOTUNE=0
    while it loads)."""

    def __init__(self, runtime, bundle, kernel):
        self.modules = []

        def load(variable, value):
            saved = os.environ.get(variable)
            os.environ[variable] = value
            try:
                self.modules.append(runtime.load(bundle, TUNA_DEVICE))
            finally:
                if saved is None:
                    del os.environ[variable]
                else:
                    os.environ[variable] = saved
            return self.modules[-1].kernel(kernel + TUNA_KERNEL_SUFFIX)

        self.tuned = ByMode({"warm": load("TUNA_TUNE_COLD", "0"),
                             "cold": load("TUNA_TUNE_COLD", "1")})
        self.fixed = load("TUNA_AUTOTUNE", "0")

    def free(self):
        torch.cuda.synchronize()
        for m in self.modules:
            m.free()


def run_case(runtime, timer, bundles, kernel, bundle, params):
    """Checks and times every side; returns the case's record."""
    pair = TunaPair(runtime, os.path.join(bundles, bundle + ".tuna"), kernel)
    try:
        c = make_case(kernel, params, pair.tuned, pair.fixed)
        cold_first_ms = cold_err = None
        for side in c.sides:
            t0 = time.perf_counter()
            # Tuna's and Triton's first call tunes.
            got = side.run() if side.check is None else side.check()
            torch.cuda.synchronize()
            side.first_ms = (time.perf_counter() - t0) * 1e3
            if side.check is not None:
                side.err = rel_error(got, side.want)
            if side.name == "tuna":
                # The cold rows' Tuna: its first call tunes cold.
                pair.tuned.mode = "cold"
                t0 = time.perf_counter()
                got = side.run() if side.check is None else side.check()
                torch.cuda.synchronize()
                cold_first_ms = (time.perf_counter() - t0) * 1e3
                if side.check is not None:
                    cold_err = rel_error(got, side.want)
                pair.tuned.mode = "warm"
            side.check = side.want = None  # Frees the reference.
        pick = ": ".join(pair.tuned.kernels["warm"].last_choice())
        cold_pick = ": ".join(pair.tuned.kernels["cold"].last_choice())
        default = ": ".join(pair.fixed.last_choice())
        for mode in MODES:
            pair.tuned.mode = mode
            stats = timer.measure([side.run for side in c.sides], mode)
            for side, stat in zip(c.sides, stats):
                side.stats[mode] = stat
        record = dict(kernel=c.kernel, shape=c.shape, unit=c.unit,
                      pick=pick, cold_pick=cold_pick, default=default,
                      tolerance=c.tolerance)
        record["err"] = {s.name: s.err for s in c.sides if s.err is not None}
        if cold_err is not None:
            record["err"]["tuna_cold"] = cold_err
        record["ok"] = int(all(e <= c.tolerance
                               for e in record["err"].values()))
        record["first_call_ms"] = {s.name: round(s.first_ms, 1)
                                   for s in c.sides if s.first_ms is not None}
        record["first_call_ms"]["tuna_cold"] = round(cold_first_ms, 1)
        scale = 1e9 if c.unit == "TFLOP/s" else 1e6
        for mode in MODES:
            record[mode] = {s.name: dict(
                rate=float("%.4g" % (s.work / (s.stats[mode].median * scale))),
                median_us=round(s.stats[mode].median * 1e3, 2),
                min_us=round(s.stats[mode].min * 1e3, 2),
                spread_pct=round(100 * s.stats[mode].spread, 1))
                for s in c.sides}
        return record
    finally:
        pair.free()


# ---------------------------------------------------------------------------
# Output.

def ratio(record, mode, a, b):
    sides = record[mode]
    if a not in sides or b not in sides or not sides[b]["rate"]:
        return "-"
    return "%.2f" % (sides[a]["rate"] / sides[b]["rate"])


def print_tables(records):
    print("tables:")
    print("median of %d samples; warm: %d back-to-back calls between two "
          "events; cold: one call after an L2 flush; spread: the widest "
          "10th-90th percentile range of the row's sides, relative to the "
          "median" % (SAMPLES, WARM_BATCH))
    mm = [r for r in records if r["unit"] == "TFLOP/s"]
    mem_bound = [r for r in records if r["unit"] == "GB/s"]
    if mm:
        print("\nmatmul (TFLOP/s, 2 M N K flops; cublas = torch.mm, for "
              "e4m3 torch._scaled_mm with use_fast_accum=True, for the "
              "_exact e4m3 kernels use_fast_accum=False, for tf32 with "
              "TF32 allowed)")
        print("%-24s %-21s %-4s %7s %7s %7s %7s %7s %7s %6s %3s" % (
            "kernel", "shape", "L2", "tuna", "default", "triton", "cublas",
            "tun/cub", "tun/trt", "spread", "ok"))
        for r in mm:
            for mode in MODES:
                s = r[mode]
                rate = lambda n: "%.1f" % s[n]["rate"] if n in s else "-"
                print("%-24s %-21s %-4s %7s %7s %7s %7s %7s %7s %5.1f%% %3s" % (
                    r["kernel"], r["shape"], mode, rate("tuna"),
                    rate("default"), rate("triton"), rate("cublas"),
                    ratio(r, mode, "tuna", "cublas"),
                    ratio(r, mode, "tuna", "triton"),
                    max(v["spread_pct"] for v in s.values()),
                    "yes" if r["ok"] else "NO"))
    if mem_bound:
        print("\nmemory-bound (GB/s, each input read once, each output "
              "written once; copy: a device-to-device copy of as many bytes)")
        print("%-15s %-22s %-4s %7s %7s %7s %7s %7s %7s %7s %6s %3s" % (
            "kernel", "shape", "L2", "tuna", "default", "triton", "torch",
            "copy", "tun/cpy", "tun/trt", "spread", "ok"))
        for r in mem_bound:
            for mode in MODES:
                s = r[mode]
                print("%-15s %-22s %-4s %7.0f %7.0f %7.0f %7.0f %7.0f %6.1f%% "
                      "%7s %5.1f%% %3s" % (
                          r["kernel"], r["shape"], mode, s["tuna"]["rate"],
                          s["default"]["rate"], s["triton"]["rate"],
                          s["torch"]["rate"], s["copy"]["rate"],
                          100 * s["tuna"]["rate"] / s["copy"]["rate"],
                          ratio(r, mode, "tuna", "triton"),
                          max(v["spread_pct"] for v in s.values()),
                          "yes" if r["ok"] else "NO"))
    print("\npicks, first calls (tuna tunes, triton autotunes) and max "
          "errors; tuned cold (TUNA_TUNE_COLD=1) for the cold rows:")
    for r in records:
        first = r["first_call_ms"]
        print("  %-24s %-21s tuna %-58s first call tuna %7.1f ms, triton %s "
              "ms; max err %s (default: %s)" % (
                  r["kernel"], r["shape"], r["pick"], first.get("tuna", 0),
                  first.get("triton", "-"),
                  "%.1e" % max(r["err"].values()) if r["err"] else "-",
                  r["default"]))
        # Records of runs before cold tuning have no cold pick.
        if "cold_pick" in r:
            print("  %-46s cold %-58s first call tuna %7.1f ms" % (
                "", r["cold_pick"], first.get("tuna_cold", 0)))


FAMILY_TYPES = (("f16", "fp16"), ("bf16", "bf16"), ("e4m3", "e4m3"))


def print_markdown(records):
    """docs/benchmarks.md's summary tables: each family row of the issue-17
    shape list, tuned / cuBLAS and tuned / Triton (warm / cold), and each
    memory-bound row, tuned / copy (warm, cold). A case recorded in several
    logs shows the last log's record."""
    by_case = {(r["kernel"], r["shape"]): r for r in records}

    def pair(kernel, shape, other):
        r = by_case.get((kernel, shape_name(shape)))
        if r is None or ratio(r, "warm", "tuna", other) == "-":
            return None
        return "%s / %s" % (ratio(r, "warm", "tuna", other),
                            ratio(r, "cold", "tuna", other))

    def dims(shape):
        return "%d x %d x %d" % (shape["m"], shape["n"], shape["k"])

    rows = []
    for shape in SQUARES + RAGGED + SKINNY:
        e4m3 = RAGGED_FP8[RAGGED.index(shape)] if shape in RAGGED else shape
        label = dims(shape) + ("" if e4m3 is shape else
                               " (e4m3: %s)" % dims(e4m3))
        cells = {}
        for t, name in FAMILY_TYPES:
            kernel = "matmul_%s_wgmma_tiles" % t
            own = e4m3 if t == "e4m3" else shape
            cells[name] = pair(kernel, own, "cublas")
            cells[name + " / Triton"] = pair(kernel, own, "triton")
        rows.append((label, cells))
    columns = [c for c in [name for _, name in FAMILY_TYPES] +
               [name + " / Triton" for _, name in FAMILY_TYPES]
               if any(cells[c] for _, cells in rows)]
    if columns:
        print("| M x N x K | %s |" % " | ".join(columns))
        print("|" + " --- |" * (len(columns) + 1))
        for label, cells in rows:
            if any(cells[c] for c in columns):
                print("| %s | %s |" % (label, " | ".join(
                    cells[c] or "-" for c in columns)))
    mem_bound = [r for r in records if r["unit"] == "GB/s"]
    if mem_bound:
        if columns:
            print()
        print("| kernel | shape | warm | cold |")
        print("| --- | --- | --- | --- |")
        for r in mem_bound:
            print("| %s | %s | %s |" % (r["kernel"], r["shape"], " | ".join(
                "%.1f%%" % (100 * r[mode]["tuna"]["rate"] /
                            r[mode]["copy"]["rate"]) for mode in MODES)))


def read_records(log):
    """The records of the `COMPARE {json}` lines of `log`."""
    prefix = "COMPARE "
    with open(log) as f:
        return [json.loads(line[len(prefix):]) for line in f
                if line.startswith(prefix)]


def dry_run(args, cases):
    print("dry run: no CUDA; %d samples, warm batch %d, modes %s" % (
        SAMPLES, WARM_BATCH, ", ".join(MODES)))
    if args.lib:
        tc.Runtime(args.lib)
        print("C API found in %s" % args.lib)
    for kernel, bundle, params in cases:
        path = os.path.join(args.bundles, bundle + ".tuna")
        print("  %-16s %-24s %s%s" % (kernel, shape_name(params), path,
                                      "" if os.path.exists(path) else
                                      " (missing: skipped)"))


def parse_case(text):
    """KERNEL:BUNDLE:SHAPE, SHAPE a JSON object of integers."""
    parts = text.split(":", 2)
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(
            "expected KERNEL:BUNDLE:SHAPE, got %r" % text)
    kernel, bundle, shape = parts
    try:
        params = json.loads(shape)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError("SHAPE of %r: %s" % (text, e))
    if not isinstance(params, dict) or not all(
            isinstance(v, int) for v in params.values()):
        raise argparse.ArgumentTypeError(
            "SHAPE of %r must be a JSON object of integers" % text)
    return (kernel, bundle, params)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundles")
    parser.add_argument("--tables-from", metavar="LOG", nargs="+",
                        help="print the tables of the logs' COMPARE lines")
    parser.add_argument("--markdown", action="store_true",
                        help="with --tables-from: docs/benchmarks.md's "
                        "summary tables (the families on the issue-17 "
                        "shape list, the memory-bound kernels) in Markdown")
    parser.add_argument("--after", metavar="LOG",
                        help="run the cases that LOG has no COMPARE line "
                        "for (the rest of a run a time bound stopped); the "
                        "tables show LOG's cases too")
    parser.add_argument("--lib", help="libtuna_runtime_shared.so")
    parser.add_argument("--only", default="",
                        help="only the kernels whose name starts with this "
                        "(or with one of several, separated by commas)")
    parser.add_argument("--case", action="append", default=[],
                        type=parse_case, metavar="KERNEL:BUNDLE:SHAPE",
                        help="run this case (repeatable) instead of the "
                        "built-in list; SHAPE is a JSON object")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--flush", choices=("write", "read"), default="write",
                        help="how a cold sample empties the L2: write "
                        "(default) or read a buffer of twice its size")
    args = parser.parse_args()
    if args.markdown and not args.tables_from:
        parser.error("--markdown needs --tables-from")
    if args.tables_from:
        records = [r for log in args.tables_from for r in read_records(log)]
        if args.markdown:
            print_markdown(records)
            return 0
        print_tables(records)
        print("\n%d cases from %s, %d wrong" % (
            len(records), ", ".join(args.tables_from),
            sum(1 - r["ok"] for r in records)))
        return 0
    if not args.bundles:
        parser.error("--bundles is required")
    earlier = read_records(args.after) if args.after else []
    done = {(r["kernel"], r["shape"]) for r in earlier}
    cases = [c for c in (args.case or CASES) if selected(c[0], args.only)
             and (c[0], shape_name(c[2])) not in done]
    if args.dry_run:
        dry_run(args, cases)
        return 0
    if not args.lib:
        parser.error("--lib is required")

    global torch, tk
    import torch
    import triton
    import triton_kernels as tk
    # fp32 means fp32, for cuBLAS (no TF32) as for Triton (ieee dots).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.init()
    timer = Timer(args.flush)
    runtime = tc.Runtime(args.lib)  # After torch: Tuna uses its context.
    print("device: %s, torch %s, triton %s, L2 %d MiB, flush: %s %d MiB, "
          "spin kernel %s" % (
              torch.cuda.get_device_name(0), torch.__version__,
              triton.__version__, timer.l2_bytes >> 20, timer.flush_mode,
              timer.flush_bytes >> 20,
              "%.0f cycles/ms" % timer.cycles_per_ms
              if timer.cycles_per_ms else "missing (torch.cuda._sleep)"),
          flush=True)
    records, failed = [], 0
    for kernel, bundle, params in cases:
        if not os.path.exists(os.path.join(args.bundles, bundle + ".tuna")):
            print("no %s.tuna in %s: %s skipped" % (bundle, args.bundles,
                                                     kernel), flush=True)
            continue
        try:
            record = run_case(runtime, timer, args.bundles, kernel, bundle,
                              params)
        except Exception as e:  # One broken case must not hide the others.
            print("%s %s: FAILED: %s: %s" % (kernel, shape_name(params),
                                             type(e).__name__, e), flush=True)
            failed += 1
            continue
        print("COMPARE " + json.dumps(record), flush=True)
        records.append(record)
        failed += 1 - record["ok"]
        torch.cuda.empty_cache()
    print_tables(earlier + records)
    print("\n%d cases, %d failed or wrong" % (len(records), failed))
    if earlier:
        print("%d cases from %s in the tables, %d wrong" % (
            len(earlier), args.after, sum(1 - r["ok"] for r in earlier)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
