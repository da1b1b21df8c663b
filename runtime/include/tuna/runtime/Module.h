//===- Module.h - A loaded bundle ------------------------------*- C++ -*-===//
#ifndef TUNA_RUNTIME_MODULE_H
#define TUNA_RUNTIME_MODULE_H

#include "tuna/runtime/Device.h"
#include "tuna/runtime/Kernel.h"
#include "tuna/runtime/Options.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tuna {

/// Supplies the bytes of bundle objects that a bundle holds empty, when the
/// runtime first needs them: a JIT that compiles variants on demand
/// (tuna::jit, CompilerOptions::lazy). Called with the indices (into
/// Bundle::objects) of the objects the runtime is about to load, all those a
/// tuning needs at once; returns their bytes in that order or throws
/// tuna::Error. Called under the device's tuning lock, never concurrently
/// for one Module.
using ObjectProvider =
    std::function<std::vector<std::string>(const std::vector<int> &objects)>;

/// A bundle loaded for one device. Code is loaded lazily, the first time a
/// variant is needed. Moving a Module keeps its kernels' addresses.
class Module {
public:
  /// Loads a bundle file with Options::fromEnvironment() or `options`.
  static Module load(const std::string &path, const Device &device);
  static Module load(const std::string &path, const Device &device,
                     const Options &options);
  /// Loads a bundle held in memory (e.g. embedded in the executable);
  /// `origin` names it in messages.
  static Module loadMemory(std::string_view bytes, const Device &device,
                           std::string_view origin = "<memory>");
  static Module loadMemory(std::string_view bytes, const Device &device,
                           std::string_view origin, const Options &options);
  /// Uses a bundle already in memory (validated here).
  static Module fromBundle(Bundle bundle, const Device &device,
                           std::string_view origin, const Options &options);
  /// Uses a bundle whose empty objects `provider` fills on first need.
  static Module fromBundle(Bundle bundle, const Device &device,
                           std::string_view origin, const Options &options,
                           ObjectProvider provider);

  Module(Module &&) noexcept;
  Module &operator=(Module &&) noexcept;
  ~Module();

  /// The kernel `name`. Throws tuna::Error listing the kernels of the bundle
  /// if there is none by that name, or the bundle's targets if it has no
  /// code for this device.
  TunedKernel &kernel(std::string_view name);

  std::vector<std::string> kernelNames() const;
  const Bundle &bundle() const;
  const Device &device() const;
  const Options &options() const;

  struct Impl;

private:
  explicit Module(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl;
};

} // namespace tuna

#endif // TUNA_RUNTIME_MODULE_H
