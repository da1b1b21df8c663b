//===- CudaBackend.h - NVIDIA GPUs through the Driver API ------*- C++ -*-===//
//
// The CUDA implementation of tuna::Backend (see Backend.h); applications get
// one through Device::cuda(n). Declared here for the GPU tests and benchmarks,
// which also reach the driver and the context directly.
//
// Context: the one current on the creating thread if it belongs to the
// device (an application that uses the CUDA runtime or PyTorch), else the
// device's primary context, retained for the backend's lifetime. Calls that
// are not launches make it current for their duration and restore the
// caller's; a launch from a thread with no context makes it current for good.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CUDA_CUDABACKEND_H
#define TUNA_RUNTIME_LIB_CUDA_CUDABACKEND_H

#include "CudaDriver.h"
#include "GpuBackend.h"

#include "tuna/runtime/Backend.h"

#include <memory>
#include <mutex>

namespace tuna::cuda {

class CudaBackend final : public Backend {
public:
  /// Throws tuna::Error (Unsupported) when the driver cannot be loaded or
  /// the ordinal does not exist.
  explicit CudaBackend(int ordinal);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend &) = delete;
  CudaBackend &operator=(const CudaBackend &) = delete;

  const Driver &driver() const { return cu; }
  CUcontext context() const { return ctx; }

  const DeviceInfo &info() const override { return deviceInfo; }
  int objectScore(const Object &object) const override;
  ModuleHandle loadModule(const Object &object, std::string_view what) override;
  void unloadModule(ModuleHandle module) noexcept override;
  FunctionHandle getFunction(ModuleHandle module, const std::string &symbol,
                             std::string_view what) override;
  FunctionLimits functionLimits(FunctionHandle function) override;
  int residentBlocksPerMultiprocessor(FunctionHandle function,
                                      const LaunchDims &dims) override;
  void launch(FunctionHandle function, StreamHandle stream,
              const LaunchDims &dims, void **params) override;
  void synchronize(StreamHandle stream) override;
  bool isCapturing(StreamHandle stream) override;
  std::string tensorMapSupport() const override { return mapSupport; }
  void encodeTensorMap(const TensorMapEncoding &encoding, TensorMapBytes &map,
                       std::string_view what) override;
  void *allocate(size_t bytes) override;
  void deallocate(void *ptr) noexcept override;
  void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
            StreamHandle stream) override;
  std::optional<ExportedMemory> exportMemory(const void *pointer) override;
  void *importMemory(const std::string &handle) override;
  void closeImportedMemory(void *base) noexcept override;
  bool evictsCache() const override { return true; }
  void evictCache(StreamHandle stream) override;
  EventHandle createEvent() override;
  void destroyEvent(EventHandle event) noexcept override;
  void recordEvent(EventHandle event, StreamHandle stream) override;
  float elapsedMs(EventHandle start, EventHandle end) override;

  /// What a FunctionHandle of this backend points to.
  struct Function;
  /// The launches of a module with state (Object::moduleState).
  using LaunchOrder = gpu::LaunchOrder<CUstream, CUevent>;

private:
  int attribute(CUdevice_attribute which, const std::string &what) const;
  void allowSharedBytes(Function &function, uint32_t bytes);
  /// Lets `function` launch its compiled-in cluster when it has more blocks
  /// than the portable limit (sm_90 and later).
  void allowLargeCluster(Function &function);
  /// A launch that failed with `result`: retried in this backend's context
  /// if the calling thread had another one (or none), else reported.
  void relaunch(Function &function, CUstream stream, const LaunchDims &dims,
                void **params, CUresult result);
  [[noreturn]] void launchFailed(Function &function, const LaunchDims &dims,
                                 CUresult result);
  /// Launches a function of a module with state after its module's last
  /// launch (LaunchOrder).
  void launchInOrder(Function &function, CUstream stream,
                     const LaunchDims &dims, void **params);

  const Driver &cu;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  bool retainedPrimary = false;
  int sm = 0;
  /// Functions of an Object::gridDependency module are launched with
  /// programmatic stream serialization: sm_90 or later, a driver with
  /// cuLaunchKernelEx, and TUNA_GRID_DEPENDENCY not off.
  bool dependentLaunches = false;
  DeviceInfo deviceInfo;
  std::string mapSupport; ///< tensorMapSupport().
  /// What evictCache() writes: twice the L2, allocated on its first call
  /// (under evictionMutex: threads may tune on one device).
  std::unique_ptr<DeviceMemory> evictionBuffer;
  std::mutex evictionMutex;
};

} // namespace tuna::cuda

#endif // TUNA_RUNTIME_LIB_CUDA_CUDABACKEND_H
