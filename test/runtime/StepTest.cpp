//===- StepTest.cpp - Kernels tuned together, in the step that runs them --===//
//
// A step launches two axpy-like kernels, `first` (y += 2x) and `second`
// (z += 2y), on an interacting host (TestBundles.h): alone, first is
// fastest with axpy_work1 (1 ms, against 1.5 ms) and second with
// axpy_work8 (1 ms, against 2 ms), but axpy_work8 right after axpy_work1
// costs 4 ms more. Kernel by kernel the step takes 6 ms; jointly,
// first=axpy_work2 and second=axpy_work8 take 2.5 ms.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace tuna;
using namespace tuna::test;

namespace {

Kernel axpyNamed(const std::string &name, const std::string &fast,
                 const std::string &slow) {
  Kernel kernel = axpyKernel();
  kernel.name = name;
  kernel.variants = {axpyVariant(fast, 1), axpyVariant(slow, 2)};
  return kernel;
}

Bundle stepBundle() {
  Bundle bundle = axpyBundle();
  bundle.kernels = {axpyNamed("first", "axpy_work1", "axpy_work2"),
                    axpyNamed("second", "axpy_work8", "axpy_work4")};
  return bundle;
}

Device stepHost() {
  return interactingHost({{"axpy_work1", 1.0},
                          {"axpy_work2", 1.5},
                          {"axpy_work8", 1.0},
                          {"axpy_work4", 2.0}},
                         {{{"axpy_work1", "axpy_work8"}, 4.0}});
}

/// A module of stepBundle() and the buffers of one step over n elements.
struct StepFixture {
  explicit StepFixture(const std::string &cacheDir = "", int64_t n = 256)
      : module(Module::fromBundle(stepBundle(), stepHost(), "step.tuna",
                                  options(cacheDir))),
        x(n, 1.0f), y(n, 0.0f), z(n, 0.0f), n(n) {}

  static Options options(const std::string &cacheDir) {
    Options options = fastOptions();
    options.check = false;
    options.cacheDir = cacheDir;
    return options;
  }

  TunedStep::Body body() {
    return [this](StreamHandle stream) {
      module.kernel("first").launch(stream, memref(x.data(), {n}),
                                    memref(y.data(), {n}), 2.0f, n);
      module.kernel("second").launch(stream, memref(y.data(), {n}),
                                     memref(z.data(), {n}), 2.0f, n);
    };
  }

  Module module;
  std::vector<float> x, y, z;
  int64_t n;
};

StepOptions quickStep(const std::string &strategy = "coordinate") {
  StepOptions options;
  options.strategy = strategy;
  options.minRuns = 3;
  options.maxRuns = 5;
  return options;
}

} // namespace

TEST(StepTest, TheJointChoiceBeatsTheKernelByKernelOne) {
  for (const char *strategy : {"coordinate", "exhaustive", "pattern"}) {
    SCOPED_TRACE(strategy);
    StepFixture fixture;
    TunedStep step("block", fixture.body(), quickStep(strategy));
    step.run(nullptr);
    ASSERT_EQ(step.reports().size(), 1u);
    const StepReport &report = step.reports()[0];
    ASSERT_EQ(report.launches.size(), 2u);
    EXPECT_EQ(report.launches[0].kernel, "first");
    EXPECT_EQ(report.launches[0].module, "step.tuna");
    // Each kernel alone picks its fast variant ...
    EXPECT_EQ(report.launches[0].kernelByKernel, 0);
    EXPECT_EQ(report.launches[1].kernelByKernel, 0);
    // ... jointly, first gives up 0.5 ms to save second 4 ms.
    EXPECT_EQ(report.launches[0].chosenName, "axpy_work2");
    EXPECT_EQ(report.launches[1].chosenName, "axpy_work8");
    EXPECT_DOUBLE_EQ(report.kernelByKernelMs, 6.0);
    EXPECT_DOUBLE_EQ(report.jointMs, 2.5);
    EXPECT_FALSE(report.cached);
    // The joint pick is what the kernels launch from now on.
    EXPECT_EQ(fixture.module.kernel("first").chosenVariant({256}), 1);
    EXPECT_EQ(fixture.module.kernel("second").chosenVariant({256}), 0);
  }
}

TEST(StepTest, TuningNeverWritesTheApplicationsBuffers) {
  StepFixture fixture;
  TunedStep step("block", fixture.body(), quickStep());
  step.run(nullptr);
  // Dozens of timed runs, and one real one: y = 2x, z = 2y.
  EXPECT_GT(step.reports()[0].evaluations, 3);
  for (int64_t i = 0; i < fixture.n; ++i) {
    ASSERT_EQ(fixture.y[i], 2.0f) << i;
    ASSERT_EQ(fixture.z[i], 4.0f) << i;
  }
  step.run(nullptr); // Tuned: runs once more, for real.
  EXPECT_EQ(step.reports().size(), 1u);
  EXPECT_EQ(fixture.y[0], 4.0f);
  EXPECT_EQ(fixture.z[0], 12.0f);
}

TEST(StepTest, TheJointDecisionPersistsAndIsTakenLater) {
  TempDir cache;
  {
    StepFixture fixture(cache.path);
    TunedStep step("block", fixture.body(), quickStep());
    step.run(nullptr);
  }
  std::ifstream file(cache.path + "/steps.json");
  ASSERT_TRUE(file.good());
  std::string text((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"format\": \"tuna-step-cache\""), std::string::npos);
  EXPECT_NE(text.find("\"version\": 1"), std::string::npos);

  StepFixture fixture(cache.path);
  TunedStep step("block", fixture.body(), quickStep());
  step.run(nullptr);
  const StepReport &report = step.reports().at(0);
  EXPECT_TRUE(report.cached);
  EXPECT_EQ(report.evaluations, 0);
  EXPECT_EQ(report.launches[0].chosenName, "axpy_work2");
  EXPECT_EQ(report.launches[1].chosenName, "axpy_work8");
  // Another step name is another decision.
  StepFixture other(cache.path);
  TunedStep renamed("other block", other.body(), quickStep());
  renamed.run(nullptr);
  EXPECT_FALSE(renamed.reports().at(0).cached);
}

TEST(StepTest, NewShapesAreTunedJointlyAtTheNextRun) {
  StepFixture fixture("", 512);
  int64_t n = 256;
  TunedStep step(
      "block",
      [&](StreamHandle stream) {
        fixture.module.kernel("first").launch(
            stream, memref(fixture.x.data(), {n}), memref(fixture.y.data(), {n}),
            2.0f, n);
        fixture.module.kernel("second").launch(
            stream, memref(fixture.y.data(), {n}), memref(fixture.z.data(), {n}),
            2.0f, n);
      },
      quickStep());
  step.run(nullptr);
  n = 512;
  step.run(nullptr); // Decided kernel by kernel, noticed.
  EXPECT_EQ(step.reports().size(), 1u);
  step.run(nullptr);
  ASSERT_EQ(step.reports().size(), 2u);
  EXPECT_EQ(step.reports()[1].launches[0].signature,
            std::vector<int64_t>{512});
  EXPECT_EQ(step.reports()[1].launches[0].chosenName, "axpy_work2");
}

TEST(StepTest, AStepWithoutTunedKernelsIsAnError) {
  TunedStep step("empty", [](StreamHandle) {});
  try {
    step.run(nullptr);
    FAIL() << "ran";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "step 'empty': it launches no tuned kernel");
  }
  EXPECT_THROW(TunedStep("bad", [](StreamHandle) {}, quickStep("annealing")),
               Error);
}
