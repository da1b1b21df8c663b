//===- Module.cpp - A loaded bundle ---------------------------------------===//

#include "BundleParts.h"
#include "Isolation.h"
#include "KernelImpl.h"
#include "Spread.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/PhaseTimes.h"

#include <algorithm>
#include <cstdio>

namespace tuna {

Module::Impl::Impl(Bundle bundle, std::string origin, Device device,
                   Options options, ObjectProvider provider)
    : bundle(std::move(bundle)), origin(std::move(origin)),
      device(std::move(device)), options(options),
      provider(std::move(provider)),
      loaded(this->bundle.objects.size(), nullptr) {
  checkTuningDevices(this->device, this->options);
  TimedPhase phase("kernel setup");
  for (const Kernel &spec : this->bundle.kernels)
    kernels.push_back(std::unique_ptr<TunedKernel>(
        new TunedKernel(std::make_unique<TunedKernel::Impl>(*this, spec))));
}

Module::Impl::~Impl() {
  TimedPhase phase("module unload");
  // A tuning worker may still be starting for a helper.
  for (std::unique_ptr<JobThread> &thread : tuningThreads)
    if (thread)
      thread->wait();
  tuningHelpers.clear(); // Their idle workers end before their threads.
  tuningThreads.clear();
  kernels.clear();
  for (ModuleHandle handle : loaded)
    if (handle)
      device.backend().unloadModule(handle);
}

ModuleHandle Module::Impl::object(int index, std::string_view what) {
  if (loaded[index])
    return loaded[index];
  Object &object = bundle.objects[index];
  if (object.data.empty() && provider) {
    std::vector<std::string> bytes;
    try {
      bytes = provider({index});
    } catch (const Error &e) {
      throw Error(e.code(), std::string(what) + ": " + e.what());
    }
    if (bytes.size() != 1 || bytes[0].empty())
      throw Error(ErrorCode::Internal,
                  std::string(what) + ": the object provider returned no "
                                      "code for object #" +
                      std::to_string(index));
    object.data = std::move(bytes[0]);
  }
  TimedPhase phase("code load");
  loaded[index] = device.backend().loadModule(object, what);
  return loaded[index];
}

const std::string &Module::Impl::workerManifest() {
  if (manifestBytes.empty())
    manifestBytes = writeBundleManifest(bundle);
  return manifestBytes;
}

Module &Module::Impl::tuningHelper(size_t index) {
  tuningHelpers.resize(options.tuningDevices.size());
  std::unique_ptr<Module> &helper = tuningHelpers[index];
  if (helper)
    return *helper;
  Options own = options;
  own.communicator = nullptr;
  own.spreadOverRanks = false;
  own.tuningDevices.clear();
  own.cacheDir.clear();
  own.databases.clear();
  own.verbose = false;
  ObjectProvider fromHere;
  if (provider)
    fromHere = [this](const std::vector<int> &objects) {
      std::vector<std::string> bytes;
      for (int object : objects)
        bytes.push_back(bundle.objects[object].data);
      return bytes;
    };
  // The bundle was validated when this module was made; the helper's worker
  // starts on its device's thread (startTuningWorkers) or with its first
  // spread.
  helper.reset(new Module(std::make_unique<Impl>(
      bundle, origin, options.tuningDevices[index], own, std::move(fromHere))));
  helper->impl->manifestBytes = manifestBytes;
  return *helper;
}

JobThread &Module::Impl::tuningThread(size_t index) {
  tuningThreads.resize(options.tuningDevices.size());
  std::unique_ptr<JobThread> &thread = tuningThreads[index];
  if (!thread)
    thread = std::make_unique<JobThread>();
  return *thread;
}

void Module::Impl::startTuningWorkers() {
  for (size_t d = 0; d < options.tuningDevices.size(); ++d) {
    Module::Impl &helper = *tuningHelper(d).impl;
    if (!canIsolate(helper.device.backend()))
      continue;
    // The helper's idle worker is only ever touched on this thread (the
    // spreads' sessions take and leave it there) or after joining it.
    tuningThread(d).start([&helper] {
      if (!helper.idleWorker)
        helper.idleWorker = startWorkerEarly(
            helper.device, helper.options, helper.origin,
            helper.workerManifest());
    });
  }
}

DeviceComparison *Module::Impl::deviceComparison() {
  if (comparisonTried)
    return comparison.get();
  comparisonTried = true;
  TimedPhase phase("comparison load");
  std::string whyNot;
  comparison = DeviceComparison::load(device.backend(), whyNot);
  if (!comparison && options.verbose)
    std::fprintf(stderr, "tuna: the check compares outputs on the host: %s\n",
                 whyNot.c_str());
  return comparison.get();
}

void Module::Impl::prepare(const std::vector<int> &objects) {
  if (!provider)
    return;
  std::vector<int> missing;
  for (int index : objects)
    if (!loaded[index] && bundle.objects[index].data.empty() &&
        std::find(missing.begin(), missing.end(), index) == missing.end())
      missing.push_back(index);
  if (missing.size() < 2)
    return; // object() asks for a single one itself.
  std::vector<std::string> bytes;
  try {
    bytes = provider(missing);
  } catch (const Error &) {
    return; // object() asks again, one by one, and reports each failure.
  }
  if (bytes.size() != missing.size())
    return;
  for (size_t i = 0; i < missing.size(); ++i)
    bundle.objects[missing[i]].data = std::move(bytes[i]);
}

Module::Module(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
Module::~Module() = default;

Module Module::load(const std::string &path, const Device &device) {
  return load(path, device, Options::fromEnvironment());
}

namespace {
/// Whether a module made with `options` on `device` tunes its first calls in
/// a worker process: then it starts the worker first, which gets ready
/// while this process reads the bundle and sets up the kernels.
bool tunesInWorkers(const Device &device, const Options &options) {
  return options.isolate && options.mode == TuneMode::Always &&
         canIsolate(device.backend());
}

/// `impl` with its early worker (and so its tuning devices' workers too).
std::unique_ptr<Module::Impl>
withEarlyWorkers(std::unique_ptr<Module::Impl> impl, StartedWorkerPtr early) {
  impl->idleWorker = std::move(early);
  if (impl->idleWorker)
    impl->startTuningWorkers();
  return impl;
}

/// The module of the bundle `bytes`; keeps its manifest for the tuning
/// workers when they may be needed.
std::unique_ptr<Module::Impl> fromBytes(std::string_view bytes,
                                        std::string_view origin,
                                        const Device &device,
                                        const Options &options) {
  StartedWorkerPtr early;
  if (tunesInWorkers(device, options) && bytes.size() >= kBundleHeadSize)
    early = startWorkerEarly(device, options, origin, bundleHead(bytes));
  auto impl = std::make_unique<Module::Impl>(
      readBundle(bytes, origin), std::string(origin), device, options);
  if (options.isolate)
    impl->manifestBytes = bundleHead(bytes);
  return withEarlyWorkers(std::move(impl), std::move(early));
}

/// The module of a parsed bundle, validated here.
std::unique_ptr<Module::Impl> fromParsed(Bundle bundle, const Device &device,
                                         std::string_view origin,
                                         const Options &options,
                                         ObjectProvider provider) {
  validateBundle(bundle, origin);
  std::string manifest;
  StartedWorkerPtr early;
  if (tunesInWorkers(device, options)) {
    manifest = writeBundleManifest(bundle);
    early = startWorkerEarly(device, options, origin, manifest);
  }
  auto impl = std::make_unique<Module::Impl>(
      std::move(bundle), std::string(origin), device, options,
      std::move(provider));
  impl->manifestBytes = std::move(manifest);
  return withEarlyWorkers(std::move(impl), std::move(early));
}
} // namespace

Module Module::load(const std::string &path, const Device &device,
                    const Options &options) {
  return Module(fromBytes(readBundleBytes(path), path, device, options));
}

Module Module::loadMemory(std::string_view bytes, const Device &device,
                          std::string_view origin) {
  return loadMemory(bytes, device, origin, Options::fromEnvironment());
}

Module Module::loadMemory(std::string_view bytes, const Device &device,
                          std::string_view origin, const Options &options) {
  return Module(fromBytes(bytes, origin, device, options));
}

Module Module::fromBundle(Bundle bundle, const Device &device,
                          std::string_view origin, const Options &options) {
  return Module(
      fromParsed(std::move(bundle), device, origin, options, nullptr));
}

Module Module::fromBundle(Bundle bundle, const Device &device,
                          std::string_view origin, const Options &options,
                          ObjectProvider provider) {
  return Module(fromParsed(std::move(bundle), device, origin, options,
                           std::move(provider)));
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
