//===- Search.cpp - Searching a tuning space with a budget ----------------===//
//
// The driver of every strategy: asks the strategy for configurations, serves
// those the resume file already measured for free, measures the rest in
// batches while the budgets last, persists after every batch, then re-times
// the candidates close to the best and decides.
//
//===----------------------------------------------------------------------===//

#include "SearchResume.h"
#include "SearchStrategy.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/PhaseTimes.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tuna::search {

namespace {

Error invalid(const std::string &message) {
  return Error(ErrorCode::InvalidArgument, message);
}

} // namespace

void validate(const SearchOptions &options) {
  checkStrategyName(options.strategy);
  if (options.budgetEvaluations && *options.budgetEvaluations <= 0)
    throw invalid(
        "search budget: " + std::to_string(*options.budgetEvaluations) +
        " evaluations; expected a positive number");
  if (options.budgetSeconds && !(*options.budgetSeconds > 0))
    throw invalid("search budget: " + std::to_string(*options.budgetSeconds) +
                  " seconds; expected a positive number");
  if (options.batchSize <= 0)
    throw invalid("search batch size: " + std::to_string(options.batchSize) +
                  "; expected a positive number");
  if (options.retimeMax < 0 || options.retimeSamples <= 0 ||
      !(options.retimeWithin >= 0))
    throw invalid("search re-timing: expected retimeMax >= 0, retimeSamples "
                  "> 0 and retimeWithin >= 0");
}

namespace {

/// A measurement the search can use: a time that is not finite or negative
/// is the evaluator's failure to measure.
Measurement sanitize(Measurement measurement) {
  if (measurement.ok() &&
      !(std::isfinite(measurement.ms) && measurement.ms >= 0))
    return Measurement::failed("the evaluator reported a time of " +
                               std::to_string(measurement.ms) + " ms");
  return measurement;
}

std::vector<Measurement> measure(Evaluator &evaluator, const Space &space,
                                 const std::vector<size_t> &ids, int samples) {
  TimedPhase phase(samples ? "re-timing" : "batch");
  std::vector<Values> configurations;
  for (size_t id : ids)
    configurations.push_back(space.values(id));
  std::vector<Measurement> measured =
      evaluator.measure(configurations, samples);
  if (measured.size() != ids.size())
    throw Error(ErrorCode::Internal,
                "the search's evaluator returned " +
                    std::to_string(measured.size()) + " measurements for " +
                    std::to_string(ids.size()) + " configurations");
  for (Measurement &measurement : measured)
    measurement = sanitize(std::move(measurement));
  return measured;
}

class Driver {
public:
  Driver(const Space &space, Evaluator &evaluator, const SearchOptions &options)
      : space(space), evaluator(evaluator), options(options), history(space),
        strategy(makeStrategy(options.strategy, space, options.seed)) {
    if (!options.resumeFile.empty())
      stored = readResumeFile(options.resumeFile, options.resumeKey, space);
    for (size_t i = 0; i < stored.size(); ++i)
      known.emplace(stored[i].first, i);
  }

  SearchResult run() {
    start = evaluator.seconds();
    result.stopReason = explore();
    // What the resume file measured and this search did not visit still
    // counts.
    for (const auto &[id, index] : known)
      if (!history.visited(id))
        visit(id, stored[index].second, /*resumed=*/true);
    retimeAndDecide();
    result.seconds = evaluator.seconds() - start;
    return std::move(result);
  }

private:
  /// Visits what the strategy proposes until a budget is spent or the
  /// strategy is done; returns why it stopped.
  std::string explore() {
    for (;;) {
      std::vector<size_t> proposed = strategy->next(history);
      if (proposed.empty())
        return history.order().size() == space.size() ? "space exhausted"
                                                      : "converged";
      for (size_t i = 0; i < proposed.size();) {
        if (auto it = known.find(proposed[i]); it != known.end()) {
          visit(proposed[i++], stored[it->second].second, /*resumed=*/true);
          continue;
        }
        if (std::string spent = budgetSpent(); !spent.empty())
          return spent;
        // A batch: the next fresh proposals, up to the batch size and the
        // evaluations left.
        size_t limit = static_cast<size_t>(options.batchSize);
        if (options.budgetEvaluations)
          limit = std::min<size_t>(limit, *options.budgetEvaluations -
                                              result.freshEvaluations);
        std::vector<size_t> batch;
        for (; i < proposed.size() && batch.size() < limit &&
               !known.count(proposed[i]);
             ++i)
          batch.push_back(proposed[i]);
        std::vector<Measurement> measured =
            measure(evaluator, space, batch, /*samples=*/0);
        for (size_t k = 0; k < batch.size(); ++k) {
          visit(batch[k], measured[k], /*resumed=*/false);
          stored.emplace_back(batch[k], measured[k]);
          known.emplace(batch[k], stored.size() - 1);
        }
        result.freshEvaluations += static_cast<int>(batch.size());
        if (!options.resumeFile.empty())
          appendResumeFile(options.resumeFile, options.resumeKey, space,
                           Measured(stored.end() - batch.size(), stored.end()));
      }
    }
  }

  std::string budgetSpent() {
    if (options.budgetEvaluations &&
        result.freshEvaluations >= *options.budgetEvaluations)
      return "evaluation budget";
    // Every search measures something: the first batch is always taken.
    if (options.budgetSeconds && !history.order().empty() &&
        evaluator.seconds() - start >= *options.budgetSeconds)
      return "time budget";
    return "";
  }

  void visit(size_t id, const Measurement &measurement, bool resumed) {
    history.record(id, measurement);
    result.evaluations.push_back({id, space.values(id), measurement, resumed});
  }

  /// Re-times the measured configurations within retimeWithin of the best
  /// and picks the fastest re-timed one (the fastest first-pass one when
  /// nothing was re-timed or every re-timing failed). A first pass's best
  /// is often luckily fast: when re-timing shows that, the configurations
  /// close to the corrected best are re-timed too, up to retimeMax in all.
  void retimeAndDecide() {
    std::vector<size_t> fastest = history.fastest(
        std::max<size_t>(1, static_cast<size_t>(options.retimeMax)));
    if (fastest.empty())
      return;
    result.best = fastest.front();
    result.bestMs = *history.time(fastest.front());
    double bar = result.bestMs;
    bool retimedBest = false;
    size_t next = 0;
    while (next < fastest.size() && options.retimeMax > 0) {
      std::vector<size_t> close;
      for (; next < fastest.size() &&
             *history.time(fastest[next]) <= bar * (1 + options.retimeWithin);
           ++next)
        close.push_back(fastest[next]);
      if (close.empty())
        break;
      std::vector<Measurement> again =
          measure(evaluator, space, close, options.retimeSamples);
      for (size_t k = 0; k < close.size(); ++k) {
        result.retimed.push_back({close[k], *history.time(close[k]), again[k]});
        if (again[k].ok() && (!retimedBest || again[k].ms < result.bestMs)) {
          result.best = close[k];
          result.bestMs = again[k].ms;
          retimedBest = true;
        }
      }
      bar = std::max(bar, result.bestMs);
    }
  }

  const Space &space;
  Evaluator &evaluator;
  const SearchOptions &options;
  History history;
  std::unique_ptr<Strategy> strategy;
  Measured stored;                ///< Everything the resume file holds.
  std::map<size_t, size_t> known; ///< Id -> index in `stored`.
  double start = 0;
  SearchResult result;
};

} // namespace

double Retiming::spread() const {
  return again.ok() && again.ms > 0 ? (again.maxMs - again.minMs) / again.ms
                                    : 0;
}

SearchResult run(const Space &space, Evaluator &evaluator,
                 const SearchOptions &options) {
  validate(options);
  return Driver(space, evaluator, options).run();
}

} // namespace tuna::search
