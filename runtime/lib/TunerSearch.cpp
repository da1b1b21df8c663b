//===- TunerSearch.cpp - Searching the candidates of a launch -------------===//
//
// TunedKernel::search (tuna-tune --strategy) and a first call with
// Options::useSearch: instead of timing every candidate, a search strategy
// (docs/search.md) visits some of them, each visit timed by the usual
// protocol (TunedKernel::Impl::measureLocked), every visit of one search in
// one tuning worker when isolated.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"
#include "KernelImpl.h"

#include "tuna/runtime/PhaseTimes.h"

#include <chrono>
#include <mutex>
#include <optional>

namespace tuna {

SearchOutcome TunedKernel::Impl::searchCandidates(
    StreamHandle stream, const ArgValue *args, size_t count,
    const int64_t *keyValues, const int64_t *signature,
    const std::vector<int> &candidates, const search::SearchOptions &options,
    TuningReport report) {
  VariantSpace space = makeVariantSpace(spec, candidates);
  // Started now, the worker gets ready while the first batch is prepared.
  std::optional<WorkerSession> session;
  if (module.options.isolate && canIsolate(backend))
    session.emplace(*this, stream, args, count);
  VariantEvaluator evaluator(
      space, [&](const std::vector<int> &variants, int samples) {
        return measureLocked(stream, args, count, keyValues, signature,
                             variants, samples,
                             session ? &*session : nullptr);
      });
  search::SearchResult result = search::run(space.space, evaluator, options);
  try {
    applySearchResult(space, result, evaluator.timed, report);
  } catch (const Error &e) {
    throw Error(e.code(), describe() + ": " + e.what());
  }
  evaluator.reportCheck(report);
  return {std::move(report), std::move(space), std::move(result)};
}

SearchOutcome TunedKernel::Impl::search(StreamHandle stream,
                                        const ArgValue *args, size_t count,
                                        const search::SearchOptions &options) {
  TimedPhase phase("search");
  auto start = std::chrono::steady_clock::now();
  LaunchKey key = checkedKey(args, count);
  const int64_t *keyValues = key.keyValues, *signature = key.signature;
  std::lock_guard<std::mutex> lock(module.device.tuningMutex());
  // Classification only: which variants can run for these key values.
  TuningReport classified = measureLocked(stream, args, count, keyValues,
                                          signature, {}, /*samples=*/0);
  std::vector<int> runnable;
  std::string why;
  for (const CandidateResult &candidate : classified.candidates) {
    if (candidate.status == CandidateStatus::NotTimed)
      runnable.push_back(candidate.variant);
    why += "\n  " + candidate.name + ": " + candidate.reason;
  }
  if (runnable.empty())
    throw Error(ErrorCode::Unsupported,
                describe() + " for " +
                    formatSignature(signature, spec.key.size()) +
                    ": no variant can run:" + why);
  SearchOutcome outcome =
      searchCandidates(stream, args, count, keyValues, signature, runnable,
                       options, std::move(classified));
  TuningReport &report = outcome.report;
  report.chosenName = spec.variants[report.chosen].name;
  report.source = DecisionSource::Tuned;
  report.wallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return outcome;
}

} // namespace tuna
