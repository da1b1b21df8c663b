//===- Jit.cpp - Compile tunable MLIR kernels inside an application -------===//
//
// The one path from source to bundle is mlir::tuna::compileSource (what
// tuna-compile runs); this file adds what an application needs around it:
// a private MLIRContext per compile whose diagnostics are collected instead
// of printed, errors as exceptions, and the memory and disk caches.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include "tuna/Target/Compile.h"
#include "tuna/runtime/Cache.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

namespace tuna::jit {

std::string Diagnostic::str() const {
  std::string text;
  if (!file.empty()) {
    text = file;
    if (line)
      text += ":" + std::to_string(line) + ":" + std::to_string(column);
    text += ": ";
  }
  switch (severity) {
  case Severity::Error:
    text += "error: ";
    break;
  case Severity::Warning:
    text += "warning: ";
    break;
  case Severity::Note:
    text += "note: ";
    break;
  case Severity::Remark:
    text += "remark: ";
    break;
  }
  return text + message;
}

static std::string errorMessage(const std::string &summary,
                                const std::vector<Diagnostic> &diagnostics) {
  std::string text = summary;
  for (const Diagnostic &diagnostic : diagnostics)
    text += "\n" + diagnostic.str();
  return text;
}

CompileError::CompileError(const std::string &summary,
                           std::vector<Diagnostic> diagnostics)
    : Error(ErrorCode::InvalidArgument, errorMessage(summary, diagnostics)),
      diags(std::move(diagnostics)) {}

CompileError::~CompileError() = default;

static Diagnostic unlocated(Severity severity, std::string message) {
  Diagnostic diagnostic;
  diagnostic.severity = severity;
  diagnostic.message = std::move(message);
  return diagnostic;
}

static Severity severityOf(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return Severity::Error;
  case mlir::DiagnosticSeverity::Warning:
    return Severity::Warning;
  case mlir::DiagnosticSeverity::Note:
    return Severity::Note;
  case mlir::DiagnosticSeverity::Remark:
    return Severity::Remark;
  }
  return Severity::Error;
}

static Diagnostic convert(const mlir::Diagnostic &from) {
  Diagnostic diagnostic = unlocated(severityOf(from.getSeverity()), from.str());
  // Call sites, names and fused locations wrap the file location.
  if (auto loc = from.getLocation()->findInstanceOf<mlir::FileLineColLoc>()) {
    diagnostic.file = loc.getFilename().str();
    diagnostic.line = loc.getLine();
    diagnostic.column = loc.getColumn();
  }
  return diagnostic;
}

namespace {
/// Collects every diagnostic of a context, its notes after it. MLIR calls
/// the handler under its own lock, also from the compile threads.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context) : context(context) {
    id = context.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      diagnostics.push_back(convert(d));
      for (const mlir::Diagnostic &note : d.getNotes())
        diagnostics.push_back(convert(note));
      return mlir::success();
    });
  }
  ~DiagnosticCollector() { context.getDiagEngine().eraseHandler(id); }

  std::vector<Diagnostic> diagnostics;

private:
  mlir::MLIRContext &context;
  mlir::DiagnosticEngine::HandlerID id;
};
} // namespace

/// A context for one compile: the Compiler's threads, and diagnostics that
/// point at the source without a dump of the failing op.
static void configure(mlir::MLIRContext &context,
                      llvm::DefaultThreadPool *pool) {
  if (pool)
    context.setThreadPool(*pool);
  context.printOpOnDiagnostic(false);
}

/// Makes `source` the main buffer of `sourceMgr`, named `name`.
static void addSource(llvm::SourceMgr &sourceMgr, std::string_view source,
                      std::string_view name) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          llvm::StringRef(name.data(), name.size())),
      llvm::SMLoc());
}

/// Copies the phase and target times of a compile into `compiled`.
static void recordTimes(const mlir::tuna::PhaseTimingManager &timing,
                        const mlir::tuna::CompileReport &report,
                        Compiled &compiled) {
  for (const mlir::tuna::PhaseTimingManager::Phase &phase : timing.getPhases())
    compiled.phases.push_back({phase.name, 0, phase.seconds});
  for (const mlir::tuna::CompileReport::TargetTime &time : report.times)
    compiled.targets.push_back({time.target, time.variants, time.seconds});
}

struct Compiler::Impl {
  CompilerOptions options;
  mlir::tuna::CompileOptions compileOptions;
  mlir::tuna::TunaExpandOptions expandOptions;
  mlir::DialectRegistry registry;
  /// Shared with lazy results, whose contexts use it after compile().
  std::shared_ptr<llvm::DefaultThreadPool> pool;

  mutable std::mutex mutex;
  std::unordered_map<std::string,
                     std::shared_future<std::shared_ptr<const Compiled>>>
      cache;
  Stats stats;

  explicit Impl(CompilerOptions options);
  /// "nvptx:sm_90, host": the targets, for messages.
  std::string targetList() const;
  std::string keyOf(std::string_view source) const;
  std::shared_ptr<const Compiled>
  build(std::string_view source, std::string_view name, const std::string &key);
  std::shared_ptr<const Compiled> compileNow(std::string_view source,
                                             std::string_view name,
                                             const std::string &key);
  std::shared_ptr<const Compiled> plan(std::string_view source,
                                       std::string_view name,
                                       const std::string &key);
  std::string diskPath(const std::string &key) const;
  std::shared_ptr<const Compiled> readDisk(const std::string &key,
                                           std::vector<Diagnostic> &notes);
  void writeDisk(const Compiled &compiled, std::vector<Diagnostic> &notes);
};

Compiler::Impl::Impl(CompilerOptions opts) : options(std::move(opts)) {
  if (options.targets.empty())
    options.targets.push_back(detectTarget());
  compileOptions = mlir::tuna::getDefaultCompileOptions();
  std::vector<Diagnostic> errors;
  for (const std::string &spec : options.targets) {
    llvm::Expected<mlir::tuna::Target> target = mlir::tuna::Target::parse(spec);
    if (!target)
      errors.push_back(
          unlocated(Severity::Error, llvm::toString(target.takeError())));
    else
      compileOptions.targets.push_back(*target);
  }
  if (!errors.empty())
    throw CompileError("tuna_jit: invalid target", std::move(errors));
  compileOptions.ptxas = options.ptxas;
  compileOptions.noPtxas = options.noPtxas;
  if (!options.rocmBitcodeDir.empty())
    compileOptions.rocmBitcodeDir = options.rocmBitcodeDir;
  if (!options.ldLld.empty())
    compileOptions.ldLld = options.ldLld;
  if (!options.hostCpu.empty())
    compileOptions.hostCpu = options.hostCpu;

  // Unset options keep tuna-expand's defaults.
  auto setIfGiven = [](auto &option, const auto &given) {
    if (given)
      option = *given;
  };
  setIfGiven(expandOptions.maxThreadsPerBlock, options.maxThreadsPerBlock);
  setIfGiven(expandOptions.maxSharedMemory, options.maxSharedMemory);
  setIfGiven(expandOptions.maxVariants, options.maxVariants);
  setIfGiven(expandOptions.dedupe, options.dedupe);
  // options() shows what is used.
  options.hostCpu = compileOptions.hostCpu;
  options.maxThreadsPerBlock = expandOptions.maxThreadsPerBlock;
  options.maxSharedMemory = expandOptions.maxSharedMemory;
  options.maxVariants = expandOptions.maxVariants;
  options.dedupe = expandOptions.dedupe;

  mlir::tuna::registerTunaDialects(registry);
  if (options.threads != 1)
    pool = std::make_shared<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(options.threads));
}

std::string Compiler::Impl::keyOf(std::string_view source) const {
  // Every field is length-prefixed, so that no two inputs share a text.
  llvm::SHA256 hash;
  auto add = [&](llvm::StringRef field) {
    hash.update(std::to_string(field.size()) + ":");
    hash.update(field);
  };
  add("tuna-jit 1");
  add(::tuna::tunaVersion());
  for (const mlir::tuna::Target &target : compileOptions.targets)
    add(target.str());
  add(compileOptions.ptxas);
  add(compileOptions.noPtxas ? "no-ptxas" : "ptxas");
  add(compileOptions.rocmBitcodeDir);
  add(compileOptions.ldLld);
  add(compileOptions.hostCpu);
  for (int64_t value :
       {expandOptions.maxThreadsPerBlock, expandOptions.maxSharedMemory,
        expandOptions.maxVariants})
    add(std::to_string(value));
  add(expandOptions.dedupe ? "dedupe" : "no-dedupe");
  add(options.lazy ? "lazy" : "eager");
  add(llvm::StringRef(source.data(), source.size()));
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::string Compiler::Impl::diskPath(const std::string &key) const {
  llvm::SmallString<256> path(options.cacheDir);
  llvm::sys::path::append(path, "jit", key + ".tuna");
  return std::string(path);
}

std::shared_ptr<const Compiled>
Compiler::Impl::readDisk(const std::string &key,
                         std::vector<Diagnostic> &notes) {
  std::string path = diskPath(key);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return nullptr; // Not cached yet.
  auto compiled = std::make_shared<Compiled>();
  try {
    compiled->bundle = readBundle((*file)->getBuffer(), path);
  } catch (const Error &error) {
    // A damaged entry is compiled again and replaced.
    notes.push_back(unlocated(Severity::Note,
                              std::string("ignored the disk cache entry: ") +
                                  error.what()));
    return nullptr;
  }
  compiled->key = key;
  compiled->origin = Origin::DiskCache;
  return compiled;
}

void Compiler::Impl::writeDisk(const Compiled &compiled,
                               std::vector<Diagnostic> &notes) {
  auto note = [&](const llvm::Twine &message) {
    notes.push_back(unlocated(
        Severity::Note, "not written to the disk cache: " + message.str()));
  };
  llvm::Expected<std::string> bytes =
      mlir::tuna::serializeBundle(compiled.bundle);
  if (!bytes)
    return note(llvm::toString(bytes.takeError()));
  std::string path = diskPath(compiled.key);
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return note("cannot create '" + dir + "': " + ec.message());
  // A unique temporary file renamed into place: readers in other processes
  // see the old file or the whole new one.
  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".%%%%%%%%.tmp", fd, temporary))
    return note("cannot create a file in '" + dir + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *bytes;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return note("cannot write '" + temporary + "': " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return note("cannot rename '" + temporary + "' to '" + path +
                "': " + ec.message());
  }
}

std::string Compiler::Impl::targetList() const {
  std::string targets;
  for (const std::string &target : options.targets)
    targets += (targets.empty() ? "" : ", ") + target;
  return targets;
}

std::shared_ptr<const Compiled>
Compiler::Impl::compileNow(std::string_view source, std::string_view name,
                           const std::string &key) {
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  configure(context, pool.get());
  DiagnosticCollector collector(context);
  llvm::SourceMgr sourceMgr;
  addSource(sourceMgr, source, name);
  mlir::tuna::CompileReport report;
  mlir::tuna::PhaseTimingManager timing;
  mlir::TimingScope root = timing.getRootScope();
  mlir::FailureOr<Bundle> bundle = mlir::tuna::compileSource(
      sourceMgr, context, expandOptions, compileOptions, report, root);
  root.stop();
  for (const std::string &note : report.notes)
    collector.diagnostics.push_back(unlocated(Severity::Note, note));
  if (mlir::failed(bundle))
    throw CompileError("tuna_jit: cannot compile '" + std::string(name) +
                           "' for " + targetList(),
                       std::move(collector.diagnostics));

  auto compiled = std::make_shared<Compiled>();
  compiled->bundle = std::move(*bundle);
  compiled->key = key;
  compiled->diagnostics = std::move(collector.diagnostics);
  recordTimes(timing, report, *compiled);
  return compiled;
}

/// The planned module of a lazy compile (tuna-expand plan-only: the tables
/// of every configuration, the kernels not yet expanded), kept with its own
/// context, and the objects compiled from it so far.
class LazyCode {
public:
  LazyCode(const mlir::DialectRegistry &registry,
           std::shared_ptr<llvm::DefaultThreadPool> pool,
           mlir::tuna::CompileOptions options, std::string name,
           std::string targets)
      : pool(std::move(pool)),
        context(registry, mlir::MLIRContext::Threading::DISABLED),
        options(std::move(options)), name(std::move(name)),
        targets(std::move(targets)) {
    configure(context, this->pool.get());
  }

  /// Sets the plan and records the variant that owns each of its objects.
  void setPlan(Bundle bundle);
  std::vector<std::string> get(const std::vector<int> &objects);
  unsigned compiledVariants() const {
    std::lock_guard<std::mutex> lock(mutex);
    return variants;
  }
  unsigned instantiatedVariants() const {
    std::lock_guard<std::mutex> lock(mutex);
    return instantiated;
  }

  // Declared in this order so that the context goes before its pool.
  std::shared_ptr<llvm::DefaultThreadPool> pool;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< Planned, never instantiated.
  mlir::tuna::CompileOptions options;
  Bundle plan; ///< The manifest, with empty objects.
  std::string name, targets;

private:
  /// A module with the variants that own `objects` instantiated.
  mlir::OwningOpRef<mlir::ModuleOp>
  instantiate(const std::vector<int> &objects);

  /// The variant that owns an object: a table's name and an entry's index.
  struct Owner {
    std::string kernel;
    size_t variant = 0;
  };

  mutable std::mutex mutex; ///< The context is single-threaded.
  std::vector<Owner> owners;      ///< Per object of the plan.
  std::vector<std::string> bytes; ///< Per object; empty until compiled.
  unsigned variants = 0;
  unsigned instantiated = 0;
};

void LazyCode::setPlan(Bundle bundle) {
  plan = std::move(bundle);
  owners.assign(plan.objects.size(), {});
  for (const Kernel &kernel : plan.kernels)
    for (size_t v = 0; v < kernel.variants.size(); ++v)
      for (const VariantCode &code : kernel.variants[v].code)
        owners[code.object] = {kernel.name, v};
}

mlir::OwningOpRef<mlir::ModuleOp>
LazyCode::instantiate(const std::vector<int> &objects) {
  std::map<std::string, std::set<size_t>, std::less<>> wanted;
  for (int object : objects)
    wanted[owners[object].kernel].insert(owners[object].variant);
  mlir::OwningOpRef<mlir::ModuleOp> working = module->clone();
  if (mlir::failed(mlir::tuna::instantiatePlannedVariants(
          *working, [&](mlir::tuna::DispatchOp table, size_t variant) {
            auto it = wanted.find(table.getSymName());
            return it != wanted.end() && it->second.count(variant);
          })))
    return nullptr;
  for (const auto &[kernel, entries] : wanted)
    instantiated += entries.size();
  return working;
}

std::vector<std::string> LazyCode::get(const std::vector<int> &objects) {
  std::lock_guard<std::mutex> lock(mutex);
  bytes.resize(plan.objects.size());
  std::vector<int> missing;
  for (int object : objects) {
    if (object < 0 || static_cast<size_t>(object) >= plan.objects.size())
      throw Error(ErrorCode::InvalidArgument,
                  "tuna_jit: '" + name + "' has no object #" +
                      std::to_string(object));
    if (bytes[object].empty() &&
        std::find(missing.begin(), missing.end(), object) == missing.end())
      missing.push_back(object);
  }
  if (!missing.empty()) {
    DiagnosticCollector collector(context);
    mlir::tuna::CompileReport report;
    mlir::OwningOpRef<mlir::ModuleOp> working = instantiate(missing);
    mlir::FailureOr<std::vector<std::string>> compiled = mlir::failure();
    if (working)
      compiled =
          mlir::tuna::compileObjects(*working, plan, missing, options, report);
    if (mlir::failed(compiled))
      throw CompileError("tuna_jit: cannot compile variants of '" + name +
                             "' for " + targets,
                         std::move(collector.diagnostics));
    for (const mlir::tuna::CompileReport::TargetTime &time : report.times)
      variants += time.variants;
    for (size_t i = 0; i < missing.size(); ++i)
      bytes[missing[i]] = std::move((*compiled)[i]);
  }
  std::vector<std::string> result;
  for (int object : objects)
    result.push_back(bytes[object]);
  return result;
}

std::shared_ptr<const Compiled>
Compiler::Impl::plan(std::string_view source, std::string_view name,
                     const std::string &key) {
  auto lazy = std::make_shared<LazyCode>(registry, pool, compileOptions,
                                         std::string(name), targetList());
  DiagnosticCollector collector(lazy->context);
  llvm::SourceMgr sourceMgr;
  addSource(sourceMgr, source, name);
  mlir::tuna::CompileReport report;
  mlir::tuna::PhaseTimingManager timing;
  mlir::TimingScope root = timing.getRootScope();
  mlir::tuna::TunaExpandOptions planOptions = expandOptions;
  planOptions.planOnly = true;
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      mlir::tuna::parseAndExpand(sourceMgr, lazy->context, planOptions, root);
  mlir::FailureOr<Bundle> bundle = mlir::failure();
  if (mlir::succeeded(module)) {
    lazy->module = std::move(*module);
    mlir::TimingScope planTiming = root.nest("plan");
    bundle = mlir::tuna::planBundle(*lazy->module, compileOptions, report);
  }
  root.stop();
  for (const std::string &note : report.notes)
    collector.diagnostics.push_back(unlocated(Severity::Note, note));
  if (mlir::failed(bundle))
    throw CompileError("tuna_jit: cannot compile '" + std::string(name) +
                           "' for " + lazy->targets,
                       std::move(collector.diagnostics));
  lazy->setPlan(*bundle);

  auto compiled = std::make_shared<Compiled>();
  compiled->bundle = std::move(*bundle);
  compiled->key = key;
  compiled->diagnostics = std::move(collector.diagnostics);
  recordTimes(timing, report, *compiled);
  compiled->lazyCode = std::move(lazy);
  return compiled;
}

std::vector<std::string>
Compiled::objectBytes(const std::vector<int> &objects) const {
  if (lazyCode)
    return lazyCode->get(objects);
  std::vector<std::string> result;
  for (int object : objects) {
    if (object < 0 || static_cast<size_t>(object) >= bundle.objects.size())
      throw Error(ErrorCode::InvalidArgument,
                  "tuna_jit: the bundle has no object #" +
                      std::to_string(object));
    result.push_back(bundle.objects[object].data);
  }
  return result;
}

ObjectProvider Compiled::objectProvider() const {
  if (!lazyCode)
    return nullptr;
  return [code = lazyCode](const std::vector<int> &objects) {
    return code->get(objects);
  };
}

unsigned Compiled::instantiatedVariants() const {
  if (lazyCode)
    return lazyCode->instantiatedVariants();
  unsigned variants = 0;
  for (const Kernel &kernel : bundle.kernels)
    variants += kernel.variants.size();
  return variants;
}

unsigned Compiled::compiledVariants() const {
  if (lazyCode)
    return lazyCode->compiledVariants();
  unsigned variants = 0;
  for (const Kernel &kernel : bundle.kernels)
    for (const Variant &variant : kernel.variants) {
      std::vector<std::string> targets;
      for (const VariantCode &code : variant.code)
        if (std::find(targets.begin(), targets.end(),
                      bundle.objects[code.object].target) == targets.end())
          targets.push_back(bundle.objects[code.object].target);
      variants += targets.size();
    }
  return variants;
}

std::shared_ptr<const Compiled> Compiler::Impl::build(std::string_view source,
                                                      std::string_view name,
                                                      const std::string &key) {
  if (options.lazy) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.compiles;
    }
    return plan(source, name, key);
  }
  std::vector<Diagnostic> cacheNotes;
  if (!options.cacheDir.empty())
    if (std::shared_ptr<const Compiled> cached = readDisk(key, cacheNotes)) {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.diskHits;
      return cached;
    }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.compiles;
  }
  std::shared_ptr<const Compiled> compiled = compileNow(source, name, key);
  if (!options.cacheDir.empty()) {
    writeDisk(*compiled, cacheNotes);
    if (!cacheNotes.empty()) {
      auto withNotes = std::make_shared<Compiled>(*compiled);
      withNotes->diagnostics.insert(withNotes->diagnostics.end(),
                                    cacheNotes.begin(), cacheNotes.end());
      compiled = std::move(withNotes);
    }
  }
  return compiled;
}

Compiler::Compiler(CompilerOptions options)
    : impl(std::make_unique<Impl>(std::move(options))) {}

Compiler::~Compiler() = default;

std::shared_ptr<const Compiled> Compiler::compile(std::string_view source,
                                                  std::string_view name) {
  std::string key = impl->keyOf(source);
  std::promise<std::shared_ptr<const Compiled>> promise;
  std::shared_future<std::shared_ptr<const Compiled>> future;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    auto it = impl->cache.find(key);
    if (it != impl->cache.end()) {
      ++impl->stats.memoryHits;
      future = it->second;
    } else {
      impl->cache.emplace(key, promise.get_future().share());
    }
  }
  // A hit, or a compile of the same key under way in another thread.
  if (future.valid())
    return future.get();

  try {
    std::shared_ptr<const Compiled> compiled = impl->build(source, name, key);
    promise.set_value(compiled);
    return compiled;
  } catch (...) {
    // Waiting callers get the error; later ones try again.
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->cache.erase(key);
    throw;
  }
}

std::shared_ptr<const Compiled> Compiler::compileFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    throw CompileError(
        "tuna_jit: cannot read '" + path + "'",
        {unlocated(Severity::Error, "cannot read '" + path +
                                        "': " + file.getError().message())});
  llvm::StringRef text = (*file)->getBuffer();
  return compile(std::string_view(text.data(), text.size()), path);
}

Compiler::Stats Compiler::stats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->stats;
}

void Compiler::clearMemoryCache() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->cache.clear();
}

const CompilerOptions &Compiler::options() const { return impl->options; }

std::string targetFor(const Device &device) {
  const DeviceInfo &info = device.info();
  if (info.platform == "cuda")
    return "nvptx:" + info.arch;
  // The processor of the device's target ID ("gfx942:sramecc+:xnack-"):
  // code compiled without features runs with either setting.
  if (info.platform == "hip")
    return "amdgcn:" + info.arch.substr(0, info.arch.find(':'));
  if (info.platform == "host")
    return "host";
  throw Error(ErrorCode::Unsupported, "tuna_jit: no compile target for a '" +
                                          info.platform + "' device ('" +
                                          info.name + "')");
}

std::string amdgcnTargetFromKfd(const std::string &nodes) {
  std::error_code ec;
  std::vector<std::string> names;
  for (llvm::sys::fs::directory_iterator it(nodes, ec), end; !ec && it != end;
       it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  // Nodes are numbered; the first GPU is the lowest-numbered one.
  llvm::sort(names, [](const std::string &a, const std::string &b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  for (const std::string &name : names) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(nodes + "/" + name + "/properties",
                                    /*IsText=*/true);
    if (!file)
      continue;
    llvm::SmallVector<llvm::StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines) {
      auto [field, value] = line.trim().split(' ');
      unsigned version = 0;
      if (field != "gfx_target_version" || value.trim().getAsInteger(10, version) ||
          version == 0)
        continue;
      // major * 10000 + minor * 100 + stepping: gfx{major}{minor:x}{stepping:x}.
      return "amdgcn:gfx" + std::to_string(version / 10000) +
             llvm::utohexstr(version / 100 % 100, /*LowerCase=*/true) +
             llvm::utohexstr(version % 100, /*LowerCase=*/true);
    }
  }
  return "";
}

std::string detectTarget() {
  try {
    return targetFor(Device::cuda(0));
  } catch (const Error &) {
    // No driver, no device, or a build without the CUDA backend.
  }
  std::string amd = amdgcnTargetFromKfd();
  return amd.empty() ? "host" : amd;
}

} // namespace tuna::jit
