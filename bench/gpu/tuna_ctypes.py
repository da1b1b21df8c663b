"""Tuna's C API (runtime/include/tuna/runtime/tuna.h) through ctypes, for
Python benchmarks: load a bundle, launch a kernel on raw pointers (a torch
tensor's data_ptr(), a ctypes array) and a stream handle, and ask which
variant the tuner chose. Imports nothing but the standard library; the
shared library is libtuna_runtime_shared.so of a build (its lib/ folder).

    runtime = Runtime("build/lib/libtuna_runtime_shared.so")
    module = runtime.load("axpy.tuna", "cuda")
    axpy = module.kernel("axpy")
    args = axpy.args(scalar("f32", 1.75), memref(x_ptr, n, "f32"),
                     memref(y_ptr, n, "f32"), scalar("index", n))
    axpy.launch(args, stream)      # The first launch of a shape tunes.
    name, config = axpy.last_choice()
"""

import ctypes

MAX_RANK = 8
ARG_MEMREF, ARG_SCALAR = 0, 1
DEVICES = {"host": 0, "cuda": 1}
# TunaType, in the header's order.
TYPES = ("i1", "i8", "i16", "i32", "i64", "index", "f16", "bf16", "f32",
         "f64")
FLOAT_TYPES = ("f32", "f64")  # Scalars passed in floatValue.
STATUS = ("success", "invalid argument", "not found", "bad bundle",
          "unsupported", "backend error", "internal error")


class TunaMemRef(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64),
                ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK),
                ("rank", ctypes.c_int32)]


class TunaArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("type", ctypes.c_int32),
                ("intValue", ctypes.c_int64), ("floatValue", ctypes.c_double),
                ("memref", TunaMemRef)]


class TunaError(RuntimeError):
    def __init__(self, status, message):
        name = STATUS[status] if 0 <= status < len(STATUS) else str(status)
        super().__init__("%s: %s" % (name, message))
        self.status = status


def memref(pointer, count, type):
    """A contiguous rank-1 memref of `count` elements at address `pointer`."""
    arg = TunaArg()
    arg.kind = ARG_MEMREF
    arg.type = TYPES.index(type)
    arg.memref.allocated = arg.memref.aligned = pointer
    arg.memref.rank = 1
    arg.memref.sizes[0] = count
    arg.memref.strides[0] = 1
    return arg


def scalar(type, value):
    """f32/f64 by value; integers (and f16/bf16 bits) in intValue."""
    arg = TunaArg()
    arg.kind = ARG_SCALAR
    arg.type = TYPES.index(type)
    if type in FLOAT_TYPES:
        arg.floatValue = value
    else:
        arg.intValue = value
    return arg


class Runtime:
    """The shared library, with the C API's signatures declared."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        handle = ctypes.c_void_p
        lib.tunaModuleLoadFile.argtypes = [
            ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
            ctypes.POINTER(handle)]
        lib.tunaModuleFree.argtypes = [handle]
        lib.tunaModuleFree.restype = None
        lib.tunaModuleGetKernel.argtypes = [handle, ctypes.c_char_p,
                                            ctypes.POINTER(handle)]
        lib.tunaKernelLaunch.argtypes = [handle, handle,
                                         ctypes.POINTER(TunaArg),
                                         ctypes.c_size_t]
        lib.tunaKernelLastChoice.argtypes = [
            handle, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
            ctypes.c_size_t]
        lib.tunaLastError.argtypes = []
        lib.tunaLastError.restype = ctypes.c_char_p
        for f in (lib.tunaModuleLoadFile, lib.tunaModuleGetKernel,
                  lib.tunaKernelLaunch, lib.tunaKernelLastChoice):
            f.restype = ctypes.c_int
        self.lib = lib

    def check(self, status):
        if status != 0:
            raise TunaError(status, self.lib.tunaLastError().decode())

    def load(self, path, device, ordinal=0):
        """Loads a bundle; tuning options come from the TUNA_* environment
        variables at this moment."""
        module = ctypes.c_void_p()
        self.check(self.lib.tunaModuleLoadFile(
            path.encode(), DEVICES[device], ordinal, ctypes.byref(module)))
        return Module(self, module)


class Module:
    def __init__(self, runtime, handle):
        self.runtime, self.handle = runtime, handle

    def kernel(self, name):
        kernel = ctypes.c_void_p()
        self.runtime.check(self.runtime.lib.tunaModuleGetKernel(
            self.handle, name.encode(), ctypes.byref(kernel)))
        return Kernel(self, kernel)

    def free(self):
        """Frees the module and its kernels (after their last launch)."""
        if self.handle:
            self.runtime.lib.tunaModuleFree(self.handle)
            self.handle = None


class Kernel:
    def __init__(self, module, handle):
        # Holds the module: kernels live as long as it does.
        self.module, self.handle = module, handle
        self.lib = module.runtime.lib

    @staticmethod
    def args(*values):
        """The arguments as the array that launch() takes: build it once,
        launch it many times."""
        return (TunaArg * len(values))(*values)

    def launch(self, args, stream=None):
        """`stream`: a CUstream handle (an int, e.g. torch's
        current_stream().cuda_stream), None for the host or the default
        stream."""
        status = self.lib.tunaKernelLaunch(self.handle, stream, args,
                                           len(args))
        if status != 0:
            self.module.runtime.check(status)

    def last_choice(self):
        """(variant name, "p=v, ...") of the latest tuning decision."""
        name = ctypes.create_string_buffer(256)
        config = ctypes.create_string_buffer(1024)
        self.module.runtime.check(self.lib.tunaKernelLastChoice(
            self.handle, name, len(name), config, len(config)))
        return name.value.decode(), config.value.decode()
