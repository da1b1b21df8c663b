//===- CudaDriver.h - The CUDA Driver API, loaded at run time --*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen, so one tuna_runtime runs on machines
// with and without NVIDIA's driver. cuda.h is used for types and constants
// only: every entry point is resolved by the exact symbol the header maps its
// name to (cuMemAlloc -> cuMemAlloc_v2, ...), and typed from the header's own
// declaration, so a signature cannot drift from the driver's.
//
// Every call is checked by TUNA_CU(driver, what, call, args...), which turns a
// failure into a tuna::Error naming what was being done (kernel and variant
// when there is one), the call, and the driver's error name and text:
//   "kernel 'scale' variant 'scale_v3': cuModuleLoadDataEx failed:
//    CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed"
//
// Module, Event and DeviceMemory own one driver object each and release it in
// their context when destroyed.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H
#define TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H

#include <cuda.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace tuna::cuda {

/// Every driver entry point Tuna uses. The names go through cuda.h's macros,
/// so the members and the resolved symbols are the versioned ones.
#define TUNA_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuLaunchKernel)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetAddressRange)                                                      \
  X(cuIpcGetMemHandle)                                                         \
  X(cuIpcOpenMemHandle)                                                        \
  X(cuIpcCloseMemHandle)                                                       \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD32Async)                                                          \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)

/// Entry points Tuna uses where the driver has them: null in a driver that
/// lacks them (tensor maps: CUDA 12.0 and later), and then what needs them
/// says so (Backend::tensorMapSupport).
#define TUNA_CUDA_OPTIONAL_DRIVER_FUNCTIONS(X)                                 \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuLaunchKernelEx)

/// The driver's entry points, resolved once per process.
struct Driver {
#define TUNA_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  TUNA_CUDA_DRIVER_FUNCTIONS(TUNA_CUDA_DECLARE)
  TUNA_CUDA_OPTIONAL_DRIVER_FUNCTIONS(TUNA_CUDA_DECLARE)
#undef TUNA_CUDA_DECLARE

  /// The driver of this process, loaded and initialized (cuInit) on first
  /// use. Throws tuna::Error (Unsupported) when libcuda.so.1 is absent, lacks
  /// an entry point, or cuInit fails, saying why. Retried while it fails.
  static const Driver &get();

  /// Throws tuna::Error (Backend) unless `result` is CUDA_SUCCESS:
  /// "<what>: <call> failed: CUDA_ERROR_X (n): <text>".
  void check(CUresult result, const char *call, std::string_view what) const {
    if (result != CUDA_SUCCESS)
      fail(result, call, what);
  }
  [[noreturn]] void fail(CUresult result, const char *call,
                         std::string_view what) const;
  /// The message fail() throws.
  std::string message(CUresult result, const char *call,
                      std::string_view what) const;
};

/// Calls `driver.call(args...)` and checks its result, naming the call.
#define TUNA_CU(driver, what, call, ...)                                       \
  (driver).check((driver).call(__VA_ARGS__), #call, what)

/// Makes `context` current on this thread for the guard's lifetime and then
/// restores what was current before; does nothing if it already is current.
/// Never throws: if the switch fails, the guarded call fails and says so.
class ScopedContext {
public:
  ScopedContext(const Driver &driver, CUcontext context) noexcept;
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  const Driver &driver;
  bool pushed = false;
};

/// Puts this thread in CU_STREAM_CAPTURE_MODE_RELAXED for the guard's
/// lifetime and then restores its mode. A capture that another thread began
/// in global mode forbids allocation, synchronization and module loading in
/// every thread in global mode (the default), and such a call invalidates
/// that capture; work on streams that are not capturing (tuning, scratch
/// memory) runs under this guard instead. Never throws.
class RelaxedCaptureMode {
public:
  explicit RelaxedCaptureMode(const Driver &driver) noexcept;
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  const Driver &driver;
  CUstreamCaptureMode previous = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool exchanged = false;
};

/// Owns one CUmodule, loaded in `context` from a PTX text or a cubin (PTX
/// must be NUL-terminated, as std::string::c_str() is). A PTX the driver
/// cannot compile is an error that carries the JIT's log.
class Module {
public:
  Module(const Driver &driver, CUcontext context, const char *image,
         std::string_view what);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  CUmodule get() const { return module; }

private:
  const Driver &driver;
  CUcontext context;
  CUmodule module = nullptr;
};

/// Owns one CUevent, created in `context` with `flags`.
class Event {
public:
  Event(const Driver &driver, CUcontext context,
        unsigned flags = CU_EVENT_DEFAULT);
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  CUevent get() const { return event; }
  /// Gives up ownership.
  CUevent release() {
    CUevent result = event;
    event = nullptr;
    return result;
  }

private:
  const Driver &driver;
  CUcontext context;
  CUevent event = nullptr;
};

/// Owns `bytes` (at least 1) of device memory, allocated in `context`.
class DeviceMemory {
public:
  DeviceMemory(const Driver &driver, CUcontext context, size_t bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  CUdeviceptr get() const { return ptr; }
  /// Gives up ownership.
  CUdeviceptr release() {
    CUdeviceptr result = ptr;
    ptr = 0;
    return result;
  }

private:
  const Driver &driver;
  CUcontext context;
  CUdeviceptr ptr = 0;
};

} // namespace tuna::cuda

#endif // TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H
