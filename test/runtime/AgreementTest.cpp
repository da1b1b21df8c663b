//===- AgreementTest.cpp - Several ranks deciding together ----------------===//
//
// The ranks of a job are threads here, each with its own module on its own
// scripted host whose timings differ per rank (perturbedHost()), joined by a
// Communicator over shared memory. test/mpi runs the same on MPI processes.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/tuna.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <mutex>
#include <optional>

using namespace tuna;
using namespace tuna::test;

namespace {

Options rankOptions(std::shared_ptr<Communicator> communicator) {
  Options options = fastOptions();
  options.communicator = std::move(communicator);
  return options;
}

void launchAxpy(TunedKernel &kernel, int64_t n) {
  EXPECT_TRUE(launchAxpyOnes(kernel, n));
}

/// What each rank saw: its reports, or the message of what it threw.
struct RankResult {
  std::vector<TuningReport> reports;
  std::string error;
};

/// Runs `body(rank, kernel)` on `size` ranks at once, each with axpy in a
/// module of its own (its options changed by `configure`) on
/// `host(rank)`.
std::vector<RankResult>
runRanks(int size, const std::function<void(int, TunedKernel &)> &body,
         const std::function<void(int, Options &)> &configure = {},
         const std::function<Device(int)> &host =
             [](int rank) { return perturbedHost(rank); }) {
  ThreadJob job(size);
  std::vector<RankResult> results(size);
  runTogether(size, [&](int rank) {
    Options options = rankOptions(job.rank(rank));
    if (configure)
      configure(rank, options);
    Module module =
        Module::fromBundle(axpyBundle(), host(rank), "axpy.tuna", options);
    TunedKernel &kernel = module.kernel("axpy");
    try {
      body(rank, kernel);
    } catch (const std::exception &e) {
      results[rank].error = e.what();
    }
    results[rank].reports = kernel.reports();
  });
  return results;
}

constexpr int kWork4 = 0, kWork0 = 1;

} // namespace

TEST(AgreementTest, RanksThatTimeDifferentlyLaunchTheSameVariant) {
  for (int size : {2, 3}) {
    std::vector<RankResult> results =
        runRanks(size, [](int, TunedKernel &kernel) {
          launchAxpy(kernel, 1024);
          launchAxpy(kernel, 4096);
        });
    for (int rank = 0; rank < size; ++rank) {
      SCOPED_TRACE("rank " + std::to_string(rank) + " of " +
                   std::to_string(size));
      const RankResult &result = results[rank];
      EXPECT_EQ(result.error, "");
      ASSERT_EQ(result.reports.size(), 2u);
      for (const TuningReport &report : result.reports) {
        EXPECT_EQ(report.source, DecisionSource::Tuned);
        EXPECT_EQ(report.ranks, size);
        // Slowest-rank medians: work4 2.5 ms, work0 at least 3 ms.
        EXPECT_EQ(report.chosen, kWork4);
        EXPECT_EQ(report.chosenName, "axpy_work4");
        // Alone, rank 0 would have taken work0: the ranks' timings were
        // combined, not rank 0's taken.
        EXPECT_EQ(report.ownChoice, rank == 0 ? kWork0 : kWork4);
      }
    }
  }
}

TEST(AgreementTest, TiesGoToTheLowerVariantIndex) {
  // Rank 0 alone picks work0 (1 ms), rank 1 work4 (1 ms); both variants'
  // slowest rank takes 3 ms: the lower index, work4, wins on both.
  auto mirrored = [](int rank) {
    return scriptedHost({{"axpy_work0", rank == 0 ? 1.0 : 3.0},
                         {"axpy_work4", rank == 0 ? 3.0 : 1.0},
                         {"axpy_work64", 20.0},
                         {"axpy_wrong", 0.5}});
  };
  std::vector<RankResult> results = runRanks(
      2, [](int, TunedKernel &kernel) { launchAxpy(kernel, 512); }, {},
      mirrored);
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(results[rank].error, "");
    ASSERT_EQ(results[rank].reports.size(), 1u);
    EXPECT_EQ(results[rank].reports[0].chosen, kWork4);
    EXPECT_EQ(results[rank].reports[0].ownChoice, rank == 0 ? kWork0 : kWork4);
  }
}

TEST(AgreementTest, ADifferentSignatureOnOneRankIsAnErrorNamingIt) {
  std::vector<RankResult> results =
      runRanks(3, [](int rank, TunedKernel &kernel) {
        launchAxpy(kernel, rank == 2 ? 2048 : 1024);
      });
  for (const RankResult &result : results) {
    EXPECT_NE(result.error.find("the ranks are not deciding the same thing"),
              std::string::npos)
        << result.error;
    EXPECT_NE(result.error.find("rank 2 has signature [2048], rank 0 [1024]"),
              std::string::npos)
        << result.error;
    EXPECT_TRUE(result.reports.empty()) << "nothing may be decided";
  }
}

TEST(AgreementTest, RanksThatLaunchKernelsInAnotherOrderFailNamingThem) {
  // The contract: new signatures in the same order on every rank. Rank 1
  // launches stepBundle()'s kernels the other way round: both fail at the
  // first decision, naming rank 1 and what it launched, and nothing is
  // decided (no rank waits for a step the other never takes).
  ThreadJob job(2);
  std::vector<std::string> errors(2);
  std::vector<size_t> decided(2);
  runTogether(2, [&](int rank) {
    Options options = rankOptions(job.rank(rank));
    options.check = false;
    Module module =
        Module::fromBundle(stepBundle(), stepHost(rank), "step.tuna", options);
    int64_t n = 256;
    std::vector<float> x(n, 1.0f), y(n, 0.0f), z(n, 0.0f);
    std::vector<std::string> order = {"first", "second"};
    if (rank == 1)
      std::swap(order[0], order[1]);
    try {
      for (const std::string &name : order)
        module.kernel(name).launch(nullptr, memref(x.data(), {n}),
                                   memref(y.data(), {n}), 2.0f, n);
    } catch (const Error &e) {
      errors[rank] = e.what();
    }
    decided[rank] = module.kernel("first").reports().size() +
                    module.kernel("second").reports().size();
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NE(errors[rank].find("the ranks are not deciding the same thing"),
              std::string::npos)
        << errors[rank];
    EXPECT_NE(errors[rank].find("in the same order"), std::string::npos);
    EXPECT_NE(
        errors[rank].find("rank 1 has kernel \"second\", rank 0 \"first\""),
        std::string::npos)
        << errors[rank];
    EXPECT_EQ(decided[rank], 0u);
  }
}

TEST(AgreementTest, ADifferentBundleOnOneRankIsAnErrorNamingIt) {
  ThreadJob job(2);
  std::vector<std::string> errors(2);
  runTogether(2, [&](int rank) {
    Bundle bundle = axpyBundle();
    if (rank == 1)
      bundle.kernels[0].variants[2].config[0].second = 65;
    Module module = Module::fromBundle(std::move(bundle), perturbedHost(rank),
                                       "axpy.tuna", rankOptions(job.rank(rank)));
    try {
      launchAxpy(module.kernel("axpy"), 1024);
    } catch (const Error &e) {
      errors[rank] = e.what();
    }
  });
  for (const std::string &error : errors)
    EXPECT_NE(error.find("rank 1 has bundle hash"), std::string::npos)
        << error;
}

TEST(AgreementTest, ADifferentSourceHashOnOneRankIsAnErrorNamingIt) {
  ThreadJob job(3);
  std::vector<std::string> errors(3);
  runTogether(3, [&](int rank) {
    Bundle bundle = axpyBundle();
    if (rank == 2)
      bundle.kernels[0].sourceHash = "fedcba9876543210";
    Module module =
        Module::fromBundle(std::move(bundle), perturbedHost(rank), "axpy.tuna",
                           rankOptions(job.rank(rank)));
    try {
      launchAxpy(module.kernel("axpy"), 1024);
    } catch (const Error &e) {
      errors[rank] = e.what();
    }
  });
  for (const std::string &error : errors)
    EXPECT_NE(error.find("rank 2 has source hash \"fedcba9876543210\", rank 0"),
              std::string::npos)
        << error;
}

TEST(AgreementTest, RanksOnDifferentDeviceModelsAreAnErrorNamingThem) {
  std::vector<RankResult> results = runRanks(
      3, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); }, {},
      [](int rank) {
        return rank == 1 ? scriptedHost({}, "Other CPU") : perturbedHost(rank);
      });
  for (const RankResult &result : results) {
    EXPECT_NE(result.error.find("the ranks are not deciding the same thing"),
              std::string::npos)
        << result.error;
    EXPECT_NE(result.error.find("rank 1 has device \"Other CPU ("),
              std::string::npos)
        << result.error;
    EXPECT_TRUE(result.reports.empty()) << "nothing may be decided";
  }
}

TEST(AgreementTest, ARankThatNeverJoinsIsAnErrorWithinTheTimeout) {
  // Rank 1 launches nothing: rank 0 waits at most agreeTimeoutMs.
  std::vector<RankResult> results = runRanks(
      2,
      [](int rank, TunedKernel &kernel) {
        if (rank == 0)
          launchAxpy(kernel, 1024);
      },
      [](int, Options &options) { options.agreeTimeoutMs = 200; });
  EXPECT_NE(results[0].error.find("on rank 0 of 2: ranks 1 did not join "
                                  "within 200"),
            std::string::npos)
      << results[0].error;
  EXPECT_NE(results[0].error.find("in the same order"), std::string::npos);
  EXPECT_EQ(results[1].error, "");
}

TEST(AgreementTest, OnlyRankZeroWritesTheCacheAndItsPickIsTakenLater) {
  TempDir root;
  auto perRankCache = [&](int rank, Options &options) {
    options.cacheDir = root.path + "/rank" + std::to_string(rank);
  };
  runRanks(
      2, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); },
      perRankCache);
  std::vector<CacheEntry> written =
      TuningCache::inDirectory(root.path + "/rank0").entries();
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].variant, "axpy_work4");
  EXPECT_TRUE(TuningCache::inDirectory(root.path + "/rank1").entries().empty());

  // Rank 1 has no entry, rank 0 does: both take rank 0's, timing nothing.
  std::vector<RankResult> again = runRanks(
      2, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); },
      perRankCache);
  for (const RankResult &result : again) {
    EXPECT_EQ(result.error, "");
    ASSERT_EQ(result.reports.size(), 1u);
    EXPECT_EQ(result.reports[0].source, DecisionSource::Cache);
    EXPECT_EQ(result.reports[0].chosen, kWork4);
  }
}

TEST(AgreementTest, ModeOffExchangesNothing) {
  // With no other rank joining, any exchange would time out.
  std::vector<RankResult> results = runRanks(
      2,
      [](int rank, TunedKernel &kernel) {
        if (rank == 0)
          launchAxpy(kernel, 1024);
      },
      [](int, Options &options) {
        options.mode = TuneMode::Off;
        options.agreeTimeoutMs = 1;
      });
  EXPECT_EQ(results[0].error, "");
  ASSERT_EQ(results[0].reports.size(), 1u);
  EXPECT_EQ(results[0].reports[0].chosen, kWork4);
}

TEST(AgreementTest, CApiChecksTheCommunicator) {
  TunaCommunicator communicator = {/*rank=*/2, /*size=*/2, nullptr, nullptr};
  EXPECT_EQ(tunaSetCommunicator(&communicator), TUNA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tunaLastError()).find("rank 2 of size 2"),
            std::string::npos)
      << tunaLastError();
  EXPECT_EQ(tunaSetCommunicator(nullptr), TUNA_SUCCESS);
  EXPECT_EQ(defaultCommunicator(), nullptr);
}

TEST(AgreementTest, CApiCommunicatorIsTheDefaultOfNewOptions) {
  // One rank gathering from itself: decisions go through the exchanges.
  TunaCommunicator communicator = {
      0, 1, nullptr,
      [](void *, const void *mine, size_t bytes, void *all, double, char *,
         size_t) {
        std::memcpy(all, mine, bytes);
        return 0;
      }};
  ASSERT_EQ(tunaSetCommunicator(&communicator), TUNA_SUCCESS);
  Options options = Options::fromEnvironment();
  ASSERT_NE(options.communicator, nullptr);
  EXPECT_EQ(options.communicator->size(), 1);
  ASSERT_EQ(tunaSetCommunicator(nullptr), TUNA_SUCCESS);
  options.cacheDir.clear();
  options.databases.clear();
  options.minRuns = 3;
  options.check = true;
  Module module =
      Module::fromBundle(axpyBundle(), perturbedHost(0), "axpy.tuna", options);
  launchAxpy(module.kernel("axpy"), 1024);
  EXPECT_EQ(module.kernel("axpy").reports().at(0).ranks, 1);
  EXPECT_EQ(module.kernel("axpy").reports().at(0).chosen, kWork0);
}

//===----------------------------------------------------------------------===//
// Tuning spread over ranks and devices (Spread.h)
//===----------------------------------------------------------------------===//

namespace {
/// The variant with the lowest median of `report`, ties to the lower index.
int fastestMeasured(const TuningReport &report) {
  int best = -1;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Measured &&
        (best < 0 || c.medianMs < report.candidates[best].medianMs))
      best = c.variant;
  return best;
}

void spreadOverRanks(int, Options &options) { options.spreadOverRanks = true; }
} // namespace

TEST(SpreadTest, RanksTimeOneShareEachAndLaunchTheSameVariant) {
  for (int size : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(size) + " ranks");
    std::vector<RankResult> results = runRanks(
        size,
        [](int, TunedKernel &kernel) {
          launchAxpy(kernel, 1024);
          launchAxpy(kernel, 4096);
        },
        spreadOverRanks);
    for (size_t d = 0; d < 2; ++d) {
      // Which rank timed each variant, as every rank's report says.
      std::map<int, std::string> timedOn;
      for (int rank = 0; rank < size; ++rank) {
        SCOPED_TRACE("rank " + std::to_string(rank));
        ASSERT_EQ(results[rank].error, "");
        ASSERT_EQ(results[rank].reports.size(), 2u);
        const TuningReport &report = results[rank].reports[d];
        const TuningReport &first = results[0].reports[d];
        EXPECT_EQ(report.source, DecisionSource::Tuned);
        EXPECT_EQ(report.ranks, size);
        EXPECT_EQ(report.chosen, first.chosen);
        // Every rank decides from every rank's numbers: the same ones.
        EXPECT_EQ(report.chosen, fastestMeasured(report));
        for (const CandidateResult &c : report.candidates) {
          EXPECT_EQ(c.medianMs, first.candidates[c.variant].medianMs);
          if (c.status == CandidateStatus::NotTimed)
            continue;
          std::string where =
              c.timedOn.empty() ? "rank " + std::to_string(rank) : c.timedOn;
          auto [it, fresh] = timedOn.emplace(c.variant, where);
          EXPECT_EQ(it->second, where) << c.name << " timed on two ranks";
        }
      }
      // axpy_wrong is rejected by the check on the rank that runs it; each
      // of the 4 candidates was run on exactly one rank, round-robin.
      EXPECT_EQ(timedOn.size(), 4u);
      std::set<std::string> ranks;
      for (const auto &[variant, where] : timedOn)
        ranks.insert(where);
      EXPECT_EQ(ranks.size(), static_cast<size_t>(std::min(size, 4)));
    }
  }
}

TEST(SpreadTest, PerturbedRanksStillMakeOneDecision) {
  // work0 costs 1 + 2 * rank ms, work4 2.5 ms: whichever rank times work0
  // decides whether it wins, and every rank follows that one number.
  std::vector<RankResult> results = runRanks(
      2, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); },
      spreadOverRanks);
  ASSERT_EQ(results[0].error, "");
  ASSERT_EQ(results[1].error, "");
  const TuningReport &report = results[0].reports.at(0);
  const CandidateResult &work0 = report.candidates[kWork0];
  bool timedOnRank0 = work0.timedOn.empty();
  EXPECT_EQ(work0.medianMs, timedOnRank0 ? 1.0 : 3.0);
  int expected = timedOnRank0 ? kWork0 : kWork4;
  EXPECT_EQ(results[0].reports.at(0).chosen, expected);
  EXPECT_EQ(results[1].reports.at(0).chosen, expected);
}

TEST(SpreadTest, RanksThatDoNotAllSpreadAreAnErrorNamingThem) {
  std::vector<RankResult> results = runRanks(
      3, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); },
      [](int rank, Options &options) { options.spreadOverRanks = rank != 2; });
  for (const RankResult &result : results)
    EXPECT_NE(result.error.find("rank 2 has spread over ranks false, rank 0 "
                                "true"),
              std::string::npos)
        << result.error;
}

TEST(SpreadTest, ARankThatStopsMidWayIsAnErrorWithinTheTimeout) {
  // Rank 1 stops at its first launch, in the middle of its share, until
  // rank 0 has given up on it: rank 0 must not wait longer than the
  // timeout, and rank 1, late, finds rank 0 gone.
  std::atomic<bool> rank0Done{false};
  std::vector<RankResult> results = runRanks(
      2,
      [&](int rank, TunedKernel &kernel) {
        try {
          launchAxpy(kernel, 1024);
        } catch (...) {
          if (rank == 0)
            rank0Done = true;
          throw;
        }
      },
      [](int, Options &options) {
        options.spreadOverRanks = true;
        options.agreeTimeoutMs = 300;
      },
      [&](int rank) {
        return perturbedHost(rank, [rank, &rank0Done] {
          while (rank == 1 && !rank0Done)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
      });
  EXPECT_NE(results[0].error.find("ranks 1 did not join within 300"),
            std::string::npos)
      << results[0].error;
  EXPECT_NE(results[1].error.find("ranks 0 did not join within 300"),
            std::string::npos)
      << results[1].error;
}

// The other device times the first chunk (axpy_work4, axpy_work0), without
// a final round; the module's device times the second (axpy_work64,
// axpy_wrong, unchecked: 1 and 1.05 ms, two finalists, a round). The other
// device's axpy_work4 (0.5 ms) is the fastest and must be picked: a round
// sets behind only the candidates timed with its finalists.
TEST(SpreadTest, AChunkTimedWithoutAFinalRoundCompetesWithTheFinalists) {
  std::map<std::string, double> costs = {{"axpy_work4", 0.5},
                                         {"axpy_work0", 2.0},
                                         {"axpy_work64", 1.0},
                                         {"axpy_wrong", 1.05}};
  Options options = fastOptions();
  options.check = false;
  options.totalBudgetMs = 60000; // The round runs on any machine.
  options.tuningDevices = {scriptedHost(costs)};
  Module module =
      Module::fromBundle(axpyBundle(), scriptedHost(costs), "axpy.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel, 1024);
  TuningReport report = kernel.reports().at(0);
  std::map<std::string, const CandidateResult *> byName;
  for (const CandidateResult &c : report.candidates)
    byName[c.name] = &c;
  ASSERT_FALSE(byName.at("axpy_work4")->timedOn.empty());
  ASSERT_TRUE(byName.at("axpy_work64")->timedOn.empty());
  ASSERT_TRUE(byName.at("axpy_wrong")->timedOn.empty());
  EXPECT_TRUE(byName.at("axpy_work64")->finalist);
  EXPECT_TRUE(byName.at("axpy_wrong")->finalist);
  EXPECT_FALSE(byName.at("axpy_work4")->behindFinalists);
  EXPECT_EQ(report.chosenName, "axpy_work4");
}

TEST(SpreadTest, DevicesOfOneProcessTakeAChunkEach) {
  std::map<std::string, double> costs = {{"axpy_work0", 1.0},
                                         {"axpy_work4", 2.0},
                                         {"axpy_work64", 20.0},
                                         {"axpy_wrong", 0.5}};
  Options options = fastOptions();
  options.tuningDevices = {scriptedHost(costs), scriptedHost(costs)};
  Module module =
      Module::fromBundle(axpyBundle(), scriptedHost(costs), "axpy.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  launchAxpy(kernel, 1024);
  launchAxpy(kernel, 4096);
  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 2u);
  std::string device = " (" + module.device().info().name + ")";
  for (const TuningReport &report : reports) {
    EXPECT_EQ(report.chosenName, "axpy_work0");
    std::map<std::string, int> perDevice;
    for (const CandidateResult &c : report.candidates) {
      EXPECT_NE(c.status, CandidateStatus::NotTimed) << c.name;
      ++perDevice[c.timedOn];
    }
    // 4 candidates over 3 devices in chunks of at most 2 (one chunk per
    // device, rounded up): every device takes a first chunk of the
    // candidates offered to it (or, with none, of another's), so at least
    // two devices time some, none more than a chunk.
    int devicesUsed = 0;
    for (const auto &[where, count] : perDevice) {
      EXPECT_LE(count, 2) << where;
      devicesUsed += count > 0;
    }
    EXPECT_GE(devicesUsed, 2);
    // The check ran on every device: axpy_wrong was rejected wherever.
    EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  }
}

TEST(SpreadTest, ADeviceBusyTuningForAnotherModuleGivesItsChunkBack) {
  // Module b tunes on device b, its launches held (5 s at most) until
  // module a, which lists device b as a tuning device, has decided.
  std::atomic<bool> bTuning{false}, aDecided{false};
  Device b = scriptedHost({}, "", [&] {
    bTuning = true;
    for (int ms = 0; !aDecided && ms < 5000; ++ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  Options options = fastOptions();
  options.tuningDevices = {b};
  Module a =
      Module::fromBundle(axpyBundle(), scriptedHost(), "axpy.tuna", options);
  Module onB = Module::fromBundle(axpyBundle(), b, "axpy.tuna", fastOptions());
  std::thread tuningB([&] { launchAxpy(onB.kernel("axpy"), 512); });
  while (!bTuning)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  launchAxpy(a.kernel("axpy"), 1024);
  aDecided = true;
  tuningB.join();
  const TuningReport report = a.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.chosenName, "axpy_work0");
  for (const CandidateResult &c : report.candidates) {
    EXPECT_NE(c.status, CandidateStatus::NotTimed) << c.name;
    EXPECT_EQ(c.timedOn, "") << c.name;
  }
}

TEST(SpreadTest, ADeviceOfAnotherModelIsRefusedNamingIt) {
  Options options = fastOptions();
  options.tuningDevices = {scriptedHost({}), scriptedHost({}, "Other CPU")};
  try {
    Module::fromBundle(axpyBundle(), scriptedHost({}), "axpy.tuna", options);
    FAIL() << "loaded";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "Options::tuningDevices[1] is a Other CPU"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("devices of one model only"),
              std::string::npos);
  }
  Device own = scriptedHost({});
  options.tuningDevices = {own};
  EXPECT_THROW(Module::fromBundle(axpyBundle(), own, "axpy.tuna", options),
               Error);
}

TEST(SpreadTest, ADeviceListedTwiceIsRefusedNamingIt) {
  Options options = fastOptions();
  Device helper = scriptedHost({});
  options.tuningDevices = {scriptedHost({}), helper, helper};
  try {
    Module::fromBundle(axpyBundle(), scriptedHost({}), "axpy.tuna", options);
    FAIL() << "loaded";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("Options::tuningDevices[2] is "
                                         "Options::tuningDevices[1] again"),
              std::string::npos)
        << e.what();
  }
}

TEST(SpreadTest, ADeviceThatFailsMarksItsChunkUnrunnable) {
  Options options = fastOptions();
  options.check = false;
  options.tuningDevices = {scriptedHost({}, "", [] {
    throw Error(ErrorCode::Backend, "the device fell off the bus");
  })};
  Module module = Module::fromBundle(axpyBundle(), scriptedHost(), "axpy.tuna",
                                     options);
  TunedKernel &kernel = module.kernel("axpy");
  // Without the check, axpy_wrong wins where this device times it: the
  // output is not what this test is about.
  (void)launchAxpyOnes(kernel, 1024);
  const TuningReport report = kernel.reports().at(0);
  int failed = 0;
  for (const CandidateResult &c : report.candidates)
    if (!c.timedOn.empty()) {
      ++failed;
      EXPECT_EQ(c.status, CandidateStatus::Unrunnable);
      EXPECT_NE(c.reason.find("the device fell off the bus"), std::string::npos)
          << c.reason;
    }
  // The helper took a chunk and failed on it; this device timed the rest.
  EXPECT_GT(failed, 0);
  EXPECT_LT(failed, static_cast<int>(report.candidates.size()));
  EXPECT_TRUE(report.candidates[report.chosen].timedOn.empty());
}

//===----------------------------------------------------------------------===//
// A search's batches spread over ranks and devices (TunerSearch.cpp)
//===----------------------------------------------------------------------===//

namespace {
/// Each rank's search, or what it threw.
struct RankSearch {
  std::optional<SearchOutcome> outcome;
  std::string error;
};

/// Searches axpy on `size` ranks at once (threads), each on its own
/// searchHost() with `devices` more tuning devices.
std::vector<RankSearch>
searchOnRanks(int size, int devices,
              const std::function<search::SearchOptions(int)> &searching) {
  ThreadJob job(size);
  std::vector<RankSearch> results(size);
  runTogether(size, [&](int rank) {
    Options options = rankOptions(job.rank(rank));
    options.spreadOverRanks = true;
    for (int d = 0; d < devices; ++d)
      options.tuningDevices.push_back(searchHost());
    try {
      Module module = Module::fromBundle(axpySearchBundle(), searchHost(),
                                         "axpy.tuna", options);
      results[rank].outcome = searchAxpy(module, searching(rank));
    } catch (const std::exception &e) {
      results[rank].error = e.what();
    }
  });
  return results;
}
} // namespace

TEST(SpreadSearchTest, RanksVisitAndPickAsOneRankDoes) {
  for (const char *strategy : {"random", "pattern", "exhaustive"}) {
    search::SearchOptions searching = shortSearch(strategy, 3);
    Module alone = Module::fromBundle(axpySearchBundle(), searchHost(),
                                      "axpy.tuna", fastOptions());
    SearchOutcome one = searchAxpy(alone, searching);
    EXPECT_EQ(one.report.chosenName, "axpy_work2");
    EXPECT_GE(one.result.evaluations.size(), 3u);
    for (auto [size, devices] : {std::pair{2, 0}, {3, 0}, {2, 1}}) {
      SCOPED_TRACE(std::string(strategy) + ", " + std::to_string(size) +
                   " ranks, " + std::to_string(devices + 1) + " devices each");
      std::vector<RankSearch> ranks =
          searchOnRanks(size, devices, [&](int) { return searching; });
      std::map<int, std::set<std::string>> timedOn;
      for (int rank = 0; rank < size; ++rank) {
        ASSERT_EQ(ranks[rank].error, "") << "rank " << rank;
        const SearchOutcome &outcome = *ranks[rank].outcome;
        EXPECT_EQ(describeVisits(outcome), describeVisits(one))
            << "rank " << rank;
        for (const CandidateResult &c : outcome.report.candidates)
          if (c.status != CandidateStatus::NotTimed)
            timedOn[rank].insert(c.timedOn);
        // What the check did, summed over the ranks, alike on every rank.
        EXPECT_TRUE(outcome.report.checked);
        EXPECT_EQ(outcome.report.checkedOn, "the host");
        EXPECT_EQ(outcome.report.checkMs, ranks[0].outcome->report.checkMs);
      }
      // Each rank timed some visits itself and took others' from the ranks
      // that timed them.
      for (int rank = 0; rank < size; ++rank) {
        EXPECT_EQ(timedOn[rank].count(""), 1u) << "rank " << rank;
        EXPECT_GE(timedOn[rank].size(), 2u) << "rank " << rank;
      }
    }
  }
}

namespace {
/// An exhaustive search of axpy (axpySearchBundle(), at most `budget`
/// evaluations in batches of `batchSize`, no re-timing) on searchHost()
/// with one tuning device, `tuning`: how many candidates the module's
/// device ("here") and the tuning device ("there") timed.
struct TimedPerDevice {
  int here = 0, there = 0;
  std::string chosen;
};
TimedPerDevice searchOnTwoDevices(Device tuning, int batchSize, int budget) {
  Options options = fastOptions();
  options.tuningDevices = {std::move(tuning)};
  Module module = Module::fromBundle(axpySearchBundle(), searchHost(),
                                     "axpy.tuna", options);
  search::SearchOptions searching = shortSearch("exhaustive", batchSize);
  searching.budgetEvaluations = budget;
  searching.retimeMax = 0;
  SearchOutcome outcome = searchAxpy(module, searching);
  TimedPerDevice timed;
  timed.chosen = outcome.report.chosenName;
  for (const CandidateResult &c : outcome.report.candidates) {
    timed.here += c.status != CandidateStatus::NotTimed && c.timedOn.empty();
    timed.there += c.timedOn.rfind("device 1 (", 0) == 0;
  }
  return timed;
}
} // namespace

TEST(SpreadSearchTest, AFreeDeviceTakesTheNextChunk) {
  // The tuning device is slow (every launch sleeps 100 ms, and its first
  // chunk, one candidate, takes several launches), the module's own fast
  // (scripted times, no sleep): the tuning device times its first chunk
  // while the module's device takes every other, with a margin of 100x
  // for a loaded machine or a sanitizer.
  TimedPerDevice timed = searchOnTwoDevices(
      searchHost(
          [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }),
      /*batchSize=*/1, /*budget=*/7);
  EXPECT_EQ(timed.chosen, "axpy_work2");
  EXPECT_EQ(timed.here, 6);
  EXPECT_EQ(timed.there, 1);
}

TEST(SpreadSearchTest, ABatchSmallerThanAChunkIsSharedEvenly) {
  // 4 candidates, a chunk of 8 (the batch size): each of the 2 devices
  // takes an even share, 2.
  TimedPerDevice timed =
      searchOnTwoDevices(searchHost(), /*batchSize=*/8, /*budget=*/4);
  EXPECT_EQ(timed.here, 2);
  EXPECT_EQ(timed.there, 2);
}

TEST(SpreadSearchTest, ARankThatStopsIsAnErrorWithinTheTimeout) {
  // Rank 1 stops at its first launch until rank 0 has given up on it.
  std::atomic<bool> rank0Done{false};
  ThreadJob job(2);
  std::vector<std::string> errors(2);
  runTogether(2, [&](int rank) {
    Options options = rankOptions(job.rank(rank));
    options.spreadOverRanks = true;
    options.agreeTimeoutMs = 300;
    Module module = Module::fromBundle(
        axpySearchBundle(), searchHost([rank, &rank0Done] {
          while (rank == 1 && !rank0Done)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }),
        "axpy.tuna", options);
    try {
      searchAxpy(module, shortSearch("exhaustive", 3));
    } catch (const Error &e) {
      errors[rank] = e.what();
    }
    if (rank == 0)
      rank0Done = true;
  });
  EXPECT_NE(errors[0].find("on rank 0 of 2, timing candidates spread over "
                           "the ranks: ranks 1 did not join within 300"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("did not join within 300"), std::string::npos)
      << errors[1];
}

TEST(SpreadSearchTest, RanksThatBatchOtherwiseAreAnErrorNamingThem) {
  // Rank 1's budget is smaller: its first batch is not rank 0's.
  std::vector<RankSearch> ranks = searchOnRanks(2, 0, [](int rank) {
    search::SearchOptions searching = shortSearch("exhaustive", 3);
    searching.budgetEvaluations = rank == 1 ? 4 : 6;
    return searching;
  });
  EXPECT_NE(ranks[0].error.find("the ranks split different candidates"),
            std::string::npos)
      << ranks[0].error;
  EXPECT_NE(ranks[0].error.find("rank 1 has [0,1,2,3], rank 0 [0,1,2,3,4,5]"),
            std::string::npos)
      << ranks[0].error;
  EXPECT_NE(ranks[1].error.find("rank 0 has [0,1,2,3,4,5], rank 1 [0,1,2,3]"),
            std::string::npos)
      << ranks[1].error;
}

TEST(SpreadSearchTest, AFirstCallThatSearchesSplitsItsBatchesToo) {
  std::vector<RankResult> results = runRanks(
      2, [](int, TunedKernel &kernel) { launchAxpy(kernel, 1024); },
      [](int, Options &options) {
        options.spreadOverRanks = true;
        options.useSearch = true;
        options.search.strategy = "exhaustive";
        options.search.batchSize = 2;
      },
      [](int) { return scriptedHost(); });
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    ASSERT_EQ(results[rank].error, "");
    const TuningReport &report = results[rank].reports.at(0);
    EXPECT_EQ(report.chosenName, "axpy_work0");
    int fromOther = 0;
    for (const CandidateResult &c : report.candidates)
      fromOther += c.timedOn == "rank " + std::to_string(1 - rank);
    EXPECT_GE(fromOther, 1);
  }
}
