//===- Device.cpp - A device kernels run on -------------------------------===//

#include "tuna/runtime/Device.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace tuna {

Device::Device(std::shared_ptr<Backend> backend)
    : state(std::make_shared<State>()) {
  if (!backend)
    throw Error(ErrorCode::InvalidArgument, "Device: null backend");
  state->backend = std::move(backend);
}

Device Device::host() {
  static Device device(makeHostBackend());
  return device;
}

namespace {
/// A GPU device of one ordinal, made once.
struct DeviceSlot {
  std::once_flag made;
  std::optional<Device> device;
};

/// The device `ordinal` of a GPU platform, made by `make` on first use.
/// Devices of different ordinals are made at the same time when asked for
/// from several threads (each makes its context).
template <typename Make>
Device gpuDevice(std::mutex &mutex,
                 std::map<int, std::unique_ptr<DeviceSlot>> &slots,
                 int ordinal, Make make) {
  DeviceSlot *slot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<DeviceSlot> &entry = slots[ordinal];
    if (!entry)
      entry = std::make_unique<DeviceSlot>();
    slot = entry.get();
  }
  // A make that throws leaves the slot unmade: the next call tries again.
  std::call_once(slot->made,
                 [&] { slot->device.emplace(Device(make(ordinal))); });
  return *slot->device;
}
} // namespace

Device Device::cuda(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceSlot>> devices;
  return gpuDevice(mutex, devices, ordinal,
                   [](int n) { return makeCudaBackend(n); });
}

Device Device::hip(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceSlot>> devices;
  return gpuDevice(mutex, devices, ordinal,
                   [](int n) { return makeHipBackend(n); });
}

} // namespace tuna
