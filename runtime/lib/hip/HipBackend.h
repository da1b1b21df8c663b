//===- HipBackend.h - AMD GPUs through the HIP module API ------*- C++ -*-===//
//
// The HIP implementation of tuna::Backend (see Backend.h); applications get
// one through Device::hip(n). It mirrors the CUDA backend: HSA code objects
// are loaded with hipModuleLoadData, launched with hipModuleLaunchKernel
// (kernel parameters as an array of pointers, dynamic LDS as the launch's
// shared memory), timed with hipEvents, on the application's hipStream_t.
//
// Identity: DeviceInfo::arch is the device's gcnArchName, its target ID with
// features ("gfx942:sramecc+:xnack-"); DeviceInfo::name is the device's name
// with its CU count, LDS per workgroup and wavefront size, "AMD Instinct
// MI300X (304 CUs, 64 KiB LDS, wave64)", so that the tuning cache, keyed by
// name, arch and driver, tells apart what tunes differently.
//
// Device: HIP keeps a current device per thread. Calls that are not launches
// make the backend's device current for their duration and restore the
// caller's; a launch does so only when the calling thread's current device is
// another one.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_HIP_HIPBACKEND_H
#define TUNA_RUNTIME_LIB_HIP_HIPBACKEND_H

#include "GpuBackend.h"
#include "HipApi.h"

#include "tuna/runtime/Backend.h"

#include <mutex>

namespace tuna::hip {

/// How well a code object for AMDGPU target ID `object` ("gfx942",
/// "gfx942:xnack-", "gfx9-4-generic") suits a device whose gcnArchName is
/// `device` ("gfx942:sramecc+:xnack-"): -1 if it cannot run there, else a
/// score where higher is better. The processor must be the device's (or a
/// generic target covering it), and every feature the object states must
/// have the device's setting; a feature left unstated runs either way. An
/// object for the exact processor beats a generic one; among those, one
/// that states more features beats one that states fewer.
int targetIdScore(std::string_view object, std::string_view device);

class HipBackend final : public Backend {
public:
  /// `library` as Api::get takes it. Throws tuna::Error (Unsupported) when
  /// the library cannot be loaded or the ordinal does not exist.
  HipBackend(int ordinal, const std::string &library);
  ~HipBackend() override;
  HipBackend(const HipBackend &) = delete;
  HipBackend &operator=(const HipBackend &) = delete;

  const Api &api() const { return hip; }

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
  void *allocate(size_t bytes) override;
  void deallocate(void *ptr) noexcept override;
  void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
            StreamHandle stream) override;
  bool evictsCache() const override { return true; }
  void evictCache(StreamHandle stream) override;
  EventHandle createEvent() override;
  void destroyEvent(EventHandle event) noexcept override;
  void recordEvent(EventHandle event, StreamHandle stream) override;
  float elapsedMs(EventHandle start, EventHandle end) override;

  /// What a FunctionHandle of this backend points to.
  struct Function;
  /// The launches of a module with state (Object::moduleState).
  using LaunchOrder = gpu::LaunchOrder<hipStream_t, hipEvent_t>;

private:
  int attribute(hipDeviceAttribute_t which, const std::string &what) const;
  std::string readTargetId(const std::string &what) const;
  [[noreturn]] void launchFailed(const Function &function,
                                 const LaunchDims &dims, hipError_t result);
  /// Launches a function of a module with state after its module's last
  /// launch (LaunchOrder).
  void launchInOrder(const Function &function, hipStream_t stream,
                     const LaunchDims &dims, void **params);

  const Api &hip;
  int ordinal;
  DeviceInfo deviceInfo;
  /// What evictCache() writes: twice the L2, allocated on its first call
  /// (under evictionMutex: threads may tune on one device).
  void *evictionBuffer = nullptr;
  std::mutex evictionMutex;
};

} // namespace tuna::hip

#endif // TUNA_RUNTIME_LIB_HIP_HIPBACKEND_H
