//===- HipApi.cpp - The HIP runtime API, loaded at run time ---------------===//

#include "HipApi.h"

#include "GpuBackend.h"

#include "tuna/runtime/Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

namespace tuna::hip {

namespace {

/// Opens `path`, or the first default name that opens; throws saying what
/// was tried.
void *open(const std::string &path, std::string &opened) {
  std::string requested = path;
  if (requested.empty())
    if (const char *env = std::getenv("TUNA_HIP_LIBRARY"); env && *env)
      requested = env;
  if (!requested.empty()) {
    if (void *library = dlopen(requested.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = requested;
      return library;
    }
    const char *why = dlerror();
    throw Error(ErrorCode::Unsupported,
                "HIP runtime '" + requested + "' not found: " +
                    (why ? why : "dlopen failed"));
  }
  std::string tried;
  for (const char *name :
       {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"}) {
    if (void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      opened = name;
      return library;
    }
    const char *why = dlerror();
    tried += std::string("\n  ") + (why ? why : name);
  }
  throw Error(ErrorCode::Unsupported,
              "HIP runtime (libamdhip64.so) not found (is ROCm installed? "
              "TUNA_HIP_LIBRARY names another file):" +
                  tried);
}

Api load(const std::string &path) {
  Api api;
  void *library = open(path, api.library);
  std::string missing;
#define TUNA_HIP_RESOLVE(name, ...)                                            \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name)                                                               \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
  TUNA_HIP_FUNCTIONS(TUNA_HIP_RESOLVE)
  TUNA_HIP_RESOLVE(hipGetDeviceProperties)
#undef TUNA_HIP_RESOLVE
  api.hipGetDevicePropertiesR0600 =
      reinterpret_cast<decltype(api.hipGetDevicePropertiesR0600)>(
          dlsym(library, "hipGetDevicePropertiesR0600"));
  if (!missing.empty()) {
    dlclose(library);
    throw Error(ErrorCode::Unsupported,
                "HIP runtime (" + api.library + ") lacks " + missing +
                    ": ROCm 5.2 or newer is needed");
  }
  // No device or no ROCm driver (amdgpu/KFD): a machine that cannot run HIP.
  hipError_t result = api.hipInit(0);
  if (result != hipSuccess)
    throw Error(ErrorCode::Unsupported,
                api.message(result, "hipInit",
                            "initializing the HIP runtime (" + api.library +
                                "; is there an AMD GPU with its driver?)"));
  return api;
}

} // namespace

const Api &Api::get(const std::string &path) {
  // Loading is retried on every call while it fails, so that every error
  // says why; once loaded, a library stays for the life of the process.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Api>> loaded;
  std::string key = path;
  if (key.empty())
    if (const char *env = std::getenv("TUNA_HIP_LIBRARY"))
      key = env;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Api> &api = loaded[key];
  if (!api)
    api = std::make_unique<Api>(load(key));
  return *api;
}

void Api::fail(hipError_t result, const char *call,
               std::string_view what) const {
  throw Error(ErrorCode::Backend, message(result, call, what));
}

std::string Api::message(hipError_t result, const char *call,
                         std::string_view what) const {
  const char *name = hipGetErrorName(result);
  const char *text = hipGetErrorString(result);
  if (!name || !*name)
    name = "unknown HIP error";
  if (!text)
    text = "";
  return gpu::callFailure(what, call, name, result, text);
}

ScopedDevice::ScopedDevice(const Api &api, int device, std::string_view what)
    : api(api) {
  int current = -1;
  TUNA_HIP(api, what, hipGetDevice, &current);
  if (current == device)
    return;
  TUNA_HIP(api, what, hipSetDevice, device);
  previous = current;
}

ScopedDevice::ScopedDevice(const Api &api, int device, std::nothrow_t) noexcept
    : api(api) {
  int current = -1;
  if (api.hipGetDevice(&current) == hipSuccess && current != device &&
      api.hipSetDevice(device) == hipSuccess)
    previous = current;
}

ScopedDevice::~ScopedDevice() {
  if (previous >= 0)
    api.hipSetDevice(previous);
}

RelaxedCaptureMode::RelaxedCaptureMode(const Api &api) noexcept : api(api) {
  exchanged = api.hipThreadExchangeStreamCaptureMode(&previous) == hipSuccess;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (exchanged)
    api.hipThreadExchangeStreamCaptureMode(&previous);
}

} // namespace tuna::hip
