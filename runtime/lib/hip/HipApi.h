//===- HipApi.h - The HIP runtime API, loaded at run time ------*- C++ -*-===//
//
// libamdhip64.so is opened with dlopen, so one tuna_runtime runs on machines
// with and without ROCm, and builds without ROCm's headers: the few types and
// constants Tuna uses are declared here, with the values of ROCm 5.2 and 6.x
// (identical in both; checked against both headers, docs/toolchain-notes.md).
//
// Every call is checked by TUNA_HIP(api, what, call, args...), which turns a
// failure into a tuna::Error naming what was being done (kernel and variant
// when there is one), the call, and HIP's error name and text:
//   "kernel 'scale' variant 'scale_v3': hipModuleLoadData failed:
//    hipErrorInvalidImage (200): invalid kernel image"
//
// The library is $TUNA_HIP_LIBRARY when set (the tests point it at a fake),
// else the first of libamdhip64.so.6, libamdhip64.so.5 and libamdhip64.so
// that loads.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_HIP_HIPAPI_H
#define TUNA_RUNTIME_LIB_HIP_HIPAPI_H

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>

namespace tuna::hip {

// HIP's types: enums are int-sized, handles are opaque pointers.
using hipError_t = int;
using hipDevice_t = int;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipDeviceAttribute_t = int;
using hipFunction_attribute = int;
using hipStreamCaptureStatus = int;
using hipStreamCaptureMode = int;
using hipMemcpyKind = int;

/// hip_runtime_api.h's hipStreamPerThread: the calling thread's default
/// stream, another one in each thread.
inline const hipStream_t hipStreamPerThread =
    reinterpret_cast<hipStream_t>(uintptr_t(2));

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorStreamCaptureImplicit = 906;

constexpr hipDeviceAttribute_t hipDeviceAttributeL2CacheSize = 19;
constexpr hipDeviceAttribute_t hipDeviceAttributeComputeCapabilityMajor = 23;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxBlockDimX = 26;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxGridDimX = 29;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxThreadsPerBlock = 56;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxThreadsPerMultiProcessor =
    57;
constexpr hipDeviceAttribute_t hipDeviceAttributeMultiprocessorCount = 63;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxSharedMemoryPerBlock = 74;
constexpr hipDeviceAttribute_t hipDeviceAttributeWarpSize = 87;
/// LDS per CU (AMD-specific; the CUDA-compatible "SharedMemPerMultiprocessor"
/// is CUDA-only in HIP).
constexpr hipDeviceAttribute_t
    hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002;

constexpr hipFunction_attribute HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr hipFunction_attribute HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr hipFunction_attribute HIP_FUNC_ATTRIBUTE_NUM_REGS = 4;

constexpr hipStreamCaptureStatus hipStreamCaptureStatusNone = 0;
constexpr hipStreamCaptureMode hipStreamCaptureModeRelaxed = 2;

constexpr hipMemcpyKind hipMemcpyHostToDevice = 1;
constexpr hipMemcpyKind hipMemcpyDeviceToHost = 2;
constexpr hipMemcpyKind hipMemcpyDeviceToDevice = 3;

/// Where gcnArchName ("gfx942:sramecc+:xnack-") lies in the device
/// properties each ROCm fills in: hipDeviceProp_tR0600 (ROCm 6 and newer,
/// through hipGetDevicePropertiesR0600) and ROCm 5's hipDeviceProp_t
/// (through hipGetDeviceProperties). The structs are not declared here: the
/// call writes into a buffer larger than either, and the name is read at
/// its offset.
constexpr size_t kGcnArchNameOffsetR0600 = 1160;
constexpr size_t kGcnArchNameOffsetR0000 = 396;
constexpr size_t kGcnArchNameSize = 256;
/// Larger than every hipDeviceProp_t so far (1472 bytes in ROCm 6).
constexpr size_t kDevicePropBufferSize = 16384;

/// Every entry point Tuna uses, with its signature.
#define TUNA_HIP_FUNCTIONS(X)                                                  \
  X(hipGetErrorName, const char *, hipError_t)                                 \
  X(hipGetErrorString, const char *, hipError_t)                               \
  X(hipInit, hipError_t, unsigned)                                             \
  X(hipDriverGetVersion, hipError_t, int *)                                    \
  X(hipRuntimeGetVersion, hipError_t, int *)                                   \
  X(hipGetDeviceCount, hipError_t, int *)                                      \
  X(hipDeviceGet, hipError_t, hipDevice_t *, int)                              \
  X(hipDeviceGetName, hipError_t, char *, int, hipDevice_t)                    \
  X(hipDeviceGetAttribute, hipError_t, int *, hipDeviceAttribute_t, int)       \
  X(hipGetDevice, hipError_t, int *)                                           \
  X(hipSetDevice, hipError_t, int)                                             \
  X(hipModuleLoadData, hipError_t, hipModule_t *, const void *)                \
  X(hipModuleUnload, hipError_t, hipModule_t)                                  \
  X(hipModuleGetFunction, hipError_t, hipFunction_t *, hipModule_t,            \
    const char *)                                                              \
  X(hipFuncGetAttribute, hipError_t, int *, hipFunction_attribute,             \
    hipFunction_t)                                                             \
  X(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor, hipError_t, int *,    \
    hipFunction_t, int, size_t)                                                \
  X(hipModuleLaunchKernel, hipError_t, hipFunction_t, unsigned, unsigned,      \
    unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t, void **,    \
    void **)                                                                   \
  X(hipStreamSynchronize, hipError_t, hipStream_t)                             \
  X(hipStreamIsCapturing, hipError_t, hipStream_t, hipStreamCaptureStatus *)   \
  X(hipStreamWaitEvent, hipError_t, hipStream_t, hipEvent_t, unsigned)         \
  X(hipThreadExchangeStreamCaptureMode, hipError_t, hipStreamCaptureMode *)    \
  X(hipMalloc, hipError_t, void **, size_t)                                    \
  X(hipFree, hipError_t, void *)                                               \
  X(hipMemsetAsync, hipError_t, void *, int, size_t, hipStream_t)              \
  X(hipMemcpyAsync, hipError_t, void *, const void *, size_t, hipMemcpyKind,   \
    hipStream_t)                                                               \
  X(hipEventCreate, hipError_t, hipEvent_t *)                                  \
  X(hipEventDestroy, hipError_t, hipEvent_t)                                   \
  X(hipEventRecord, hipError_t, hipEvent_t, hipStream_t)                       \
  X(hipEventSynchronize, hipError_t, hipEvent_t)                               \
  X(hipEventElapsedTime, hipError_t, float *, hipEvent_t, hipEvent_t)

/// The entry points of one HIP library, resolved once per process.
struct Api {
#define TUNA_HIP_DECLARE(name, result, ...)                                    \
  result (*name)(__VA_ARGS__) = nullptr;
  TUNA_HIP_FUNCTIONS(TUNA_HIP_DECLARE)
#undef TUNA_HIP_DECLARE
  /// hipGetDevicePropertiesR0600 (ROCm 6 and newer), else nullptr.
  hipError_t (*hipGetDevicePropertiesR0600)(void *, int) = nullptr;
  /// hipGetDeviceProperties: ROCm 5's layout when R0600 is absent.
  hipError_t (*hipGetDeviceProperties)(void *, int) = nullptr;

  /// The file that was loaded ("libamdhip64.so.6", or $TUNA_HIP_LIBRARY).
  std::string library;

  /// The library named by `path` (empty: $TUNA_HIP_LIBRARY, else the
  /// default names), loaded and initialized (hipInit) on first use. Throws
  /// tuna::Error (Unsupported) when it is absent, lacks an entry point, or
  /// hipInit fails, saying why. Retried while it fails.
  static const Api &get(const std::string &path = "");

  /// Throws tuna::Error (Backend) unless `result` is hipSuccess:
  /// "<what>: <call> failed: hipErrorX (n): <text>".
  void check(hipError_t result, const char *call, std::string_view what) const {
    if (result != hipSuccess)
      fail(result, call, what);
  }
  [[noreturn]] void fail(hipError_t result, const char *call,
                         std::string_view what) const;
  /// The message fail() throws.
  std::string message(hipError_t result, const char *call,
                      std::string_view what) const;
};

/// Calls `api.call(args...)` and checks its result, naming the call.
#define TUNA_HIP(api, what, call, ...)                                         \
  (api).check((api).call(__VA_ARGS__), #call, what)

/// Makes `device` current on this thread for the guard's lifetime and then
/// restores the previous one; does nothing if it already is current.
///
/// A failed switch must not go unnoticed: unlike a CUDA call without its
/// context, a HIP call after a failed hipSetDevice runs on whichever device
/// is current, and would allocate, load or launch there. So the guard
/// throws tuna::Error (Backend) naming `what` and the call
/// (hipGetDevice or hipSetDevice) that failed.
class ScopedDevice {
public:
  ScopedDevice(const Api &api, int device, std::string_view what);
  /// For cleanup that must not throw (unloading, freeing, destroying): a
  /// failed switch leaves the thread's device as it was, and the cleanup
  /// call goes ahead (HIP frees memory and unloads modules by handle).
  ScopedDevice(const Api &api, int device, std::nothrow_t) noexcept;
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice &) = delete;
  ScopedDevice &operator=(const ScopedDevice &) = delete;

private:
  const Api &api;
  int previous = -1;
};

/// Puts this thread in relaxed stream capture mode for the guard's lifetime
/// and then restores its mode, as the CUDA backend does: work on streams
/// that are not capturing (tuning, scratch memory) must not invalidate a
/// capture another thread began in global mode. Never throws.
class RelaxedCaptureMode {
public:
  explicit RelaxedCaptureMode(const Api &api) noexcept;
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  const Api &api;
  hipStreamCaptureMode previous = hipStreamCaptureModeRelaxed;
  bool exchanged = false;
};

} // namespace tuna::hip

#endif // TUNA_RUNTIME_LIB_HIP_HIPAPI_H
