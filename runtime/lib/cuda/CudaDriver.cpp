//===- CudaDriver.cpp - The CUDA Driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include "GpuBackend.h"

#include "tuna/runtime/Error.h"

#include <dlfcn.h>
#include <memory>
#include <mutex>

namespace tuna::cuda {

namespace {

// The symbol a cuda.h name maps to: TUNA_SYMBOL(cuMemAlloc) is
// "cuMemAlloc_v2".
#define TUNA_STRINGIFY(x) #x
#define TUNA_SYMBOL(name) TUNA_STRINGIFY(name)

Driver load() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw Error(ErrorCode::Unsupported,
                std::string("CUDA driver (libcuda.so.1) not found: ") +
                    (why ? why : "dlopen failed") +
                    " (is an NVIDIA driver installed?)");
  }
  Driver driver;
  std::string missing;
#define TUNA_CUDA_RESOLVE(name)                                                \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, TUNA_SYMBOL(name)));                                      \
  if (!driver.name)                                                            \
    missing += std::string(missing.empty() ? "" : ", ") + TUNA_SYMBOL(name);
  TUNA_CUDA_DRIVER_FUNCTIONS(TUNA_CUDA_RESOLVE)
#undef TUNA_CUDA_RESOLVE
#define TUNA_CUDA_RESOLVE_OPTIONAL(name)                                       \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, TUNA_SYMBOL(name)));
  TUNA_CUDA_OPTIONAL_DRIVER_FUNCTIONS(TUNA_CUDA_RESOLVE_OPTIONAL)
#undef TUNA_CUDA_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    dlclose(library);
    throw Error(ErrorCode::Unsupported, "CUDA driver (libcuda.so.1) lacks " +
                                            missing +
                                            ": the driver is too old for Tuna");
  }
  // No device or a broken installation: a machine that cannot run CUDA.
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS)
    throw Error(
        ErrorCode::Unsupported,
        driver.message(result, "cuInit", "initializing the CUDA driver"));
  return driver;
}

} // namespace

const Driver &Driver::get() {
  // Loading is retried on every call while it fails, so that every error
  // says why; once loaded, the driver stays for the life of the process.
  static std::mutex mutex;
  static std::unique_ptr<Driver> driver;
  std::lock_guard<std::mutex> lock(mutex);
  if (!driver)
    driver = std::make_unique<Driver>(load());
  return *driver;
}

void Driver::fail(CUresult result, const char *call,
                  std::string_view what) const {
  throw Error(ErrorCode::Backend, message(result, call, what));
}

std::string Driver::message(CUresult result, const char *call,
                            std::string_view what) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "";
  return gpu::callFailure(what, call, name, result, text);
}

ScopedContext::ScopedContext(const Driver &driver, CUcontext context) noexcept
    : driver(driver) {
  CUcontext current = nullptr;
  if (driver.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != context)
    pushed = driver.cuCtxPushCurrent(context) == CUDA_SUCCESS;
}

ScopedContext::~ScopedContext() {
  CUcontext popped = nullptr;
  if (pushed)
    driver.cuCtxPopCurrent(&popped);
}

RelaxedCaptureMode::RelaxedCaptureMode(const Driver &driver) noexcept
    : driver(driver) {
  exchanged =
      driver.cuThreadExchangeStreamCaptureMode(&previous) == CUDA_SUCCESS;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (exchanged)
    driver.cuThreadExchangeStreamCaptureMode(&previous);
}

Module::Module(const Driver &driver, CUcontext context, const char *image,
               std::string_view what)
    : driver(driver), context(context) {
  ScopedContext scope(driver, context);
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result =
      driver.cuModuleLoadDataEx(&module, image, 2, options, values);
  if (result == CUDA_SUCCESS)
    return;
  std::string why = driver.message(result, "cuModuleLoadDataEx", what);
  if (log[0])
    why += std::string("\nJIT log:\n") + log;
  throw Error(ErrorCode::Backend, why);
}

Module::~Module() {
  ScopedContext scope(driver, context);
  driver.cuModuleUnload(module);
}

Event::Event(const Driver &driver, CUcontext context, unsigned flags)
    : driver(driver), context(context) {
  ScopedContext scope(driver, context);
  TUNA_CU(driver, "creating an event", cuEventCreate, &event, flags);
}

Event::~Event() {
  if (!event)
    return;
  ScopedContext scope(driver, context);
  driver.cuEventDestroy(event);
}

DeviceMemory::DeviceMemory(const Driver &driver, CUcontext context,
                           size_t bytes)
    : driver(driver), context(context) {
  ScopedContext scope(driver, context);
  CUresult result = driver.cuMemAlloc(&ptr, bytes ? bytes : 1);
  if (result != CUDA_SUCCESS)
    driver.fail(result, "cuMemAlloc",
                "allocating " + std::to_string(bytes) + " bytes on the device");
}

DeviceMemory::~DeviceMemory() {
  if (!ptr)
    return;
  ScopedContext scope(driver, context);
  driver.cuMemFree(ptr);
}

} // namespace tuna::cuda
