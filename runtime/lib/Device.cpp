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

Device Device::cuda(int ordinal) {
  static std::mutex mutex;
  static std::map<int, Device> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(ordinal);
  if (it == devices.end())
    it = devices.emplace(ordinal, Device(makeCudaBackend(ordinal))).first;
  return it->second;
}

} // namespace tuna
