//===- Search.h - Searching a tuning space with a budget -------*- C++ -*-===//
//
// Search strategies over a space of configurations (docs/search.md). A
// strategy sees configurations as parameter vectors and asks an Evaluator for
// measurements; it knows nothing of MLIR, bundles or devices. The driver,
// search::run() keeps every measurement, enforces the budgets (evaluations and
// seconds on the evaluator's clock), persists measurements to a resume file
// so that a second run continues the first, and re-times the candidates close
// to the best with more samples before it decides.
//
// Every failure is a tuna::Error naming the culprit (strategy, budget, space,
// resume file).
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_SEARCH_H
#define TUNA_RUNTIME_SEARCH_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tuna::search {

/// One tunable parameter and its candidate values, in the order that makes
/// neighbours meaningful (e.g. increasing tile sizes).
struct Parameter {
  std::string name;
  std::vector<int64_t> values;
};

/// The values of a configuration, one per parameter, in parameter order.
using Values = std::vector<int64_t>;

/// The valid configurations of a space. Static constraints make spaces
/// non-rectangular, so a space is the product of the parameters' values
/// filtered by a predicate, or an explicit list of configurations. Each
/// configuration has an id, 0..size()-1, in enumeration order.
class Space {
public:
  /// The product of `parameters`' values (the last parameter varies
  /// fastest) for which `valid` holds (every one when `valid` is empty).
  /// Throws tuna::Error when a parameter has no values or repeats one, the
  /// product has more than `maxProduct` configurations, no configuration is
  /// valid, or more than `maxConfigurations` are.
  static Space product(std::vector<Parameter> parameters,
                       const std::function<bool(const Values &)> &valid,
                       size_t maxConfigurations = kDefaultMaxConfigurations,
                       size_t maxProduct = kDefaultMaxProduct);

  /// Exactly `configurations`, each with one value per parameter from that
  /// parameter's values. Throws tuna::Error when the list is empty or over
  /// `maxConfigurations`, or a configuration is malformed or repeated.
  static Space list(std::vector<Parameter> parameters,
                    const std::vector<Values> &configurations,
                    size_t maxConfigurations = kDefaultMaxConfigurations);

  static constexpr size_t kDefaultMaxConfigurations = 100000;
  static constexpr size_t kDefaultMaxProduct = 10000000;

  size_t size() const { return count; }
  size_t rank() const { return parameters_.size(); }
  const std::vector<Parameter> &parameters() const { return parameters_; }

  /// The value index of parameter `p` in configuration `id`.
  int index(size_t id, size_t p) const { return points[id * rank() + p]; }
  Values values(size_t id) const;
  /// The configuration with these value indices, if it is in the space.
  std::optional<size_t> find(const std::vector<int> &indices) const;
  /// The configuration with these values, if it is in the space.
  std::optional<size_t> findValues(const Values &values) const;
  /// "bm=128, bn=64".
  std::string describe(size_t id) const;

private:
  Space() = default;
  void add(const std::vector<int> &indices);
  uint64_t encode(const int *indices) const;

  std::vector<Parameter> parameters_;
  size_t count = 0;
  std::vector<int> points;                  ///< size() x rank() value indices.
  std::unordered_map<uint64_t, size_t> ids; ///< Mixed-radix code -> id.
};

/// What an evaluator reports for one configuration.
struct Measurement {
  /// Per-run time in milliseconds (the median of the samples); meaningful
  /// only without a failure.
  double ms = 0;
  double minMs = 0, maxMs = 0; ///< The spread of the samples.
  int samples = 0;
  /// Empty when measured; otherwise why the configuration cannot be timed
  /// (does not compile, cannot run, wrong result). A failed configuration
  /// is never picked and never retried.
  std::string failure;

  bool ok() const { return failure.empty(); }
  static Measurement failed(std::string why) {
    Measurement m;
    m.failure = std::move(why);
    return m;
  }
};

/// Measures configurations. The search never knows what a configuration
/// means; a tool maps it to a variant, a test to a synthetic landscape.
class Evaluator {
public:
  virtual ~Evaluator() = default;
  /// Measures each of `configurations` (values in parameter order). With
  /// `samples` 0 the evaluator takes its usual number of samples; otherwise
  /// at least `samples` (the re-timing of close candidates asks for more).
  /// Returns one Measurement per configuration, in order.
  virtual std::vector<Measurement>
  measure(const std::vector<Values> &configurations, int samples) = 0;
  /// The evaluator's clock in seconds, for the time budget (any origin).
  virtual double seconds() = 0;
};

/// What makes measurements comparable: a resume file holds measurements of
/// one kernel (name and source hash) on one device for one signature.
struct ResumeKey {
  std::string kernel, sourceHash, device;
  std::vector<int64_t> signature;
  bool operator==(const ResumeKey &other) const {
    return kernel == other.kernel && sourceHash == other.sourceHash &&
           device == other.device && signature == other.signature;
  }
};

struct SearchOptions {
  /// "exhaustive", "random" or "pattern" (strategyNames()).
  std::string strategy = "pattern";
  /// At most this many fresh evaluations; none: no limit. Must be > 0.
  std::optional<int64_t> budgetEvaluations;
  /// Stop proposing once this many seconds of the evaluator's clock have
  /// passed; none: no limit. Must be > 0. Checked before each batch but the
  /// first.
  std::optional<double> budgetSeconds;
  uint64_t seed = 0;
  /// At most this many configurations per Evaluator::measure call (the time
  /// budget can be overrun by one batch). Must be > 0.
  int batchSize = 8;

  /// Persist every measurement here (rewritten after each batch) and, when
  /// the file exists, continue from it; empty: no file. The file must have
  /// been written for `resumeKey` and the same parameters.
  std::string resumeFile;
  ResumeKey resumeKey;

  /// Re-timing before the decision: every measured configuration within
  /// `retimeWithin` (relative) of the best first-pass time, at most
  /// `retimeMax` of them, is measured again with `retimeSamples` samples;
  /// the fastest re-timed median wins. retimeMax 0 turns it off.
  double retimeWithin = 0.03;
  int retimeMax = 8;
  int retimeSamples = 20;
};

/// One measured configuration.
struct Evaluation {
  size_t config = 0; ///< Id in the space.
  Values values;
  Measurement measurement;
  bool resumed = false; ///< Read from the resume file, not measured now.
};

/// A configuration measured again before the decision.
struct Retiming {
  size_t config = 0;
  double firstMs = 0; ///< The search's measurement.
  Measurement again;  ///< With SearchOptions::retimeSamples samples.
  /// (again.maxMs - again.minMs) / again.ms, when measured.
  double spread() const;
};

struct SearchResult {
  /// Every configuration measured, in the order the search visited it
  /// (those read from the resume file carry `resumed`).
  std::vector<Evaluation> evaluations;
  std::vector<Retiming> retimed;
  /// The pick (a configuration id), or none when every one failed.
  std::optional<size_t> best;
  double bestMs = 0; ///< The pick's time (re-timed when it was).
  int freshEvaluations = 0;
  double seconds = 0;     ///< Of the evaluator's clock, re-timing included.
  std::string stopReason; ///< "evaluation budget", "time budget", ...
};

/// The strategies run() knows, in the order docs/search.md gives them.
const std::vector<std::string> &strategyNames();

/// Throws tuna::Error when `options` are bad: an unknown strategy, a budget
/// <= 0, a batch size <= 0, bad re-timing settings.
void validate(const SearchOptions &options);

/// Searches `space` with `options`. Throws tuna::Error on bad options
/// (validate()), a resume file for another kernel,
/// device, signature or space, or a resume file that cannot be read or
/// written.
SearchResult run(const Space &space, Evaluator &evaluator,
                 const SearchOptions &options);

} // namespace tuna::search

#endif // TUNA_RUNTIME_SEARCH_H
