//===- Backend.h - What a device backend provides --------------*- C++ -*-===//
//
// The dispatcher talks to devices only through this interface. One Backend
// object stands for one device (a GPU ordinal, or the host CPU). Backends in
// this tree: host (runtime/lib/host/), CUDA through the Driver API loaded with
// dlopen (runtime/lib/cuda/), HIP through its module API loaded with dlopen
// (runtime/lib/hip/).
//
// Handles are opaque pointers owned by the backend that returned them (for
// CUDA: CUmodule, CUfunction, CUstream, CUevent, CUdeviceptr cast to void *;
// HIP: hipStream_t, hipEvent_t and device pointers).
// Every method may be called from any thread; a GPU backend makes its context
// current itself. Failures throw tuna::Error whose message names the driver
// call, its error string, and the `what` context the caller passed (kernel and
// variant), e.g. "kernel 'scale' variant 'scale_bs128': cuModuleLoadData:
// CUDA_ERROR_INVALID_PTX: ...".
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_BACKEND_H
#define TUNA_RUNTIME_BACKEND_H

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Manifest.h"
#include "tuna/runtime/TensorMap.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tuna {

using ModuleHandle = void *;   ///< A loaded Object.
using FunctionHandle = void *; ///< One entry point of a loaded Object.
using StreamHandle = void *;   ///< A queue of work; nullptr = default stream.
using EventHandle = void *;    ///< A timing marker on a stream.

/// What the dispatcher needs to know about a device.
struct DeviceInfo {
  std::string platform;      ///< "host", "cuda", "hip".
  std::string name;          ///< "NVIDIA H100 80GB HBM3", CPU model name.
  /// "sm_90", "host"; on HIP the target ID with its features,
  /// "gfx942:sramecc+:xnack-".
  std::string arch;
  std::string driverVersion; ///< "12.4" for CUDA; the libc version on host.
  /// Identifies the device for caching tuning results: equal fingerprints
  /// mean a tuning result of one is valid on the other.
  std::string fingerprint;
  /// The device's index among its platform's devices (Device::cuda(n)).
  int ordinal = 0;
  int maxThreadsPerBlock = 0;
  int64_t maxSharedBytesPerBlock = 0; ///< Including the opt-in maximum.
  int multiProcessors = 0;            ///< SMs, CUs, or CPU threads.
  /// Threads of a warp or wavefront: 32 on NVIDIA GPUs, 64 or 32 on AMD
  /// GPUs; 0 where the backend does not say.
  int warpSize = 0;
  /// What one SM (CU) holds at once, for the occupancy of a launch
  /// (tuna/runtime/Prune.h); 0 when the backend does not say.
  int maxThreadsPerMultiprocessor = 0;
  int maxBlocksPerMultiprocessor = 0;
  int registersPerMultiprocessor = 0;
  int64_t sharedBytesPerMultiprocessor = 0;
  /// The cache the device's multiprocessors share (the L2), in bytes; 0
  /// when the backend does not say.
  int64_t cacheBytes = 0;
  /// Shared memory the system takes from every resident block (CUDA: 1 KiB
  /// since sm_80).
  int64_t reservedSharedBytesPerBlock = 0;
  /// The largest grid and block along x, y, z (CUDA: 2^31-1 x 65535 x 65535
  /// blocks of at most 1024 x 1024 x 64). No limit beyond LaunchDims's range
  /// unless the backend states one.
  int64_t maxGridDim[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  int64_t maxBlockDim[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
};

/// Limits of one loaded function on its device.
struct FunctionLimits {
  int maxThreadsPerBlock = 0;
  int64_t staticSharedBytes = 0;
  int registers = -1; ///< -1 when the backend cannot tell.
  /// Local memory per thread (stack frame and register spills); -1 when the
  /// backend cannot tell.
  int64_t localBytes = -1;
};

/// Launch geometry, already evaluated.
struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0; ///< Dynamic shared memory.
};

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

/// Device memory exported for another process (Backend::exportMemory): the
/// backend's handle of the allocation that holds a pointer, and where the
/// pointer lies in it.
struct ExportedMemory {
  std::string handle; ///< Opaque bytes (CUDA: a CUipcMemHandle).
  size_t offset = 0;  ///< Of the pointer from the allocation's start.
};

class Backend {
public:
  Backend();
  virtual ~Backend() = default;

  /// A number no other backend of this process has had (an address could
  /// be a destroyed backend's): what caches of data a backend made, such as
  /// encoded tensor maps, are keyed by.
  uint64_t instanceId() const { return instance; }

  virtual const DeviceInfo &info() const = 0;

  /// How well `object` suits this device: -1 if it cannot run here, else a
  /// score where higher is better (CUDA: a cubin for exactly this sm beats
  /// PTX for an sm <= the device's, and newer PTX beats older).
  virtual int objectScore(const Object &object) const = 0;

  /// The index into `variant.code` of the best code for this device, or -1
  /// when none of it can run here.
  int selectCode(const Bundle &bundle, const Variant &variant) const;

  /// Loads one Object. `what` names the user of the object for messages.
  virtual ModuleHandle loadModule(const Object &object,
                                  std::string_view what) = 0;
  /// Unloads a module; functions taken from it become invalid.
  virtual void unloadModule(ModuleHandle module) noexcept = 0;
  /// Looks up an entry point; throws naming `what` and the symbol if absent.
  virtual FunctionHandle getFunction(ModuleHandle module,
                                     const std::string &symbol,
                                     std::string_view what) = 0;
  virtual FunctionLimits functionLimits(FunctionHandle function) = 0;
  /// How many blocks of `function` launched with `dims` can be resident on
  /// one multiprocessor at once (CUDA: cuOccupancyMaxActiveBlocksPerMultiprocessor);
  /// 0 when none fits, -1 when the backend cannot tell (the default).
  virtual int residentBlocksPerMultiprocessor(FunctionHandle /*function*/,
                                              const LaunchDims & /*dims*/) {
    return -1;
  }

  /// Enqueues one launch on `stream`. `params[i]` points at the i-th lowered
  /// parameter (see ArgSpec). The hot path: must not allocate on success.
  /// The backend sets whatever the function needs for `dims.sharedBytes`
  /// (CUDA: the max dynamic shared size attribute above 48 KiB). Host
  /// backends run the function before returning.
  virtual void launch(FunctionHandle function, StreamHandle stream,
                      const LaunchDims &dims, void **params) = 0;
  /// Waits until all work on `stream` has completed.
  virtual void synchronize(StreamHandle stream) = 0;

  /// Whether work enqueued on `stream` is being recorded into a graph
  /// instead of run (CUDA stream capture). Then nothing may allocate,
  /// synchronize or time work on it: a launch runs a variant without tuning.
  /// CUDA also says yes for the legacy default stream while a blocking
  /// stream captures. Backends without capture say no.
  virtual bool isCapturing(StreamHandle /*stream*/) { return false; }

  /// Why this device cannot take TMA tensor maps (Variant::tensorMaps), or
  /// "" when it can (CUDA: compute capability 9.0 or later and a driver
  /// with cuTensorMapEncodeTiled). The default cannot. Asked once per
  /// kernel, when its module is loaded.
  virtual std::string tensorMapSupport() const;
  /// Encodes one tiled tensor map into `map`; throws tuna::Error naming the
  /// driver call, its error and `what` (kernel, variant and map) when the
  /// driver refuses. Host work only: no device memory, no stream, no
  /// synchronization, so it may run during a graph capture. Called only
  /// where tensorMapSupport() is "".
  virtual void encodeTensorMap(const TensorMapEncoding &encoding,
                               TensorMapBytes &map, std::string_view what);

  /// Scratch memory on the device, for tuning without touching user data.
  virtual void *allocate(size_t bytes) = 0;
  virtual void deallocate(void *ptr) noexcept = 0;
  /// Copies `bytes` after all prior work on `stream`; returns when done.
  virtual void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
                    StreamHandle stream) = 0;

  /// Exports the device allocation that holds `pointer` so that another
  /// process can read it (importMemory); nothing when it cannot be shared
  /// (host memory, memory the driver cannot export, a backend without
  /// inter-process memory: the default).
  virtual std::optional<ExportedMemory> exportMemory(const void * /*pointer*/) {
    return std::nullopt;
  }
  /// Maps, on this device, an allocation another process exported; returns
  /// its start. Throws tuna::Error naming the driver call when it cannot.
  virtual void *importMemory(const std::string &handle);
  /// Unmaps what importMemory mapped.
  virtual void closeImportedMemory(void * /*base*/) noexcept {}

  /// Whether evictCache() works here: not on the host, whose caches are the
  /// CPU's.
  virtual bool evictsCache() const { return false; }
  /// Evicts what the device's shared cache (the L2) holds, in order on
  /// `stream` and without waiting: the next kernel on the stream reads its
  /// data from memory, as a single call on data nothing has touched lately
  /// does (Options::coldTiming). Throws tuna::Error (Unsupported) unless
  /// evictsCache().
  virtual void evictCache(StreamHandle stream);

  /// Timing: record two events around work on a stream, then ask for the
  /// time between them (waits for `end` to complete).
  virtual EventHandle createEvent() = 0;
  virtual void destroyEvent(EventHandle event) noexcept = 0;
  virtual void recordEvent(EventHandle event, StreamHandle stream) = 0;
  virtual float elapsedMs(EventHandle start, EventHandle end) = 0;

private:
  uint64_t instance;
};

/// The host CPU; always available.
std::unique_ptr<Backend> makeHostBackend();

/// CUDA device `ordinal` through the Driver API (libcuda.so.1, dlopen'ed).
/// Throws tuna::Error (ErrorCode::Unsupported) when the driver cannot be
/// loaded, the ordinal does not exist, or Tuna was built without CUDA.
std::unique_ptr<Backend> makeCudaBackend(int ordinal);

/// HIP device `ordinal` through libamdhip64 (dlopen'ed: `library` when not
/// empty, else $TUNA_HIP_LIBRARY, else libamdhip64.so.6, .so.5, .so).
/// Throws tuna::Error (ErrorCode::Unsupported) when the library cannot be
/// loaded or initialized, or the ordinal does not exist.
std::unique_ptr<Backend> makeHipBackend(int ordinal,
                                        const std::string &library = "");

} // namespace tuna

#endif // TUNA_RUNTIME_BACKEND_H
