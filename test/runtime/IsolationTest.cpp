//===- IsolationTest.cpp - Tuning that survives crashing variants ---------===//
//
// Isolated tuning on the host: among the axpy variants of ScaleKernels.cpp
// are variants of FaultyKernels.cpp that trap, abort, store to address 0 and
// spin forever. Only the worker process (bin/tuna-worker, found beside this
// binary) ever runs them; were one run in this process, the test would die.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include <sys/stat.h>

using namespace tuna;
using namespace tuna::test;

namespace {

constexpr int64_t kN = 1 << 12;
constexpr float kAlpha = 2.0f;

const std::set<std::string> kFaulty = {"axpy_trap", "axpy_abort", "axpy_null",
                                       "axpy_spin"};
const std::set<std::string> kCorrect = {"axpy_work0", "axpy_work4",
                                        "axpy_work64"};

Variant faultyVariant(const std::string &symbol, int64_t work) {
  Variant variant = axpyVariant(symbol, work);
  variant.code[0].object = 1;
  return variant;
}

/// axpyBundle() with the faulty variants among the others, but for those
/// in `leftOut`; `defaultName` becomes the default variant.
Bundle faultyBundle(const std::string &defaultName = "axpy_work4",
                    const std::set<std::string> &leftOut = {}) {
  Bundle bundle = axpyBundle();
  Object faulty = bundle.objects[0];
  faulty.data = faultyKernelLibrary();
  bundle.objects.push_back(faulty);
  Kernel &kernel = bundle.kernels[0];
  std::vector<Variant> normal = kernel.variants; // work4, work0, work64, wrong
  kernel.variants = {normal[0],
                     faultyVariant("axpy_trap", -2),
                     normal[1],
                     faultyVariant("axpy_spin", -3),
                     faultyVariant("axpy_null", -4),
                     normal[2],
                     faultyVariant("axpy_abort", -5),
                     normal[3]};
  kernel.variants.erase(std::remove_if(kernel.variants.begin(),
                                       kernel.variants.end(),
                                       [&](const Variant &variant) {
                                         return leftOut.count(variant.name);
                                       }),
                        kernel.variants.end());
  for (size_t v = 0; v < kernel.variants.size(); ++v)
    if (kernel.variants[v].name == defaultName)
      kernel.defaultVariant = static_cast<int>(v);
  return bundle;
}

Options isolatedOptions() {
  Options options;
  options.isolate = true;
  options.check = true;
  options.minRuns = 3;
  options.maxRuns = 6;
  options.candidateBudgetMs = 30;
  // Long enough that no correct variant comes near it on a loaded or
  // sanitized machine; axpy_spin waits for it once.
  options.tuneTimeoutMs = 3000;
  return options;
}

struct AxpyData {
  AxpyData() : x(kN), y(kN), expected(kN) {
    for (int64_t i = 0; i < kN; ++i) {
      x[i] = static_cast<float>(i % 97) * 0.25f;
      y[i] = static_cast<float>(i % 13);
      expected[i] = y[i] + kAlpha * x[i];
    }
  }
  void launch(TunedKernel &kernel) {
    kernel.launch(nullptr, memref(x.data(), {kN}), memref(y.data(), {kN}),
                  kAlpha, kN);
  }
  std::vector<float> x, y, expected;
};

const CandidateResult &candidate(const TuningReport &report,
                                 const std::string &name) {
  for (const CandidateResult &result : report.candidates)
    if (result.name == name)
      return result;
  throw std::runtime_error("no candidate " + name);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The variants that crash or hang are Failed, with why.
void expectFaultyFailed(const TuningReport &report, const std::string &why) {
  for (const std::string &name : kFaulty) {
    const CandidateResult &result = candidate(report, name);
    EXPECT_EQ(result.status, CandidateStatus::Failed) << name;
    EXPECT_TRUE(contains(result.reason, why)) << name << ": " << result.reason;
  }
}

} // namespace

TEST(IsolationTest, CrashingAndHangingVariantsFailAndTheAppGoesOn) {
  Module module = Module::fromBundle(faultyBundle(), Device::host(),
                                     "faulty.tuna", isolatedOptions());
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data;
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);

  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 1u);
  const TuningReport &report = reports[0];
  EXPECT_EQ(report.source, DecisionSource::Tuned);
  EXPECT_TRUE(report.checked);
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u) << report.chosenName;
  expectFaultyFailed(report, "");
  EXPECT_TRUE(contains(candidate(report, "axpy_trap").reason, "crashed"));
  // A store to address 0 kills the worker with SIGSEGV, or with SIGABRT
  // where a sanitizer's handler sees the fault first (scripts/sanitize.sh
  // sets abort_on_error).
  const std::string &nullReason = candidate(report, "axpy_null").reason;
  EXPECT_TRUE(contains(nullReason, "signal 11") ||
              contains(nullReason, "signal 6"))
      << nullReason;
  EXPECT_TRUE(contains(candidate(report, "axpy_spin").reason, "hung"));
  EXPECT_EQ(candidate(report, "axpy_wrong").status,
            CandidateStatus::WrongResult);

  // The decided variant runs in this process from now on.
  data.launch(kernel);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(data.y[i], data.expected[i] + kAlpha * data.x[i]) << i;
}

TEST(IsolationTest, FailuresAreCachedAndNeverRetried) {
  TempDir dir;
  Options options = isolatedOptions();
  options.cacheDir = dir.path;
  {
    Module module = Module::fromBundle(faultyBundle(), Device::host(),
                                       "faulty.tuna", options);
    AxpyData data;
    data.launch(module.kernel("axpy"));
  }
  std::vector<CacheEntry> entries =
      TuningCache::inDirectory(dir.path).entries();
  ASSERT_EQ(entries.size(), 1u);
  std::set<std::string> failed;
  for (const auto &[name, reason] : entries[0].failed)
    failed.insert(name);
  EXPECT_EQ(failed, kFaulty);

  // Re-tuning in this process, not isolated: had a faulty variant run here,
  // the test would have crashed or hung.
  options.isolate = false;
  options.mode = TuneMode::Always;
  Module again = Module::fromBundle(faultyBundle(), Device::host(),
                                    "faulty.tuna", options);
  TunedKernel &kernel = again.kernel("axpy");
  AxpyData data;
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.source, DecisionSource::Tuned);
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u) << report.chosenName;
  expectFaultyFailed(report, "failed in an earlier tuning: ");

  // The new entry still remembers them.
  entries = TuningCache::inDirectory(dir.path).entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].failed.size(), kFaulty.size());
}

TEST(IsolationTest, ACrashingDefaultIsCheckedWithoutIt) {
  // Unchecked, axpy_wrong could win; axpy_spin would only cost time.
  Module module = Module::fromBundle(
      faultyBundle("axpy_trap", {"axpy_spin"}), Device::host(), "faulty.tuna",
      isolatedOptions());
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data;
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = kernel.reports().at(0);
  const CandidateResult &trap = candidate(report, "axpy_trap");
  EXPECT_EQ(trap.status, CandidateStatus::Failed);
  EXPECT_TRUE(contains(trap.reason, "while checking its output"))
      << trap.reason;
  // The fresh worker checks the others by their agreement.
  EXPECT_TRUE(report.checked);
  EXPECT_TRUE(contains(report.checkedAgainst, " variants agree on"))
      << report.checkedAgainst;
  EXPECT_EQ(candidate(report, "axpy_wrong").status,
            CandidateStatus::WrongResult);
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u) << report.chosenName;
}

// The application's reference runs in the application; its output travels
// to the worker with the inputs.
TEST(IsolationTest, TheWorkerChecksAgainstTheApplicationsReference) {
  Module module = Module::fromBundle(
      faultyBundle("axpy_work4", kFaulty),
      Device::host(), "faulty.tuna", isolatedOptions());
  TunedKernel &kernel = module.kernel("axpy");
  int calls = 0;
  kernel.setReference(
      [&](StreamHandle, const ArgValue *args, size_t count) {
        ASSERT_EQ(count, 4u);
        const MemRefView &x = args[0].memref, &y = args[1].memref;
        const float *in = static_cast<const float *>(x.aligned) + x.offset;
        float *out = static_cast<float *>(y.aligned) + y.offset;
        for (int64_t i = 0; i < args[3].intValue; ++i)
          out[i] += static_cast<float>(args[2].floatValue) * in[i];
        ++calls;
      },
      "host axpy");
  AxpyData data;
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  EXPECT_EQ(calls, 1);
  TuningReport report = kernel.reports().at(0);
  EXPECT_TRUE(report.checked);
  EXPECT_EQ(report.checkedAgainst, "the reference host axpy");
  EXPECT_EQ(candidate(report, "axpy_wrong").status,
            CandidateStatus::WrongResult);
  EXPECT_TRUE(contains(candidate(report, "axpy_wrong").reason,
                       "differs from the reference host axpy: argument 1: "))
      << candidate(report, "axpy_wrong").reason;
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u) << report.chosenName;
}

TEST(IsolationTest, EveryCandidateFailingIsAnError) {
  Bundle bundle = faultyBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.variants = {faultyVariant("axpy_trap", -2),
                     faultyVariant("axpy_abort", -5)};
  kernel.defaultVariant = 0;
  Module module = Module::fromBundle(bundle, Device::host(), "faulty.tuna",
                                     isolatedOptions());
  AxpyData data;
  try {
    data.launch(module.kernel("axpy"));
    ADD_FAILURE() << "a launch with no surviving candidate succeeded";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "every candidate failed")) << e.what();
    EXPECT_TRUE(contains(e.what(), "axpy_abort: crashed")) << e.what();
  }
  std::vector<float> y0 = AxpyData().y;
  EXPECT_EQ(data.y, y0) << "nothing ran on the application's buffer";
}

TEST(IsolationTest, MissingWorkerIsAClearError) {
  Options options = isolatedOptions();
  options.workerPath = "/nonexistent/tuna-worker";
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     options);
  AxpyData data;
  try {
    data.launch(module.kernel("axpy"));
    ADD_FAILURE() << "tuning without a worker succeeded";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "/nonexistent/tuna-worker")) << e.what();
    EXPECT_TRUE(contains(e.what(), "TUNA_WORKER")) << e.what();
  }
}

TEST(IsolationTest, AWorkerThatEndsOutsideACandidateIsAClearError) {
  Options options = isolatedOptions();
  options.workerPath = "/bin/true"; // Exits without reading the request.
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     options);
  AxpyData data;
  try {
    data.launch(module.kernel("axpy"));
    ADD_FAILURE() << "tuning with a worker that answers nothing succeeded";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "the worker '/bin/true' exited with "
                                   "status 0 outside any candidate"))
        << e.what();
  }
}

TEST(IsolationTest, IsolatedAndInProcessTuningAgreeOnCorrectness) {
  // Without faulty variants the worker sees the same data: the wrong
  // variant is rejected, and the strided view's gaps survive the copy.
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     isolatedOptions());
  TunedKernel &kernel = module.kernel("axpy");
  std::vector<float> x(kN), storage(2 * kN + 1, 7.0f);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = static_cast<float>(i % 31);
  MemRefView y = memref(storage.data(), {kN});
  y.offset = 1;
  y.strides[0] = 2;
  kernel.launch(nullptr, memref(x.data(), {kN}), y, kAlpha, kN);
  for (int64_t i = 0; i < 2 * kN + 1; ++i) {
    bool element = i % 2 == 1;
    ASSERT_EQ(storage[i], element ? 7.0f + kAlpha * x[i / 2] : 7.0f) << i;
  }
  TuningReport report = kernel.reports().at(0);
  EXPECT_TRUE(report.checked);
  EXPECT_EQ(candidate(report, "axpy_wrong").status,
            CandidateStatus::WrongResult);
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u) << report.chosenName;
  // The worker's results carry the whole spread of the samples (tuna-tune
  // printed "samples 0.19..-1 ms" when the slowest was lost on the way).
  for (const CandidateResult &result : report.candidates)
    if (result.status == CandidateStatus::Measured)
      EXPECT_GE(result.maxMs, result.minMs) << result.name;
}

namespace {
/// A worker that appends a line to `log` each time it starts, then is
/// tuna-worker.
std::string countingWorker(const TempDir &dir, const std::string &log) {
  std::string path = dir.path + "/counting-worker";
  std::FILE *script = std::fopen(path.c_str(), "w");
  std::fprintf(script, "#!/bin/sh\necho started >> '%s'\nexec '%s'\n",
               log.c_str(), TUNA_WORKER_PATH);
  std::fclose(script);
  ::chmod(path.c_str(), 0755);
  return path;
}

size_t linesOf(const std::string &path) {
  std::ifstream file(path);
  return std::count(std::istreambuf_iterator<char>(file),
                    std::istreambuf_iterator<char>(), '\n');
}
} // namespace

TEST(IsolationTest, OneWorkerServesEveryBatchOfASearch) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Options options = isolatedOptions();
  options.workerPath = countingWorker(dir, log);
  // Budgets no sanitized or loaded machine reaches, and no elimination of
  // a slow candidate: every re-timing ends at its sample count.
  options.candidateBudgetMs = 60000;
  options.totalBudgetMs = 60000;
  options.eliminateFactor = 1e9;
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data;
  search::SearchOptions searching;
  searching.strategy = "exhaustive";
  searching.batchSize = 1; // A request per variant.
  searching.retimeWithin = 100;
  searching.retimeSamples = 7;
  const ArgValue args[] = {toArg(memref(data.x.data(), {kN})),
                           toArg(memref(data.y.data(), {kN})), toArg(kAlpha),
                           toArg(kN)};
  SearchOutcome outcome = kernel.search(nullptr, args, 4, searching);
  EXPECT_EQ(linesOf(log), 1u);
  EXPECT_EQ(outcome.result.evaluations.size(), 4u);
  EXPECT_EQ(kCorrect.count(outcome.report.chosenName), 1u)
      << outcome.report.chosenName;
  EXPECT_EQ(outcome.report.candidates[3].status, CandidateStatus::WrongResult);
  // The re-timing's samples reach the worker.
  ASSERT_FALSE(outcome.result.retimed.empty());
  for (const search::Retiming &retiming : outcome.result.retimed) {
    EXPECT_GE(retiming.again.samples, 7) << retiming.config;
  }
  EXPECT_EQ(data.y, AxpyData().y); // A search writes scratch copies only.
}

TEST(IsolationTest, ASearchReplacesAWorkerAfterAFailure) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Options options = isolatedOptions();
  options.workerPath = countingWorker(dir, log);
  // Crashing variants only, no hang: each crash ends a worker.
  Module module = Module::fromBundle(faultyBundle("axpy_work4", {"axpy_spin"}),
                                     Device::host(), "faulty.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data;
  search::SearchOptions searching;
  searching.strategy = "exhaustive";
  searching.batchSize = 2;
  const ArgValue args[] = {toArg(memref(data.x.data(), {kN})),
                           toArg(memref(data.y.data(), {kN})), toArg(kAlpha),
                           toArg(kN)};
  SearchOutcome outcome = kernel.search(nullptr, args, 4, searching);
  EXPECT_EQ(kCorrect.count(outcome.report.chosenName), 1u)
      << outcome.report.chosenName;
  for (const char *name : {"axpy_trap", "axpy_abort", "axpy_null"})
    EXPECT_EQ(candidate(outcome.report, name).status, CandidateStatus::Failed)
        << name;
  // The first worker, and one after each of the 3 crashes.
  EXPECT_EQ(linesOf(log), 4u);
}

TEST(IsolationTest, TunaTuneIsolatesByDefault) {
  TempDir dir;
  std::string bundle = dir.path + "/faulty.tuna";
  writeBundleFile(faultyBundle(), bundle);
  std::string tune = std::string(TUNA_TUNE_PATH) + " " + bundle +
                     " --shape d0=4096 --check --timeout-ms 3000 --cache-dir " +
                     dir.path + " -o " + dir.path + "/db.json > " + dir.path +
                     "/out.txt 2>&1";
  ASSERT_EQ(std::system(tune.c_str()), 0) << tune;
  std::vector<CacheEntry> entries = readCacheFile(dir.path + "/db.json");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(kCorrect.count(entries[0].variant), 1u) << entries[0].variant;
  std::set<std::string> failed;
  for (const auto &[name, reason] : entries[0].failed)
    failed.insert(name);
  EXPECT_EQ(failed, kFaulty);

  // In-process tuning with that cache runs none of them again.
  ASSERT_EQ(std::system((tune + " --no-isolate").c_str()), 0);
}

TEST(IsolationTest, EnvironmentTurnsItOn) {
  ::setenv("TUNA_ISOLATE", "1", 1);
  ::setenv("TUNA_TUNE_TIMEOUT_MS", "1500", 1);
  ::setenv("TUNA_WORKER", "/opt/tuna/bin/tuna-worker", 1);
  Options options = Options::fromEnvironment();
  EXPECT_TRUE(options.isolate);
  EXPECT_EQ(options.tuneTimeoutMs, 1500);
  EXPECT_EQ(options.workerPath, "/opt/tuna/bin/tuna-worker");
  ::setenv("TUNA_TUNE_TIMEOUT_MS", "soon", 1);
  EXPECT_THROW(Options::fromEnvironment(), Error);
  ::unsetenv("TUNA_ISOLATE");
  ::unsetenv("TUNA_TUNE_TIMEOUT_MS");
  ::unsetenv("TUNA_WORKER");
  EXPECT_FALSE(Options::fromEnvironment().isolate);
}
