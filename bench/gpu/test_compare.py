"""Runs bench/gpu/compare.py end to end on the CPU, without a GPU or Triton:
torch's CUDA calls are replaced by host stand-ins (events that read a
clock, a sleep for the spin kernel), the Triton twins by torch code, and
Tuna's kernels by the host variants of kernels-mlir/ (scale, axpy, row_sum,
softmax, layernorm: real bundles through the real C API, tuned on the first
call); the kernels without a host variant (transpose, color_normalize, the
matmuls, mma_peak) by a stand-in that reads the launch's TunaArg array
(pointers, sizes, scalars) and computes with torch. Small shapes. Then once
more with a wrong transpose, which must be reported. Exit 77 (skipped)
without torch.

usage: test_compare.py TUNA_COMPILE LIBTUNA_RUNTIME_SHARED SOURCE_DIR
"""

import contextlib
import ctypes
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import types

try:
    import torch
except ImportError:
    print("no torch for", sys.executable, ": skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import tuna_ctypes as tc  # noqa: E402

HOST_KERNELS = {"scale": "scale", "axpy": "axpy", "row_sum": "reduce",
                "softmax": "softmax", "layernorm": "layernorm"}
SMALL_CASES = [
    ("scale", "scale", dict(n=1000)),
    ("axpy", "axpy", dict(n=1000)),
    ("row_sum", "row_sum", dict(rows=64, cols=100)),
    ("softmax", "softmax", dict(rows=16, cols=300)),
    ("layernorm", "layernorm", dict(rows=16, cols=256)),
    ("transpose", "transpose", dict(rows=30, cols=50)),
    ("color_normalize", "color_normalize", dict(images=2, h=8, w=8)),
    ("matmul_f16_wgmma", "matmul_wgmma", dict(m=64, n=72, k=40)),
    ("matmul_bf16_wgmma", "matmul_wgmma_bf16", dict(m=16, n=72, k=40)),
    ("matmul_bf16_wgmma_n128", "matmul_wgmma_bf16_n128", dict(m=1, n=136, k=48)),
    ("matmul_e4m3_wgmma", "matmul_wgmma_fp8", dict(m=1, n=48, k=64)),
    ("matmul_e4m3_wgmma_f16out", "matmul_wgmma_fp8_f16out", dict(m=16, n=48, k=64)),
    ("matmul_e4m3_wgmma_n64", "matmul_wgmma_fp8_n64", dict(m=1, n=80, k=64)),
    ("matmul_e4m3_wgmma_n64_exact", "matmul_wgmma_fp8_n64_exact", dict(m=16, n=80, k=320)),
    ("matmul_tf32_wgmma", "matmul_wgmma_tf32", dict(m=20, n=36, k=44)),
    ("matmul_f16", "matmul", dict(m=32, n=32, k=32)),
    ("matmul_f32", "matmul", dict(m=48, n=40, k=56)),
    ("mma_peak", "mma_peak", dict(blocks=2, iters=10)),
]
# Debian's torch (1.13) has no float8 type: the e4m3 cases need a newer one.
HAS_FP8 = hasattr(torch, "float8_e4m3fn")
if not HAS_FP8:
    SMALL_CASES = [c for c in SMALL_CASES if "e4m3" not in c[0]]


class Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def fake_cuda():
    cuda = torch.cuda
    cuda.init = lambda: None
    cuda.synchronize = lambda: None
    cuda.get_device_properties = lambda i: types.SimpleNamespace(
        L2_cache_size=1 << 20)
    cuda.get_device_name = lambda i=0: "CPU stand-in"
    cuda.Event = Event
    cuda._sleep = lambda cycles: time.sleep(cycles * 1e-9)
    cuda.current_stream = lambda: types.SimpleNamespace(cuda_stream=None)
    torch.mm = mm
    torch._scaled_mm = scaled_mm


# The use_fast_accum of each torch._scaled_mm call, in order.
SCALED_MM_FAST = []


def scaled_mm(a, b, scale_a, scale_b, out_dtype, use_fast_accum=False):
    """torch._scaled_mm's stand-in (torch's default use_fast_accum)."""
    SCALED_MM_FAST.append(use_fast_accum)
    return ((a.float() @ b.float()) * (scale_a * scale_b)).to(out_dtype)


# The fp32 cuBLAS calls' TF32 setting, one entry a call of the stand-in.
MM_TF32 = []


def mm(a, b, out):
    """cuBLAS's stand-in (torch on the CPU has no fp16 matmul); fp32 inputs
    become TF32 (truncated) when TF32 is allowed."""
    if a.dtype == torch.float32:
        allowed = torch.backends.cuda.matmul.allow_tf32
        MM_TF32.append(allowed)
        if allowed:
            a, b = to_tf32(a, 10), to_tf32(b, 10)
    return out.copy_((a.float() @ b.float()).to(out.dtype))


def to_tf32(x, mantissa):
    """fp32 `x` with only the `mantissa` high bits of its mantissa (10:
    TF32, 7: bf16), the rest dropped."""
    low = (1 << (23 - mantissa)) - 1
    return (x.contiguous().view(torch.int32) & ~low).view(torch.float32)


def color_torch(x, brightness, saturation):
    x = (x * brightness).clamp(0, 1)
    w = torch.tensor([0.299, 0.587, 0.114], dtype=x.dtype)
    gray = (x * w.view(1, 3, 1, 1)).sum(dim=1, keepdim=True)
    x = (gray + saturation * (x - gray)).clamp(0, 1)
    mean = torch.tensor(TWINS.MEAN).view(1, 3, 1, 1)
    std = torch.tensor(TWINS.STD).view(1, 3, 1, 1)
    return (x - mean) / std


# The Triton twins' interface (bench/gpu/triton_kernels.py), in torch.
TWINS = types.ModuleType("triton_kernels")
TWINS.MEAN, TWINS.STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
TWINS.color_torch = color_torch
TWINS.axpy = lambda a, x, y: y.add_(x, alpha=a)
TWINS.row_sum = lambda x, y: torch.sum(x, dim=1, out=y)
TWINS.softmax = lambda x, y: y.copy_(torch.softmax(x, dim=1))
TWINS.layernorm = lambda x, g, b, y, eps: y.copy_(
    torch.nn.functional.layer_norm(x, (x.shape[1],), g, b, eps))
TWINS.transpose = lambda x, y: y.copy_(x.t())
TWINS.color = lambda x, y, bright, sat: y.copy_(color_torch(x, bright, sat))
TWINS.matmul = lambda a, b, c, tf32=False: c.copy_(
    (to_tf32(a, 10) @ to_tf32(b, 10)).to(c.dtype) if tf32 else
    (a.float() @ b.float()).to(c.dtype))
TWINS.matmul_e4m3 = lambda a, b, c, scale, promote=False: c.copy_(
    ((a.float() @ b.float().t()) * scale).to(c.dtype))
SCALE_TWIN = types.ModuleType("triton_scale")
SCALE_TWIN.scale = lambda x, y, s, n: torch.mul(x, s, out=y)
TRITON = types.ModuleType("triton")
TRITON.__version__ = "stand-in"

# i8: the e4m3 matmul's operands (bytes to Tuna).
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "i8": getattr(torch, "float8_e4m3fn", None)}


def tensor(arg):
    """The memref of a TunaArg as a flat torch tensor over its memory."""
    dtype = DTYPES[tc.TYPES[arg.type]]
    count = arg.memref.sizes[0]
    size = count * torch.tensor([], dtype=dtype).element_size()
    buffer = (ctypes.c_byte * size).from_address(arg.memref.aligned)
    return torch.frombuffer(buffer, dtype=dtype)


class StandIn:
    """A kernel with no host variant: computes with torch what it would."""
    wrong_transpose = False
    # The mantissa bits matmul_tf32_wgmma's stand-in keeps of its inputs.
    tf32_mantissa = 10

    def __init__(self, kernel):
        self.kernel = kernel

    def launch(self, args, stream=None):
        assert stream is None
        k = self.kernel
        if k == "transpose":
            x, y = tensor(args[0]), tensor(args[1])
            rows, cols = args[2].intValue, args[3].intValue
            y.view(cols, rows).copy_(x.view(rows, cols).t())
            if StandIn.wrong_transpose:
                y[0] += 1
        elif k == "color_normalize":
            x, y = tensor(args[0]), tensor(args[1])
            images, hw = args[2].intValue, args[3].intValue
            bright, sat = args[4].floatValue, args[5].floatValue
            y.view(images, 3, hw, 1).copy_(
                color_torch(x.view(images, 3, hw, 1), bright, sat))
        elif k.startswith("matmul_e4m3_wgmma"):
            a, b, c = (tensor(args[i]) for i in range(3))
            m, n, kk = (args[i].intValue for i in range(3, 6))
            scale = args[6].floatValue * args[7].floatValue
            c.view(m, n).copy_(((a.view(m, kk).float() @
                                 b.view(n, kk).float().t()) * scale).to(c.dtype))
        elif k == "matmul_tf32_wgmma":
            a, b, c = (tensor(args[i]) for i in range(3))
            m, n, kk = (args[i].intValue for i in range(3, 6))
            keep = StandIn.tf32_mantissa
            c.view(m, n).copy_(to_tf32(a.view(m, kk), keep) @
                               to_tf32(b.view(n, kk), keep).t())
        elif k.startswith("matmul"):
            a, b, c = (tensor(args[i]) for i in range(3))
            m, n, kk = (args[i].intValue for i in range(3, 6))
            # compare.py passes the bf16 kernels bf16 memrefs.
            assert ("bf16" in k) == (c.dtype == torch.bfloat16), (k, c.dtype)
            assert a.dtype == b.dtype == c.dtype, (k, a.dtype, b.dtype, c.dtype)
            c.view(m, n).copy_(
                (a.view(m, kk).float() @ b.view(kk, n).float()).to(c.dtype))
        else:
            assert k == "mma_peak", k
            tensor(args[0]).fill_(1)

    def last_choice(self):
        return "stand-in", "none"


class Pair(compare.TunaPair):
    def __init__(self, runtime, bundle, kernel):
        if kernel in HOST_KERNELS:
            super().__init__(runtime, bundle, kernel)
        else:
            self.modules = []
            self.fixed = StandIn(kernel)
            self.tuned = compare.ByMode({"warm": self.fixed,
                                         "cold": self.fixed})


def check_e4m3(by_kernel, args, out):
    """The e4m3 rows: what needs torch's float8."""
    # The 64-column e4m3 kernel goes the e4m3 way (scales, bf16 C,
    # torch._scaled_mm as cuBLAS, Triton's e4m3 twin), not the fp16 one.
    e4m3_n64 = by_kernel["matmul_e4m3_wgmma_n64"]
    assert set(e4m3_n64["warm"]) == {"tuna", "default", "triton",
                                     "cublas"}, out
    assert e4m3_n64["tolerance"] == 1e-2, e4m3_n64
    assert by_kernel["matmul_e4m3_wgmma_n64_exact"]["tolerance"] == 1e-2, out

    # cuBLAS like the kernel: fast accumulation for the fast e4m3 kernels,
    # promotion (torch's default) for the _exact one; the table's title
    # says so.
    assert True in SCALED_MM_FAST and False in SCALED_MM_FAST, out
    assert "use_fast_accum=True" in out and "use_fast_accum=False" in out, out
    for only, fast in (("matmul_e4m3_wgmma_n64_exact", False),
                       ("matmul_e4m3_wgmma_f16out", True)):
        del SCALED_MM_FAST[:]
        rc, out = run(args + ["--only", only])
        assert rc == 0, out
        assert SCALED_MM_FAST and set(SCALED_MM_FAST) == {fast}, (
            only, SCALED_MM_FAST)


def run(argv):
    """compare.main() with `argv`: (exit status, output)."""
    sys.argv = ["compare.py"] + argv
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = compare.main()
    return rc, out.getvalue()


def main():
    compiler, library, source = sys.argv[1:4]
    fake_cuda()
    sys.modules.update(triton=TRITON, triton_kernels=TWINS,
                       triton_scale=SCALE_TWIN)
    compare.DEVICE = "cpu"
    compare.TUNA_DEVICE = "host"
    compare.TUNA_KERNEL_SUFFIX = "_host"
    compare.SAMPLES, compare.WARM_BATCH = 5, 3
    compare.FLUSH_MIN_BYTES = 4 << 20
    compare.CASES = SMALL_CASES
    compare.TunaPair = Pair
    with tempfile.TemporaryDirectory() as tmp:
        for kernel, bundle, _ in SMALL_CASES:
            path = os.path.join(tmp, bundle + ".tuna")
            if kernel in HOST_KERNELS:
                compiled = subprocess.run(
                    [compiler, os.path.join(source, "kernels-mlir",
                                            HOST_KERNELS[kernel] + ".mlir"),
                     "--target=host", "-o", path], capture_output=True,
                    text=True)
                assert compiled.returncode == 0, compiled.stdout + compiled.stderr
            else:
                open(path, "w").close()  # Present: the case runs.
        os.environ["TUNA_CACHE_DIR"] = os.path.join(tmp, "cache")
        args = ["--bundles", tmp, "--lib", library]

        rc, out = run(args)
        records = [json.loads(line[len("COMPARE "):])
                   for line in out.splitlines() if line.startswith("COMPARE ")]
        assert rc == 0, out
        assert [(r["kernel"], r["shape"]) for r in records] == [
            (k, compare.shape_name(p)) for k, _, p in SMALL_CASES], out
        for r in records:
            assert r["ok"] == 1, r
            for mode in compare.MODES:
                for side, result in r[mode].items():
                    assert result["rate"] > 0 and result["median_us"] > 0, (
                        r["kernel"], mode, side)
        by_kernel = {r["kernel"]: r for r in records}
        assert by_kernel["softmax"]["pick"].startswith("softmax_host"), out
        assert set(by_kernel["axpy"]["warm"]) == {
            "tuna", "default", "triton", "torch", "copy"}, out
        assert set(by_kernel["matmul_f32"]["cold"]) == {
            "tuna", "default", "triton", "cublas"}, out
        assert "tables:" in out and "0 failed or wrong" in out, out

        # bf16's tolerance for both bf16 kernels (fp16's is 2e-3).
        for kernel in ("matmul_bf16_wgmma", "matmul_bf16_wgmma_n128"):
            assert by_kernel[kernel]["tolerance"] == 1e-2, by_kernel[kernel]

        # Tuna's kernels are tuned twice: back to back for the warm rows,
        # cold (TUNA_TUNE_COLD=1) for the cold rows; both picks checked.
        layernorm = by_kernel["layernorm"]
        assert layernorm["cold_pick"].startswith("layernorm_host"), layernorm
        assert "tuna_cold" in layernorm["err"], layernorm
        assert "tuna_cold" in layernorm["first_call_ms"], layernorm
        assert "tuned cold (TUNA_TUNE_COLD=1) for the cold rows" in out, out

        # --after LOG: the cases LOG has no line for, LOG's in the tables.
        log = os.path.join(tmp, "first.log")
        first = [line for line in out.splitlines()
                 if line.startswith("COMPARE ")][:5]
        with open(log, "w") as f:
            f.write("\n".join(first) + "\n")
        rc, rest = run(args + ["--after", log])
        assert rc == 0, rest
        rest_records = [json.loads(line[len("COMPARE "):])
                        for line in rest.splitlines()
                        if line.startswith("COMPARE ")]
        assert [(r["kernel"], r["shape"]) for r in rest_records] == [
            (r["kernel"], r["shape"]) for r in records[5:]], rest
        assert "\nscale " in rest and "\nmatmul_f32 " in rest, rest
        assert "5 cases from %s in the tables, 0 wrong" % log in rest, rest

        if HAS_FP8:
            check_e4m3(by_kernel, args, out)

        tf32 = by_kernel["matmul_tf32_wgmma"]
        assert set(tf32["warm"]) == {"tuna", "default", "triton", "cublas"}, out
        assert tf32["tolerance"] == 2.0 ** -9, tf32
        # cuBLAS's TF32 calls (the tf32 row) and its fp32 ones (matmul_f32)
        # in one run: the row allows TF32 only around its own calls.
        assert True in MM_TF32 and False in MM_TF32, MM_TF32
        assert not torch.backends.cuda.matmul.allow_tf32

        # Inputs cut to bf16's 7 mantissa bits are outside the TF32 contract.
        StandIn.tf32_mantissa = 7
        rc, out = run(args + ["--only", "matmul_tf32"])
        assert rc == 1, out
        assert " NO" in out and "1 failed or wrong" in out, out
        StandIn.tf32_mantissa = 10

        StandIn.wrong_transpose = True
        rc, out = run(args + ["--only", "transpose"])
        assert rc == 1, out
        assert " NO" in out and "1 failed or wrong" in out, out
    print("compare.py on the CPU: ok (%d cases)" % len(records))


if __name__ == "__main__":
    main()
