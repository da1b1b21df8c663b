//===- Options.h - How a module tunes its kernels --------------*- C++ -*-===//
#ifndef TUNA_RUNTIME_OPTIONS_H
#define TUNA_RUNTIME_OPTIONS_H

#include "tuna/runtime/Communicator.h"
#include "tuna/runtime/Device.h"
#include "tuna/runtime/Search.h"

#include <memory>

#include <string>
#include <vector>

namespace tuna {

enum class TuneMode {
  Off,   ///< Launch the default variant; never benchmark.
  On,    ///< Tune each new signature once (the default).
  Always ///< Like On, but ignore persisted results and re-tune.
};

/// Tuning policy of a Module. The defaults suit interactive use; every field
/// can be set in code, and fromEnvironment() applies the TUNA_* variables.
struct Options {
  TuneMode mode = TuneMode::On;
  /// Print every candidate's configuration and time, and the pick, to stderr.
  bool verbose = false;

  /// Compare each candidate's output with the default variant's and reject
  /// candidates that differ: |got - want| <= atol * scale + rtol * |want|
  /// for floats, where scale is the largest |want| of the buffer (at least
  /// 1), exact for integers. Negative atol or rtol (the default): the
  /// output type's default, as torch.testing's (f32: atol 1e-5, rtol
  /// 1.3e-6; f16: 1e-5, 1e-3; bf16: 1e-5, 1.6e-2; f64: 1e-7, 1e-7); rtol is
  /// at least 4 ulp of the type. Off by default: it reads every written
  /// buffer back to the host once per candidate, which dominates tuning
  /// time for large buffers (docs/benchmarks.md).
  bool check = false;
  double atol = -1;
  double rtol = -1;

  /// Untimed launches of each candidate before timing.
  int warmupRuns = 1;
  /// Timed samples per candidate: at most maxRuns; after minRuns, stop once
  /// one more sample moves the median by at most stableTolerance (relative).
  int minRuns = 5;
  int maxRuns = 50;
  double stableTolerance = 0.01;
  /// A sample launches the kernel often enough to last about this long.
  double minSampleMs = 0.05;
  /// Times each launch alone after evicting the device's L2 cache
  /// (Backend::evictCache), as an application that calls the kernel once on
  /// data nothing has touched lately runs it; off: launches back to back on
  /// the same buffers, whose data stays in the L2 between them. Decisions
  /// taken either way are kept apart (CacheKey::coldTiming). A backend that
  /// cannot evict its cache (the host) times warm and says so.
  bool coldTiming = false;
  /// After eliminateAfter samples, a candidate whose fastest sample is
  /// slower than eliminateFactor times the best median so far is dropped.
  int eliminateAfter = 3;
  double eliminateFactor = 2.0;
  /// The final round: after every candidate is timed, the measured ones
  /// whose median is within finalMargin (relative) of the best, at most
  /// `finalists` of them (the fastest), are sampled again round-robin,
  /// finalRounds samples each, and the pick is the lowest median of that
  /// round. Candidates timed one after another see the device at different
  /// moments (clocks, temperature, what ran before); interleaved samples
  /// see it alike. It runs with two finalists or more, as far as
  /// totalBudgetMs allows (at least three rounds, or none). finalists = 0
  /// (TUNA_TUNE_FINALISTS=0): no final round, the pick is the lowest median
  /// of the first timing.
  int finalists = 4;
  double finalMargin = 0.1;
  int finalRounds = 7;
  /// Time budgets. totalBudgetMs (TUNA_TUNE_BUDGET_MS) covers the warm-ups
  /// and samples of all candidates, not the check, which runs before;
  /// each candidate samples for at most
  /// min(candidateBudgetMs, its fair share of what is left of the total),
  /// and always takes at least one sample.
  double candidateBudgetMs = 200;
  double totalBudgetMs = 2000;

  /// Drop the candidates that the static model (tuna/runtime/Prune.h)
  /// says cannot be competitive before timing any: no block fits on a
  /// multiprocessor, register spills where other candidates have none, or
  /// a wave-quantization cost over `pruneSlowerThan` times the best one's.
  /// Pruned candidates are reported with status Pruned and the reason.
  bool prune = true;
  double pruneSlowerThan = 1.5;

  /// Time only the variants of a persisted shortlist (docs/cache.md,
  /// "Shortlists") on the first call of a signature that has one, and
  /// decide among them; off: take the entry's pick without timing.
  bool useShortlists = true;

  /// Search the candidates of a new signature with `search` (a strategy and
  /// its budgets, docs/search.md) instead of timing every one; off by
  /// default. Only the variants the search visits are loaded and timed. Its
  /// resume file is not used: the disk cache keeps the decision.
  bool useSearch = false;
  search::SearchOptions search;

  /// Where tuning results persist across processes (docs/cache.md); empty:
  /// nowhere. fromEnvironment() sets it to $TUNA_CACHE_DIR, else
  /// $XDG_CACHE_HOME/tuna, else ~/.cache/tuna.
  std::string cacheDir;
  /// Tuning databases (files written by `tuna-tune -o`, e.g. shipped with
  /// an app), read only: looked up in order after cacheDir. fromEnvironment()
  /// sets them from TUNA_TUNING_DB, a colon-separated list of files.
  std::vector<std::string> databases;
  /// Use persisted results only from the same driver and Tuna version.
  bool versionCheck = true;

  /// Time the candidates in a worker process (docs/runtime-api.md,
  /// "Isolated tuning"), so that a variant that crashes or hangs is recorded
  /// as failed instead of ending the application or poisoning its CUDA
  /// context. Costs a process start, the device's initialization and a copy
  /// of the launch's buffers per tuned signature.
  bool isolate = false;
  /// The worker executable; empty: $TUNA_WORKER, else `tuna-worker` beside
  /// the binary that contains the runtime (the shared library, or the
  /// executable it is linked into).
  std::string workerPath;
  /// A worker that sends nothing for this long (loading code, timing one
  /// candidate) is ended and the candidate it was timing marked failed.
  double tuneTimeoutMs = 10000;

  /// The ranks of a multi-process job, which then launch the same variant
  /// for every signature: each new signature is agreed across them
  /// (docs/runtime-api.md, "Several ranks"). Null: this process decides
  /// alone. fromEnvironment() takes defaultCommunicator().
  std::shared_ptr<Communicator> communicator;
  /// How long a rank waits for the others at each step of an agreement
  /// (they may still be tuning); then the launch throws, naming the ranks
  /// that did not join.
  double agreeTimeoutMs = 60000;
  /// With a communicator: the ranks split the candidates of a new
  /// signature, each timing its share (round-robin over the candidate list,
  /// which every rank computes alike), instead of every rank timing every
  /// candidate; the lowest median of any rank wins (docs/runtime-api.md,
  /// "Tuning spread over devices"). Every rank must set it alike.
  bool spreadOverRanks = false;
  /// Other devices of this host, of the module's device model, that time a
  /// share of each new signature's candidates while the module's device
  /// times the rest: one thread per device, each on its own copies of the
  /// launch's arguments. Loading a module with a device of another model
  /// (or its own device) in the list throws, naming it.
  std::vector<Device> tuningDevices;

  /// The defaults overridden by the environment: TUNA_AUTOTUNE=0|1,
  /// TUNA_ALWAYS_TUNE=0|1, TUNA_PRINT_AUTOTUNING=0|1, TUNA_CHECK=0|1,
  /// TUNA_CACHE_DIR, TUNA_TUNING_DB, TUNA_VERSION_CHECK=0|1,
  /// TUNA_CHECK_ATOL=<float>, TUNA_CHECK_RTOL=<float>, TUNA_ISOLATE=0|1,
  /// TUNA_PRUNE=0|1, TUNA_SHORTLISTS=0|1, TUNA_TUNE_COLD=0|1 (coldTiming),
  /// TUNA_WORKER=<path>, TUNA_TUNE_TIMEOUT_MS=<ms>,
  /// TUNA_TUNE_BUDGET_MS=<ms>, TUNA_AGREE_TIMEOUT_MS=<ms>,
  /// TUNA_SPREAD_TUNING=0|1 (spreadOverRanks); and takes
  /// defaultCommunicator(). A malformed value is a tuna::Error naming the
  /// variable.
  static Options fromEnvironment();
};

const char *tuneModeName(TuneMode mode);

/// The boolean value of the environment variable `name` (1, true, on, yes;
/// 0, false, off, no), or `unset` when it is unset or empty; any other value
/// is a tuna::Error naming the variable. Options::fromEnvironment() reads its
/// flags so, and so do the variables read elsewhere (TUNA_GRID_DEPENDENCY
/// when the CUDA backend opens a device, TUNA_IMPORT_BUFFERS in a worker).
bool environmentFlag(const char *name, bool unset);

} // namespace tuna

#endif // TUNA_RUNTIME_OPTIONS_H
