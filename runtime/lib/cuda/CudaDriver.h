//===- CudaDriver.h - The CUDA Driver API, loaded at run time --*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen, so one tuna_runtime runs on machines
// with and without NVIDIA's driver. The few types and constants Tuna uses are
// declared here from the driver's stable ABI (cuda.h), so building needs no
// CUDA toolkit either. Every call goes through CudaDriver::check, which
// turns a failure into a tuna::Error naming the call, the driver's error
// name and text, and what was being done ("kernel 'scale' variant ...").
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H
#define TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H

#include <cstddef>
#include <string>
#include <string_view>

namespace tuna::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;

enum DeviceAttribute : int {
  MaxThreadsPerBlock = 1,
  MultiprocessorCount = 16,
  ComputeCapabilityMajor = 75,
  ComputeCapabilityMinor = 76,
  MaxSharedMemoryPerBlockOptin = 97,
};
enum FunctionAttribute : int {
  FuncMaxThreadsPerBlock = 0,
  FuncSharedSizeBytes = 1,
  FuncNumRegs = 4,
  FuncMaxDynamicSharedSizeBytes = 8,
};
enum JitOption : int {
  JitErrorLogBuffer = 5,
  JitErrorLogBufferSizeBytes = 6,
};

/// The entry points, resolved once per process.
struct CudaDriver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  /// The driver of this process, loaded and initialized (cuInit) on first
  /// use. Throws tuna::Error (Unsupported) when libcuda.so.1 is absent or
  /// cuInit fails, saying why.
  static const CudaDriver &get();

  /// Throws tuna::Error (Backend) unless `result` is CUDA_SUCCESS:
  /// "<what>: <call> failed: CUDA_ERROR_X: <text>".
  void check(CUresult result, const char *call, std::string_view what) const;
};

} // namespace tuna::cuda

#endif // TUNA_RUNTIME_LIB_CUDA_CUDADRIVER_H
