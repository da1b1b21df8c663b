"""Tests bench/gpu/tuna_ctypes.py on the host backend, without a GPU: its
enums against tuna.h, and a host bundle of kernels-mlir/axpy.mlir loaded,
tuned, launched on ctypes arrays and checked, as bench/gpu/compare.py does
with CUDA bundles on torch tensors; and compare.py --dry-run.

usage: test_tuna_ctypes.py TUNA_COMPILE LIBTUNA_RUNTIME_SHARED SOURCE_DIR
"""

import ctypes
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tuna_ctypes as tc  # noqa: E402


def enum_names(header, enum):
    body = re.search(r"typedef enum %s \{(.*?)\}" % enum, header, re.S).group(1)
    return [n.split("=")[0].strip() for n in body.split(",") if n.strip()]


def expect_error(status, text, call):
    try:
        call()
    except tc.TunaError as e:
        assert e.status == status, "status %d, want %d: %s" % (e.status, status, e)
        assert text in str(e), "%r does not say %r" % (str(e), text)
        return
    raise AssertionError("no TunaError; want %r" % text)


def main():
    compiler, library, source = sys.argv[1:4]
    header = open(os.path.join(source, "runtime/include/tuna/runtime/tuna.h")).read()
    assert enum_names(header, "TunaType") == [
        "TUNA_" + t.upper() for t in tc.TYPES], enum_names(header, "TunaType")
    assert len(enum_names(header, "TunaStatus")) == len(tc.STATUS)
    assert "#define TUNA_MAX_RANK %d" % tc.MAX_RANK in header

    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "axpy.tuna")
        compiled = subprocess.run(
            [compiler, os.path.join(source, "kernels-mlir/axpy.mlir"),
             "--target=host", "-o", bundle], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stdout + compiled.stderr
        os.environ["TUNA_CACHE_DIR"] = os.path.join(tmp, "cache")
        runtime = tc.Runtime(library)
        expect_error(2, "cannot open bundle file",
                     lambda: runtime.load(os.path.join(tmp, "none.tuna"), "host"))
        module = runtime.load(bundle, "host")
        expect_error(2, "has no kernel 'nope'", lambda: module.kernel("nope"))
        axpy = module.kernel("axpy_host")
        expect_error(2, "has not been launched", axpy.last_choice)

        n, a = 1000, 1.75  # Not a multiple of any chunk.
        x = (ctypes.c_float * n)(*[i * 0.5 - 3 for i in range(n)])
        y0 = [(i % 7) - 2.5 for i in range(n)]
        y = (ctypes.c_float * n)(*y0)
        args = axpy.args(tc.scalar("f32", a),
                         tc.memref(ctypes.addressof(x), n, "f32"),
                         tc.memref(ctypes.addressof(y), n, "f32"),
                         tc.scalar("index", n))
        axpy.launch(args)  # Tunes: a fresh cache.
        for i in range(n):
            want = a * x[i] + y0[i]
            assert abs(y[i] - want) <= 1e-5 * max(1.0, abs(want)), (i, y[i], want)
        name, config = axpy.last_choice()
        assert name.startswith("axpy_host") and config.startswith("chunk="), (
            name, config)
        expect_error(1, "takes 4 arguments, got 3",
                     lambda: axpy.launch(axpy.args(*args[:3])))

        os.environ["TUNA_AUTOTUNE"] = "0"
        fixed_module = runtime.load(bundle, "host")
        del os.environ["TUNA_AUTOTUNE"]
        fixed = fixed_module.kernel("axpy_host")
        fixed.launch(args)
        assert fixed.last_choice()[1] == "chunk=1", fixed.last_choice()
        module.free()
        fixed_module.free()

        # compare.py's plan, without CUDA or torch.
        plan = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(tc.__file__),
                                          "compare.py"),
             "--bundles", tmp, "--lib", library, "--dry-run", "--only", "ax"],
            capture_output=True, text=True)
        assert plan.returncode == 0, plan.stdout + plan.stderr
        assert "C API found" in plan.stdout, plan.stdout
        assert "axpy             n=16777216" in plan.stdout, plan.stdout
        assert "missing" not in plan.stdout and "scale" not in plan.stdout, (
            plan.stdout)
    print("tuna_ctypes on the host backend: ok (tuned pick %s: %s)" % (name, config))


if __name__ == "__main__":
    main()
