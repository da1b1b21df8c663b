//===- MpiAgreementTest.cpp - Ranks of an MPI job agreeing ----------------===//
//
//   mpirun -np N tuna-mpi-agreement-test SCENARIO
//
// Every rank tunes axpy on perturbedHost(rank) (test/runtime/TestBundles.h):
// alone, rank 0 would pick axpy_work4's rival axpy_work0, every other rank
// axpy_work4. Scenarios:
//   agree      the ranks launch the same variant for every signature, rank
//              0 alone writes the cache (one directory per rank, under a
//              fresh directory that rank 0 makes), and a second
//              round of modules takes rank 0's cached pick everywhere;
//   late       the last rank never launches: the others fail within the
//              agreement's timeout, naming it;
//   dies       the last rank is killed before launching: the same;
//   signature  the last rank launches another shape: every rank fails,
//              naming it;
//   bundle     the last rank loads a different bundle: the same;
//   source     the last rank's kernel has another source hash: the same;
//   device     the last rank runs on another device model: the same;
//   step       a TunedStep of two kernels (stepBundle()) on stepHost(rank):
//              alone, even and odd ranks would pick different joint
//              variants; every rank launches the one whose slowest rank is
//              fastest;
//   c          through the C API: tunaMpiEnable reports a failure in
//              tunaLastError(), then every rank launches the same variant
//              of a module loaded with tunaModuleLoadMemory;
//   spread     Options::spreadOverRanks: each rank times its share of the
//              candidates, every rank launches the same variant, the one
//              with the lowest median of any rank, and each candidate was
//              timed on one rank;
//   spread-dies  spread, and the last rank is killed at its first launch,
//              in the middle of its share: the others fail within the
//              timeout, naming it;
//   search     TunedKernel::search with Options::spreadOverRanks and a
//              second tuning device per rank, on searchHost() (the same
//              times on every rank): every rank visits, re-times and picks
//              as a search in one process does, and each rank timed a
//              share of the visits;
//   search-dies  the same, and the last rank is killed at its first
//              launch: the others fail within the timeout, naming it.
// Exit status 0 when the scenario's expectation holds on this rank; a
// rank that fails prints "rank R: error: ..." (run-mpi-test.sh checks it).
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/mpi/Mpi.h"
#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/tuna.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::test;

namespace {

int rank = 0, size = 1;

Options rankOptions(const std::string &cacheDir) {
  Options options = fastOptions();
  options.cacheDir = cacheDir;
  options.communicator = defaultCommunicator();
  return options;
}

void launchAxpy(TunedKernel &kernel, int64_t n) {
  if (!launchAxpyOnes(kernel, n))
    throw Error(ErrorCode::Internal, "axpy computed a wrong result");
}

/// Fails this rank's test with `message`.
int failed(const std::string &message) {
  std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, message.c_str());
  return 1;
}

int agreeIn(const std::string &cacheDir);

/// Every rank's `value`, at rank 0 (blocking: used once all ranks agree).
std::vector<int> gatherAtRoot(int value) {
  std::vector<int> all(size);
  MPI_Gather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  return all;
}

int agree() {
  // Rank 0 makes the root of the ranks' cache directories; its TempDir
  // removes it once every rank is done.
  std::unique_ptr<TempDir> root;
  char path[4096] = "";
  if (rank == 0) {
    root = std::make_unique<TempDir>();
    std::snprintf(path, sizeof(path), "%s", root->path.c_str());
  }
  MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::string cacheDir = std::string(path) + "/rank" + std::to_string(rank);
  int status = agreeIn(cacheDir);
  MPI_Barrier(MPI_COMM_WORLD);
  return status;
}

int agreeIn(const std::string &cacheDir) {
  const std::vector<int64_t> shapes = {1024, 4096, 1024, 65536};
  {
    Module module = Module::fromBundle(axpyBundle(), perturbedHost(rank),
                                       "axpy.tuna", rankOptions(cacheDir));
    TunedKernel &kernel = module.kernel("axpy");
    for (int64_t n : shapes)
      launchAxpy(kernel, n);
    std::vector<TuningReport> reports = kernel.reports();
    if (reports.size() != 3)
      return failed(std::to_string(reports.size()) + " decisions, not 3");
    for (const TuningReport &report : reports) {
      std::vector<int> picks = gatherAtRoot(report.chosen);
      std::vector<int> own = gatherAtRoot(report.ownChoice);
      if (report.source != DecisionSource::Tuned || report.ranks != size ||
          report.chosenName != "axpy_work4")
        return failed("picked " + report.chosenName + " (" +
                      decisionSourceName(report.source) + ", " +
                      std::to_string(report.ranks) + " ranks)");
      if (rank == 0) {
        for (int r = 0; r < size; ++r)
          if (picks[r] != picks[0])
            return failed("rank " + std::to_string(r) + " picked another "
                          "variant");
        if (own[0] == picks[0])
          return failed("rank 0's own pick was the agreed one: the "
                        "timings were not perturbed");
        std::printf("signature [%lld]: all %d ranks launch %s; rank 0's own "
                    "pick was variant %d\n",
                    static_cast<long long>(report.signature[0]), size,
                    report.chosenName.c_str(), own[0]);
      }
    }
  }
  size_t entries = TuningCache::inDirectory(cacheDir).entries().size();
  if (entries != (rank == 0 ? 3u : 0u))
    return failed("the cache of rank " + std::to_string(rank) + " has " +
                  std::to_string(entries) + " entries");
  // Only rank 0 remembers: every rank takes its picks, timing nothing.
  Module module = Module::fromBundle(axpyBundle(), perturbedHost(rank),
                                     "axpy.tuna", rankOptions(cacheDir));
  TunedKernel &kernel = module.kernel("axpy");
  for (int64_t n : shapes)
    launchAxpy(kernel, n);
  for (const TuningReport &report : kernel.reports())
    if (report.source != DecisionSource::Cache ||
        report.chosenName != "axpy_work4")
      return failed("second round: " + report.chosenName + " from " +
                    decisionSourceName(report.source));
  if (rank == 0)
    std::printf("agree: passed on %d ranks\n", size);
  return 0;
}

/// Options::spreadOverRanks: one share per rank, one decision.
int spread() {
  Options options = rankOptions("");
  options.spreadOverRanks = true;
  Module module = Module::fromBundle(axpyBundle(), perturbedHost(rank),
                                     "axpy.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  for (int64_t n : {1024, 4096})
    launchAxpy(kernel, n);
  for (const TuningReport &report : kernel.reports()) {
    std::vector<int> picks = gatherAtRoot(report.chosen);
    int timedHere = 0, best = -1;
    for (const CandidateResult &c : report.candidates) {
      timedHere += c.status != CandidateStatus::NotTimed && c.timedOn.empty();
      if (c.status == CandidateStatus::Measured &&
          (best < 0 || c.medianMs < report.candidates[best].medianMs))
        best = c.variant;
    }
    std::vector<int> shares = gatherAtRoot(timedHere);
    if (report.chosen != best || report.ranks != size)
      return failed("picked " + report.chosenName + ", not the fastest");
    if (rank != 0)
      continue;
    int timed = 0;
    for (int r = 0; r < size; ++r) {
      if (picks[r] != picks[0])
        return failed("rank " + std::to_string(r) + " picked another variant");
      if (shares[r] != (4 + size - 1 - r) / size)
        return failed("rank " + std::to_string(r) + " timed " +
                      std::to_string(shares[r]) + " candidates");
      timed += shares[r];
    }
    std::printf("signature [%lld]: all %d ranks launch %s; the %d candidates "
                "were timed once each, spread over the ranks\n",
                static_cast<long long>(report.signature[0]), size,
                report.chosenName.c_str(), timed);
  }
  if (rank == 0)
    std::printf("spread: passed on %d ranks\n", size);
  return 0;
}

/// A search spread over the ranks visits as one process does.
int spreadSearch() {
  Module alone = Module::fromBundle(axpySearchBundle(), searchHost(),
                                    "axpy.tuna", fastOptions());
  std::string expected =
      describeVisits(searchAxpy(alone, shortSearch("random", 4)));
  Options options = rankOptions("");
  options.spreadOverRanks = true;
  // Launches on this rank's two devices.
  std::atomic<int> launches{0};
  options.tuningDevices = {searchHost([&launches] { ++launches; })};
  Module module =
      Module::fromBundle(axpySearchBundle(),
                         searchHost([&launches] { ++launches; }), "axpy.tuna",
                         options);
  SearchOutcome outcome = searchAxpy(module, shortSearch("random", 4));
  std::string visits = describeVisits(outcome);
  if (visits != expected)
    return failed("visited\n" + visits + "where one process visited\n" +
                  expected);
  std::vector<int> launched = gatherAtRoot(launches);
  if (rank != 0)
    return 0;
  for (int r = 0; r < size; ++r)
    if (launched[r] == 0)
      return failed("rank " + std::to_string(r) + " timed no visit");
  std::printf("%s", visits.c_str());
  std::printf("search: passed on %d ranks\n", size);
  return 0;
}

/// The scenarios where the last rank breaks the contract; the others must
/// fail with a clear error (run-mpi-test.sh checks its text).
int breakContract(const std::string &scenario) {
  bool last = rank == size - 1;
  if (last && scenario == "dies")
    std::raise(SIGKILL);
  auto dieOnLaunch = [last, scenario] {
    if (last && (scenario == "spread-dies" || scenario == "search-dies"))
      std::raise(SIGKILL);
  };
  if (scenario == "search-dies") {
    Options options = rankOptions("");
    options.agreeTimeoutMs = 1500;
    options.spreadOverRanks = true;
    Module module = Module::fromBundle(
        axpySearchBundle(), searchHost(dieOnLaunch), "axpy.tuna", options);
    try {
      // Batches of 8: every rank times a share of the first.
      searchAxpy(module, shortSearch("random", 8));
    } catch (const Error &e) {
      std::fprintf(stderr, "rank %d: error: %s\n", rank, e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return failed("the search did not fail");
  }
  Bundle bundle = axpyBundle();
  if (last && scenario == "bundle")
    bundle.kernels[0].variants[2].config[0].second = 65;
  if (last && scenario == "source")
    bundle.kernels[0].sourceHash = "fedcba9876543210";
  Options options = rankOptions("");
  options.agreeTimeoutMs = 1500;
  options.spreadOverRanks = scenario == "spread-dies";
  Device host = last && scenario == "device" ? scriptedHost({}, "Other CPU")
                                             : perturbedHost(rank, dieOnLaunch);
  Module module = Module::fromBundle(std::move(bundle), std::move(host),
                                     "axpy.tuna", options);
  if (last && scenario == "late") {
    // Never joins: waits for the others, who end the job.
    MPI_Barrier(MPI_COMM_WORLD);
    return failed("the job went on without this rank");
  }
  try {
    launchAxpy(module.kernel("axpy"),
               last && scenario == "signature" ? 2048 : 1024);
  } catch (const Error &e) {
    std::fprintf(stderr, "rank %d: error: %s\n", rank, e.what());
    std::fflush(stderr);
    if (scenario == "late" || scenario == "dies" ||
        scenario == "spread-dies")
      MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  return failed("the launch did not fail");
}

/// A step tuned jointly by the ranks together.
int step() {
  Options options = rankOptions("");
  options.check = false;
  Module module =
      Module::fromBundle(stepBundle(), stepHost(rank), "step.tuna", options);
  int64_t n = 256;
  std::vector<float> x(n, 1.0f), y(n, 0.0f), z(n, 0.0f);
  StepOptions stepOptions;
  stepOptions.minRuns = 3;
  stepOptions.maxRuns = 5;
  TunedStep tuned(
      "block",
      [&](StreamHandle stream) {
        module.kernel("first").launch(stream, memref(x.data(), {n}),
                                      memref(y.data(), {n}), 2.0f, n);
        module.kernel("second").launch(stream, memref(y.data(), {n}),
                                       memref(z.data(), {n}), 2.0f, n);
      },
      stepOptions);
  tuned.run(nullptr);
  const StepReport &report = tuned.reports().at(0);
  if (report.ranks != size || report.launches.size() != 2)
    return failed(std::to_string(report.ranks) + " ranks, " +
                  std::to_string(report.launches.size()) + " launches");
  int first = report.launches[0].chosen, second = report.launches[1].chosen;
  if (report.launches[0].chosenName != "axpy_work1" ||
      report.launches[1].chosenName != "axpy_work4")
    return failed("launches " + report.launches[0].chosenName + ", " +
                  report.launches[1].chosenName);
  if (y[0] != 2.0f || z[n - 1] != 4.0f)
    return failed("the step's outputs are wrong");
  std::vector<int> firsts = gatherAtRoot(first), seconds = gatherAtRoot(second);
  std::vector<int> own = gatherAtRoot(report.launches[0].ownChoice);
  if (rank != 0)
    return 0;
  for (int r = 0; r < size; ++r)
    if (firsts[r] != first || seconds[r] != second)
      return failed("rank " + std::to_string(r) + " launches other variants");
  if (own[0] == first)
    return failed("rank 0's own joint pick was the agreed one: the timings "
                  "were not perturbed");
  std::printf("step: all %d ranks launch first=axpy_work1, "
              "second=axpy_work4; rank 0 alone would have taken "
              "first=axpy_work2\n",
              size);
  std::printf("step: passed on %d ranks\n", size);
  return 0;
}

/// The C API: tunaMpiEnable's failure in tunaLastError(), then agreement
/// on a module the C API loaded (Options::fromEnvironment()).
int cApi() {
  // An invalid communicator, with errors returned instead of fatal.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  TunaStatus status = tunaMpiEnable(MPI_COMM_NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (status == TUNA_SUCCESS)
    return failed("tunaMpiEnable(MPI_COMM_NULL) succeeded");
  if (!std::strstr(tunaLastError(), "tunaMpiEnable: MPI_Comm_dup failed"))
    return failed(std::string("tunaLastError() is '") + tunaLastError() + "'");
  if (defaultCommunicator())
    return failed("a failed tunaMpiEnable set a communicator");
  if (tunaMpiEnable(MPI_COMM_WORLD) != TUNA_SUCCESS)
    return failed(tunaLastError());
  // The C API's modules take the environment's options: a cache of this
  // rank's, and the check, which rejects axpy_wrong.
  TempDir cache;
  ::setenv("TUNA_CACHE_DIR", cache.path.c_str(), 1);
  ::setenv("TUNA_CHECK", "1", 1);
  ::unsetenv("TUNA_TUNING_DB");
  std::string bytes = writeBundle(axpyBundle());
  TunaModule *module = nullptr;
  TunaKernel *kernel = nullptr;
  if (tunaModuleLoadMemory(bytes.data(), bytes.size(), "axpy.tuna",
                           TUNA_DEVICE_HOST, 0, &module) != TUNA_SUCCESS ||
      tunaModuleGetKernel(module, "axpy", &kernel) != TUNA_SUCCESS)
    return failed(tunaLastError());
  int64_t n = 4096;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  auto view = [n](float *data) {
    TunaArg arg = {};
    arg.kind = TUNA_ARG_MEMREF;
    arg.type = TUNA_F32;
    arg.memref.allocated = arg.memref.aligned = data;
    arg.memref.rank = 1;
    arg.memref.sizes[0] = n;
    arg.memref.strides[0] = 1;
    return arg;
  };
  TunaArg args[4] = {view(x.data()), view(y.data()), {}, {}};
  args[2].kind = args[3].kind = TUNA_ARG_SCALAR;
  args[2].type = TUNA_F32;
  args[2].floatValue = 2.0;
  args[3].type = TUNA_I64;
  args[3].intValue = n;
  if (tunaKernelLaunch(kernel, nullptr, args, 4) != TUNA_SUCCESS)
    return failed(tunaLastError());
  char name[64] = "", config[128] = "";
  if (tunaKernelLastChoice(kernel, name, sizeof(name), config,
                           sizeof(config)) != TUNA_SUCCESS)
    return failed(tunaLastError());
  tunaModuleFree(module);
  if (y[0] != 2.0f || y[n - 1] != 2.0f)
    return failed("axpy computed a wrong result");
  // Every rank's pick, at rank 0.
  std::vector<char> all(sizeof(name) * size);
  MPI_Gather(name, sizeof(name), MPI_CHAR, all.data(), sizeof(name), MPI_CHAR,
             0, MPI_COMM_WORLD);
  if (rank != 0)
    return 0;
  for (int r = 0; r < size; ++r)
    if (std::strcmp(&all[r * sizeof(name)], name) != 0)
      return failed("rank " + std::to_string(r) + " launched " +
                    &all[r * sizeof(name)] + ", rank 0 " + name);
  std::printf("c: all %d ranks launch %s (%s)\n", size, name, config);
  std::printf("c: passed on %d ranks\n", size);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario != "c")
    tuna::mpi::enable();
  int status;
  if (scenario == "agree")
    status = agree();
  else if (scenario == "spread")
    status = spread();
  else if (scenario == "search")
    status = spreadSearch();
  else if (scenario == "c")
    status = cApi();
  else if (scenario == "step")
    status = step();
  else if (scenario == "late" || scenario == "dies" ||
           scenario == "signature" || scenario == "bundle" ||
           scenario == "source" || scenario == "device" ||
           scenario == "spread-dies" || scenario == "search-dies")
    status = breakContract(scenario);
  else
    status = failed("usage: tuna-mpi-agreement-test agree|late|dies|"
                    "signature|bundle|source|device|spread|spread-dies|"
                    "search|search-dies|step|c");
  MPI_Finalize();
  return status;
}
