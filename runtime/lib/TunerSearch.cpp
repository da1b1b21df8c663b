//===- TunerSearch.cpp - A first call that searches its candidates --------===//
//
// Options::useSearch: instead of timing every candidate of a new signature,
// the first call runs a search strategy (docs/search.md) whose every visit
// is timed by the usual protocol (TunedKernel::Impl::measureLocked).
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"

#include "tuna/runtime/SearchVariants.h"

#include <chrono>
#include <map>

namespace tuna {

namespace {

class FirstCallEvaluator : public search::Evaluator {
public:
  FirstCallEvaluator(TunedKernel::Impl &kernel, const VariantSpace &space,
                     StreamHandle stream, const ArgValue *args, size_t count,
                     const int64_t *keyValues, const int64_t *signature)
      : kernel(kernel), space(space), stream(stream), args(args), count(count),
        keyValues(keyValues), signature(signature) {}

  std::vector<search::Measurement>
  measure(const std::vector<search::Values> &configurations,
          int samples) override {
    std::vector<int> variants;
    for (const search::Values &values : configurations)
      variants.push_back(space.variantOf(values));
    TuningReport report = kernel.measureLocked(stream, args, count, keyValues,
                                               signature, variants, samples);
    std::vector<search::Measurement> measured;
    for (int v : variants) {
      timed[v] = report.candidates[v];
      measured.push_back(toMeasurement(report.candidates[v]));
    }
    return measured;
  }

  double seconds() override {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  std::map<int, CandidateResult> timed;

private:
  TunedKernel::Impl &kernel;
  const VariantSpace &space;
  StreamHandle stream;
  const ArgValue *args;
  size_t count;
  const int64_t *keyValues;
  const int64_t *signature;
};

} // namespace

void TunedKernel::Impl::searchCandidates(StreamHandle stream,
                                         const ArgValue *args, size_t count,
                                         const int64_t *keyValues,
                                         const int64_t *signature,
                                         const std::vector<int> &candidates,
                                         TuningReport &report) {
  VariantSpace space = makeVariantSpace(spec, candidates);
  search::SearchOptions options = module.options.search;
  options.resumeFile.clear();
  FirstCallEvaluator evaluator(*this, space, stream, args, count, keyValues,
                               signature);
  search::SearchResult result = search::run(space.space, evaluator, options);
  try {
    applySearchResult(space, result, evaluator.timed, report);
  } catch (const Error &e) {
    throw Error(e.code(), describe() + ": " + e.what());
  }
}

} // namespace tuna
