//===- IsolationTest.cpp - Tuning that survives crashing variants ---------===//
//
// Isolated tuning on the host: among the axpy variants of ScaleKernels.cpp
// are variants of FaultyKernels.cpp that trap, abort, store to address 0 and
// spin forever. Only the worker process (bin/tuna-worker, found beside this
// binary) ever runs them; were one run in this process, the test would die.
//
//===----------------------------------------------------------------------===//

#include "BundleParts.h"
#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include <csignal>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/// y += alpha * x on the host: the application's reference for axpy.
void hostAxpy(const ArgValue *args) {
  const MemRefView &x = args[0].memref, &y = args[1].memref;
  const float *in = static_cast<const float *>(x.aligned) + x.offset;
  float *out = static_cast<float *>(y.aligned) + y.offset;
  for (int64_t i = 0; i < args[3].intValue; ++i)
    out[i] += static_cast<float>(args[2].floatValue) * in[i];
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
        hostAxpy(args);
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
  // Every correct candidate is measured; two are finalists, and the final
  // round runs however slow the machine (the candidates' own budget, 30 ms,
  // still bounds each one's samples).
  Options options = isolatedOptions();
  options.eliminateFactor = 1e9;
  options.finalMargin = 1e9;
  options.finalists = 2;
  options.totalBudgetMs = 60000;
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     options);
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
  // The worker's results say which candidates were in the final round and
  // which were behind them; the pick is a finalist.
  int finalists = 0, behind = 0;
  for (const char *name : {"axpy_work0", "axpy_work4", "axpy_work64"}) {
    const CandidateResult &result = candidate(report, name);
    EXPECT_NE(result.finalist, result.behindFinalists) << name;
    finalists += result.finalist;
    behind += result.behindFinalists;
  }
  EXPECT_EQ(finalists, 2);
  EXPECT_EQ(behind, 1);
  EXPECT_TRUE(candidate(report, report.chosenName).finalist);
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

/// Isolated options whose workers note each start in `log`, with budgets
/// no sanitized or loaded machine reaches and no elimination of a slow
/// candidate: every re-timing ends at its sample count.
Options countedWorkerOptions(const TempDir &dir, const std::string &log) {
  Options options = isolatedOptions();
  options.workerPath = countingWorker(dir, log);
  options.candidateBudgetMs = 60000;
  options.totalBudgetMs = 60000;
  options.eliminateFactor = 1e9;
  return options;
}
} // namespace

TEST(IsolationTest, OneWorkerServesEveryBatchOfASearch) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Options options = countedWorkerOptions(dir, log);
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

// A tuning device's share of each batch goes to one worker for the whole
// search: the thread that starts it lives as long as the search (a worker
// ends with the thread that started it, PR_SET_PDEATHSIG).
TEST(IsolationTest, OneWorkerPerTuningDeviceServesEveryBatchOfEverySearch) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Options options = countedWorkerOptions(dir, log);
  options.tuningDevices = {Device(makeHostBackend())};
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data;
  search::SearchOptions searching;
  searching.strategy = "exhaustive";
  searching.batchSize = 2; // A variant per device per request.
  const ArgValue args[] = {toArg(memref(data.x.data(), {kN})),
                           toArg(memref(data.y.data(), {kN})), toArg(kAlpha),
                           toArg(kN)};
  SearchOutcome outcome = kernel.search(nullptr, args, 4, searching);
  EXPECT_EQ(linesOf(log), 2u); // One worker per device.
  EXPECT_EQ(outcome.result.evaluations.size(), 4u);
  int elsewhere = 0;
  for (const CandidateResult &c : outcome.report.candidates)
    elsewhere += c.timedOn.rfind("device 1", 0) == 0;
  // Re-timed candidates (close to the best) were timed here last.
  EXPECT_GE(elsewhere, 1);
  EXPECT_EQ(data.y, AxpyData().y);

  // The next search, on other arguments, finds both workers waiting.
  std::vector<float> x(16, 2.0f), y(16, 1.0f);
  const ArgValue others[] = {toArg(memref(x.data(), {16})),
                             toArg(memref(y.data(), {16})), toArg(kAlpha),
                             toArg(int64_t(16))};
  SearchOutcome next = kernel.search(nullptr, others, 4, searching);
  EXPECT_EQ(linesOf(log), 2u);
  int measured = 0, there = 0;
  for (const CandidateResult &c : next.report.candidates) {
    measured += c.status == CandidateStatus::Measured;
    there += c.timedOn.rfind("device 1", 0) == 0;
  }
  EXPECT_EQ(measured, 3); // All but axpy_wrong, which the check rejects.
  EXPECT_GE(there, 1);
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

namespace {
/// A tuna-worker spoken to directly: its socket, and the shared memory that
/// holds `bundle`'s manifest at 0 and then what appendShared() wrote.
class DirectWorker {
public:
  explicit DirectWorker(const Bundle &bundle)
      : memory(::memfd_create("direct-worker", MFD_CLOEXEC)) {
    int pair[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    socket = pair[0];
    // Above 4, so that neither dup2 below overwrites the other's source.
    int child = ::fcntl(pair[1], F_DUPFD_CLOEXEC, 10);
    int shared = ::fcntl(memory, F_DUPFD_CLOEXEC, 10);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child, 3);
    posix_spawn_file_actions_adddup2(&actions, shared, 4);
    char *argv[] = {const_cast<char *>(TUNA_WORKER_PATH), nullptr};
    EXPECT_EQ(::posix_spawn(&pid, TUNA_WORKER_PATH, &actions, nullptr, argv,
                            environ),
              0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pair[1]);
    ::close(child);
    ::close(shared);
    std::string manifest = writeBundleManifest(bundle);
    manifestBytes = appendShared(manifest);
    send({{"origin", "direct.tuna"},
          {"device",
           {{"platform", "host"},
            {"ordinal", 0},
            {"fingerprint", Device::host().info().fingerprint}}},
          {"manifest", {{"at", 0}, {"bytes", manifest.size()}}}});
  }
  ~DirectWorker() {
    ::close(socket);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    ::close(memory);
  }

  /// Writes `bytes` after what is there; returns where.
  size_t appendShared(const std::string &bytes) {
    size_t at = end;
    EXPECT_EQ(::pwrite(memory, bytes.data(), bytes.size(), at),
              static_cast<ssize_t>(bytes.size()));
    end += bytes.size();
    return at;
  }
  void send(const nlohmann::json &message) {
    std::string line = message.dump() + "\n";
    EXPECT_EQ(::write(socket, line.data(), line.size()),
              static_cast<ssize_t>(line.size()));
  }
  /// The next message (null when the worker closed its socket).
  nlohmann::json receive() {
    std::string line;
    char c;
    while (::read(socket, &c, 1) == 1 && c != '\n')
      line += c;
    return line.empty() ? nlohmann::json() : nlohmann::json::parse(line);
  }

  /// Writes `code` into the shared memory as the bundle's object #0 and
  /// sends a request to time `order` that carries it; the worker is ready.
  void requestWithObjectZero(const std::vector<int> &order,
                             const std::string &code) {
    size_t at = appendShared(code);
    send(request(
        order,
        {{"objects", {{{"index", 0}, {"at", at}, {"bytes", code.size()}}}}}));
    EXPECT_TRUE(receive().contains("ready"));
  }

  /// A request to time `order` of axpy on arrays of kN floats written in
  /// the shared memory, with `extra` merged in.
  nlohmann::json request(const std::vector<int> &order,
                         const nlohmann::json &extra) {
    std::string zeros(kN * sizeof(float), '\0');
    auto memref = [&](size_t at) {
      return nlohmann::json{{"memref",
                             {{"type", "f32"},
                              {"rank", 1},
                              {"sizes", {kN}},
                              {"strides", {1}},
                              {"low", 0},
                              {"at", at},
                              {"bytes", zeros.size()}}}};
    };
    auto scalar = [](const char *type, int64_t value) {
      return nlohmann::json{
          {"scalar", {{"type", type}, {"int", value}, {"float_bits", 0}}}};
    };
    nlohmann::json options;
    for (const char *name : {"atol", "rtol", "stable_tolerance",
                             "min_sample_ms", "eliminate_factor",
                             "candidate_budget_ms", "total_budget_ms",
                             "final_margin"})
      options[name] = 1.0;
    for (const char *name : {"warmup_runs", "min_runs", "max_runs",
                             "eliminate_after", "finalists", "final_rounds"})
      options[name] = 1;
    options["check"] = false;
    options["cold_timing"] = false;
    nlohmann::json message = {
        {"session",
         {{"kernel", "axpy"},
          {"args",
           {memref(appendShared(zeros)), memref(appendShared(zeros)),
            scalar("f32", 0), scalar("index", kN)}}}},
        {"options", options},
        {"order", order},
        {"failed", nlohmann::json::array()},
        {"best_median_ms", nullptr},
        {"budget_ms", 1000},
        {"voters", nlohmann::json::array()}};
    message.update(extra);
    return message;
  }

  size_t manifestBytes = 0;

private:
  int memory;
  int socket = -1;
  pid_t pid = -1;
  size_t end = 0;
};

std::string errorOf(const nlohmann::json &message) {
  return message.is_object() && message.contains("error")
             ? message.at("error").get<std::string>()
             : "no error: " + message.dump();
}
} // namespace

TEST(IsolationTest, AWorkerRefusesARequestWhoseObjectsItWasNotSent) {
  Bundle bundle = axpyBundle();
  DirectWorker worker(bundle);
  EXPECT_TRUE(worker.receive().contains("ready"));
  worker.send(worker.request({0}, nlohmann::json::object()));
  EXPECT_EQ(errorOf(worker.receive()),
            "the request names variant 'axpy_work4', whose object #0 no "
            "request carried");
}

TEST(IsolationTest, AWorkerRefusesAnObjectThatIsNotTheManifests) {
  Bundle bundle = axpyBundle();
  DirectWorker worker(bundle);
  std::string other = bundle.objects[0].data + "?";
  worker.requestWithObjectZero({0}, other);
  EXPECT_EQ(errorOf(worker.receive()),
            "object #0 is not the one the manifest describes");
}

/// Reads a worker's answers to one request until "done"; the variants it
/// timed. An error fails the test.
std::set<int> timedUntilDone(DirectWorker &worker) {
  std::set<int> timed;
  for (nlohmann::json message = worker.receive();
       message.is_object() && !message.contains("done");
       message = worker.receive()) {
    EXPECT_FALSE(message.contains("error")) << message.dump();
    if (message.contains("result"))
      timed.insert(message.at("result").at("variant").get<int>());
  }
  return timed;
}

TEST(IsolationTest, AWorkerTimesWhatItWasSent) {
  Bundle bundle = axpyBundle();
  DirectWorker worker(bundle);
  const std::string &code = bundle.objects[0].data;
  worker.requestWithObjectZero({0, 2}, code);
  EXPECT_EQ(timedUntilDone(worker), (std::set<int>{0, 2}));
  // A request without a session first is refused.
  DirectWorker fresh(bundle);
  nlohmann::json sessionless = fresh.request({0}, nlohmann::json::object());
  sessionless.erase("session");
  fresh.send(sessionless);
  EXPECT_TRUE(fresh.receive().contains("ready"));
  EXPECT_EQ(errorOf(fresh.receive()),
            "a request before the session (the kernel and the arguments)");
}

// A session's end releases the worker's kernel and buffers ("release": no
// answer); the code it was sent stays for the next session, which brings
// arguments of its own.
TEST(IsolationTest, AReleasedWorkerKeepsItsCodeForTheNextSession) {
  Bundle bundle = axpyBundle();
  DirectWorker worker(bundle);
  const std::string &code = bundle.objects[0].data;
  worker.requestWithObjectZero({0}, code);
  EXPECT_EQ(timedUntilDone(worker), (std::set<int>{0}));
  worker.send({{"release", true}});
  worker.send(worker.request({0, 2}, nlohmann::json::object()));
  EXPECT_EQ(timedUntilDone(worker), (std::set<int>{0, 2}));
  // Released, it has no session until a request brings one.
  worker.send({{"release", true}});
  nlohmann::json sessionless = worker.request({0}, nlohmann::json::object());
  sessionless.erase("session");
  worker.send(sessionless);
  EXPECT_EQ(errorOf(worker.receive()),
            "a request before the session (the kernel and the arguments)");
}

namespace {
/// How the module of tuneWithWorkersStartedAtLoad is made.
enum class MadeFrom { Bytes, ParsedBundle };

/// Loads axpy in a module that will tune (isolated, mode always) with
/// `tuningDevices`, from the bundle's bytes or from the parsed bundle
/// (Module::fromBundle), and checks that it starts one worker per device before
/// any launch (each writes its line when it runs: waited for as long as a
/// loaded machine may need), and that the tunings of two signatures start
/// no other: the first takes them and leaves them to the next. Returns the
/// first tuning's report.
TuningReport tuneWithWorkersStartedAtLoad(std::vector<Device> tuningDevices,
                                          MadeFrom madeFrom = MadeFrom::Bytes) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Options options = isolatedOptions();
  options.mode = TuneMode::Always; // Every new signature is tuned.
  options.workerPath = countingWorker(dir, log);
  size_t workers = 1 + tuningDevices.size();
  options.tuningDevices = std::move(tuningDevices);
  Module module =
      madeFrom == MadeFrom::Bytes
          ? Module::loadMemory(writeBundle(axpyBundle()), Device::host(),
                               "axpy.tuna", options)
          : Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                               options);
  for (int waited = 0; linesOf(log) < workers && waited < 600; ++waited)
    ::usleep(100000);
  EXPECT_EQ(linesOf(log), workers);
  AxpyData data;
  data.launch(module.kernel("axpy"));
  EXPECT_EQ(linesOf(log), workers);
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(kCorrect.count(report.chosenName), 1u);
  std::vector<float> x(16), y(16);
  module.kernel("axpy").launch(nullptr, memref(x.data(), {16}),
                               memref(y.data(), {16}), kAlpha, int64_t(16));
  EXPECT_EQ(linesOf(log), workers);
  return report;
}
} // namespace

TEST(IsolationTest, AModuleThatWillTuneStartsItsWorkerWhenLoaded) {
  tuneWithWorkersStartedAtLoad({});
}

TEST(IsolationTest, AModuleThatWillTuneStartsItsTuningDevicesWorkersToo) {
  TuningReport report =
      tuneWithWorkersStartedAtLoad({Device(makeHostBackend())});
  int there = 0;
  for (const CandidateResult &c : report.candidates)
    there += c.timedOn.rfind("device 1", 0) == 0;
  EXPECT_GE(there, 1);
}

TEST(IsolationTest, AModuleOfAParsedBundleStartsItsWorkersWhenMadeToo) {
  tuneWithWorkersStartedAtLoad({Device(makeHostBackend())},
                               MadeFrom::ParsedBundle);
}

// A session that ends with its worker idle and well leaves it to the
// module: the next signature's tuning takes it with arguments of its own,
// which the check against the application's reference would catch were
// they the last session's (another size and other contents).
TEST(IsolationTest, TheNextSignatureTakesTheIdleWorkerWithItsOwnArguments) {
  TempDir dir;
  std::string log = dir.path + "/starts";
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     countedWorkerOptions(dir, log));
  TunedKernel &kernel = module.kernel("axpy");
  kernel.setReference(
      [](StreamHandle, const ArgValue *args, size_t) { hostAxpy(args); },
      "host axpy");
  AxpyData data;
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  std::vector<float> x(16, 2.0f), y(16, 1.0f);
  kernel.launch(nullptr, memref(x.data(), {16}), memref(y.data(), {16}),
                kAlpha, int64_t(16));
  EXPECT_EQ(y[15], 1.0f + kAlpha * 2.0f);
  EXPECT_EQ(linesOf(log), 1u);
  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 2u);
  for (const TuningReport &report : reports) {
    EXPECT_EQ(report.checkedAgainst, "the reference host axpy");
    EXPECT_EQ(candidate(report, "axpy_wrong").status,
              CandidateStatus::WrongResult);
    for (const std::string &name : kCorrect)
      EXPECT_EQ(candidate(report, name).status, CandidateStatus::Measured)
          << name << ": " << candidate(report, name).reason;
  }
}
