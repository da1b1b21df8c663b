//===- Tuning.h - What a tuning did, for tests and tools -------*- C++ -*-===//
#ifndef TUNA_RUNTIME_TUNING_H
#define TUNA_RUNTIME_TUNING_H

#include "tuna/runtime/Options.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tuna {

enum class CandidateStatus {
  Measured,    ///< Timed to the end.
  Eliminated,  ///< Dropped early: clearly slower than the best.
  WrongResult, ///< Output differs from the default variant's.
  Excluded,    ///< A constraint does not hold for these key values.
  Unrunnable,  ///< No code for this device, failed to load, or over a limit.
  Failed,      ///< Crashed or hung in the tuning worker (isolated tuning),
               ///< now or in an earlier tuning the cache remembers.
  NotTimed,    ///< Eligible, but nothing was benchmarked (mode off, the
               ///< only candidate, not on the shortlist, not visited).
  Pruned       ///< Dropped by the static model before any timing
               ///< (tuna/runtime/Prune.h); `reason` says why.
};

const char *candidateStatusName(CandidateStatus status);

/// Where a decision came from.
enum class DecisionSource {
  Tuned,   ///< Candidates were timed.
  Cache,   ///< The disk cache remembered it; nothing was timed.
  Default, ///< Mode off or a single candidate; nothing was timed.
};

const char *decisionSourceName(DecisionSource source);

/// A configuration (a variant's, a cache entry's) as people read it and
/// CandidateResult::config holds it: "BLOCK=128, VEC=4", in its order.
std::string
formatConfig(const std::vector<std::pair<std::string, int64_t>> &config);

struct CandidateResult {
  int variant = -1;
  std::string name;   ///< Variant name.
  std::string config; ///< "BLOCK=128, VEC=4".
  CandidateStatus status = CandidateStatus::NotTimed;
  std::string reason;   ///< Why it was excluded, unrunnable, wrong, eliminated.
  double medianMs = -1; ///< Per launch; -1 when not timed.
  double minMs = -1;
  double maxMs = -1; ///< The slowest sample; -1 when not timed.
  int samples = 0;
  /// Timed in a final round that ran (Options::finalists: two finalists
  /// or more, budget for three rounds): the median, the fastest and
  /// slowest time and the samples are the round's.
  bool finalist = false;
  /// Measured, but not a finalist of a final round that ran over the
  /// candidates timed with it: its median was taken at another moment than
  /// the finalists' (which were faster then), so it is not picked.
  bool behindFinalists = false;
  /// Where it was timed when the tuning was spread (Options::spreadOverRanks,
  /// Options::tuningDevices): "rank 1", "device 2 (NAME)"; empty: here.
  std::string timedOn;

  /// Measured and not behind a final round's finalists: a candidate the
  /// pick is chosen among, by its median.
  bool competes() const {
    return status == CandidateStatus::Measured && !behindFinalists;
  }
};

/// One decision for one signature of one kernel.
struct TuningReport {
  std::vector<int64_t> keyValues; ///< Raw key values of the first call.
  std::vector<int64_t> signature; ///< Bucketed.
  TuneMode mode = TuneMode::On;
  int chosen = -1; ///< Variant index.
  std::string chosenName;
  /// Each launch was timed alone after evicting the L2 (Options::coldTiming
  /// on a backend that can evict its cache); else back to back.
  bool coldTiming = false;
  /// Candidates' outputs were checked (Options::check) ...
  bool checked = false;
  /// ... against this: "the reference NAME" (TunedKernel::setReference), or
  /// "the output 3 of 4 variants agree on, the default's", ...
  std::string checkedAgainst;
  /// The default variant's output is not the reference's: it was rejected.
  bool defaultRejected = false;
  std::string checkSkipped; ///< Why not, when check was on but not done.
  /// Where the check compared outputs: "the device" (CUDA) or "the host".
  std::string checkedOn;
  /// The check's wall time: its runs and comparisons (not the timing
  /// budget's).
  double checkMs = 0;
  std::vector<CandidateResult> candidates; ///< One per variant, in order.
  double wallMs = 0; ///< Whole decision, including loading code.
  DecisionSource source = DecisionSource::Default;
  /// In a job of several ranks (Options::communicator): how many agreed on
  /// `chosen`, and this rank's own pick, before they did (-1 alone).
  int ranks = 1;
  int ownChoice = -1;
};

/// `report` as JSON text, every field, and back: how a report moves between
/// processes (tuna-tune's ranks). reportFromJson throws tuna::Error on text
/// that reportToJson did not write.
std::string reportToJson(const TuningReport &report);
TuningReport reportFromJson(const std::string &text);

} // namespace tuna

#endif // TUNA_RUNTIME_TUNING_H
