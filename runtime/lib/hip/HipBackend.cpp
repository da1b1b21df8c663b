//===- HipBackend.cpp - AMD GPUs through the HIP module API ---------------===//
//
// Modules are handed out as pointers to a LoadedModule, which owns the
// hipModule_t and the records of the functions taken from it; functions as
// pointers to such a record (the hipFunction_t, the name used in messages,
// and its static LDS), so a launch needs no lookup.
//
// What tuning does (loading, scratch memory, synchronizing, timing) runs in
// relaxed stream capture mode, as on CUDA.
//
//===----------------------------------------------------------------------===//

#include "HipBackend.h"

#include "GpuBackend.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace tuna {

namespace hip {

struct HipBackend::Function {
  hipFunction_t function = nullptr;
  std::string what; ///< "kernel 'scale' variant 'scale__v3'", for messages.
  /// Its module's, which orders its launches (Object::moduleState); null
  /// when the module keeps no state.
  LaunchOrder *order = nullptr;
};

namespace {

struct LoadedModule {
  LoadedModule(const Api &api, int device) : api(api), device(device) {}
  ~LoadedModule() {
    RelaxedCaptureMode relaxed(api);
    ScopedDevice scope(api, device, std::nothrow);
    if (module)
      api.hipModuleUnload(module);
    if (lastLaunch)
      api.hipEventDestroy(lastLaunch);
  }

  const Api &api;
  int device;
  hipModule_t module = nullptr;
  hipEvent_t lastLaunch = nullptr; ///< For `order`.
  std::unique_ptr<HipBackend::LaunchOrder> order;
  std::mutex mutex; ///< Guards `functions`.
  std::vector<std::unique_ptr<HipBackend::Function>> functions;
};

/// A target ID split at ':' into its processor and its features.
struct TargetId {
  std::string_view processor;
  std::vector<std::string_view> features; ///< "xnack-", "sramecc+".
};

TargetId parseTargetId(std::string_view text) {
  TargetId id;
  size_t colon = text.find(':');
  id.processor = text.substr(0, colon);
  while (colon != std::string_view::npos) {
    text.remove_prefix(colon + 1);
    colon = text.find(':');
    id.features.push_back(text.substr(0, colon));
  }
  return id;
}

/// Whether code for the generic target `generic` runs on `processor`
/// (LLVM's AMDGPUUsage, "Generic Processor Versioning").
bool covers(std::string_view generic, std::string_view processor) {
  static const std::pair<std::string_view, std::vector<std::string_view>>
      families[] = {
          {"gfx9-generic",
           {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
          {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
          {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
          {"gfx10-3-generic",
           {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
            "gfx1036"}},
          {"gfx11-generic",
           {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151",
            "gfx1152", "gfx1153"}},
          {"gfx12-generic", {"gfx1200", "gfx1201"}}};
  for (const auto &[name, members] : families)
    if (name == generic)
      for (std::string_view member : members)
        if (member == processor)
          return true;
  return false;
}

hipError_t launchOnce(const Api &hip, hipFunction_t function,
                      hipStream_t stream, const LaunchDims &dims,
                      void **params) {
  return hip.hipModuleLaunchKernel(
      function, dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0],
      dims.block[1], dims.block[2], dims.sharedBytes, stream, params, nullptr);
}

/// "6.2.41133" from HIP's major * 10^7 + minor * 10^5 + patch.
std::string versionText(int version) {
  return std::to_string(version / 10000000) + "." +
         std::to_string(version / 100000 % 100) + "." +
         std::to_string(version % 100000);
}

} // namespace

int targetIdScore(std::string_view object, std::string_view device) {
  TargetId code = parseTargetId(object);
  TargetId gpu = parseTargetId(device);
  int score;
  if (code.processor == gpu.processor)
    score = 2000;
  else if (covers(code.processor, gpu.processor))
    score = 1000;
  else
    return -1;
  for (std::string_view feature : code.features) {
    bool matched = false;
    for (std::string_view setting : gpu.features)
      matched |= setting == feature;
    if (!matched)
      return -1;
    ++score;
  }
  return score;
}

HipBackend::HipBackend(int ordinal, const std::string &library)
    : hip(Api::get(library)), ordinal(ordinal) {
  std::string what = "HIP device " + std::to_string(ordinal);
  int count = 0;
  hipError_t result = hip.hipGetDeviceCount(&count);
  // hipErrorNoDevice: ROCm is installed, no GPU is visible.
  if (result != hipSuccess || ordinal < 0 || ordinal >= count)
    throw Error(ErrorCode::Unsupported,
                result != hipSuccess
                    ? hip.message(result, "hipGetDeviceCount", what)
                    : what + " requested, but " + hip.library + " reports " +
                          std::to_string(count) + " device(s)");
  hipDevice_t device = 0;
  TUNA_HIP(hip, what, hipDeviceGet, &device, ordinal);

  char name[256] = {};
  TUNA_HIP(hip, what, hipDeviceGetName, name, sizeof(name) - 1, device);
  int driver = 0, runtime = 0;
  TUNA_HIP(hip, what, hipDriverGetVersion, &driver);
  TUNA_HIP(hip, what, hipRuntimeGetVersion, &runtime);

  deviceInfo.platform = "hip";
  deviceInfo.ordinal = ordinal;
  deviceInfo.arch = readTargetId(what);
  deviceInfo.driverVersion = versionText(driver);
  if (runtime != driver)
    deviceInfo.driverVersion += " (runtime " + versionText(runtime) + ")";
  // Per CU, HIP states threads and LDS (what the pruning model's occupancy
  // uses, Prune.h) but no register file or block limit.
  gpu::readLimits(
      deviceInfo,
      gpu::LimitAttributes<hipDeviceAttribute_t>{
          hipDeviceAttributeMaxThreadsPerBlock,
          hipDeviceAttributeMaxSharedMemoryPerBlock,
          hipDeviceAttributeMultiprocessorCount,
          hipDeviceAttributeWarpSize,
          {hipDeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimX + 1,
           hipDeviceAttributeMaxGridDimX + 2},
          {hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimX + 1,
           hipDeviceAttributeMaxBlockDimX + 2},
          hipDeviceAttributeMaxThreadsPerMultiProcessor,
          hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
          hipDeviceAttributeL2CacheSize},
      [&](hipDeviceAttribute_t which) { return attribute(which, what); });
  // The tuning cache keys decisions by name, arch and driver: what changes
  // which variant is fastest beyond the marketing name and the target ID
  // (a partition mode's CU count, the LDS and wavefront size) goes into
  // the name.
  deviceInfo.name = std::string(name) + " (" +
                    std::to_string(deviceInfo.multiProcessors) + " CUs, " +
                    std::to_string(deviceInfo.maxSharedBytesPerBlock / 1024) +
                    " KiB LDS, wave" + std::to_string(deviceInfo.warpSize) +
                    ")";
  deviceInfo.fingerprint = "hip|" + deviceInfo.name + "|" + deviceInfo.arch +
                           "|driver " + deviceInfo.driverVersion;
}

HipBackend::~HipBackend() { deallocate(evictionBuffer); }

std::string HipBackend::readTargetId(const std::string &what) const {
  // ROCm 6 fills hipDeviceProp_tR0600; ROCm 5 its older hipDeviceProp_t,
  // whose gcnArchName lies elsewhere (docs/toolchain-notes.md).
  std::vector<char> props(kDevicePropBufferSize, 0);
  size_t offset;
  if (hip.hipGetDevicePropertiesR0600) {
    TUNA_HIP(hip, what, hipGetDevicePropertiesR0600, props.data(), ordinal);
    offset = kGcnArchNameOffsetR0600;
  } else {
    TUNA_HIP(hip, what, hipGetDeviceProperties, props.data(), ordinal);
    offset = kGcnArchNameOffsetR0000;
  }
  const char *field = props.data() + offset;
  size_t length = strnlen(field, kGcnArchNameSize);
  std::string name(field, length);
  if (length == kGcnArchNameSize || name.compare(0, 3, "gfx") != 0)
    throw Error(ErrorCode::Unsupported,
                what + ": the device properties from " + hip.library +
                    " have no gcnArchName starting with 'gfx' where " +
                    (hip.hipGetDevicePropertiesR0600
                         ? "hipDeviceProp_tR0600"
                         : "ROCm 5's hipDeviceProp_t") +
                    " has it: an unknown ROCm version");
  return name;
}

int HipBackend::objectScore(const Object &object) const {
  constexpr std::string_view prefix = "amdgcn:";
  // AMDGCN assembly is for reading; only code objects load.
  if (object.format != "hsaco" ||
      object.target.compare(0, prefix.size(), prefix) != 0)
    return -1;
  return targetIdScore(std::string_view(object.target).substr(prefix.size()),
                       deviceInfo.arch);
}

ModuleHandle HipBackend::loadModule(const Object &object,
                                    std::string_view what) {
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, what);
  auto module = std::make_unique<LoadedModule>(hip, ordinal);
  hipError_t result = hip.hipModuleLoadData(&module->module, object.data.data());
  if (result != hipSuccess)
    throw Error(ErrorCode::Backend,
                hip.message(result, "hipModuleLoadData", what) +
                    " (code object for " + object.target + ", device " +
                    deviceInfo.arch + ")");
  if (object.moduleState) {
    TUNA_HIP(hip, std::string(what) + ": creating its launch order's event",
             hipEventCreate, &module->lastLaunch);
    module->order =
        std::make_unique<LaunchOrder>(module->lastLaunch, hipStreamPerThread);
  }
  return module.release();
}

void HipBackend::unloadModule(ModuleHandle module) noexcept {
  delete static_cast<LoadedModule *>(module);
}

FunctionHandle HipBackend::getFunction(ModuleHandle handle,
                                       const std::string &symbol,
                                       std::string_view what) {
  auto &module = *static_cast<LoadedModule *>(handle);
  auto record = std::make_unique<Function>();
  record->what = std::string(what);
  {
    RelaxedCaptureMode relaxed(hip);
    ScopedDevice scope(hip, ordinal, record->what);
    TUNA_HIP(hip, record->what + ": symbol '" + symbol + "'",
             hipModuleGetFunction, &record->function, module.module,
             symbol.c_str());
  }
  record->order = module.order.get();
  std::lock_guard<std::mutex> lock(module.mutex);
  module.functions.push_back(std::move(record));
  return module.functions.back().get();
}

FunctionLimits HipBackend::functionLimits(FunctionHandle handle) {
  auto &f = *static_cast<Function *>(handle);
  ScopedDevice scope(hip, ordinal, f.what);
  auto get = [&](hipFunction_attribute which) {
    int value = 0;
    TUNA_HIP(hip, f.what, hipFuncGetAttribute, &value, which, f.function);
    return value;
  };
  FunctionLimits limits;
  limits.maxThreadsPerBlock = get(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  limits.staticSharedBytes = get(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  limits.registers = get(HIP_FUNC_ATTRIBUTE_NUM_REGS);
  return limits;
}

int HipBackend::residentBlocksPerMultiprocessor(FunctionHandle handle,
                                                const LaunchDims &dims) {
  auto &f = *static_cast<Function *>(handle);
  ScopedDevice scope(hip, ordinal, f.what);
  int blocks = 0;
  TUNA_HIP(hip, f.what, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor,
           &blocks, f.function,
           static_cast<int>(gpu::threadsPerBlock(dims)), dims.sharedBytes);
  return blocks;
}

void HipBackend::launch(FunctionHandle handle, StreamHandle stream,
                        const LaunchDims &dims, void **params) {
  auto &f = *static_cast<Function *>(handle);
  if (f.order) {
    launchInOrder(f, static_cast<hipStream_t>(stream), dims, params);
    return;
  }
  hipError_t result;
  {
    // Switches only when the calling thread's device is another one.
    ScopedDevice scope(hip, ordinal, f.what);
    result = launchOnce(hip, f.function, static_cast<hipStream_t>(stream), dims,
                        params);
  }
  if (result != hipSuccess)
    launchFailed(f, dims, result);
}

void HipBackend::launchInOrder(const Function &f, hipStream_t stream,
                               const LaunchDims &dims, void **params) {
  struct Calls {
    HipBackend &backend;
    const Function &f;
    hipStream_t stream;
    const LaunchDims &dims;
    void **params;

    bool capturing(hipStream_t s) { return backend.isCapturing(s); }
    void wait(hipStream_t s, hipEvent_t lastLaunch) {
      TUNA_HIP(backend.hip, f.what + ": waiting for its module's last launch",
               hipStreamWaitEvent, s, lastLaunch, 0);
    }
    void launch() {
      hipError_t result =
          launchOnce(backend.hip, f.function, stream, dims, params);
      if (result != hipSuccess)
        backend.launchFailed(f, dims, result);
    }
    void record(hipEvent_t lastLaunch, hipStream_t s) {
      TUNA_HIP(backend.hip, f.what + ": recording its launch", hipEventRecord,
               lastLaunch, s);
    }
  };
  ScopedDevice scope(hip, ordinal, f.what);
  f.order->launch(stream, Calls{*this, f, stream, dims, params});
}

void HipBackend::launchFailed(const Function &f, const LaunchDims &dims,
                              hipError_t result) {
  std::string message =
      hip.message(result, "hipModuleLaunchKernel",
                  f.what + gpu::launchGeometry(dims, "LDS"));
  // Say which limit the geometry broke, where HIP does not.
  ScopedDevice scope(hip, ordinal, std::nothrow);
  int maxThreads = 0, staticShared = 0;
  if (hip.hipFuncGetAttribute(&maxThreads,
                              HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                              f.function) == hipSuccess)
    message += gpu::blockLimitExceeded(dims, maxThreads, deviceInfo.arch);
  if (hip.hipFuncGetAttribute(&staticShared,
                              HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                              f.function) == hipSuccess &&
      int64_t(dims.sharedBytes) + staticShared >
          deviceInfo.maxSharedBytesPerBlock)
    message += "; " + std::to_string(dims.sharedBytes) +
               " bytes of dynamic LDS and " + std::to_string(staticShared) +
               " static exceed the " +
               std::to_string(deviceInfo.maxSharedBytesPerBlock) +
               " bytes a workgroup has on " + deviceInfo.arch;
  throw Error(ErrorCode::Backend, message);
}

void HipBackend::synchronize(StreamHandle stream) {
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, "synchronizing a stream");
  TUNA_HIP(hip, "synchronizing a stream", hipStreamSynchronize,
           static_cast<hipStream_t>(stream));
}

bool HipBackend::isCapturing(StreamHandle stream) {
  ScopedDevice scope(hip, ordinal, "asking whether a stream captures");
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  hipError_t result =
      hip.hipStreamIsCapturing(static_cast<hipStream_t>(stream), &status);
  return gpu::isCapturing(hip, "hipStreamIsCapturing", result,
                          hipErrorStreamCaptureImplicit,
                          status != hipStreamCaptureStatusNone);
}

void *HipBackend::allocate(size_t bytes) {
  std::string what =
      "allocating " + std::to_string(bytes) + " bytes on the device";
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, what);
  void *ptr = nullptr;
  TUNA_HIP(hip, what, hipMalloc, &ptr, bytes ? bytes : 1);
  return ptr;
}

void HipBackend::deallocate(void *ptr) noexcept {
  if (!ptr)
    return;
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, std::nothrow);
  hip.hipFree(ptr);
}

void HipBackend::copy(void *dst, const void *src, size_t bytes, CopyKind kind,
                      StreamHandle stream) {
  std::string what = "copying " + std::to_string(bytes) + " bytes";
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, what);
  auto s = static_cast<hipStream_t>(stream);
  hipMemcpyKind direction = kind == CopyKind::HostToDevice
                                ? hipMemcpyHostToDevice
                            : kind == CopyKind::DeviceToHost
                                ? hipMemcpyDeviceToHost
                                : hipMemcpyDeviceToDevice;
  TUNA_HIP(hip, what, hipMemcpyAsync, dst, src, bytes, direction, s);
  TUNA_HIP(hip, what, hipStreamSynchronize, s);
}

void HipBackend::evictCache(StreamHandle stream) {
  size_t bytes = gpu::evictionBytes(deviceInfo);
  {
    std::lock_guard<std::mutex> lock(evictionMutex);
    if (!evictionBuffer)
      evictionBuffer = allocate(bytes);
  }
  std::string what = "evicting the L2 cache";
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, what);
  TUNA_HIP(hip, what, hipMemsetAsync, evictionBuffer, 0, bytes,
           static_cast<hipStream_t>(stream));
}

EventHandle HipBackend::createEvent() {
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, "creating a timing event");
  hipEvent_t event = nullptr;
  TUNA_HIP(hip, "creating a timing event", hipEventCreate, &event);
  return event;
}

void HipBackend::destroyEvent(EventHandle event) noexcept {
  if (!event)
    return;
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, std::nothrow);
  hip.hipEventDestroy(static_cast<hipEvent_t>(event));
}

void HipBackend::recordEvent(EventHandle event, StreamHandle stream) {
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, "timing a kernel");
  TUNA_HIP(hip, "timing a kernel", hipEventRecord,
           static_cast<hipEvent_t>(event), static_cast<hipStream_t>(stream));
}

float HipBackend::elapsedMs(EventHandle start, EventHandle end) {
  RelaxedCaptureMode relaxed(hip);
  ScopedDevice scope(hip, ordinal, "timing a kernel");
  TUNA_HIP(hip, "timing a kernel", hipEventSynchronize,
           static_cast<hipEvent_t>(end));
  float ms = 0;
  TUNA_HIP(hip, "timing a kernel", hipEventElapsedTime, &ms,
           static_cast<hipEvent_t>(start), static_cast<hipEvent_t>(end));
  return ms;
}

int HipBackend::attribute(hipDeviceAttribute_t which,
                          const std::string &what) const {
  int value = 0;
  TUNA_HIP(hip, what, hipDeviceGetAttribute, &value, which, ordinal);
  return value;
}

} // namespace hip

std::unique_ptr<Backend> makeHipBackend(int ordinal,
                                        const std::string &library) {
  return std::make_unique<hip::HipBackend>(ordinal, library);
}

} // namespace tuna
