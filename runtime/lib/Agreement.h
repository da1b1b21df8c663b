//===- Agreement.h - One decision for all ranks of a job --------*- C++ -*-===//
//
// With Options::communicator, a new signature is decided by every rank
// together (docs/runtime-api.md, "Several ranks"), in two exchanges:
//
//  1. What is decided: each rank sends its kernel, source hash, variants,
//     signature and device model; a rank that differs from rank 0 is an
//     error naming it (the ranks called tuned kernels in different orders,
//     loaded different bundles or run on different GPUs). Rank 0's
//     persisted pick (tuning cache, databases) replaces every rank's own.
//  2. The outcome: each rank decides on its own (taking rank 0's persisted
//     pick, or timing its candidates) and sends its pick and every
//     candidate's median; every rank then computes agreedVariant() from
//     the same bytes, so all launch the same variant.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_AGREEMENT_H
#define TUNA_RUNTIME_LIB_AGREEMENT_H

#include "KernelImpl.h"
#include "Spread.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <mutex>

namespace tuna {

/// What one rank's own decision was.
struct RankOutcome {
  DecisionSource source = DecisionSource::Default;
  int chosen = -1;
  /// Per variant: the median per launch, or -1 if it was not measured.
  std::vector<double> medianMs;
  std::string error; ///< Why this rank could not decide; empty if it did.
  /// The candidates were spread over the ranks (Options::spreadOverRanks):
  /// each was timed on one rank only.
  bool spread = false;
};

/// The variant every rank launches: rank 0's pick when rank 0 timed nothing
/// (a persisted pick, mode off or a single candidate); spread over the
/// ranks, the variant with the lowest median on the rank that timed it,
/// ties to the lower index (-1 when none was measured); else, of the
/// variants measured on every rank that timed, the one whose slowest rank's
/// median is lowest (a step of the job waits for its slowest rank), ties to
/// the lower index; rank 0's pick when none was measured on all of them.
int agreedVariant(const std::vector<RankOutcome> &outcomes);

class Agreement {
public:
  /// Exchange 1 (see above); throws tuna::Error naming the ranks that
  /// differ from rank 0 or did not join within Options::agreeTimeoutMs.
  /// Sets `remembered.variant` to rank 0's persisted pick.
  Agreement(TunedKernel::Impl &kernel, const int64_t *keyValues,
            const int64_t *signature,
            TunedKernel::Impl::Persisted &remembered);

  /// Exchange 2: runs `decideHere` (this rank's own decision), gathers
  /// every rank's outcome and returns this rank's report with the agreed
  /// variant chosen (its code loaded); TuningReport::ownChoice keeps this
  /// rank's pick. With `spread` over the ranks, every rank's timings are
  /// merged into the report (CandidateResult::timedOn). Throws naming the
  /// ranks that could not decide or split other candidates.
  TuningReport decide(const std::function<TuningReport()> &decideHere,
                      const CandidateSpread *spread);

  /// Rank 0 writes the decision to the tuning cache; the others do not, so
  /// it is recorded once.
  bool recordsDecision() const { return communicator.rank() == 0; }

private:
  std::string where() const;
  std::vector<std::string> exchange(const std::string &mine) const;
  /// Writes the results the other ranks timed into `report`; throws naming
  /// the ranks whose candidate list differs from rank 0's.
  void mergeSpread(const std::vector<nlohmann::json> &outcomes,
                   TuningReport &report) const;
  /// Loads `variant` and checks it can run here; throws if not.
  void admitAgreed(TuningReport &report, int variant) const;

  /// One agreement at a time per communicator.
  std::unique_lock<std::mutex> exclusive;
  TunedKernel::Impl &kernel;
  Communicator &communicator;
  double timeoutMs;
  const int64_t *keyValues;
  std::vector<int64_t> signature;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_AGREEMENT_H
