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

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

using namespace tuna;
using namespace tuna::test;

namespace {

/// The ranks of a job as threads of this process.
class ThreadJob {
public:
  explicit ThreadJob(int size) : size(size) {}

  std::shared_ptr<Communicator> rank(int rank) {
    return std::make_shared<Rank>(*this, rank);
  }

private:
  class Rank final : public Communicator {
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
        std::memcpy(static_cast<char *>(all) + r * bytes, round[r].data(),
                    bytes);
    }

  private:
    ThreadJob &job;
    int me;
    size_t calls = 0;
  };

  int size;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<size_t, std::vector<std::string>> rounds;
};

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
         const std::function<Device(int)> &host = perturbedHost) {
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
    } catch (const Error &e) {
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
