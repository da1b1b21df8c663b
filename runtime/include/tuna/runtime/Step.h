//===- Step.h - Kernels tuned together, in the step that runs them -*- C++ -*-===//
//
// Contextual (function-level) tuning, as triton-distributed's
// contextual_autotune: the application hands Tuna a callable, a step, that
// launches several tuned kernels (e.g. layernorm, matmul, softmax). The
// first run of a TunedStep times the WHOLE step while it varies the
// kernels' variants, and keeps the combination whose step is fastest: the
// kernels' configurations are chosen jointly, so that what one kernel does
// to the caches, the memory or the next kernel's input counts
// (docs/runtime-api.md, "Tuning a step").
//
// While a step is tuned, its launches write scratch copies of the buffers
// the kernels write, never the application's buffers; a buffer one kernel
// writes and another reads is one scratch copy, so the data flows between
// them as in the real step. The joint decision is then published in every
// kernel's signature table (later launches of those signatures, inside the
// step or not, launch it) and persisted in the tuning cache directory,
// keyed by the step's name, the device and every (kernel, source hash,
// signature) it launches, in order.
//
// In a job of several ranks (Options::communicator of the first kernel's
// module), every rank launches the same variants: the ranks check that they
// tune the same step, take rank 0's persisted decision, or time every
// rank's joint pick and keep the one whose slowest rank is fastest; only
// rank 0 persists it (docs/runtime-api.md, "Tuning a step").
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_STEP_H
#define TUNA_RUNTIME_STEP_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/Search.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tuna {

struct StepOptions {
  /// "coordinate" (coordinate descent: each launch in turn tries each of
  /// its candidates with the others fixed, from the kernel-by-kernel
  /// picks, for `passes` passes or until a pass improves nothing), or a
  /// search strategy (search::strategyNames(): "exhaustive", "random",
  /// "pattern") over the product of the launches' candidates, with
  /// `search`'s budgets.
  std::string strategy = "coordinate";
  int passes = 2;
  search::SearchOptions search;
  /// Timing of one combination: warm-up runs, then samples of one step
  /// each, at least minRuns and at most maxRuns, stopping once the median
  /// moves by at most stableTolerance (relative) or after budgetMs.
  int warmupRuns = 1;
  int minRuns = 5;
  int maxRuns = 20;
  double stableTolerance = 0.01;
  double budgetMs = 500;
  /// Where the joint decision persists ("<dir>/steps.json"); empty: the
  /// cache directory of the first kernel's module (Options::cacheDir).
  std::string cacheDir;
  /// Ignore a persisted decision and tune again (it is then replaced).
  bool always = false;
  /// Print every combination's time and the pick to stderr.
  bool verbose = false;
};

/// One launch of a step, as the joint decision sees it.
struct StepLaunch {
  std::string kernel;             ///< Kernel name.
  std::string module;             ///< The module's origin (bundle path).
  std::vector<int64_t> signature; ///< Bucketed.
  int kernelByKernel = -1; ///< The variant tuned for it on its own.
  int chosen = -1;         ///< The variant chosen jointly.
  /// In a job of several ranks: the variant this rank's own joint search
  /// chose, before the ranks agreed on `chosen` (-1 when nothing was
  /// searched).
  int ownChoice = -1;
  std::string chosenName;
  std::vector<int> candidates; ///< The variants tried.
};

/// What a joint decision did.
struct StepReport {
  std::string step;
  std::vector<StepLaunch> launches; ///< In the order the step launches them.
  /// The step's median time with each kernel's own pick, and with the
  /// joint pick (measured in the same tuning; -1 when taken from the cache).
  double kernelByKernelMs = -1;
  double jointMs = -1;
  int evaluations = 0;  ///< Combinations timed.
  bool cached = false;  ///< Taken from the tuning cache, nothing timed.
  /// The ranks that decided the step together (Options::communicator of
  /// the first kernel's module); 1 for a process alone.
  int ranks = 1;
  double wallMs = 0;    ///< The whole decision.
};

class TunedStep {
public:
  /// The step's work: it launches tuned kernels (TunedKernel::launch) on
  /// `stream` and may do other work, which runs for real on every timed run
  /// (keep it idempotent: only the tuned kernels' writes go to scratch).
  using Body = std::function<void(StreamHandle stream)>;

  /// `name` keys the persisted decision together with the launches.
  TunedStep(std::string name, Body body, StepOptions options = {});
  ~TunedStep();
  TunedStep(const TunedStep &) = delete;
  TunedStep &operator=(const TunedStep &) = delete;

  /// Runs the step on `stream`. The first run tunes it jointly first (or
  /// takes the persisted decision); so does a run after one that launched a
  /// signature no kernel had decided (the shapes changed). Tuning
  /// synchronizes `stream`. Throws tuna::Error when the step launches
  /// nothing tuned, or fails while tuned (its message names the step); in a
  /// job of several ranks also when the ranks tune different steps, a rank
  /// fails or one does not join within Options::agreeTimeoutMs (naming it).
  void run(StreamHandle stream);

  /// Every joint decision, oldest first.
  const std::vector<StepReport> &reports() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace tuna

#endif // TUNA_RUNTIME_STEP_H
