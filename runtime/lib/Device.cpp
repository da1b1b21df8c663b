//===- Device.cpp - A device kernels run on -------------------------------===//

#include "tuna/runtime/Device.h"

#include <map>

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
/// The device `ordinal` of a GPU platform, made by `make` on first use.
template <typename Make>
Device gpuDevice(std::mutex &mutex, std::map<int, Device> &devices,
                 int ordinal, Make make) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(ordinal);
  if (it == devices.end())
    it = devices.emplace(ordinal, Device(make(ordinal))).first;
  return it->second;
}
} // namespace

Device Device::cuda(int ordinal) {
  static std::mutex mutex;
  static std::map<int, Device> devices;
  return gpuDevice(mutex, devices, ordinal,
                   [](int n) { return makeCudaBackend(n); });
}

Device Device::hip(int ordinal) {
  static std::mutex mutex;
  static std::map<int, Device> devices;
  return gpuDevice(mutex, devices, ordinal,
                   [](int n) { return makeHipBackend(n); });
}

} // namespace tuna
