//===- SearchVariants.h - A kernel's variants as a search space -*- C++ -*-===//
//
// The bridge between a bundle's variants and tuna/runtime/Search.h, shared by
// the runtime's first call (Options::useSearch) and tuna-tune --strategy.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_SEARCHVARIANTS_H
#define TUNA_RUNTIME_SEARCHVARIANTS_H

#include "tuna/runtime/Manifest.h"
#include "tuna/runtime/Search.h"
#include "tuna/runtime/Tuning.h"

#include <functional>
#include <map>
#include <vector>

namespace tuna {

/// Some variants of a kernel as a search space: the parameters of their
/// configurations (the values each takes among them, in increasing order),
/// and the variant of each configuration id.
struct VariantSpace {
  search::Space space;
  std::vector<int> variants;

  int variantOf(const search::Values &values) const {
    return variants[*space.findValues(values)];
  }
};

/// What a search of a launch's candidates found (TunedKernel::search): a
/// decision-like report, the candidates as a space, and every visit and
/// re-timing as configuration ids of that space.
struct SearchOutcome {
  TuningReport report;
  VariantSpace space;
  search::SearchResult result;
};

/// The space of `candidates` (indices into kernel.variants, at least one).
/// Throws tuna::Error when they do not all have the same parameters.
VariantSpace makeVariantSpace(const Kernel &kernel,
                              const std::vector<int> &candidates);

/// A measured (or eliminated) candidate's time, or why it has none.
search::Measurement toMeasurement(const CandidateResult &result);

/// Adds what the check (Options::check) did in `part` (a batch, or a share
/// of one) to `whole`: checked if either was, against and on what the
/// last checked part said, the default rejected if any part rejected it,
/// the time of all, and, while nothing was checked, why not as the first
/// part said it.
void addCheck(const TuningReport &part, TuningReport &whole);

/// Measures configurations of a VariantSpace with `time`, which times the
/// given variants (TunedKernel::measure or its locked form) with at least
/// the given number of samples; the wall clock is its clock.
class VariantEvaluator : public search::Evaluator {
public:
  using TimeVariants = std::function<TuningReport(
      const std::vector<int> &variants, int samples)>;
  VariantEvaluator(const VariantSpace &space, TimeVariants time)
      : space(space), time(std::move(time)) {}

  std::vector<search::Measurement>
  measure(const std::vector<search::Values> &configurations,
          int samples) override;
  double seconds() override;

  /// The latest result of each variant measured.
  std::map<int, CandidateResult> timed;

  /// Copies what the check (Options::check) did over every batch into
  /// `report`: checked if any batch was, against and on what the last
  /// checked batch said, the default rejected if any batch rejected it, the
  /// time of all.
  void reportCheck(TuningReport &report) const;

private:
  const VariantSpace &space;
  TimeVariants time;
  TuningReport checks; ///< Its check fields only (addCheck).
};

/// Writes a search's outcome into `report`: each visited candidate gets its
/// latest result from `timed` (or, when it was read from a resume file, its
/// stored time), re-timed candidates their re-timed median, candidates not
/// visited "not visited by the search", and `chosen` the pick. Throws
/// tuna::Error when the search has no pick (every visit failed).
void applySearchResult(const VariantSpace &space,
                       const search::SearchResult &result,
                       const std::map<int, CandidateResult> &timed,
                       TuningReport &report);

} // namespace tuna

#endif // TUNA_RUNTIME_SEARCHVARIANTS_H
