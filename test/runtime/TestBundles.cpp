//===- TestBundles.cpp - Bundles built in memory for the tests ------------===//

#include "TestBundles.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/MemRef.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <dirent.h>
#include <unistd.h>

namespace tuna::test {

const char *kernelLibraryPath() { return TUNA_TEST_KERNELS_PATH; }

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}
} // namespace

const std::string &kernelLibrary() {
  static const std::string bytes = readFile(TUNA_TEST_KERNELS_PATH);
  return bytes;
}

const std::string &faultyKernelLibrary() {
  static const std::string bytes = readFile(TUNA_TEST_FAULTY_KERNELS_PATH);
  return bytes;
}

ExprNode dim(int position) { return {ExprNode::Op::Dim, position}; }
ExprNode constant(int64_t value) { return {ExprNode::Op::Const, value}; }
ExprNode op(ExprNode::Op op) { return {op, 0}; }

Variant axpyVariant(const std::string &symbol, int64_t work) {
  Variant variant;
  variant.name = symbol;
  variant.config = {{"WORK", work}};
  VariantCode code;
  code.object = 0;
  code.symbol = symbol;
  variant.code.push_back(code);
  return variant;
}

Kernel axpyKernel() {
  Kernel kernel;
  kernel.name = "axpy";
  kernel.sourceHash = "0123456789abcdef";
  ArgSpec memref;
  memref.kind = ArgSpec::Kind::MemRef;
  memref.type = ScalarType::F32;
  memref.rank = 1;
  ArgSpec written = memref;
  written.written = true;
  ArgSpec alpha;
  alpha.type = ScalarType::F32;
  ArgSpec n;
  n.type = ScalarType::Index;
  kernel.args = {memref, written, alpha, n};
  kernel.params = {"WORK"};
  KeySpec key;
  key.arg = 3;
  kernel.key = {key};
  kernel.variants = {axpyVariant("axpy_work4", 4), axpyVariant("axpy_work0", 0),
                     axpyVariant("axpy_work64", 64),
                     axpyVariant("axpy_wrong", -1)};
  kernel.defaultVariant = 0;
  return kernel;
}

Bundle axpyBundle() {
  Bundle bundle;
  bundle.tunaVersion = "test";
  Object object;
  object.target = "host";
  object.format = "elf-so";
  object.data = kernelLibrary();
  bundle.objects.push_back(object);
  bundle.kernels.push_back(axpyKernel());
  return bundle;
}

Bundle axpySearchBundle() {
  Bundle bundle = axpyBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.params = {"A", "B"};
  kernel.variants.clear();
  for (auto [symbol, a, b] :
       std::vector<std::tuple<const char *, int64_t, int64_t>>{
           {"axpy_work4", 1, 1},
           {"axpy_work0", 1, 2},
           {"axpy_work1", 2, 1},
           {"axpy_work2", 2, 2},
           {"axpy_work8", 3, 1},
           {"axpy_work64", 3, 2},
           {"axpy_wrong", 3, 3}}) {
    Variant &variant = kernel.variants.emplace_back(axpyVariant(symbol, 0));
    variant.config = {{"A", a}, {"B", b}};
  }
  return bundle;
}

search::SearchOptions shortSearch(const std::string &strategy, int batchSize) {
  search::SearchOptions options;
  options.strategy = strategy;
  options.seed = 7;
  options.batchSize = batchSize;
  options.budgetEvaluations = 6;
  options.retimeWithin = 1.0;
  options.retimeSamples = 5;
  return options;
}

SearchOutcome searchAxpy(Module &module, const search::SearchOptions &options) {
  constexpr int64_t n = 256;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  const ArgValue args[] = {toArg(memref(x.data(), {n})),
                           toArg(memref(y.data(), {n})), toArg(2.0f),
                           toArg(n)};
  return module.kernel("axpy").search(nullptr, args, 4, options);
}

std::string describeVisits(const SearchOutcome &outcome) {
  const search::Space &space = outcome.space.space;
  // A failure's reason may name the candidates it was checked with, which
  // differ with the split: only its kind counts.
  auto measured = [](const search::Measurement &m) {
    return m.ok() ? std::to_string(m.ms) + " ms"
                  : "failed (" + m.failure.substr(0, m.failure.find(':')) + ")";
  };
  std::string text;
  for (const search::Evaluation &evaluation : outcome.result.evaluations)
    text += "visit " + space.describe(evaluation.config) + ": " +
            measured(evaluation.measurement) + "\n";
  for (const search::Retiming &retiming : outcome.result.retimed)
    text += "re-timed " + space.describe(retiming.config) + ": " +
            measured(retiming.again) + "\n";
  return text + "pick " + outcome.report.chosenName + "\n";
}

namespace {
class ScriptedHost final : public Backend {
public:
  ScriptedHost(std::map<std::string, double> costs, std::string name,
               std::function<void()> onLaunch, Penalties penalties = {})
      : costs(std::move(costs)), penalties(std::move(penalties)),
        onLaunch(std::move(onLaunch)) {
    renamed = host->info();
    if (!name.empty())
      renamed.name = std::move(name);
  }
  const DeviceInfo &info() const override { return renamed; }
  int objectScore(const Object &object) const override {
    return host->objectScore(object);
  }
  ModuleHandle loadModule(const Object &object,
                          std::string_view what) override {
    return host->loadModule(object, what);
  }
  void unloadModule(ModuleHandle module) noexcept override {
    host->unloadModule(module);
  }
  FunctionHandle getFunction(ModuleHandle module, const std::string &symbol,
                             std::string_view what) override {
    FunctionHandle function = host->getFunction(module, symbol, what);
    auto cost = costs.find(symbol);
    std::lock_guard<std::mutex> lock(mutex);
    costMs[function] = cost == costs.end() ? 1.0 : cost->second;
    symbols[function] = symbol;
    return function;
  }
  FunctionLimits functionLimits(FunctionHandle function) override {
    return host->functionLimits(function);
  }
  void launch(FunctionHandle function, StreamHandle stream,
              const LaunchDims &dims, void **params) override {
    if (onLaunch)
      onLaunch();
    host->launch(function, stream, dims, params);
    std::lock_guard<std::mutex> lock(mutex);
    clockMs += costMs.at(function);
    const std::string &symbol = symbols.at(function);
    if (auto penalty = penalties.find({previous, symbol});
        penalty != penalties.end())
      clockMs += penalty->second;
    previous = symbol;
  }
  void synchronize(StreamHandle stream) override { host->synchronize(stream); }
  void *allocate(size_t bytes) override { return host->allocate(bytes); }
  void deallocate(void *ptr) noexcept override { host->deallocate(ptr); }
  void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
            StreamHandle stream) override {
    host->copy(dst, src, bytes, kind, stream);
  }
  EventHandle createEvent() override { return new double(0); }
  void destroyEvent(EventHandle event) noexcept override {
    delete static_cast<double *>(event);
  }
  void recordEvent(EventHandle event, StreamHandle) override {
    std::lock_guard<std::mutex> lock(mutex);
    *static_cast<double *>(event) = clockMs;
  }
  float elapsedMs(EventHandle start, EventHandle end) override {
    return static_cast<float>(*static_cast<double *>(end) -
                              *static_cast<double *>(start));
  }

private:
  std::map<std::string, double> costs; ///< Per symbol, in ms.
  Penalties penalties;
  std::function<void()> onLaunch;
  std::unique_ptr<Backend> host = makeHostBackend();
  DeviceInfo renamed;
  std::mutex mutex; ///< Guards costMs and clockMs.
  std::map<FunctionHandle, double> costMs;
  std::map<FunctionHandle, std::string> symbols;
  std::string previous; ///< The symbol launched last.
  double clockMs = 0;
};
} // namespace

Device scriptedHost() {
  return scriptedHost({{"axpy_work0", 1.0},
                       {"axpy_work4", 2.0},
                       {"axpy_work64", 20.0},
                       {"axpy_wrong", 0.5}});
}

Device scriptedHost(std::map<std::string, double> costMs, std::string name,
                    std::function<void()> onLaunch) {
  return Device(std::make_shared<ScriptedHost>(
      std::move(costMs), std::move(name), std::move(onLaunch)));
}

Device interactingHost(std::map<std::string, double> costMs,
                       Penalties penalties) {
  return Device(std::make_shared<ScriptedHost>(std::move(costMs), "", nullptr,
                                               std::move(penalties)));
}

namespace {
Kernel axpyNamed(const std::string &name, const std::string &fast,
                 const std::string &slow) {
  Kernel kernel = axpyKernel();
  kernel.name = name;
  kernel.variants = {axpyVariant(fast, 1), axpyVariant(slow, 2)};
  return kernel;
}
} // namespace

Bundle stepBundle() {
  Bundle bundle = axpyBundle();
  bundle.kernels = {axpyNamed("first", "axpy_work1", "axpy_work2"),
                    axpyNamed("second", "axpy_work8", "axpy_work4")};
  return bundle;
}

Device stepHost(int rank) {
  Penalties penalties = {{{"axpy_work1", "axpy_work8"}, 4.0}};
  if (rank % 2)
    penalties[{"axpy_work2", "axpy_work8"}] = 4.0;
  return interactingHost({{"axpy_work1", 1.0},
                          {"axpy_work2", 1.5},
                          {"axpy_work8", 1.0},
                          {"axpy_work4", 2.0}},
                         penalties);
}

Device perturbedHost(int rank, std::function<void()> onLaunch) {
  return scriptedHost({{"axpy_work0", 1.0 + 2.0 * rank},
                       {"axpy_work4", 2.5},
                       {"axpy_work64", 20.0},
                       {"axpy_wrong", 0.5}},
                      "", std::move(onLaunch));
}

Device searchHost(std::function<void()> onLaunch) {
  return scriptedHost({{"axpy_work4", 4.0},
                       {"axpy_work0", 3.0},
                       {"axpy_work1", 2.5},
                       {"axpy_work2", 1.5},
                       {"axpy_work8", 2.0},
                       {"axpy_work64", 5.0},
                       {"axpy_wrong", 0.5}},
                      "", std::move(onLaunch));
}

Options fastOptions() {
  Options options;
  options.minRuns = 3;
  options.maxRuns = 10;
  options.candidateBudgetMs = 50;
  options.totalBudgetMs = 1000;
  options.check = true;
  return options;
}

bool launchAxpyOnes(TunedKernel &kernel, int64_t n) {
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 2.0f,
                n);
  return std::all_of(y.begin(), y.end(), [](float v) { return v == 2.0f; });
}

void runTogether(int count, const std::function<void(int)> &body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < count)
        std::this_thread::yield();
      body(t);
    });
  for (std::thread &thread : threads)
    thread.join();
}

class ThreadJob::Rank final : public Communicator {
public:
  Rank(ThreadJob &job, int rank) : job(job), me(rank) {}
  int rank() const override { return me; }
  int size() const override { return job.size; }
  void allGather(const void *mine, size_t bytes, void *all,
                 double timeoutMs) override {
    std::unique_lock<std::mutex> lock(job.mutex);
    std::vector<std::string> &round = job.rounds[calls++];
    round.resize(job.size);
    round[me].assign(static_cast<const char *>(mine), bytes);
    round[me].push_back('\1'); // Present, even when empty.
    job.changed.notify_all();
    auto joined = [&] {
      for (const std::string &part : round)
        if (part.empty())
          return false;
      return true;
    };
    if (!job.changed.wait_for(
            lock, std::chrono::duration<double, std::milli>(timeoutMs),
            joined)) {
      std::string missing;
      for (int r = 0; r < job.size; ++r)
        if (round[r].empty())
          missing += " " + std::to_string(r);
      throw Error(ErrorCode::Backend, "ranks" + missing +
                                          " did not join within " +
                                          std::to_string(timeoutMs) + " ms");
    }
    for (int r = 0; r < job.size; ++r)
      std::memcpy(static_cast<char *>(all) + r * bytes, round[r].data(), bytes);
  }

private:
  ThreadJob &job;
  int me;
  size_t calls = 0;
};

std::shared_ptr<Communicator> ThreadJob::rank(int rank) {
  return std::make_shared<Rank>(*this, rank);
}

TempDir::TempDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/tuna-test-XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a directory like " + pattern);
  path = pattern;
}

TempDir::~TempDir() {
  for (const std::string &file : files())
    std::remove((path + "/" + file).c_str());
  ::rmdir(path.c_str());
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> names;
  if (DIR *dir = ::opendir(path.c_str())) {
    while (dirent *entry = ::readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    ::closedir(dir);
  }
  return names;
}

Bundle tileBundle() {
  Bundle bundle;
  Object object;
  object.target = "fake:90";
  object.format = "fake-bin";
  object.data = "code";
  bundle.objects.push_back(object);
  Kernel kernel;
  kernel.name = "tile";
  kernel.sourceHash = "tile-hash";
  kernel.args = {{ArgSpec::Kind::MemRef, ScalarType::F32, 2, true},
                 {ArgSpec::Kind::Scalar, ScalarType::I64, 0, false}};
  kernel.key = {{0, 0, Bucket::Exact, {}}, {0, 1, Bucket::Exact, {}}};
  TensorMapSpec map;
  map.arg = 0;
  kernel.tensorMaps = {map};
  for (const char *name : {"plain", "tma"}) {
    Variant variant;
    variant.name = name;
    variant.config = {{"TMA", std::string(name) == "tma"}};
    variant.code.push_back({0, name, {}});
    if (variant.name == "tma") {
      VariantTensorMap map;
      map.box = {{constant(8)},
                 {dim(0), constant(2), op(ExprNode::Op::FloorDiv)}};
      map.swizzleBytes = 32;
      variant.tensorMaps.push_back(map);
    }
    kernel.variants.push_back(variant);
  }
  kernel.params = {"TMA"};
  bundle.kernels.push_back(kernel);
  return bundle;
}

} // namespace tuna::test
