//===- Module.cpp - A loaded bundle ---------------------------------------===//

#include "KernelImpl.h"

#include "tuna/runtime/Bundle.h"

namespace tuna {

Module::Impl::Impl(Bundle bundle, std::string origin, Device device,
                   Options options)
    : bundle(std::move(bundle)), origin(std::move(origin)),
      device(std::move(device)), options(options),
      loaded(this->bundle.objects.size(), nullptr) {
  for (const Kernel &spec : this->bundle.kernels)
    kernels.push_back(std::unique_ptr<TunedKernel>(
        new TunedKernel(std::make_unique<TunedKernel::Impl>(*this, spec))));
}

Module::Impl::~Impl() {
  kernels.clear();
  for (ModuleHandle handle : loaded)
    if (handle)
      device.backend().unloadModule(handle);
}

ModuleHandle Module::Impl::object(int index, std::string_view what) {
  if (!loaded[index])
    loaded[index] = device.backend().loadModule(bundle.objects[index], what);
  return loaded[index];
}

Module::Module(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
Module::~Module() = default;

Module Module::load(const std::string &path, const Device &device) {
  return load(path, device, Options::fromEnvironment());
}

Module Module::load(const std::string &path, const Device &device,
                    const Options &options) {
  return Module(
      std::make_unique<Impl>(readBundleFile(path), path, device, options));
}

Module Module::loadMemory(std::string_view bytes, const Device &device,
                          std::string_view origin) {
  return loadMemory(bytes, device, origin, Options::fromEnvironment());
}

Module Module::loadMemory(std::string_view bytes, const Device &device,
                          std::string_view origin, const Options &options) {
  return Module(std::make_unique<Impl>(readBundle(bytes, origin),
                                       std::string(origin), device, options));
}

Module Module::fromBundle(Bundle bundle, const Device &device,
                          std::string_view origin, const Options &options) {
  validateBundle(bundle, origin);
  return Module(std::make_unique<Impl>(std::move(bundle), std::string(origin),
                                       device, options));
}

TunedKernel &Module::kernel(std::string_view name) {
  for (const std::unique_ptr<TunedKernel> &kernel : impl->kernels) {
    if (kernel->name() != name)
      continue;
    if (!kernel->impl->unavailable.empty())
      throw Error(ErrorCode::Unsupported, kernel->impl->unavailable);
    return *kernel;
  }
  std::string message = "'" + impl->origin + "' has no kernel '" +
                        std::string(name) + "'; it has:";
  for (const std::unique_ptr<TunedKernel> &kernel : impl->kernels)
    message += " " + kernel->name();
  if (impl->kernels.empty())
    message += " no kernels";
  throw Error(ErrorCode::NotFound, message);
}

std::vector<std::string> Module::kernelNames() const {
  std::vector<std::string> names;
  for (const std::unique_ptr<TunedKernel> &kernel : impl->kernels)
    names.push_back(kernel->name());
  return names;
}

const Bundle &Module::bundle() const { return impl->bundle; }
const Device &Module::device() const { return impl->device; }
const Options &Module::options() const { return impl->options; }

} // namespace tuna
