//===- TunerSearch.cpp - A first call that searches its candidates --------===//
//
// Options::useSearch: instead of timing every candidate of a new signature,
// the first call runs a search strategy (docs/search.md) whose every visit
// is timed by the usual protocol (TunedKernel::Impl::measureLocked).
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"

#include "tuna/runtime/SearchVariants.h"

namespace tuna {

void TunedKernel::Impl::searchCandidates(StreamHandle stream,
                                         const ArgValue *args, size_t count,
                                         const int64_t *keyValues,
                                         const int64_t *signature,
                                         const std::vector<int> &candidates,
                                         TuningReport &report) {
  VariantSpace space = makeVariantSpace(spec, candidates);
  search::SearchOptions options = module.options.search;
  options.resumeFile.clear();
  VariantEvaluator evaluator(
      space, [&](const std::vector<int> &variants, int samples) {
        return measureLocked(stream, args, count, keyValues, signature,
                             variants, samples);
      });
  search::SearchResult result = search::run(space.space, evaluator, options);
  try {
    applySearchResult(space, result, evaluator.timed, report);
  } catch (const Error &e) {
    throw Error(e.code(), describe() + ": " + e.what());
  }
}

} // namespace tuna
