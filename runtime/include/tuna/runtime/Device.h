//===- Device.h - A device kernels run on ----------------------*- C++ -*-===//
#ifndef TUNA_RUNTIME_DEVICE_H
#define TUNA_RUNTIME_DEVICE_H

#include "tuna/runtime/Backend.h"

#include <memory>
#include <mutex>

namespace tuna {

/// A shared reference to one backend. Copies refer to the same device;
/// Device::host(), Device::cuda(n) and Device::hip(n) return the same device
/// every time.
class Device {
public:
  /// The host CPU.
  static Device host();
  /// CUDA device `ordinal`; throws tuna::Error when unavailable.
  static Device cuda(int ordinal = 0);
  /// HIP (AMD GPU) device `ordinal`; throws tuna::Error when unavailable.
  static Device hip(int ordinal = 0);

  /// A device driven by `backend` (a custom or test backend).
  explicit Device(std::shared_ptr<Backend> backend);

  Backend &backend() const { return *state->backend; }
  const DeviceInfo &info() const { return state->backend->info(); }

  /// Held while a kernel on this device decides a signature, so that
  /// tunings on one device never run at the same time and disturb each
  /// other's timings. Never held on the launch path of a known signature.
  std::mutex &tuningMutex() const { return state->tuningMutex; }

  bool operator==(const Device &other) const { return state == other.state; }

private:
  struct State {
    std::shared_ptr<Backend> backend;
    std::mutex tuningMutex;
  };
  std::shared_ptr<State> state;
};

} // namespace tuna

#endif // TUNA_RUNTIME_DEVICE_H
