//===- CudaDriver.cpp - The CUDA Driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include "tuna/runtime/Error.h"

#include <dlfcn.h>
#include <memory>
#include <mutex>

namespace tuna::cuda {

namespace {

/// Resolves `name` (trying `name_v2` first where the header versions it).
template <typename Fn>
void resolve(void *library, Fn &slot, const char *name, bool versioned,
             std::string &missing) {
  void *symbol = nullptr;
  if (versioned)
    symbol = dlsym(library, (std::string(name) + "_v2").c_str());
  if (!symbol)
    symbol = dlsym(library, name);
  if (!symbol)
    missing += std::string(missing.empty() ? "" : ", ") + name;
  slot = reinterpret_cast<Fn>(symbol);
}

CudaDriver load() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw Error(ErrorCode::Unsupported,
                std::string("CUDA driver (libcuda.so.1) not found: ") +
                    (why ? why : "dlopen failed") +
                    "; is an NVIDIA driver installed?");
  }
  CudaDriver d{};
  std::string missing;
#define TUNA_RESOLVE(name, versioned)                                          \
  resolve(library, d.name, #name, versioned, missing)
  TUNA_RESOLVE(cuInit, false);
  TUNA_RESOLVE(cuDriverGetVersion, false);
  TUNA_RESOLVE(cuDeviceGetCount, false);
  TUNA_RESOLVE(cuDeviceGet, false);
  TUNA_RESOLVE(cuDeviceGetName, false);
  TUNA_RESOLVE(cuDeviceGetAttribute, false);
  TUNA_RESOLVE(cuDevicePrimaryCtxRetain, false);
  TUNA_RESOLVE(cuDevicePrimaryCtxRelease, true);
  TUNA_RESOLVE(cuCtxGetCurrent, false);
  TUNA_RESOLVE(cuCtxSetCurrent, false);
  TUNA_RESOLVE(cuModuleLoadDataEx, false);
  TUNA_RESOLVE(cuModuleUnload, false);
  TUNA_RESOLVE(cuModuleGetFunction, false);
  TUNA_RESOLVE(cuFuncGetAttribute, false);
  TUNA_RESOLVE(cuFuncSetAttribute, false);
  TUNA_RESOLVE(cuLaunchKernel, false);
  TUNA_RESOLVE(cuStreamSynchronize, false);
  TUNA_RESOLVE(cuMemAlloc, true);
  TUNA_RESOLVE(cuMemFree, true);
  TUNA_RESOLVE(cuMemcpyHtoDAsync, true);
  TUNA_RESOLVE(cuMemcpyDtoHAsync, true);
  TUNA_RESOLVE(cuMemcpyDtoDAsync, true);
  TUNA_RESOLVE(cuEventCreate, false);
  TUNA_RESOLVE(cuEventDestroy, true);
  TUNA_RESOLVE(cuEventRecord, false);
  TUNA_RESOLVE(cuEventSynchronize, false);
  TUNA_RESOLVE(cuEventElapsedTime, false);
  TUNA_RESOLVE(cuGetErrorName, false);
  TUNA_RESOLVE(cuGetErrorString, false);
#undef TUNA_RESOLVE
  if (!missing.empty())
    throw Error(ErrorCode::Unsupported,
                "CUDA driver (libcuda.so.1) lacks " + missing +
                    ": the driver is too old for Tuna");
  d.check(d.cuInit(0), "cuInit", "initializing the CUDA driver");
  return d;
}

} // namespace

const CudaDriver &CudaDriver::get() {
  // Loading is retried on every call while it fails, so that the error
  // always says why; once loaded, the driver stays.
  static std::mutex mutex;
  static std::unique_ptr<CudaDriver> driver;
  std::lock_guard<std::mutex> lock(mutex);
  if (!driver)
    driver = std::make_unique<CudaDriver>(load());
  return *driver;
}

void CudaDriver::check(CUresult result, const char *call,
                       std::string_view what) const {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "";
  throw Error(ErrorCode::Backend,
              std::string(what) + ": " + call + " failed: " + name + " (" +
                  std::to_string(result) + ")" + (*text ? ": " : "") + text);
}

} // namespace tuna::cuda
