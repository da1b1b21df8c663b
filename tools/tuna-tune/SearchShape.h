//===- SearchShape.h - Tuning one shape with a search strategy --*- C++ -*-===//
//
// tuna-tune --strategy: instead of timing every candidate of a signature (the
// runtime's first call), a search strategy (tuna/runtime/Search.h) visits
// some of them within a budget; each visit is timed by TunedKernel::measure,
// the runtime's own protocol. See docs/search.md.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TOOLS_TUNA_TUNE_SEARCHSHAPE_H
#define TUNA_TOOLS_TUNA_TUNE_SEARCHSHAPE_H

#include "tuna/runtime/Kernel.h"
#include "tuna/runtime/Search.h"

#include <string>
#include <vector>

namespace tuna::tune {

/// What tuna-tune's --strategy, --budget-evals, --budget-s, --seed and
/// --resume ask for.
struct SearchSettings {
  search::SearchOptions options; ///< Everything but the resume key.
  bool enabled() const { return !options.strategy.empty(); }
};

/// Searches the candidates of one launch (`args`, whose bucketed signature is
/// `signature`) of `kernel` on `device`. Returns a decision like the
/// runtime's (report.chosen is the pick, every visited candidate has its
/// time, the others are NotTimed) and appends to `log` one line per visited
/// configuration and per re-timing. Throws tuna::Error when nothing can run
/// or every visited candidate failed.
TuningReport searchShape(TunedKernel &kernel, const DeviceInfo &device,
                         const ArgValue *args, size_t count,
                         const std::vector<int64_t> &signature,
                         const SearchSettings &settings, std::string &log);

} // namespace tuna::tune

#endif // TUNA_TOOLS_TUNA_TUNE_SEARCHSHAPE_H
