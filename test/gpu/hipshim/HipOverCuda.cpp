//===- HipOverCuda.cpp - HIP over the CUDA driver, for GPU tests ----------===//
//
// A stand-in for libamdhip64.so that runs on an NVIDIA GPU: it exports every
// HIP entry point tuna's HIP backend resolves (TUNA_HIP_FUNCTIONS, and both
// hipGetDeviceProperties layouts), each implemented over the CUDA driver
// API, so that the HIP backend's own code (argument packing, launch
// geometry and dynamic LDS, event timing, scratch copies, the tuning
// protocol, cache keys, error messages) runs against a real GPU with PTX
// code objects. What this can and cannot prove: docs/runtime-api.md,
// "The HIP-over-CUDA shim".
//
// libcuda.so.1 is opened with dlopen on first use (cuda.h gives the types
// only, as for the runtime's CUDA backend). The shim reports itself as it
// reports the GPU:
//  - gcnArchName "gfx1100", a wave32 target, so that the 32-lane warps of
//    NVIDIA's GPUs match the wavefront size a gfx1100 reports;
//  - the name "HIP over CUDA: <CUDA device name>", so that the tuning
//    cache never mistakes it for either a real AMD GPU or the CUDA backend's
//    view of the same GPU;
//  - the CUDA driver's version in HIP's encoding (13.0 is 130000000);
//  - the GPU's own limits: LDS per workgroup is CUDA's opt-in maximum
//    (HIP has no opt-in; a launch over 48 KiB opts the function in).
//
// HIP numbers its errors as CUDA does wherever HIP has the error
// (hipErrorInvalidImage and CUDA_ERROR_INVALID_IMAGE are both 200): a CUDA
// result HIP has a name for passes through under that name, with CUDA's
// text; any other becomes hipErrorUnknown, whose text then names the CUDA
// error. Without libcuda.so.1, every call returns hipErrorInsufficientDriver
// with dlopen's reason as its text.
//
// Each thread has a current HIP device (0 until hipSetDevice), whose
// primary context every call makes current first, as HIP's runtime makes
// its device's context current. Beside the backend's entry points, the
// shim exports hipStreamCreateWithFlags and hipStreamDestroy, for tests that
// play an application with its own stream.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"
#include "hip/HipApi.h"

#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace tuna::hip;

constexpr const char *kArch = "gfx1100";
constexpr const char *kNamePrefix = "HIP over CUDA: ";

constexpr hipError_t hipErrorInvalidValue = 1;
constexpr hipError_t hipErrorInsufficientDriver = 35;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorInvalidDevice = 101;
constexpr hipError_t hipErrorUnknown = 999;

#define TUNA_SHIM_STRINGIFY(x) #x
#define TUNA_SHIM_SYMBOL(name) TUNA_SHIM_STRINGIFY(name)

/// The driver calls the shim needs beyond the runtime's own.
#define TUNA_SHIM_EXTRA_FUNCTIONS(X)                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)

struct Cuda {
#define TUNA_SHIM_DECLARE(name) decltype(&::name) name = nullptr;
  TUNA_CUDA_DRIVER_FUNCTIONS(TUNA_SHIM_DECLARE)
  TUNA_SHIM_EXTRA_FUNCTIONS(TUNA_SHIM_DECLARE)
#undef TUNA_SHIM_DECLARE
  /// Why the driver is unusable; empty once it loaded and initialized.
  std::string failure;
  hipError_t failureCode = hipSuccess;
  std::mutex mutex; ///< Guards `primary`.
  std::vector<CUcontext> primary;
};

/// CUDA results HIP has the same number for, by HIP's name.
const char *hipName(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return "hipSuccess";
  case CUDA_ERROR_INVALID_VALUE:
    return "hipErrorInvalidValue";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "hipErrorOutOfMemory";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "hipErrorNotInitialized";
  case CUDA_ERROR_DEINITIALIZED:
    return "hipErrorDeinitialized";
  case CUDA_ERROR_NO_DEVICE:
    return "hipErrorNoDevice";
  case CUDA_ERROR_INVALID_DEVICE:
    return "hipErrorInvalidDevice";
  case CUDA_ERROR_INVALID_IMAGE:
    return "hipErrorInvalidImage";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "hipErrorInvalidContext";
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return "hipErrorNoBinaryForGpu";
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return "hipErrorECCNotCorrectable";
  case CUDA_ERROR_INVALID_PTX:
    return "hipErrorInvalidKernelFile";
  case CUDA_ERROR_INVALID_SOURCE:
    return "hipErrorInvalidSource";
  case CUDA_ERROR_FILE_NOT_FOUND:
    return "hipErrorFileNotFound";
  case CUDA_ERROR_INVALID_HANDLE:
    return "hipErrorInvalidHandle";
  case CUDA_ERROR_ILLEGAL_STATE:
    return "hipErrorIllegalState";
  case CUDA_ERROR_NOT_FOUND:
    return "hipErrorNotFound";
  case CUDA_ERROR_NOT_READY:
    return "hipErrorNotReady";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "hipErrorIllegalAddress";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return "hipErrorLaunchOutOfResources";
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return "hipErrorLaunchTimeOut";
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    return "hipErrorContextIsDestroyed";
  case CUDA_ERROR_ASSERT:
    return "hipErrorAssert";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "hipErrorLaunchFailure";
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    return "hipErrorCooperativeLaunchTooLarge";
  case CUDA_ERROR_NOT_SUPPORTED:
    return "hipErrorNotSupported";
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    return "hipErrorStreamCaptureUnsupported";
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
    return "hipErrorStreamCaptureInvalidated";
  case CUDA_ERROR_STREAM_CAPTURE_MERGE:
    return "hipErrorStreamCaptureMerge";
  case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
    return "hipErrorStreamCaptureUnmatched";
  case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
    return "hipErrorStreamCaptureUnjoined";
  case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
    return "hipErrorStreamCaptureIsolation";
  case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
    return "hipErrorStreamCaptureImplicit";
  case CUDA_ERROR_CAPTURED_EVENT:
    return "hipErrorCapturedEvent";
  case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
    return "hipErrorStreamCaptureWrongThread";
  case CUDA_ERROR_UNKNOWN:
    return "hipErrorUnknown";
  default:
    return nullptr;
  }
}

Cuda &load() {
  static Cuda cuda;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    cuda.failure =
        std::string("the HIP-over-CUDA shim found no CUDA driver: ") +
        (why ? why : "dlopen(libcuda.so.1) failed");
    cuda.failureCode = hipErrorInsufficientDriver;
    return cuda;
  }
  std::string missing;
#define TUNA_SHIM_RESOLVE(name)                                                \
  cuda.name = reinterpret_cast<decltype(cuda.name)>(                           \
      dlsym(library, TUNA_SHIM_SYMBOL(name)));                                 \
  if (!cuda.name)                                                              \
    missing +=                                                                 \
        std::string(missing.empty() ? "" : ", ") + TUNA_SHIM_SYMBOL(name);
  TUNA_CUDA_DRIVER_FUNCTIONS(TUNA_SHIM_RESOLVE)
  TUNA_SHIM_EXTRA_FUNCTIONS(TUNA_SHIM_RESOLVE)
#undef TUNA_SHIM_RESOLVE
  if (!missing.empty()) {
    cuda.failure = "the HIP-over-CUDA shim needs a newer CUDA driver: "
                   "libcuda.so.1 lacks " +
                   missing;
    cuda.failureCode = hipErrorInsufficientDriver;
    return cuda;
  }
  int count = 0;
  const char *call = "cuInit";
  CUresult result = cuda.cuInit(0);
  if (result == CUDA_SUCCESS) {
    call = "cuDeviceGetCount";
    result = cuda.cuDeviceGetCount(&count);
  }
  if (result != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuda.cuGetErrorName(result, &name);
    cuda.failure = std::string("the HIP-over-CUDA shim cannot use "
                               "libcuda.so.1: ") +
                   call + " failed: " + (name ? name : "CUDA error") + " (" +
                   std::to_string(result) + ")";
    // CUDA_ERROR_NO_DEVICE is HIP's hipErrorNoDevice; a result HIP has no
    // number for (a stub libcuda) is a driver HIP cannot use.
    cuda.failureCode = hipName(result) ? static_cast<hipError_t>(result)
                                       : hipErrorInsufficientDriver;
    return cuda;
  }
  cuda.primary.assign(count, nullptr);
  return cuda;
}

/// The loaded driver, or (its `failure` set) why there is none.
Cuda &cuda() {
  static Cuda &loaded = load();
  return loaded;
}

/// The text of the latest CUDA error on this thread that HIP has no number
/// for (returned as hipErrorUnknown).
thread_local std::string unknownCudaError;

/// `result` as HIP numbers it.
hipError_t toHip(CUresult result) {
  if (hipName(result))
    return static_cast<hipError_t>(result);
  Cuda &cu = cuda();
  const char *name = nullptr, *text = nullptr;
  cu.cuGetErrorName(result, &name);
  cu.cuGetErrorString(result, &text);
  unknownCudaError = std::string("unknown error (") +
                     (name ? name : "an unknown CUDA error") + " (" +
                     std::to_string(result) + "), which HIP has no code for" +
                     (text ? ": " : "") + (text ? text : "") + ")";
  return hipErrorUnknown;
}

thread_local int currentDevice = 0;

/// Makes `device`'s primary context current on this thread.
CUresult useDevice(Cuda &cu, int device) {
  CUcontext context;
  {
    std::lock_guard<std::mutex> lock(cu.mutex);
    if (device < 0 || device >= static_cast<int>(cu.primary.size()))
      return CUDA_ERROR_INVALID_DEVICE;
    if (!cu.primary[device]) {
      CUdevice handle = 0;
      if (CUresult result = cu.cuDeviceGet(&handle, device))
        return result;
      if (CUresult result =
              cu.cuDevicePrimaryCtxRetain(&cu.primary[device], handle))
        return result;
    }
    context = cu.primary[device];
  }
  CUcontext current = nullptr;
  if (cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context)
    return CUDA_SUCCESS;
  return cu.cuCtxSetCurrent(context);
}

/// The driver with this thread's device current, or the reason there is
/// none in `error`.
Cuda *enter(hipError_t &error) {
  Cuda &cu = cuda();
  if (!cu.failure.empty()) {
    error = cu.failureCode;
    return nullptr;
  }
  error = toHip(useDevice(cu, currentDevice));
  return error == hipSuccess ? &cu : nullptr;
}

#define TUNA_SHIM_ENTER(cu)                                                    \
  hipError_t entered;                                                          \
  Cuda *cu = enter(entered);                                                   \
  if (!cu)                                                                     \
    return entered;

/// The CUDA device of HIP ordinal `device`.
CUresult cudaDevice(Cuda &cu, int device, CUdevice &handle) {
  if (device < 0 || device >= static_cast<int>(cu.primary.size()))
    return CUDA_ERROR_INVALID_DEVICE;
  return cu.cuDeviceGet(&handle, device);
}

/// The CUDA attribute that answers HIP's `attribute`, or -1.
int cudaAttribute(hipDeviceAttribute_t attribute) {
  switch (attribute) {
  case hipDeviceAttributeMaxBlockDimX:
    return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X;
  case hipDeviceAttributeMaxBlockDimX + 1:
    return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y;
  case hipDeviceAttributeMaxBlockDimX + 2:
    return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z;
  case hipDeviceAttributeMaxGridDimX:
    return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X;
  case hipDeviceAttributeMaxGridDimX + 1:
    return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y;
  case hipDeviceAttributeMaxGridDimX + 2:
    return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z;
  case hipDeviceAttributeMaxThreadsPerBlock:
    return CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
  case hipDeviceAttributeMaxThreadsPerMultiProcessor:
    return CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR;
  case hipDeviceAttributeMultiprocessorCount:
    return CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
  // HIP has no opt-in: a workgroup may use all the LDS the device gives one.
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
    return CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
  case hipDeviceAttributeWarpSize:
    return CU_DEVICE_ATTRIBUTE_WARP_SIZE;
  case hipDeviceAttributeL2CacheSize:
    return CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
    return CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR;
  default:
    return -1;
  }
}

/// Lets `function` take `bytes` of dynamic shared memory, as every function
/// may on HIP up to the workgroup's LDS (CUDA wants an opt-in above 48 KiB).
CUresult allowSharedBytes(Cuda &cu, CUfunction function, size_t bytes) {
  int allowed = 0;
  if (CUresult result = cu.cuFuncGetAttribute(
          &allowed, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function))
    return result;
  if (bytes <= static_cast<size_t>(allowed))
    return CUDA_SUCCESS;
  return cu.cuFuncSetAttribute(function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(bytes));
}

/// hipDeviceProp_t's name and gcnArchName, the fields the backend reads.
hipError_t deviceProperties(void *props, int device, size_t archOffset) {
  TUNA_SHIM_ENTER(cu)
  CUdevice handle = 0;
  if (CUresult result = cudaDevice(*cu, device, handle))
    return toHip(result);
  auto *bytes = static_cast<char *>(props);
  char name[256] = {};
  if (CUresult result = cu->cuDeviceGetName(name, sizeof(name) - 1, handle))
    return toHip(result);
  std::string full = std::string(kNamePrefix) + name;
  std::strncpy(bytes, full.c_str(), 255);
  std::strncpy(bytes + archOffset, kArch, kGcnArchNameSize - 1);
  return hipSuccess;
}

int hipVersion(int cudaVersion) {
  return cudaVersion / 1000 * 10000000 + cudaVersion % 1000 / 10 * 100000;
}

} // namespace

extern "C" {

const char *hipGetErrorName(hipError_t error) {
  if (const char *name = hipName(static_cast<CUresult>(error)))
    return name;
  if (error == hipErrorInsufficientDriver)
    return "hipErrorInsufficientDriver";
  return "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t error) {
  Cuda &cu = cuda();
  if (!cu.failure.empty() && error == cu.failureCode)
    return cu.failure.c_str();
  if (error == hipErrorUnknown && !unknownCudaError.empty())
    return unknownCudaError.c_str();
  const char *text = nullptr;
  if (cu.failure.empty() && hipName(static_cast<CUresult>(error)) &&
      cu.cuGetErrorString(static_cast<CUresult>(error), &text) == CUDA_SUCCESS)
    return text;
  return "unknown error";
}

hipError_t hipInit(unsigned) {
  Cuda &cu = cuda();
  return cu.failure.empty() ? hipSuccess : cu.failureCode;
}

hipError_t hipDriverGetVersion(int *version) {
  TUNA_SHIM_ENTER(cu)
  int cudaVersion = 0;
  if (CUresult result = cu->cuDriverGetVersion(&cudaVersion))
    return toHip(result);
  *version = hipVersion(cudaVersion);
  return hipSuccess;
}

/// The shim is its own runtime: the driver's version.
hipError_t hipRuntimeGetVersion(int *version) {
  return hipDriverGetVersion(version);
}

hipError_t hipGetDeviceCount(int *count) {
  Cuda &cu = cuda();
  *count = static_cast<int>(cu.primary.size());
  if (!cu.failure.empty())
    return cu.failureCode;
  return *count ? hipSuccess : hipErrorNoDevice;
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal) {
  Cuda &cu = cuda();
  if (!cu.failure.empty())
    return cu.failureCode;
  if (ordinal < 0 || ordinal >= static_cast<int>(cu.primary.size()))
    return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int length, hipDevice_t device) {
  std::vector<char> props(kDevicePropBufferSize, 0);
  if (hipError_t error =
          deviceProperties(props.data(), device, kGcnArchNameOffsetR0600))
    return error;
  if (length <= 0)
    return hipErrorInvalidValue;
  std::strncpy(name, props.data(), length - 1);
  name[length - 1] = '\0';
  return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attribute,
                                 int device) {
  TUNA_SHIM_ENTER(cu)
  int which = cudaAttribute(attribute);
  if (which < 0)
    return hipErrorInvalidValue;
  CUdevice handle = 0;
  if (CUresult result = cudaDevice(*cu, device, handle))
    return toHip(result);
  return toHip(cu->cuDeviceGetAttribute(
      value, static_cast<CUdevice_attribute>(which), handle));
}

hipError_t hipGetDevicePropertiesR0600(void *props, int device) {
  return deviceProperties(props, device, kGcnArchNameOffsetR0600);
}

hipError_t hipGetDeviceProperties(void *props, int device) {
  return deviceProperties(props, device, kGcnArchNameOffsetR0000);
}

hipError_t hipGetDevice(int *device) {
  *device = currentDevice;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  Cuda &cu = cuda();
  if (!cu.failure.empty())
    return cu.failureCode;
  if (CUresult result = useDevice(cu, device))
    return toHip(result);
  currentDevice = device;
  return hipSuccess;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuModuleLoadDataEx(reinterpret_cast<CUmodule *>(module),
                                      image, 0, nullptr, nullptr));
}

hipError_t hipModuleUnload(hipModule_t module) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuModuleUnload(reinterpret_cast<CUmodule>(module)));
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuModuleGetFunction(reinterpret_cast<CUfunction *>(function),
                                       reinterpret_cast<CUmodule>(module),
                                       name));
}

/// HIP's function attributes are CUDA's, number for number.
hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attribute,
                               hipFunction_t function) {
  TUNA_SHIM_ENTER(cu)
  if (attribute < 0 || attribute >= CU_FUNC_ATTRIBUTE_MAX)
    return hipErrorInvalidValue;
  return toHip(cu->cuFuncGetAttribute(
      value, static_cast<CUfunction_attribute>(attribute),
      reinterpret_cast<CUfunction>(function)));
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    int *blocks, hipFunction_t function, int blockSize, size_t dynamicLds) {
  TUNA_SHIM_ENTER(cu)
  auto f = reinterpret_cast<CUfunction>(function);
  if (CUresult result = allowSharedBytes(*cu, f, dynamicLds))
    return toHip(result);
  return toHip(cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks, f, blockSize, dynamicLds));
}

hipError_t hipModuleLaunchKernel(hipFunction_t function, unsigned gridX,
                                 unsigned gridY, unsigned gridZ,
                                 unsigned blockX, unsigned blockY,
                                 unsigned blockZ, unsigned sharedBytes,
                                 hipStream_t stream, void **params,
                                 void **extra) {
  TUNA_SHIM_ENTER(cu)
  auto f = reinterpret_cast<CUfunction>(function);
  if (sharedBytes)
    if (CUresult result = allowSharedBytes(*cu, f, sharedBytes))
      return toHip(result);
  return toHip(cu->cuLaunchKernel(
      f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes,
      reinterpret_cast<CUstream>(stream), params, extra));
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned flags) {
  TUNA_SHIM_ENTER(cu)
  // hipStreamNonBlocking is CU_STREAM_NON_BLOCKING (1).
  return toHip(cu->cuStreamCreate(reinterpret_cast<CUstream *>(stream), flags));
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuStreamDestroy(reinterpret_cast<CUstream>(stream)));
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuStreamSynchronize(reinterpret_cast<CUstream>(stream)));
}

/// Capture statuses and modes are CUDA's, number for number.
hipError_t hipStreamIsCapturing(hipStream_t stream,
                                hipStreamCaptureStatus *status) {
  TUNA_SHIM_ENTER(cu)
  CUstreamCaptureStatus cudaStatus = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result =
      cu->cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &cudaStatus);
  *status = cudaStatus;
  return toHip(result);
}

hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode) {
  TUNA_SHIM_ENTER(cu)
  auto cudaMode = static_cast<CUstreamCaptureMode>(*mode);
  CUresult result = cu->cuThreadExchangeStreamCaptureMode(&cudaMode);
  *mode = cudaMode;
  return toHip(result);
}

hipError_t hipMalloc(void **ptr, size_t bytes) {
  TUNA_SHIM_ENTER(cu)
  CUdeviceptr device = 0;
  CUresult result = cu->cuMemAlloc(&device, bytes);
  *ptr = reinterpret_cast<void *>(device);
  return toHip(result);
}

hipError_t hipFree(void *ptr) {
  if (!ptr)
    return hipSuccess;
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

// Whole 32-bit words only: what the backend writes (an L2 eviction).
hipError_t hipMemsetAsync(void *dst, int value, size_t bytes,
                          hipStream_t stream) {
  TUNA_SHIM_ENTER(cu)
  if (bytes % 4 != 0)
    return hipErrorInvalidValue;
  unsigned word = (unsigned(value) & 0xff) * 0x01010101u;
  return toHip(cu->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), word,
                                    bytes / 4,
                                    reinterpret_cast<CUstream>(stream)));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes,
                          hipMemcpyKind kind, hipStream_t stream) {
  TUNA_SHIM_ENTER(cu)
  auto s = reinterpret_cast<CUstream>(stream);
  auto dptr = [](const void *p) { return reinterpret_cast<CUdeviceptr>(p); };
  switch (kind) {
  case hipMemcpyHostToDevice:
    return toHip(cu->cuMemcpyHtoDAsync(dptr(dst), src, bytes, s));
  case hipMemcpyDeviceToHost:
    return toHip(cu->cuMemcpyDtoHAsync(dst, dptr(src), bytes, s));
  case hipMemcpyDeviceToDevice:
    return toHip(cu->cuMemcpyDtoDAsync(dptr(dst), dptr(src), bytes, s));
  default: // Host to host and hipMemcpyDefault: the backend uses neither.
    return hipErrorInvalidValue;
  }
}

hipError_t hipEventCreate(hipEvent_t *event) {
  TUNA_SHIM_ENTER(cu)
  return toHip(
      cu->cuEventCreate(reinterpret_cast<CUevent *>(event), CU_EVENT_DEFAULT));
}

hipError_t hipEventDestroy(hipEvent_t event) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuEventDestroy(reinterpret_cast<CUevent>(event)));
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuEventRecord(reinterpret_cast<CUevent>(event),
                                 reinterpret_cast<CUstream>(stream)));
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                              unsigned flags) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuStreamWaitEvent(reinterpret_cast<CUstream>(stream),
                                     reinterpret_cast<CUevent>(event), flags));
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuEventSynchronize(reinterpret_cast<CUevent>(event)));
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t end) {
  TUNA_SHIM_ENTER(cu)
  return toHip(cu->cuEventElapsedTime(ms, reinterpret_cast<CUevent>(start),
                                      reinterpret_cast<CUevent>(end)));
}

} // extern "C"
