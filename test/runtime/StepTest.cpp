//===- StepTest.cpp - Kernels tuned together, in the step that runs them --===//
//
// A step launches two axpy-like kernels, `first` (y += 2x) and `second`
// (z += 2y), on an interacting host (TestBundles.h): alone, first is
// fastest with axpy_work1 (1 ms, against 1.5 ms) and second with
// axpy_work8 (1 ms, against 2 ms), but axpy_work8 right after axpy_work1
// costs 4 ms more. Kernel by kernel the step takes 6 ms; jointly,
// first=axpy_work2 and second=axpy_work8 take 2.5 ms.
//
// Ranks of a job are threads (ThreadJob) whose hosts differ (stepHost(rank),
// TestBundles.h).
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include <sys/stat.h>

using namespace tuna;
using namespace tuna::test;

namespace {

/// A module of stepBundle() and the buffers of one step over n elements.
struct StepFixture {
  explicit StepFixture(const std::string &cacheDir = "", int64_t n = 256)
      : StepFixture(options(cacheDir), n, stepHost()) {}
  StepFixture(Options options, int64_t n, Device host)
      : module(Module::fromBundle(stepBundle(), std::move(host), "step.tuna",
                                  std::move(options))),
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

//===----------------------------------------------------------------------===//
// A step tuned by the ranks of a job together
//===----------------------------------------------------------------------===//

namespace {
/// What each rank's step did: its report, or what it threw.
struct RankStep {
  StepReport report;
  std::string error;
  int firstVariant = -1, secondVariant = -1; ///< Published for [256].
  bool outputsRight = false;
};

/// Runs the step "block" on `size` ranks at once, rank r over `n(r)`
/// elements with its cache in `cacheDirs[r]`; the ranks in `absent` never
/// run it.
std::vector<RankStep> runStepOnRanks(
    int size, const std::vector<std::string> &cacheDirs,
    const std::function<int64_t(int)> &n = [](int) { return 256; },
    std::vector<int> absent = {}, double timeoutMs = 5000) {
  ThreadJob job(size);
  std::vector<RankStep> results(size);
  runTogether(size, [&](int rank) {
    if (std::count(absent.begin(), absent.end(), rank))
      return;
    Options options = StepFixture::options(cacheDirs[rank]);
    options.communicator = job.rank(rank);
    options.agreeTimeoutMs = timeoutMs;
    StepFixture fixture(options, n(rank), stepHost(rank));
    TunedStep step("block", fixture.body(), quickStep());
    RankStep &result = results[rank];
    try {
      step.run(nullptr);
      result.report = step.reports().at(0);
      result.firstVariant =
          fixture.module.kernel("first").chosenVariant({fixture.n});
      result.secondVariant =
          fixture.module.kernel("second").chosenVariant({fixture.n});
      result.outputsRight = fixture.y[0] == 2.0f && fixture.z[0] == 4.0f &&
                            fixture.y.back() == 2.0f &&
                            fixture.z.back() == 4.0f;
    } catch (const Error &e) {
      result.error = e.what();
    }
  });
  return results;
}

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}
} // namespace

TEST(StepRanksTest, EveryRankLaunchesThePickWhoseSlowestRankIsFastest) {
  TempDir dirs[3];
  std::vector<std::string> cacheDirs = {dirs[0].path, dirs[1].path,
                                        dirs[2].path};
  std::vector<RankStep> results = runStepOnRanks(3, cacheDirs);
  for (int rank = 0; rank < 3; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const RankStep &result = results[rank];
    ASSERT_EQ(result.error, "");
    EXPECT_EQ(result.report.ranks, 3);
    EXPECT_FALSE(result.report.cached);
    ASSERT_EQ(result.report.launches.size(), 2u);
    EXPECT_EQ(result.report.launches[0].chosenName, "axpy_work1");
    EXPECT_EQ(result.report.launches[1].chosenName, "axpy_work4");
    EXPECT_EQ(result.firstVariant, 0);
    EXPECT_EQ(result.secondVariant, 1);
    // Alone, ranks 0 and 2 would have picked (axpy_work2, axpy_work8).
    EXPECT_EQ(result.report.launches[0].ownChoice, rank == 1 ? 0 : 1);
    EXPECT_EQ(result.report.launches[1].ownChoice, rank == 1 ? 1 : 0);
    // This rank's own times of both.
    EXPECT_DOUBLE_EQ(result.report.kernelByKernelMs, 6.0);
    EXPECT_DOUBLE_EQ(result.report.jointMs, 3.0);
    // The application's buffers were written by the real run alone.
    EXPECT_TRUE(result.outputsRight);
    // Recorded once, by rank 0.
    EXPECT_EQ(exists(cacheDirs[rank] + "/steps.json"), rank == 0);
  }

  // Only rank 0 remembers: every rank takes its decision, timing nothing.
  results = runStepOnRanks(3, cacheDirs);
  for (int rank = 0; rank < 3; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    ASSERT_EQ(results[rank].error, "");
    EXPECT_TRUE(results[rank].report.cached);
    EXPECT_EQ(results[rank].report.evaluations, 0);
    EXPECT_EQ(results[rank].firstVariant, 0);
    EXPECT_EQ(results[rank].secondVariant, 1);
  }
}

TEST(StepRanksTest, RanksThatRunAnotherStepAreAnErrorNamingThem) {
  std::vector<RankStep> results = runStepOnRanks(
      3, {"", "", ""}, [](int rank) { return rank == 2 ? 512 : 256; });
  for (const RankStep &result : results) {
    EXPECT_NE(result.error.find("step 'block': on rank "), std::string::npos)
        << result.error;
    EXPECT_NE(result.error.find("the ranks are not tuning the same step"),
              std::string::npos)
        << result.error;
    EXPECT_NE(result.error.find("rank 2 has launch 0 signature [512], rank 0 "
                                "[256]"),
              std::string::npos)
        << result.error;
  }
}

TEST(StepRanksTest, ARankThatNeverRunsTheStepIsAnErrorWithinTheTimeout) {
  std::vector<RankStep> results = runStepOnRanks(
      2, {"", ""}, [](int) { return 256; }, /*absent=*/{1},
      /*timeoutMs=*/300);
  EXPECT_NE(results[0].error.find("step 'block': on rank 0 of 2: ranks 1 did "
                                  "not join within"),
            std::string::npos)
      << results[0].error;
  EXPECT_NE(results[0].error.find("ranks must run the same steps"),
            std::string::npos);
}

TEST(StepRanksTest, ARankAtAnotherExchangeIsAnErrorNotAMisreadMessage) {
  // Rank 0 launches `first` on its own (a kernel's agreement) while rank 1
  // tunes the step: each reads the other's message as its own exchange's,
  // and must say so instead of reading fields that are not there.
  ThreadJob job(2);
  std::vector<std::string> errors(2);
  runTogether(2, [&](int rank) {
    Options options = StepFixture::options("");
    options.communicator = job.rank(rank);
    options.agreeTimeoutMs = 5000;
    StepFixture fixture(options, 256, stepHost(rank));
    try {
      if (rank == 0) {
        fixture.module.kernel("first").launch(
            nullptr, memref(fixture.x.data(), {fixture.n}),
            memref(fixture.y.data(), {fixture.n}), 2.0f, fixture.n);
      } else {
        TunedStep step("block", fixture.body(), quickStep());
        step.run(nullptr);
      }
    } catch (const Error &e) {
      errors[rank] = e.what();
    }
  });
  EXPECT_NE(errors[0].find("the ranks are not deciding the same thing"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("step 'block': on rank 1 of 2: the ranks are not "
                           "at the same exchange"),
            std::string::npos)
      << errors[1];
  EXPECT_NE(errors[1].find("rank 0 sent {"), std::string::npos) << errors[1];
}
