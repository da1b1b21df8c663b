//===- FakeDeviceTest.cpp - GPU-style dispatch against a simulated device -===//
//
// A Backend with GPU limits and a simulated clock exercises what the host
// backend cannot: launch geometry from expressions, thread and shared memory
// limits of the device and of each function, and deterministic timings, so
// the pick is exact. Launches run an axpy on host memory so checks pass.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <thread>

using namespace tuna;
using namespace tuna::test;

namespace {

struct FakeFunction {
  double costMs;
  int maxThreads;
  /// What the driver would report (FunctionLimits, occupancy); -1: unknown.
  int registers = -1;
  int64_t localBytes = -1;
  int residentBlocks = -1;
  int launches = 0;
};

class FakeGpu final : public Backend {
public:
  FakeGpu() {
    deviceInfo.platform = "fake";
    deviceInfo.name = "Fake GPU";
    deviceInfo.arch = "fake_1";
    deviceInfo.fingerprint = "fake:1";
    deviceInfo.maxThreadsPerBlock = 1024;
    deviceInfo.maxSharedBytesPerBlock = 48 * 1024;
    deviceInfo.maxGridDim[1] = deviceInfo.maxGridDim[2] = 65535;
    deviceInfo.maxBlockDim[2] = 64;
    functions = {{"axpy_b64", {3.0, 1024}},   {"axpy_b256", {1.0, 1024}},
                 {"axpy_b1024", {2.5, 1024}}, {"axpy_b2048", {0.5, 1024}},
                 {"axpy_b128", {0.5, 1024}},  {"axpy_b512", {0.5, 256}}};
  }

  const DeviceInfo &info() const override { return deviceInfo; }
  int objectScore(const Object &object) const override {
    return object.format == "fake-bin" ? 1 : -1;
  }
  ModuleHandle loadModule(const Object &object, std::string_view) override {
    return const_cast<Object *>(&object);
  }
  void unloadModule(ModuleHandle) noexcept override {}
  FunctionHandle getFunction(ModuleHandle, const std::string &symbol,
                             std::string_view what) override {
    auto it = functions.find(symbol);
    if (it == functions.end())
      throw Error(ErrorCode::NotFound,
                  std::string(what) + ": no function " + symbol);
    return &it->second;
  }
  FunctionLimits functionLimits(FunctionHandle function) override {
    auto &fake = *static_cast<FakeFunction *>(function);
    FunctionLimits limits;
    limits.maxThreadsPerBlock = fake.maxThreads;
    limits.registers = fake.registers;
    limits.localBytes = fake.localBytes;
    return limits;
  }
  int residentBlocksPerMultiprocessor(FunctionHandle function,
                                      const LaunchDims &) override {
    return static_cast<FakeFunction *>(function)->residentBlocks;
  }
  void launch(FunctionHandle function, StreamHandle, const LaunchDims &dims,
              void **params) override {
    lastDims = dims;
    ++launches;
    ++static_cast<FakeFunction *>(function)->launches;
    clockMs += static_cast<FakeFunction *>(function)->costMs *
               (launches > slowFrom && launches <= slowUntil ? slowFactor : 1);
    float *x = *static_cast<float **>(params[1]);
    float *y =
        *static_cast<float **>(params[6]) + *static_cast<int64_t *>(params[7]);
    float alpha = *static_cast<float *>(params[10]);
    int64_t n = *static_cast<int64_t *>(params[11]);
    for (int64_t i = 0; i < n; ++i)
      y[i] += alpha * x[i];
  }
  void synchronize(StreamHandle) override { forbiddenDuringCapture(); }
  bool isCapturing(StreamHandle) override { return capturing; }
  void *allocate(size_t bytes) override {
    forbiddenDuringCapture();
    return std::malloc(bytes);
  }
  void deallocate(void *ptr) noexcept override { std::free(ptr); }
  void copy(void *dst, const void *src, size_t bytes, CopyKind kind,
            StreamHandle) override {
    forbiddenDuringCapture();
    ++copies[static_cast<int>(kind)];
    if (kind == CopyKind::DeviceToHost)
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(readBackDelayMs));
    std::memcpy(dst, src, bytes);
  }
  EventHandle createEvent() override {
    forbiddenDuringCapture();
    return new double(0);
  }
  void destroyEvent(EventHandle event) noexcept override {
    delete static_cast<double *>(event);
  }
  void recordEvent(EventHandle event, StreamHandle) override {
    forbiddenDuringCapture();
    *static_cast<double *>(event) = clockMs;
  }
  float elapsedMs(EventHandle start, EventHandle end) override {
    forbiddenDuringCapture();
    return static_cast<float>(*static_cast<double *>(end) -
                              *static_cast<double *>(start));
  }

  DeviceInfo deviceInfo;
  std::map<std::string, FakeFunction> functions;
  LaunchDims lastDims;
  int launches = 0;
  int copies[3] = {0, 0, 0};
  double clockMs = 0;
  /// Launches slowFrom + 1 to slowUntil (counted from 1) take slowFactor
  /// times their cost: the device slowed down meanwhile.
  int slowFrom = 0, slowUntil = 0;
  double slowFactor = 1;
  /// Real time each copy to the host takes (a large output over PCIe).
  double readBackDelayMs = 0;
  /// Simulated stream capture: allocating, copying, synchronizing or timing
  /// while it is on is what breaks a real capture.
  bool capturing = false;
  int callsDuringCapture = 0;

private:
  void forbiddenDuringCapture() { callsDuringCapture += capturing; }
};

/// axpy with BLOCK as parameter: grid = n ceildiv BLOCK, block = BLOCK,
/// shared memory = `shared` bytes.
Variant blockVariant(int64_t block, int64_t shared) {
  Variant variant;
  variant.name = "axpy_b" + std::to_string(block);
  variant.config = {{"BLOCK", block}};
  variant.grid[0] = {dim(0), constant(block), op(ExprNode::Op::CeilDiv)};
  variant.block[0] = {constant(block)};
  variant.sharedMemBytes = {constant(shared)};
  VariantCode code;
  code.object = 0;
  code.symbol = variant.name;
  variant.code.push_back(code);
  return variant;
}

Bundle fakeBundle() {
  Bundle bundle;
  Object object;
  object.target = "fake:1";
  object.format = "fake-bin";
  object.data = "code";
  bundle.objects.push_back(object);
  Kernel kernel = axpyKernel();
  kernel.params = {"BLOCK"};
  kernel.key[0].bucket = Bucket::Pow2;
  kernel.variants = {blockVariant(64, 256),        blockVariant(256, 1024),
                     blockVariant(1024, 4096),     blockVariant(2048, 0),
                     blockVariant(128, 64 * 1024), blockVariant(512, 0)};
  bundle.kernels.push_back(kernel);
  return bundle;
}

} // namespace

// The case: with the check on, reading large outputs back took the
// timing budget, and most candidates were timed once. The check's cost is
// outside the budget now: here it alone takes twice the budget.
TEST(FakeDeviceTest, TheCheckDoesNotSpendTheTimingBudget) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->readBackDelayMs = 200;
  Options options;
  options.minSampleMs = 0;
  options.check = true;
  options.minRuns = options.maxRuns = 4;
  options.eliminateFactor = 1e9;
  options.totalBudgetMs = options.candidateBudgetMs = 300;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  const int64_t n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  TunedKernel &kernel = module.kernel("axpy");
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f, n);
  TuningReport report = kernel.reports().at(0);
  EXPECT_TRUE(report.checked);
  for (int v : {0, 1, 2}) {
    EXPECT_EQ(report.candidates[v].status, CandidateStatus::Measured) << v;
    EXPECT_EQ(report.candidates[v].samples, 4) << v;
  }
}

TEST(FakeDeviceTest, GeometryLimitsAndDeterministicPick) {
  auto gpu = std::make_shared<FakeGpu>();
  Options options;
  options.minSampleMs = 0; // One launch per sample on the simulated clock.
  options.check = true;    // The check reads the written buffer back.
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");

  const int64_t n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f, n);
  EXPECT_EQ(y, std::vector<float>(n, 3.0f));

  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.signature, std::vector<int64_t>{1024});
  EXPECT_EQ(report.keyValues, std::vector<int64_t>{1000});
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_DOUBLE_EQ(report.candidates[1].medianMs, 1.0);
  EXPECT_DOUBLE_EQ(report.candidates[0].medianMs, 3.0);
  // The default is timed first and sets the bar; axpy_b1024 is over 2x the
  // best median once axpy_b256 is known.
  EXPECT_EQ(report.candidates[0].status, CandidateStatus::Measured);
  EXPECT_EQ(report.candidates[2].status, CandidateStatus::Eliminated);
  EXPECT_EQ(report.candidates[2].samples, 3);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::Unrunnable);
  EXPECT_EQ(report.candidates[3].reason,
            "2048 threads per block, the device allows 1024 for this "
            "function");
  EXPECT_EQ(report.candidates[4].reason,
            "65536 bytes of shared memory, the device has 49152");
  EXPECT_EQ(report.candidates[5].reason,
            "512 threads per block, the device allows 256 for this function");

  // The real launch used the winner's geometry.
  EXPECT_EQ(gpu->lastDims.grid[0], 4u);
  EXPECT_EQ(gpu->lastDims.block[0], 256u);
  EXPECT_EQ(gpu->lastDims.sharedBytes, 1024u);
  EXPECT_GT(gpu->copies[static_cast<int>(CopyKind::DeviceToDevice)], 0);
  EXPECT_GT(gpu->copies[static_cast<int>(CopyKind::DeviceToHost)], 0);

  // Same bucket, different raw n: no tuning, geometry from the raw value.
  int launches = gpu->launches;
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f,
                int64_t(600));
  EXPECT_EQ(gpu->launches, launches + 1);
  EXPECT_EQ(kernel.reports().size(), 1u);
  EXPECT_EQ(gpu->lastDims.grid[0], 3u);
}

// Tunes axpy on `gpu` once (n = 1000, one launch a sample) with
// Options::finalists = `finalists` (and Options::verbose); the decision.
TuningReport tuneAxpyOnce(std::shared_ptr<FakeGpu> gpu, int finalists,
                          bool verbose = false) {
  Options options;
  options.minSampleMs = 0;
  options.finalists = finalists;
  options.verbose = verbose;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  const int64_t n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  module.kernel("axpy").launch(nullptr, memref(x.data(), {n}),
                               memref(y.data(), {n}), 3.0f, n);
  return module.kernel("axpy").reports().at(0);
}

// Candidates timed one after another see the device at different moments:
// here it is 8% slower while axpy_b256 is timed, which puts it behind
// axpy_b1024 (1.05 ms). The final round samples both again, interleaved,
// and picks axpy_b256.
TuningReport tuneWhileTheDeviceSlowsDown(int finalists) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->functions.at("axpy_b1024").costMs = 1.05;
  // The default (axpy_b64) takes launches 1-7: a warm-up, an estimate and
  // 5 samples; axpy_b256 the next 7.
  gpu->slowFrom = 7;
  gpu->slowUntil = 14;
  gpu->slowFactor = 1.08;
  return tuneAxpyOnce(gpu, finalists);
}

TEST(FakeDeviceTest, TheFinalRoundUndoesADriftBetweenCandidates) {
  TuningReport report = tuneWhileTheDeviceSlowsDown(4);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  const CandidateResult &b256 = report.candidates[1];
  const CandidateResult &b1024 = report.candidates[2];
  EXPECT_TRUE(b256.finalist);
  EXPECT_TRUE(b1024.finalist);
  EXPECT_FALSE(report.candidates[0].finalist); // 3 ms: over the 10% margin.
  EXPECT_DOUBLE_EQ(b256.medianMs, 1.0);
  EXPECT_NEAR(b1024.medianMs, 1.05, 1e-6);
  EXPECT_EQ(b256.samples, 7);
  EXPECT_EQ(b1024.samples, 7);
}

TEST(FakeDeviceTest, WithoutTheFinalRoundTheDriftDecides) {
  TuningReport report = tuneWhileTheDeviceSlowsDown(0);
  EXPECT_EQ(report.chosenName, "axpy_b1024");
  EXPECT_FALSE(report.candidates[1].finalist);
  EXPECT_NEAR(report.candidates[1].medianMs, 1.08, 1e-6);
  EXPECT_EQ(report.candidates[1].samples, 5);
}

// The device slows down by 20% during the final round, which times the two
// finalists (axpy_b256, axpy_b1024) at 1.2 and 1.26 ms: axpy_b64's 1.08 ms,
// timed before the slowdown and within the margin but third, is not
// comparable with those and must not win.
TEST(FakeDeviceTest, ThePickIsAFinalistWhenTheDeviceSlowsDownForTheFinalRound) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->functions.at("axpy_b64").costMs = 1.08;
  gpu->functions.at("axpy_b1024").costMs = 1.05;
  // Each candidate takes 7 launches (a warm-up, an estimate, 5 samples);
  // the final round starts at launch 22.
  gpu->slowFrom = 21;
  gpu->slowUntil = 1000;
  gpu->slowFactor = 1.2;
  testing::internal::CaptureStderr();
  TuningReport report = tuneAxpyOnce(gpu, 2, /*verbose=*/true);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("1.0800 ms (median of 5, min 1.0800), behind the "
                         "finalists"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("1.2000 ms (median of 7, min 1.2000), finalist"),
            std::string::npos)
      << printed;
  ASSERT_TRUE(report.candidates[1].finalist);
  ASSERT_TRUE(report.candidates[2].finalist);
  EXPECT_FALSE(report.candidates[0].finalist);
  EXPECT_TRUE(report.candidates[0].behindFinalists);
  EXPECT_NEAR(report.candidates[0].medianMs, 1.08, 1e-6);
  EXPECT_NEAR(report.candidates[1].medianMs, 1.2, 1e-6);
  EXPECT_EQ(report.chosenName, "axpy_b256");
}

TEST(FakeDeviceTest, MeasureHasNoFinalRound) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->functions.at("axpy_b1024").costMs = 1.05;
  Options options;
  options.minSampleMs = 0;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  const int64_t n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  ArgValue args[] = {toArg(memref(x.data(), {n})), toArg(memref(y.data(), {n})),
                     toArg(3.0f), toArg(n)};
  TuningReport report = module.kernel("axpy").measure(nullptr, args, 4, {1, 2}, 6);
  for (int v : {1, 2}) {
    EXPECT_FALSE(report.candidates[v].finalist) << v;
    EXPECT_EQ(report.candidates[v].samples, 6) << v;
  }
  // A warm-up, an estimate and 6 samples each.
  EXPECT_EQ(gpu->launches, 2 * 8);
}

TEST(FakeDeviceTest, OneFinalistIsPickedWithoutAFinalRound) {
  auto gpu = std::make_shared<FakeGpu>();
  TuningReport report = tuneAxpyOnce(gpu, Options().finalists);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_FALSE(report.candidates[1].finalist) << "no final round ran";
  EXPECT_EQ(report.candidates[1].samples, 5);
  // A warm-up, an estimate and 5 samples each: axpy_b64, axpy_b256; the
  // eliminated axpy_b1024 3 samples; the real launch.
  EXPECT_EQ(gpu->launches, 7 + 7 + 5 + 1);
}

TEST(FakeDeviceTest, InvalidGeometryIsReported) {
  Bundle bundle = fakeBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.variants.resize(1);
  // grid.x = d0 * -1: negative for every n > 0.
  kernel.variants[0].grid[0] = {dim(0), constant(-1), op(ExprNode::Op::Mul)};
  Module module = Module::fromBundle(
      bundle, Device(std::make_shared<FakeGpu>()), "fake.tuna", Options());
  std::vector<float> x(8), y(8);
  try {
    module.kernel("axpy").launch(nullptr, memref(x.data(), {8}),
                                 memref(y.data(), {8}), 1.0f, int64_t(8));
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("axpy_b64: grid.x evaluates to -8"),
              std::string::npos)
        << e.what();
  }
}

TEST(FakeDeviceTest, EmptyGridLaunchesNothing) {
  auto gpu = std::make_shared<FakeGpu>();
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", Options());
  std::vector<float> x(1), y(1);
  module.kernel("axpy").launch(nullptr, memref(x.data(), {0}),
                               memref(y.data(), {0}), 1.0f, int64_t(0));
  EXPECT_EQ(gpu->launches, 0);
}

namespace {
/// A launch of fakeBundle()'s axpy with n = 1000 (signature 1024), checked.
void launchAxpy(TunedKernel &kernel, int64_t n = 1000) {
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f, n);
  EXPECT_EQ(y, std::vector<float>(n, 3.0f));
}

Options simulatedClockOptions() {
  Options options;
  options.minSampleMs = 0;
  options.check = true;
  return options;
}

/// The report of tuning `bundle`'s axpy on a fake GPU at n = 1000.
TuningReport tuneAxpy(const Bundle &bundle) {
  Module module = Module::fromBundle(bundle, Device(std::make_shared<FakeGpu>()),
                                     "fake.tuna", simulatedClockOptions());
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel);
  return kernel.reports().at(0);
}
} // namespace

TEST(FakeDeviceTest, CaptureLaunchesTheDefaultUntunedThenTunesOutside) {
  auto gpu = std::make_shared<FakeGpu>();
  Options options = simulatedClockOptions();
  options.verbose = true;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");

  gpu->capturing = true;
  testing::internal::CaptureStderr();
  launchAxpy(kernel);
  launchAxpy(kernel);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(gpu->callsDuringCapture, 0);
  EXPECT_EQ(gpu->launches, 2);
  EXPECT_EQ(gpu->lastDims.block[0], 64u) << "the default, axpy_b64";
  EXPECT_TRUE(kernel.reports().empty());
  EXPECT_EQ(kernel.chosenVariant({1024}), -1);
  std::string notice = "tuna: kernel 'axpy' in 'fake.tuna' for [d0=1024]: the "
                       "stream is capturing a graph; launching 'axpy_b64' "
                       "(the default) untuned";
  size_t first = said.find(notice);
  EXPECT_NE(first, std::string::npos) << said;
  EXPECT_EQ(said.find(notice, first + 1), std::string::npos) << said;

  gpu->capturing = false;
  testing::internal::CaptureStderr();
  launchAxpy(kernel);
  testing::internal::GetCapturedStderr();
  ASSERT_EQ(kernel.reports().size(), 1u);
  EXPECT_EQ(kernel.reports()[0].source, DecisionSource::Tuned);
  EXPECT_EQ(kernel.chosenVariant({1024}), 1);

  // A decided signature during capture launches its variant.
  gpu->capturing = true;
  launchAxpy(kernel);
  EXPECT_EQ(gpu->callsDuringCapture, 0);
  EXPECT_EQ(gpu->lastDims.block[0], 256u);
  EXPECT_EQ(kernel.reports().size(), 1u);
}

TEST(FakeDeviceTest, CaptureTakesTheCachePickWithoutPublishingIt) {
  TempDir dir;
  Options options = simulatedClockOptions();
  options.cacheDir = dir.path;
  {
    Module tuning =
        Module::fromBundle(fakeBundle(), Device(std::make_shared<FakeGpu>()),
                           "fake.tuna", options);
    launchAxpy(tuning.kernel("axpy"));
    ASSERT_EQ(tuning.kernel("axpy").reports().at(0).chosenName, "axpy_b256");
  }
  auto gpu = std::make_shared<FakeGpu>();
  gpu->capturing = true;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel);
  EXPECT_EQ(gpu->callsDuringCapture, 0);
  EXPECT_EQ(gpu->lastDims.block[0], 256u) << "the cache's pick, axpy_b256";
  EXPECT_TRUE(kernel.reports().empty());
  EXPECT_EQ(kernel.chosenVariant({1024}), -1);
}

TEST(FakeDeviceTest, TuningModeOffDecidesDuringCapture) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->capturing = true;
  Options options = simulatedClockOptions();
  options.mode = TuneMode::Off;
  Module module =
      Module::fromBundle(fakeBundle(), Device(gpu), "fake.tuna", options);
  launchAxpy(module.kernel("axpy"));
  EXPECT_EQ(gpu->callsDuringCapture, 0);
  EXPECT_EQ(module.kernel("axpy").chosenVariant({1024}), 0);
}

TEST(FakeDeviceTest, OverflowingGridIsNeverACandidate) {
  Bundle bundle = fakeBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.resize(2);
  // axpy_b256's grid.x = d0 * 2^62: it wrapped to 0 and was skipped as an
  // empty grid, so the variant did nothing and timed as the fastest.
  variants[1].grid[0] = {dim(0), constant(int64_t(1) << 62),
                         op(ExprNode::Op::Mul)};
  TuningReport report = tuneAxpy(bundle);
  EXPECT_EQ(report.chosenName, "axpy_b64");
  EXPECT_EQ(report.candidates[1].status, CandidateStatus::Unrunnable);
  EXPECT_EQ(report.candidates[1].reason, "grid.x overflows 64-bit integers");
}

TEST(FakeDeviceTest, EmptyGridVariantNeverWins) {
  Bundle bundle = fakeBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.resize(3);
  // axpy_b1024's grid is empty for n < 4096 while the others have work.
  variants[2].grid[0] = {dim(0), constant(4096), op(ExprNode::Op::FloorDiv)};
  TuningReport report = tuneAxpy(bundle);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_EQ(report.candidates[2].status, CandidateStatus::Unrunnable);
  EXPECT_EQ(report.candidates[2].reason,
            "an empty grid (0x1x1) where other variants launch work");
}

TEST(FakeDeviceTest, GridAndBlockBeyondTheDeviceLimitsAreErrors) {
  Bundle bundle = fakeBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.resize(2);
  // axpy_b256 (the faster): grid.y = n * 100, at most 65535.
  variants[1].grid[1] = {dim(0), constant(100), op(ExprNode::Op::Mul)};
  // axpy_b64: block = 1 x 1 x (n floordiv 10), z at most 64.
  variants[0].block[0] = {constant(1)};
  variants[0].block[2] = {dim(0), constant(10), op(ExprNode::Op::FloorDiv)};
  auto gpu = std::make_shared<FakeGpu>();
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna",
                                     simulatedClockOptions());
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel, 600); // Signature 1024 (pow2 buckets).
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_EQ(gpu->lastDims.grid[1], 60000u);

  // n = 1000 is in the same bucket, but its grid.y is over the limit.
  int launches = gpu->launches;
  try {
    launchAxpy(kernel, 1000);
    FAIL() << "launched a grid.y of 100000";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_STREQ(e.what(), "kernel 'axpy' in 'fake.tuna' variant 'axpy_b256': "
                           "grid.y evaluates to 100000, over the device's "
                           "limit of 65535 for key values [d0=1000]");
  }
  EXPECT_EQ(gpu->launches, launches);

  // n = 70000: both variants are over a limit; nothing can run.
  try {
    launchAxpy(kernel, 70000);
    FAIL() << "launched a grid over the limits";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("axpy_b256: grid.y evaluates to 7000000, over "
                           "the device's limit of 65535"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("axpy_b64: block.z evaluates to 7000, over the "
                           "device's limit of 64"),
              std::string::npos)
        << message;
  }
}

// A launch map that multiplies key values (tuna-expand writes them as the
// map's symbols; the manifest reads them as d0, d1, ...): the product is
// evaluated at launch, and one that leaves int64 is an error naming the
// kernel, the key values and the variant, never a wrapped grid.
TEST(FakeDeviceTest, ProductOfKeyValuesInTheGrid) {
  Bundle bundle = fakeBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.resize(1);
  // axpy_b64: grid.x = (d0 * d0) ceildiv 64.
  variants[0].grid[0] = {dim(0), dim(0), op(ExprNode::Op::Mul), constant(64),
                         op(ExprNode::Op::CeilDiv)};
  Options options = simulatedClockOptions();
  options.mode = TuneMode::Off;
  auto gpu = std::make_shared<FakeGpu>();
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel, 3000);
  EXPECT_EQ(gpu->lastDims.grid[0], 140625u); // 3000 * 3000 / 64

  int launches = gpu->launches;
  int64_t n = int64_t(1) << 32; // n * n = 2^64; no buffer is read.
  float x = 0, y = 0;
  try {
    kernel.launch(nullptr, memref(&x, {n}), memref(&y, {n}), 3.0f, n);
    FAIL() << "launched a grid of (2^32 * 2^32) ceildiv 64";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_STREQ(e.what(), "kernel 'axpy' in 'fake.tuna' for [d0=4294967296]: "
                           "no variant can run on Fake GPU:\n"
                           "  axpy_b64: grid.x overflows 64-bit integers");
  }
  EXPECT_EQ(gpu->launches, launches);
}

//===----------------------------------------------------------------------===//
// Static pruning and shortlists
//===----------------------------------------------------------------------===//

namespace {
/// fakeBundle()'s axpy with one variant per block size in `blocks` (the
/// first is the default), each a FakeGpu function costing `costMs(block)`.
Bundle blocksBundle(FakeGpu &gpu, const std::vector<int64_t> &blocks,
                    const std::function<double(int64_t)> &costMs) {
  Bundle bundle = fakeBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.clear();
  for (int64_t block : blocks) {
    variants.push_back(blockVariant(block, 0));
    gpu.functions[variants.back().name] = {costMs(block), 1024};
  }
  return bundle;
}

std::vector<std::string> withStatus(const TuningReport &report,
                                    CandidateStatus status) {
  std::vector<std::string> names;
  for (const CandidateResult &c : report.candidates)
    if (c.status == status)
      names.push_back(c.name);
  return names;
}

using Names = std::vector<std::string>;
} // namespace

TEST(FakeDevicePruneTest, DropsOccupancyZeroSpillsAndWaveLossBeforeTiming) {
  auto gpu = std::make_shared<FakeGpu>();
  gpu->deviceInfo.multiProcessors = 5;
  // n = 1000: block 200 -> 5 blocks (one full wave), 100 -> 10, 64 -> 16
  // (20/16 = 1.25x), 192 -> 6 (10/6 = 1.67x: dropped), 250 -> 4 (fewer
  // blocks than SMs: not compared), 125 -> 8 (spills), 50 -> 20 (no block
  // fits).
  Bundle bundle = blocksBundle(*gpu, {64, 200, 100, 192, 250, 125, 50},
                               [](int64_t block) { return 1000.0 / block; });
  gpu->functions["axpy_b125"].localBytes = 64;
  for (const char *name : {"axpy_b64", "axpy_b200", "axpy_b100", "axpy_b192",
                           "axpy_b250", "axpy_b50"})
    gpu->functions[name].localBytes = 0;
  gpu->functions["axpy_b50"].residentBlocks = 0;
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna",
                                     simulatedClockOptions());
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(withStatus(report, CandidateStatus::Pruned),
            (Names{"axpy_b192", "axpy_b125", "axpy_b50"}));
  EXPECT_EQ(report.candidates[3].reason,
            "wave quantization: 6 blocks on 5 multiprocessors keep them 60% "
            "busy, an estimated 1.67x the best candidate's time");
  EXPECT_EQ(report.candidates[5].reason,
            "spills: 64 bytes of local memory per thread, where 5 "
            "candidate(s) have none");
  EXPECT_EQ(report.candidates[6].reason,
            "occupancy 0: no block fits on a multiprocessor (50 threads, ? "
            "registers per thread, 0 bytes of shared memory)");
  for (const char *name : {"axpy_b192", "axpy_b125", "axpy_b50"})
    EXPECT_EQ(gpu->functions[name].launches, 0) << name;
  EXPECT_EQ(report.chosenName, "axpy_b250");

  // Options::prune = false times them all.
  Options options = simulatedClockOptions();
  options.prune = false;
  Module unpruned = Module::fromBundle(bundle, Device(gpu), "fake.tuna",
                                       options);
  launchAxpy(unpruned.kernel("axpy"));
  EXPECT_TRUE(withStatus(unpruned.kernel("axpy").reports().at(0),
                         CandidateStatus::Pruned)
                  .empty());
  EXPECT_GT(gpu->functions["axpy_b192"].launches, 0);
}

TEST(FakeDevicePruneTest, UsesTheBundlesResourcesWithoutLoadingForASearch) {
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, {64, 128, 256},
                               [](int64_t block) { return 1000.0 / block; });
  // ptxas' figures: axpy_b256 spills, the others do not.
  for (Variant &variant : bundle.kernels[0].variants)
    variant.code[0].resources.spillBytes = variant.name == "axpy_b256" ? 8 : 0;
  Options options = simulatedClockOptions();
  options.useSearch = true;
  options.search.strategy = "exhaustive";
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(withStatus(report, CandidateStatus::Pruned), Names{"axpy_b256"});
  EXPECT_EQ(report.candidates[2].reason,
            "spills: 8 bytes of spill stores and loads per thread, where 2 "
            "candidate(s) have none");
  EXPECT_EQ(gpu->functions["axpy_b256"].launches, 0);
  EXPECT_EQ(report.chosenName, "axpy_b128");
}

// A variant whose bundle entry asked for more blocks a multiprocessor
// (minBlocks) is timed although it spills.
TEST(FakeDevicePruneTest, TimesSpillsBoughtForMoreBlocks) {
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, {64, 128, 256},
                               [](int64_t block) { return 1000.0 / block; });
  for (Variant &variant : bundle.kernels[0].variants) {
    variant.code[0].resources.spillBytes = variant.name == "axpy_b256" ? 8 : 0;
    variant.minBlocks = variant.name == "axpy_b256" ? 2 : 1;
  }
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna",
                                     simulatedClockOptions());
  launchAxpy(module.kernel("axpy"));
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_TRUE(withStatus(report, CandidateStatus::Pruned).empty());
  EXPECT_GT(gpu->functions["axpy_b256"].launches, 0);
  EXPECT_EQ(report.chosenName, "axpy_b256");
}

namespace {
/// A database with one entry for fakeBundle()'s axpy at signature [1024]
/// on FakeGpu whose shortlist is `shortlist` (name and BLOCK value each).
std::string writeDatabase(
    const std::string &dir,
    const std::vector<std::pair<std::string, int64_t>> &shortlist) {
  CacheEntry entry;
  entry.key = {"Fake GPU", "fake_1", "",     tunaVersion(),
               "axpy",     axpyKernel().sourceHash, {1024}};
  entry.variant = shortlist.front().first;
  entry.config = {{"BLOCK", shortlist.front().second}};
  for (const auto &[name, block] : shortlist)
    entry.shortlist.push_back({name, {{"BLOCK", block}}});
  entry.time = 1;
  std::string path = dir + "/db.json";
  writeCacheFile(path, {entry});
  return path;
}

std::vector<int64_t> manyBlocks() {
  std::vector<int64_t> blocks;
  for (int64_t block = 32; block <= 1024; block += 32)
    blocks.push_back(block);
  return blocks;
}

double bowlMs(int64_t block) { return 1.0 + std::abs(block - 384) / 128.0; }
} // namespace

TEST(FakeDeviceShortlistTest, FirstCallTimesExactlyTheShortlist) {
  TempDir dir;
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, manyBlocks(), bowlMs);
  Options options = simulatedClockOptions();
  options.check = false; // No reference launches of the default.
  options.cacheDir = dir.path + "/cache";
  options.databases = {writeDatabase(
      dir.path, {{"axpy_b512", 512}, {"axpy_b352", 352}, {"axpy_b96", 96}})};
  {
    Module module =
        Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
    TunedKernel &kernel = module.kernel("axpy");
    launchAxpy(kernel, 600); // Any shape of the bucket [1024].
    TuningReport report = kernel.reports().at(0);
    EXPECT_EQ(report.source, DecisionSource::Tuned);
    Names timed = withStatus(report, CandidateStatus::Measured);
    for (const std::string &name : withStatus(report, CandidateStatus::Eliminated))
      timed.push_back(name);
    std::sort(timed.begin(), timed.end());
    EXPECT_EQ(timed, (Names{"axpy_b352", "axpy_b512", "axpy_b96"}));
    EXPECT_EQ(report.chosenName, "axpy_b352");
    EXPECT_EQ(report.candidates[0].reason, "not on the shortlist");
    int launched = 0;
    for (const auto &[name, function] : gpu->functions)
      if (function.launches) {
        ++launched;
        EXPECT_TRUE(name == "axpy_b512" || name == "axpy_b352" ||
                    name == "axpy_b96")
            << name << " was launched";
      }
    EXPECT_EQ(launched, 3);
  }
  // The decision is cached as usual: the next module times nothing.
  Module again = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  launchAxpy(again.kernel("axpy"), 1000);
  EXPECT_EQ(again.kernel("axpy").reports().at(0).source,
            DecisionSource::Cache);
  EXPECT_EQ(again.kernel("axpy").reports().at(0).chosenName, "axpy_b352");
}

TEST(FakeDeviceShortlistTest, WithoutShortlistsTheEntrysPickIsFinal) {
  TempDir dir;
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, manyBlocks(), bowlMs);
  Options options = simulatedClockOptions();
  options.useShortlists = false;
  options.databases = {
      writeDatabase(dir.path, {{"axpy_b512", 512}, {"axpy_b352", 352}})};
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  launchAxpy(module.kernel("axpy"));
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.source, DecisionSource::Cache);
  EXPECT_EQ(report.chosenName, "axpy_b512");
}

TEST(FakeDeviceShortlistTest, VariantsTheBundleLacksAreNamedAndSkipped) {
  TempDir dir;
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, manyBlocks(), bowlMs);
  Options options = simulatedClockOptions();
  // axpy_b2000 does not exist; axpy_b64 exists with BLOCK=64, not 65.
  std::string db = writeDatabase(
      dir.path, {{"axpy_b2000", 2000}, {"axpy_b64", 65}, {"axpy_b416", 416},
                 {"axpy_b320", 320}});
  options.databases = {db};
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  testing::internal::CaptureStderr();
  launchAxpy(module.kernel("axpy"));
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("tuna: kernel 'axpy' in 'fake.tuna' for [d0=1024]: the "
                      "shortlist in " +
                      db +
                      " names variants that the bundle does not have (with "
                      "that configuration): 'axpy_b2000' (BLOCK=2000), "
                      "'axpy_b64' (BLOCK=65); timing the others"),
            std::string::npos)
      << said;
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.chosenName, "axpy_b416");
  EXPECT_EQ(withStatus(report, CandidateStatus::NotTimed).size(),
            manyBlocks().size() - 2);

  // None of the shortlist in the bundle: every candidate is timed.
  options.databases = {
      writeDatabase(dir.path, {{"axpy_b2000", 2000}, {"axpy_b64", 65}})};
  Module other = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  testing::internal::CaptureStderr();
  launchAxpy(other.kernel("axpy"));
  said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("; tuning every candidate"), std::string::npos) << said;
  report = other.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.source, DecisionSource::Tuned);
  EXPECT_EQ(report.chosenName, "axpy_b384");
  EXPECT_TRUE(withStatus(report, CandidateStatus::NotTimed).empty());
}

TEST(FakeDeviceShortlistTest, CaptureLaunchesTheShortlistsFirstUntimed) {
  TempDir dir;
  auto gpu = std::make_shared<FakeGpu>();
  Bundle bundle = blocksBundle(*gpu, manyBlocks(), bowlMs);
  Options options = simulatedClockOptions();
  options.databases = {
      writeDatabase(dir.path, {{"axpy_b352", 352}, {"axpy_b512", 512}})};
  gpu->capturing = true;
  Module module = Module::fromBundle(bundle, Device(gpu), "fake.tuna", options);
  launchAxpy(module.kernel("axpy"));
  EXPECT_EQ(gpu->callsDuringCapture, 0);
  EXPECT_EQ(gpu->lastDims.block[0], 352u);
  EXPECT_TRUE(module.kernel("axpy").reports().empty());
}
