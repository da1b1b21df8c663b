//===- HostBackend.cpp - Kernels compiled for the host CPU ----------------===//
//
// Objects are shared libraries ("elf-so") held in memory. Loading writes them
// to an anonymous memfd (or, where memfd_create fails, to a temporary file)
// and dlopen()s that. Functions have the signature `void f(void **args)` and
// run synchronously on the calling thread; grid and block are ignored (the
// function covers the whole iteration space). Scratch memory is malloc'ed and
// timing uses std::chrono::steady_clock.
//
//===----------------------------------------------------------------------===//

#include "AtomicFile.h"

#include "tuna/runtime/Backend.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tuna {

namespace {

#if defined(__x86_64__)
constexpr const char *kHostArch = "x86_64";
#elif defined(__aarch64__)
constexpr const char *kHostArch = "aarch64";
#else
constexpr const char *kHostArch = "";
#endif

using HostFunction = void (*)(void **);
using Clock = std::chrono::steady_clock;

/// A dlopen()ed object and the descriptor of its in-memory file.
struct LoadedLibrary {
  void *handle = nullptr;
  int fd = -1;
  std::string path;
};

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0)
      continue;
    size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size())
      return line.substr(colon + 2);
  }
  return "unknown CPU";
}

class HostBackend final : public Backend {
public:
  HostBackend() {
    deviceInfo.platform = "host";
    deviceInfo.name = cpuModelName();
    deviceInfo.arch = "host";
    deviceInfo.driverVersion = std::string("glibc ") + gnu_get_libc_version();
    deviceInfo.fingerprint =
        std::string("host:") + kHostArch + ":" + deviceInfo.name;
    // A host function runs the whole launch in one call: no per-block limit,
    // and grid and block only need to fit LaunchDims (the defaults).
    deviceInfo.maxThreadsPerBlock = INT_MAX;
    deviceInfo.maxSharedBytesPerBlock = INT64_MAX;
    deviceInfo.multiProcessors =
        static_cast<int>(std::thread::hardware_concurrency());
  }

  const DeviceInfo &info() const override { return deviceInfo; }

  int objectScore(const Object &object) const override {
    if (object.format != "elf-so" || object.target != "host")
      return -1;
    // The triple, when given, must name this machine's architecture.
    if (!object.triple.empty() &&
        object.triple.compare(0, std::strlen(kHostArch), kHostArch) != 0)
      return -1;
    return 1;
  }

  ModuleHandle loadModule(const Object &object,
                          std::string_view what) override {
    auto library = std::make_unique<LoadedLibrary>();
    library->fd = ::memfd_create("tuna-host-object", MFD_CLOEXEC);
    if (library->fd >= 0) {
      library->path = "/proc/self/fd/" + std::to_string(library->fd);
    } else {
      const char *tmpdir = std::getenv("TMPDIR");
      std::string templ =
          std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/tuna-XXXXXX";
      library->fd = ::mkstemp(templ.data());
      if (library->fd < 0)
        fail(what, "cannot create a file for the host object: " +
                       std::string(std::strerror(errno)));
      library->path = templ;
    }
    bool isTemporaryFile = library->path.rfind("/proc/self/fd/", 0) != 0;
    if (!writeAll(library->fd, object.data)) {
      std::string reason = std::strerror(errno);
      release(*library, isTemporaryFile);
      fail(what, "cannot write the host object: " + reason);
    }
    library->handle = ::dlopen(library->path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (isTemporaryFile) {
      ::unlink(library->path.c_str());
      ::close(library->fd);
      library->fd = -1;
    }
    if (!library->handle) {
      std::string reason = ::dlerror();
      release(*library, false);
      fail(what, "dlopen of the host object failed: " + reason);
    }
    return library.release();
  }

  void unloadModule(ModuleHandle module) noexcept override {
    std::unique_ptr<LoadedLibrary> library(
        static_cast<LoadedLibrary *>(module));
    ::dlclose(library->handle);
    // A library that stays loaded (e.g. it has STB_GNU_UNIQUE symbols) keeps
    // its /proc/self/fd/N name; keep N open so no later object reuses the
    // name and gets this library back from dlopen.
    if (library->fd >= 0 &&
        ::dlopen(library->path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      library->fd = -1;
      return;
    }
    release(*library, false);
  }

  FunctionHandle getFunction(ModuleHandle module, const std::string &symbol,
                             std::string_view what) override {
    auto *library = static_cast<LoadedLibrary *>(module);
    ::dlerror();
    void *function = ::dlsym(library->handle, symbol.c_str());
    if (!function)
      fail(what, "symbol '" + symbol + "' not found in the host object");
    return function;
  }

  FunctionLimits functionLimits(FunctionHandle) override {
    FunctionLimits limits;
    limits.maxThreadsPerBlock = deviceInfo.maxThreadsPerBlock;
    limits.staticSharedBytes = 0;
    return limits;
  }

  void launch(FunctionHandle function, StreamHandle, const LaunchDims &,
              void **params) override {
    reinterpret_cast<HostFunction>(function)(params);
  }

  void synchronize(StreamHandle) override {}

  void *allocate(size_t bytes) override {
    void *ptr = std::malloc(bytes ? bytes : 1);
    if (!ptr)
      throw Error(ErrorCode::Backend, "host: cannot allocate " +
                                          std::to_string(bytes) +
                                          " bytes of scratch memory");
    return ptr;
  }

  void deallocate(void *ptr) noexcept override { std::free(ptr); }

  void copy(void *dst, const void *src, size_t bytes, CopyKind,
            StreamHandle) override {
    if (bytes)
      std::memcpy(dst, src, bytes);
  }

  EventHandle createEvent() override { return new Clock::time_point(); }

  void destroyEvent(EventHandle event) noexcept override {
    delete static_cast<Clock::time_point *>(event);
  }

  void recordEvent(EventHandle event, StreamHandle) override {
    *static_cast<Clock::time_point *>(event) = Clock::now();
  }

  float elapsedMs(EventHandle start, EventHandle end) override {
    auto elapsed = *static_cast<Clock::time_point *>(end) -
                   *static_cast<Clock::time_point *>(start);
    return std::chrono::duration<float, std::milli>(elapsed).count();
  }

private:
  [[noreturn]] static void fail(std::string_view what,
                                const std::string &problem) {
    throw Error(ErrorCode::Backend, std::string(what) + ": " + problem);
  }

  static void release(LoadedLibrary &library, bool unlinkPath) {
    if (unlinkPath)
      ::unlink(library.path.c_str());
    if (library.fd >= 0)
      ::close(library.fd);
    library.fd = -1;
  }

  DeviceInfo deviceInfo;
};

} // namespace

std::unique_ptr<Backend> makeHostBackend() {
  return std::make_unique<HostBackend>();
}

} // namespace tuna
