//===- CudaBackend.cpp - NVIDIA GPUs through the Driver API ---------------===//
//
// Modules are handed out as pointers to a LoadedModule, which owns the
// CUmodule and the records of the functions taken from it; functions as
// pointers to such a record (the CUfunction, the name used in messages, and
// the dynamic shared memory the function was opened up to), so a launch
// needs no lookup.
//
// What tuning does (loading, scratch memory, synchronizing, timing) runs in
// relaxed stream capture mode (RelaxedCaptureMode), so that it neither fails
// nor invalidates a graph capture that another thread began in global mode.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"

#include "GpuBackend.h"
#include "TensorMapRules.h"

#include "tuna/runtime/Options.h"
#include "tuna/runtime/PhaseTimes.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace tuna {

namespace cuda {

/// Shared memory (static and dynamic together) every function may use
/// without opting in.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
/// The blocks of a cluster every chip with clusters runs; Hopper runs up to
/// 16 in a function that allows it.
constexpr int kPortableClusterBlocks = 8;

struct CudaBackend::Function {
  CUfunction function = nullptr;
  std::string what; ///< "kernel 'scale' variant 'scale__v3'", for messages.
  /// Dynamic shared memory a launch may ask for without raising the
  /// function's limit: 48 KiB less its static shared memory until then.
  std::atomic<uint32_t> sharedLimit{kDefaultSharedLimit};
  /// Launched with programmatic stream serialization (Object::gridDependency
  /// on a device and driver that have it).
  bool dependentLaunch = false;
  /// Its module's, which orders its launches (Object::moduleState); null
  /// when the module keeps no state.
  LaunchOrder *order = nullptr;
};

namespace {

struct LoadedModule {
  LoadedModule(const Driver &driver, CUcontext context, const Object &object,
               std::string_view what)
      : module(driver, context, object.data.c_str(), what),
        gridDependency(object.gridDependency) {
    if (object.moduleState) {
      lastLaunch.emplace(driver, context, CU_EVENT_DISABLE_TIMING);
      order = std::make_unique<CudaBackend::LaunchOrder>(lastLaunch->get(),
                                                         CU_STREAM_PER_THREAD);
    }
  }

  Module module;
  bool gridDependency;
  std::optional<Event> lastLaunch;
  std::unique_ptr<CudaBackend::LaunchOrder> order;
  std::mutex mutex; ///< Guards `functions`.
  std::vector<std::unique_ptr<CudaBackend::Function>> functions;
};

/// The number of "sm_90" or "sm_90a" (`archSpecific` says which); 0 if
/// `chip` is not of that form.
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

/// The driver, loaded and initialized (cuInit) on first use.
const Driver &loadDriver() {
  TimedPhase phase("driver load and cuInit");
  return Driver::get();
}

// TensorMapEncoding spells cuda.h's enums by their values.
using Encoding = TensorMapEncoding;
static_assert(
    uint64_t(Encoding::DataType::UInt8) == CU_TENSOR_MAP_DATA_TYPE_UINT8 &&
        uint64_t(Encoding::DataType::UInt16) ==
            CU_TENSOR_MAP_DATA_TYPE_UINT16 &&
        uint64_t(Encoding::DataType::Int32) == CU_TENSOR_MAP_DATA_TYPE_INT32 &&
        uint64_t(Encoding::DataType::Int64) == CU_TENSOR_MAP_DATA_TYPE_INT64 &&
        uint64_t(Encoding::DataType::Float16) ==
            CU_TENSOR_MAP_DATA_TYPE_FLOAT16 &&
        uint64_t(Encoding::DataType::Float32) ==
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32 &&
        uint64_t(Encoding::DataType::Float64) ==
            CU_TENSOR_MAP_DATA_TYPE_FLOAT64 &&
        uint64_t(Encoding::DataType::BFloat16) ==
            CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    "TensorMapEncoding::DataType must match CUtensorMapDataType");
static_assert(
    uint64_t(Encoding::Swizzle::None) == CU_TENSOR_MAP_SWIZZLE_NONE &&
        uint64_t(Encoding::Swizzle::B32) == CU_TENSOR_MAP_SWIZZLE_32B &&
        uint64_t(Encoding::Swizzle::B64) == CU_TENSOR_MAP_SWIZZLE_64B &&
        uint64_t(Encoding::Swizzle::B128) == CU_TENSOR_MAP_SWIZZLE_128B,
    "TensorMapEncoding::Swizzle must match CUtensorMapSwizzle");
static_assert(
    uint64_t(Encoding::L2Promotion::None) == CU_TENSOR_MAP_L2_PROMOTION_NONE &&
        uint64_t(Encoding::L2Promotion::B64) ==
            CU_TENSOR_MAP_L2_PROMOTION_L2_64B &&
        uint64_t(Encoding::L2Promotion::B128) ==
            CU_TENSOR_MAP_L2_PROMOTION_L2_128B &&
        uint64_t(Encoding::L2Promotion::B256) ==
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    "TensorMapEncoding::L2Promotion must match CUtensorMapL2promotion");
static_assert(uint64_t(Encoding::OobFill::None) ==
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE &&
                  uint64_t(Encoding::OobFill::NaNRequestZeroFma) ==
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
              "TensorMapEncoding::OobFill must match CUtensorMapFloatOOBfill");

CUresult launchOnce(const Driver &cu, const CudaBackend::Function &f,
                    CUstream stream, const LaunchDims &dims, void **params) {
  if (!f.dependentLaunch)
    return cu.cuLaunchKernel(f.function, dims.grid[0], dims.grid[1],
                             dims.grid[2], dims.block[0], dims.block[1],
                             dims.block[2], dims.sharedBytes, stream, params,
                             nullptr);
  CUlaunchAttribute serialization = {};
  serialization.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  serialization.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = {};
  config.gridDimX = dims.grid[0];
  config.gridDimY = dims.grid[1];
  config.gridDimZ = dims.grid[2];
  config.blockDimX = dims.block[0];
  config.blockDimY = dims.block[1];
  config.blockDimZ = dims.block[2];
  config.sharedMemBytes = dims.sharedBytes;
  config.hStream = stream;
  config.attrs = &serialization;
  config.numAttrs = 1;
  return cu.cuLaunchKernelEx(&config, f.function, params, nullptr);
}

} // namespace

CudaBackend::CudaBackend(int ordinal) : cu(loadDriver()) {
  std::string what = "CUDA device " + std::to_string(ordinal);
  int count = 0;
  TUNA_CU(cu, what, cuDeviceGetCount, &count);
  if (ordinal < 0 || ordinal >= count)
    throw Error(ErrorCode::Unsupported,
                what + " requested, but the driver reports " +
                    std::to_string(count) + " device(s)");
  TUNA_CU(cu, what, cuDeviceGet, &device, ordinal);

  // Work where the application works, if it already uses this device.
  CUcontext current = nullptr;
  CUdevice currentDevice = -1;
  TUNA_CU(cu, what, cuCtxGetCurrent, &current);
  if (current && cu.cuCtxGetDevice(&currentDevice) == CUDA_SUCCESS &&
      currentDevice == device) {
    ctx = current;
  } else {
    TimedPhase phase("context creation");
    TUNA_CU(cu, what, cuDevicePrimaryCtxRetain, &ctx, device);
    retainedPrimary = true;
  }

  char name[256] = {};
  TUNA_CU(cu, what, cuDeviceGetName, name, sizeof(name) - 1, device);
  int major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, what);
  int minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, what);
  int version = 0;
  TUNA_CU(cu, what, cuDriverGetVersion, &version);
  sm = major * 10 + minor;
  dependentLaunches = sm >= 90 && cu.cuLaunchKernelEx &&
                      environmentFlag("TUNA_GRID_DEPENDENCY", true);
  deviceInfo.platform = "cuda";
  deviceInfo.ordinal = ordinal;
  deviceInfo.name = name;
  deviceInfo.arch = "sm_" + std::to_string(sm);
  deviceInfo.driverVersion = std::to_string(version / 1000) + "." +
                             std::to_string(version % 1000 / 10);
  deviceInfo.fingerprint = "cuda|" + deviceInfo.name + "|" + deviceInfo.arch +
                           "|driver " + deviceInfo.driverVersion;
  auto read = [&](CUdevice_attribute which) { return attribute(which, what); };
  gpu::readLimits(
      deviceInfo,
      gpu::LimitAttributes<CUdevice_attribute>{
          CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
          CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
          CU_DEVICE_ATTRIBUTE_WARP_SIZE,
          {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
          {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
           CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
           CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z},
          CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
          CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
      read);
  deviceInfo.maxBlocksPerMultiprocessor =
      read(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  deviceInfo.registersPerMultiprocessor =
      read(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  deviceInfo.reservedSharedBytesPerBlock =
      read(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  mapSupport = cudaTensorMapSupport(sm, cu.cuTensorMapEncodeTiled != nullptr,
                                    deviceInfo.name);
}

CudaBackend::~CudaBackend() {
  evictionBuffer.reset();
  if (retainedPrimary)
    cu.cuDevicePrimaryCtxRelease(device);
}

int CudaBackend::objectScore(const Object &object) const {
  constexpr std::string_view prefix = "nvptx:";
  if (object.target.compare(0, prefix.size(), prefix) != 0)
    return -1;
  bool archSpecific = false;
  int objectSm = smNumber(std::string_view(object.target).substr(prefix.size()),
                          archSpecific);
  if (objectSm == 0)
    return -1;
  // Machine code runs on its own chip only.
  if (object.format == "cubin")
    return objectSm == sm ? 2000 + archSpecific : -1;
  if (object.format != "ptx")
    return -1;
  // The driver compiles PTX for any chip at least as new, except PTX that
  // uses sm_XYa features: that runs on sm_XY only.
  if (archSpecific ? objectSm == sm : objectSm <= sm)
    return 1000 + objectSm;
  return -1;
}

ModuleHandle CudaBackend::loadModule(const Object &object,
                                     std::string_view what) {
  RelaxedCaptureMode relaxed(cu);
  return new LoadedModule(cu, ctx, object, what);
}

void CudaBackend::unloadModule(ModuleHandle module) noexcept {
  RelaxedCaptureMode relaxed(cu);
  delete static_cast<LoadedModule *>(module);
}

void CudaBackend::allowLargeCluster(Function &f) {
  int blocks = 1;
  for (CUfunction_attribute dimension :
       {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH}) {
    // A driver that cannot say leaves the function as it is: a cluster it
    // cannot launch then fails at its launch, with the driver's reason.
    int size = 0;
    if (cu.cuFuncGetAttribute(&size, dimension, f.function) != CUDA_SUCCESS)
      return;
    blocks *= std::max(size, 1);
  }
  // A compiled-in cluster of more than the portable 8 blocks (Hopper runs
  // up to 16) launches only with this set: CUDA_ERROR_INVALID_CLUSTER_SIZE
  // otherwise.
  if (blocks > kPortableClusterBlocks)
    TUNA_CU(cu, f.what, cuFuncSetAttribute, f.function,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
}

FunctionHandle CudaBackend::getFunction(ModuleHandle handle,
                                        const std::string &symbol,
                                        std::string_view what) {
  auto &module = *static_cast<LoadedModule *>(handle);
  auto record = std::make_unique<Function>();
  record->what = std::string(what);
  {
    // With lazy loading (CUDA_MODULE_LOADING=LAZY), this loads the code.
    RelaxedCaptureMode relaxed(cu);
    ScopedContext scope(cu, ctx);
    TUNA_CU(cu, record->what + ": symbol '" + symbol + "'", cuModuleGetFunction,
            &record->function, module.module.get(), symbol.c_str());
    int staticShared = 0;
    TUNA_CU(cu, record->what, cuFuncGetAttribute, &staticShared,
            CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, record->function);
    record->sharedLimit.store(staticShared >= int(kDefaultSharedLimit)
                                  ? 0
                                  : kDefaultSharedLimit -
                                        static_cast<uint32_t>(staticShared),
                              std::memory_order_relaxed);
    if (sm >= 90)
      allowLargeCluster(*record);
    record->dependentLaunch = dependentLaunches && module.gridDependency;
    record->order = module.order.get();
  }
  std::lock_guard<std::mutex> lock(module.mutex);
  module.functions.push_back(std::move(record));
  return module.functions.back().get();
}

FunctionLimits CudaBackend::functionLimits(FunctionHandle handle) {
  auto &f = *static_cast<Function *>(handle);
  ScopedContext scope(cu, ctx);
  auto get = [&](CUfunction_attribute which) {
    int value = 0;
    TUNA_CU(cu, f.what, cuFuncGetAttribute, &value, which, f.function);
    return value;
  };
  FunctionLimits limits;
  limits.maxThreadsPerBlock = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  limits.staticSharedBytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  limits.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  limits.localBytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  return limits;
}

int CudaBackend::residentBlocksPerMultiprocessor(FunctionHandle handle,
                                                 const LaunchDims &dims) {
  auto &f = *static_cast<Function *>(handle);
  // The answer for dynamic shared memory over the function's current limit
  // is 0: open the function up first, as a launch would.
  if (dims.sharedBytes > f.sharedLimit.load(std::memory_order_relaxed))
    allowSharedBytes(f, dims.sharedBytes);
  ScopedContext scope(cu, ctx);
  int blocks = 0;
  TUNA_CU(cu, f.what, cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks,
          f.function,
          static_cast<int>(gpu::threadsPerBlock(dims)), dims.sharedBytes);
  return blocks;
}

void CudaBackend::launch(FunctionHandle handle, StreamHandle stream,
                         const LaunchDims &dims, void **params) {
  auto &f = *static_cast<Function *>(handle);
  if (dims.sharedBytes > f.sharedLimit.load(std::memory_order_relaxed))
    allowSharedBytes(f, dims.sharedBytes);
  auto s = static_cast<CUstream>(stream);
  if (f.order) {
    launchInOrder(f, s, dims, params);
    return;
  }
  CUresult result = launchOnce(cu, f, s, dims, params);
  if (result != CUDA_SUCCESS)
    relaunch(f, s, dims, params, result);
}

void CudaBackend::launchInOrder(Function &f, CUstream stream,
                                const LaunchDims &dims, void **params) {
  struct Calls {
    CudaBackend &backend;
    Function &f;
    CUstream stream;
    const LaunchDims &dims;
    void **params;

    bool capturing(CUstream s) { return backend.isCapturing(s); }
    void wait(CUstream s, CUevent lastLaunch) {
      TUNA_CU(backend.cu, f.what + ": waiting for its module's last launch",
              cuStreamWaitEvent, s, lastLaunch, 0);
    }
    void launch() {
      CUresult result = launchOnce(backend.cu, f, stream, dims, params);
      if (result != CUDA_SUCCESS)
        backend.launchFailed(f, dims, result);
    }
    void record(CUevent lastLaunch, CUstream s) {
      TUNA_CU(backend.cu, f.what + ": recording its launch", cuEventRecord,
              lastLaunch, s);
    }
  };
  ScopedContext scope(cu, ctx);
  f.order->launch(stream, Calls{*this, f, stream, dims, params});
}

void CudaBackend::relaunch(Function &f, CUstream stream, const LaunchDims &dims,
                           void **params, CUresult result) {
  CUcontext current = nullptr;
  TUNA_CU(cu, f.what, cuCtxGetCurrent, &current);
  if (current == ctx)
    launchFailed(f, dims, result);
  if (!current) {
    // A thread that never used the device: adopt this context, so that its
    // next launches take the fast path.
    TUNA_CU(cu, f.what, cuCtxSetCurrent, ctx);
    result = launchOnce(cu, f, stream, dims, params);
  } else {
    ScopedContext scope(cu, ctx);
    result = launchOnce(cu, f, stream, dims, params);
  }
  if (result != CUDA_SUCCESS)
    launchFailed(f, dims, result);
}

void CudaBackend::launchFailed(Function &f, const LaunchDims &dims,
                               CUresult result) {
  std::string message =
      cu.message(result,
                 f.dependentLaunch ? "cuLaunchKernelEx" : "cuLaunchKernel",
                 f.what + gpu::launchGeometry(dims, "shared memory"));
  ScopedContext scope(cu, ctx);
  int maxThreads = 0;
  if (cu.cuFuncGetAttribute(&maxThreads,
                            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                            f.function) == CUDA_SUCCESS)
    message += gpu::blockLimitExceeded(dims, maxThreads, deviceInfo.name);
  throw Error(ErrorCode::Backend, message);
}

void CudaBackend::allowSharedBytes(Function &f, uint32_t bytes) {
  ScopedContext scope(cu, ctx);
  TUNA_CU(cu,
          f.what + ": allowing " + std::to_string(bytes) +
              " bytes of dynamic shared memory",
          cuFuncSetAttribute, f.function,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(bytes));
  f.sharedLimit.store(bytes, std::memory_order_relaxed);
}

void CudaBackend::synchronize(StreamHandle stream) {
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  TUNA_CU(cu, "synchronizing a stream", cuStreamSynchronize,
          static_cast<CUstream>(stream));
}

bool CudaBackend::isCapturing(StreamHandle stream) {
  ScopedContext scope(cu, ctx);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result =
      cu.cuStreamIsCapturing(static_cast<CUstream>(stream), &status);
  return gpu::isCapturing(cu, "cuStreamIsCapturing", result,
                          CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                          status != CU_STREAM_CAPTURE_STATUS_NONE);
}

void CudaBackend::encodeTensorMap(const TensorMapEncoding &encoding,
                                  TensorMapBytes &map, std::string_view what) {
  if (!mapSupport.empty())
    throw Error(ErrorCode::Unsupported, std::string(what) + ": " + mapSupport);
  cuuint64_t dims[kMaxTensorMapRank], strides[kMaxTensorMapRank - 1];
  cuuint32_t box[kMaxTensorMapRank], elementStrides[kMaxTensorMapRank];
  for (int i = 0; i < kMaxTensorMapRank; ++i) {
    dims[i] = encoding.globalDim[i];
    box[i] = static_cast<cuuint32_t>(encoding.boxDim[i]);
    elementStrides[i] = static_cast<cuuint32_t>(encoding.elementStrides[i]);
    if (i + 1 < kMaxTensorMapRank)
      strides[i] = encoding.globalStrides[i];
  }
  CUtensorMap encoded;
  // Host work, yet the driver refuses it without a current context.
  ScopedContext scope(cu, ctx);
  TUNA_CU(cu, what, cuTensorMapEncodeTiled, &encoded,
          static_cast<CUtensorMapDataType>(encoding.dataType),
          static_cast<cuuint32_t>(encoding.rank),
          reinterpret_cast<void *>(encoding.address), dims, strides, box,
          elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
          static_cast<CUtensorMapSwizzle>(encoding.swizzle),
          static_cast<CUtensorMapL2promotion>(encoding.l2Promotion),
          static_cast<CUtensorMapFloatOOBfill>(encoding.oobFill));
  static_assert(sizeof(encoded) == sizeof(map), "a CUtensorMap is 128 bytes");
  std::memcpy(&map, &encoded, sizeof(map));
}

void *CudaBackend::allocate(size_t bytes) {
  RelaxedCaptureMode relaxed(cu);
  return reinterpret_cast<void *>(DeviceMemory(cu, ctx, bytes).release());
}

void CudaBackend::deallocate(void *ptr) noexcept {
  if (!ptr)
    return;
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  cu.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

void CudaBackend::copy(void *dst, const void *src, size_t bytes, CopyKind kind,
                       StreamHandle stream) {
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  auto s = static_cast<CUstream>(stream);
  auto dptr = [](const void *p) { return reinterpret_cast<CUdeviceptr>(p); };
  std::string what = "copying " + std::to_string(bytes) + " bytes";
  switch (kind) {
  case CopyKind::HostToDevice:
    TUNA_CU(cu, what, cuMemcpyHtoDAsync, dptr(dst), src, bytes, s);
    break;
  case CopyKind::DeviceToHost:
    TUNA_CU(cu, what, cuMemcpyDtoHAsync, dst, dptr(src), bytes, s);
    break;
  case CopyKind::DeviceToDevice:
    TUNA_CU(cu, what, cuMemcpyDtoDAsync, dptr(dst), dptr(src), bytes, s);
    break;
  }
  TUNA_CU(cu, what, cuStreamSynchronize, s);
}

void CudaBackend::evictCache(StreamHandle stream) {
  size_t words = gpu::evictionBytes(deviceInfo) / 4;
  RelaxedCaptureMode relaxed(cu);
  {
    std::lock_guard<std::mutex> lock(evictionMutex);
    if (!evictionBuffer)
      evictionBuffer = std::make_unique<DeviceMemory>(cu, ctx, words * 4);
  }
  ScopedContext scope(cu, ctx);
  TUNA_CU(cu, "evicting the L2 cache", cuMemsetD32Async, evictionBuffer->get(),
          0, words, static_cast<CUstream>(stream));
}

std::optional<ExportedMemory> CudaBackend::exportMemory(const void *pointer) {
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  auto address = reinterpret_cast<CUdeviceptr>(pointer);
  CUdeviceptr base = 0;
  size_t size = 0;
  CUipcMemHandle handle;
  // Memory the driver cannot export (host memory, virtual memory
  // management, stream-ordered pools) goes by copy.
  if (cu.cuMemGetAddressRange(&base, &size, address) != CUDA_SUCCESS ||
      cu.cuIpcGetMemHandle(&handle, base) != CUDA_SUCCESS)
    return std::nullopt;
  return ExportedMemory{std::string(handle.reserved, sizeof(handle.reserved)),
                        static_cast<size_t>(address - base)};
}

void *CudaBackend::importMemory(const std::string &bytes) {
  CUipcMemHandle handle;
  if (bytes.size() != sizeof(handle.reserved))
    throw Error(ErrorCode::InvalidArgument,
                "importing memory: a handle of " +
                    std::to_string(bytes.size()) + " bytes, not " +
                    std::to_string(sizeof(handle.reserved)));
  std::copy(bytes.begin(), bytes.end(), handle.reserved);
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  CUdeviceptr base = 0;
  TUNA_CU(cu, "importing another process's memory", cuIpcOpenMemHandle, &base,
          handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  return reinterpret_cast<void *>(base);
}

void CudaBackend::closeImportedMemory(void *base) noexcept {
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  cu.cuIpcCloseMemHandle(reinterpret_cast<CUdeviceptr>(base));
}

EventHandle CudaBackend::createEvent() {
  RelaxedCaptureMode relaxed(cu);
  return Event(cu, ctx).release();
}

void CudaBackend::destroyEvent(EventHandle event) noexcept {
  if (!event)
    return;
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  cu.cuEventDestroy(static_cast<CUevent>(event));
}

void CudaBackend::recordEvent(EventHandle event, StreamHandle stream) {
  RelaxedCaptureMode relaxed(cu);
  ScopedContext scope(cu, ctx);
  TUNA_CU(cu, "timing a kernel", cuEventRecord, static_cast<CUevent>(event),
          static_cast<CUstream>(stream));
}

float CudaBackend::elapsedMs(EventHandle start, EventHandle end) {
  RelaxedCaptureMode relaxed(cu);
  TUNA_CU(cu, "timing a kernel", cuEventSynchronize, static_cast<CUevent>(end));
  float ms = 0;
  TUNA_CU(cu, "timing a kernel", cuEventElapsedTime, &ms,
          static_cast<CUevent>(start), static_cast<CUevent>(end));
  return ms;
}

int CudaBackend::attribute(CUdevice_attribute which,
                           const std::string &what) const {
  int value = 0;
  TUNA_CU(cu, what, cuDeviceGetAttribute, &value, which, device);
  return value;
}

} // namespace cuda

std::unique_ptr<Backend> makeCudaBackend(int ordinal) {
  return std::make_unique<cuda::CudaBackend>(ordinal);
}

} // namespace tuna
