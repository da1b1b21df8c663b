//===- CudaBackend.cpp - NVIDIA GPUs through the Driver API ---------------===//
//
// One backend per device ordinal. It works in the device's primary context,
// the one the CUDA runtime (and so PyTorch) uses, and makes that context
// current on any thread that calls without one. Functions are handed out as
// pointers to a small record that keeps the CUfunction, the name used in
// messages and the dynamic shared memory the function was opened up to, so a
// launch needs no lookup.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "tuna/runtime/Backend.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

namespace tuna {

namespace {

using namespace cuda;

struct CudaFunction {
  CUfunction function = nullptr;
  std::string what; ///< "kernel 'scale' variant 'scale__v3'", for messages.
  int dynamicSharedLimit = 48 * 1024;
};

/// The sm number of "sm_90", "sm_90a" (with `arch` true for the a-suffix);
/// 0 if `chip` is not of that form.
int smNumber(std::string_view chip, bool &archSpecific) {
  archSpecific = false;
  if (chip.substr(0, 3) != "sm_")
    return 0;
  chip.remove_prefix(3);
  if (!chip.empty() && chip.back() == 'a') {
    archSpecific = true;
    chip.remove_suffix(1);
  }
  if (chip.empty() || chip.size() > 3)
    return 0;
  int value = 0;
  for (char c : chip) {
    if (c < '0' || c > '9')
      return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

class CudaBackend final : public Backend {
public:
  explicit CudaBackend(int ordinal)
      : driver(CudaDriver::get()), ordinal(ordinal) {
    std::string what = "CUDA device " + std::to_string(ordinal);
    int count = 0;
    driver.check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount", what);
    if (ordinal < 0 || ordinal >= count)
      throw Error(ErrorCode::Unsupported,
                  what + " requested, but the driver reports " +
                      std::to_string(count) + " device(s)");
    driver.check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet", what);
    driver.check(driver.cuDevicePrimaryCtxRetain(&context, device),
                 "cuDevicePrimaryCtxRetain", what);

    char name[256] = {};
    driver.check(driver.cuDeviceGetName(name, sizeof(name) - 1, device),
                 "cuDeviceGetName", what);
    int major = attribute(ComputeCapabilityMajor, what);
    int minor = attribute(ComputeCapabilityMinor, what);
    int version = 0;
    driver.check(driver.cuDriverGetVersion(&version), "cuDriverGetVersion",
                 what);
    sm = major * 10 + minor;
    deviceInfo.platform = "cuda";
    deviceInfo.name = name;
    deviceInfo.arch = "sm_" + std::to_string(sm);
    deviceInfo.driverVersion =
        std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
    deviceInfo.fingerprint = "cuda|" + deviceInfo.name + "|" + deviceInfo.arch +
                             "|driver " + deviceInfo.driverVersion;
    deviceInfo.maxThreadsPerBlock = attribute(MaxThreadsPerBlock, what);
    deviceInfo.maxSharedBytesPerBlock =
        attribute(MaxSharedMemoryPerBlockOptin, what);
    deviceInfo.multiProcessors = attribute(MultiprocessorCount, what);
  }

  ~CudaBackend() override {
    for (CudaFunction *f : functions)
      delete f;
    driver.cuDevicePrimaryCtxRelease(device);
  }

  const DeviceInfo &info() const override { return deviceInfo; }

  int objectScore(const Object &object) const override {
    constexpr std::string_view prefix = "nvptx:";
    if (object.target.compare(0, prefix.size(), prefix) != 0)
      return -1;
    bool archSpecific = false;
    int objectSm = smNumber(
        std::string_view(object.target).substr(prefix.size()), archSpecific);
    if (objectSm == 0)
      return -1;
    // Machine code runs only on its own chip; sm_XYa code only there too.
    if (object.format == "cubin")
      return objectSm == sm ? 2000 + archSpecific : -1;
    // PTX is compiled by the driver for any chip at least as new.
    if (object.format == "ptx" && !archSpecific && objectSm <= sm)
      return 1000 + objectSm;
    if (object.format == "ptx" && archSpecific && objectSm == sm)
      return 1000 + objectSm;
    return -1;
  }

  ModuleHandle loadModule(const Object &object,
                          std::string_view what) override {
    makeCurrent(what);
    char log[8192] = {};
    int options[] = {JitErrorLogBuffer, JitErrorLogBufferSizeBytes};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUmodule module = nullptr;
    // PTX must be NUL-terminated; std::string::c_str() is.
    CUresult result = driver.cuModuleLoadDataEx(&module, object.data.c_str(),
                                                2, options, values);
    if (result != CUDA_SUCCESS && log[0]) {
      try {
        driver.check(result, "cuModuleLoadDataEx", what);
      } catch (const Error &e) {
        throw Error(e.code(), std::string(e.what()) + "\n" + log);
      }
    }
    driver.check(result, "cuModuleLoadDataEx", what);
    return module;
  }

  void unloadModule(ModuleHandle module) noexcept override {
    if (module)
      driver.cuModuleUnload(static_cast<CUmodule>(module));
  }

  FunctionHandle getFunction(ModuleHandle module, const std::string &symbol,
                             std::string_view what) override {
    makeCurrent(what);
    auto record = std::make_unique<CudaFunction>();
    record->what = std::string(what);
    driver.check(driver.cuModuleGetFunction(&record->function,
                                            static_cast<CUmodule>(module),
                                            symbol.c_str()),
                 "cuModuleGetFunction", record->what + " symbol '" + symbol + "'");
    std::lock_guard<std::mutex> lock(mutex);
    functions.push_back(record.get());
    return record.release();
  }

  FunctionLimits functionLimits(FunctionHandle handle) override {
    auto *f = static_cast<CudaFunction *>(handle);
    FunctionLimits limits;
    int value = 0;
    driver.check(driver.cuFuncGetAttribute(&value, FuncMaxThreadsPerBlock,
                                           f->function),
                 "cuFuncGetAttribute", f->what);
    limits.maxThreadsPerBlock = value;
    driver.check(
        driver.cuFuncGetAttribute(&value, FuncSharedSizeBytes, f->function),
        "cuFuncGetAttribute", f->what);
    limits.staticSharedBytes = value;
    driver.check(driver.cuFuncGetAttribute(&value, FuncNumRegs, f->function),
                 "cuFuncGetAttribute", f->what);
    limits.registers = value;
    return limits;
  }

  void launch(FunctionHandle handle, StreamHandle stream,
              const LaunchDims &dims, void **params) override {
    auto *f = static_cast<CudaFunction *>(handle);
    if (dims.sharedBytes > static_cast<uint32_t>(f->dynamicSharedLimit))
      allowSharedBytes(*f, dims.sharedBytes);
    CUresult result = launchOnce(f->function, stream, dims, params);
    if (result == CUDA_ERROR_INVALID_CONTEXT) {
      // A thread that has never used this device: adopt the primary context.
      makeCurrent(f->what);
      result = launchOnce(f->function, stream, dims, params);
    }
    if (result != CUDA_SUCCESS)
      driver.check(result, "cuLaunchKernel", launchDescription(*f, dims));
  }

  void synchronize(StreamHandle stream) override {
    makeCurrent("synchronizing a stream");
    driver.check(driver.cuStreamSynchronize(static_cast<CUstream>(stream)),
                 "cuStreamSynchronize", "synchronizing a stream");
  }

  void *allocate(size_t bytes) override {
    makeCurrent("allocating scratch memory");
    CUdeviceptr ptr = 0;
    driver.check(driver.cuMemAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc",
                 "allocating " + std::to_string(bytes) +
                     " bytes of scratch memory on " + deviceInfo.name);
    return reinterpret_cast<void *>(ptr);
  }

  void deallocate(void *ptr) noexcept override {
    if (ptr)
      driver.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }

  void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
            StreamHandle stream) override {
    makeCurrent("copying memory");
    auto s = static_cast<CUstream>(stream);
    const char *call = "";
    CUresult result = CUDA_SUCCESS;
    switch (kind) {
    case CopyKind::HostToDevice:
      call = "cuMemcpyHtoDAsync";
      result = driver.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                                        src, bytes, s);
      break;
    case CopyKind::DeviceToHost:
      call = "cuMemcpyDtoHAsync";
      result = driver.cuMemcpyDtoHAsync(
          dst, reinterpret_cast<CUdeviceptr>(src), bytes, s);
      break;
    case CopyKind::DeviceToDevice:
      call = "cuMemcpyDtoDAsync";
      result = driver.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                                        reinterpret_cast<CUdeviceptr>(src),
                                        bytes, s);
      break;
    }
    std::string what = "copying " + std::to_string(bytes) + " bytes";
    driver.check(result, call, what);
    driver.check(driver.cuStreamSynchronize(s), "cuStreamSynchronize", what);
  }

  EventHandle createEvent() override {
    makeCurrent("creating a timing event");
    CUevent event = nullptr;
    driver.check(driver.cuEventCreate(&event, 0), "cuEventCreate",
                 "creating a timing event");
    return event;
  }

  void destroyEvent(EventHandle event) noexcept override {
    if (event)
      driver.cuEventDestroy(static_cast<CUevent>(event));
  }

  void recordEvent(EventHandle event, StreamHandle stream) override {
    driver.check(driver.cuEventRecord(static_cast<CUevent>(event),
                                      static_cast<CUstream>(stream)),
                 "cuEventRecord", "timing a kernel");
  }

  float elapsedMs(EventHandle start, EventHandle end) override {
    driver.check(driver.cuEventSynchronize(static_cast<CUevent>(end)),
                 "cuEventSynchronize", "timing a kernel");
    float ms = 0;
    driver.check(driver.cuEventElapsedTime(&ms, static_cast<CUevent>(start),
                                           static_cast<CUevent>(end)),
                 "cuEventElapsedTime", "timing a kernel");
    return ms;
  }

private:
  int attribute(int which, const std::string &what) const {
    int value = 0;
    driver.check(driver.cuDeviceGetAttribute(&value, which, device),
                 "cuDeviceGetAttribute", what);
    return value;
  }

  void makeCurrent(std::string_view what) const {
    CUcontext current = nullptr;
    driver.check(driver.cuCtxGetCurrent(&current), "cuCtxGetCurrent", what);
    if (current != context)
      driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent", what);
  }

  CUresult launchOnce(CUfunction function, StreamHandle stream,
                      const LaunchDims &dims, void **params) const {
    return driver.cuLaunchKernel(
        function, dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0],
        dims.block[1], dims.block[2], dims.sharedBytes,
        static_cast<CUstream>(stream), params, nullptr);
  }

  void allowSharedBytes(CudaFunction &f, uint32_t bytes) {
    driver.check(driver.cuFuncSetAttribute(f.function,
                                           FuncMaxDynamicSharedSizeBytes,
                                           static_cast<int>(bytes)),
                 "cuFuncSetAttribute", f.what);
    f.dynamicSharedLimit = static_cast<int>(bytes);
  }

  std::string launchDescription(const CudaFunction &f,
                                const LaunchDims &d) const {
    char geometry[160];
    std::snprintf(geometry, sizeof(geometry),
                  " (grid %ux%ux%u, block %ux%ux%u, %u bytes of dynamic "
                  "shared memory)",
                  d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1],
                  d.block[2], d.sharedBytes);
    return f.what + geometry;
  }

  const CudaDriver &driver;
  int ordinal;
  int sm = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  DeviceInfo deviceInfo;
  std::mutex mutex;
  std::vector<CudaFunction *> functions;
};

} // namespace

std::unique_ptr<Backend> makeCudaBackend(int ordinal) {
  return std::make_unique<CudaBackend>(ordinal);
}

} // namespace tuna
