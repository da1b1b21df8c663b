//===- ObjectProviderTest.cpp - Code that arrives on first need -----------===//
//
// A bundle whose objects have no bytes, one per axpy variant, and a provider
// that records what the runtime asks for: only what a decision needs, all
// candidates of a tuning in one call, and a failing object costs only its
// own variant.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

using namespace tuna;
using namespace tuna::test;

namespace {

constexpr int64_t kN = 1 << 12;

/// axpyBundle() with one empty object per variant.
Bundle emptyObjectsBundle() {
  Bundle bundle = axpyBundle();
  Object empty = bundle.objects[0];
  empty.data.clear();
  bundle.objects.clear();
  for (Variant &variant : bundle.kernels[0].variants) {
    variant.code[0].object = static_cast<int>(bundle.objects.size());
    bundle.objects.push_back(empty);
  }
  return bundle;
}

/// Hands out the test kernel library and records every call.
struct RecordingProvider {
  std::vector<std::vector<int>> calls;
  std::set<int> failing; ///< Objects whose "compile" fails.

  ObjectProvider provider() {
    return [this](const std::vector<int> &objects) {
      calls.push_back(objects);
      for (int object : objects)
        if (failing.count(object))
          throw Error(ErrorCode::InvalidArgument,
                      "cannot compile object #" + std::to_string(object));
      return std::vector<std::string>(objects.size(), kernelLibrary());
    };
  }
};

Options quickOptions() {
  Options options;
  options.minRuns = 3;
  options.maxRuns = 5;
  options.candidateBudgetMs = 20;
  options.eliminateFactor = 1e9;
  options.check = true; // axpy_wrong must not win (launchAndCheck).
  return options;
}

/// Launches axpy (y += 2x) for kN elements and checks the result.
void launchAndCheck(TunedKernel &kernel) {
  std::vector<float> x(kN), y(kN, 1.0f);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = static_cast<float>(i % 7);
  kernel.launch(nullptr, memref(x.data(), {kN}), memref(y.data(), {kN}), 2.0f,
                kN);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(y[i], 1.0f + 2.0f * x[i]) << "i=" << i;
}

} // namespace

TEST(ObjectProviderTest, ModeOffAsksForTheDefaultOnly) {
  RecordingProvider recorder;
  Options options = quickOptions();
  options.mode = TuneMode::Off;
  Module module = Module::fromBundle(emptyObjectsBundle(), Device::host(),
                                     "lazy", options, recorder.provider());
  EXPECT_TRUE(recorder.calls.empty());
  launchAndCheck(module.kernel("axpy"));
  ASSERT_EQ(recorder.calls.size(), 1u);
  EXPECT_EQ(recorder.calls[0], std::vector<int>{0});
  launchAndCheck(module.kernel("axpy"));
  EXPECT_EQ(recorder.calls.size(), 1u);
}

TEST(ObjectProviderTest, TuningAsksForEveryCandidateInOneCall) {
  RecordingProvider recorder;
  Module module = Module::fromBundle(emptyObjectsBundle(), Device::host(),
                                     "lazy", quickOptions(),
                                     recorder.provider());
  launchAndCheck(module.kernel("axpy"));
  ASSERT_EQ(recorder.calls.size(), 1u);
  EXPECT_EQ(recorder.calls[0], (std::vector<int>{0, 1, 2, 3}));
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.source, DecisionSource::Tuned);
}

TEST(ObjectProviderTest, ACachedPickAsksForItAlone) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tuna-provider-test-" +
                               std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Options options = quickOptions();
  options.cacheDir = dir.string();
  int chosen;
  {
    RecordingProvider first;
    Module module = Module::fromBundle(emptyObjectsBundle(), Device::host(),
                                       "lazy", options, first.provider());
    launchAndCheck(module.kernel("axpy"));
    chosen = module.kernel("axpy").reports().at(0).chosen;
  }
  RecordingProvider second;
  Module module = Module::fromBundle(emptyObjectsBundle(), Device::host(),
                                     "lazy", options, second.provider());
  launchAndCheck(module.kernel("axpy"));
  EXPECT_EQ(module.kernel("axpy").reports().at(0).source,
            DecisionSource::Cache);
  ASSERT_EQ(second.calls.size(), 1u);
  EXPECT_EQ(second.calls[0], std::vector<int>{chosen});
  std::filesystem::remove_all(dir);
}

TEST(ObjectProviderTest, AFailingObjectCostsOnlyItsVariant) {
  RecordingProvider recorder;
  recorder.failing = {2};
  Module module = Module::fromBundle(emptyObjectsBundle(), Device::host(),
                                     "lazy", quickOptions(),
                                     recorder.provider());
  launchAndCheck(module.kernel("axpy"));
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.candidates[2].status, CandidateStatus::Unrunnable);
  EXPECT_NE(report.candidates[2].reason.find("cannot compile object #2"),
            std::string::npos)
      << report.candidates[2].reason;
  EXPECT_NE(report.candidates[2].reason.find("axpy_work64"), std::string::npos)
      << report.candidates[2].reason;
  EXPECT_NE(report.chosen, 2);
  // The batch failed, then each object was asked for alone.
  EXPECT_EQ(recorder.calls.front(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(recorder.calls.size(), 5u);
}

TEST(ObjectProviderTest, NoBytesFromTheProviderIsAnError) {
  Options options = quickOptions();
  options.mode = TuneMode::Off;
  Module module = Module::fromBundle(
      emptyObjectsBundle(), Device::host(), "lazy", options,
      [](const std::vector<int> &) { return std::vector<std::string>(); });
  try {
    launchAndCheck(module.kernel("axpy"));
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("returned no code for object #0"),
              std::string::npos)
        << e.what();
  }
}
