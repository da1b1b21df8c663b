//===- SearchShape.cpp - Tuning one shape with a search strategy ----------===//

#include "SearchShape.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/SearchVariants.h"
#include "tuna/runtime/Signature.h"

#include <cstdio>

namespace tuna::tune {

namespace {

std::string format(const char *pattern, double a, double b = 0, double c = 0) {
  char text[128];
  std::snprintf(text, sizeof(text), pattern, a, b, c);
  return text;
}

/// A summary line (with the whole tuning's wall time: classification, search
/// and re-timing), then one line per visited configuration and re-timing.
std::string describe(const search::SearchResult &result,
                     const search::Space &space, const std::string &strategy,
                     double wallMs) {
  std::string log = strategy +
                    " search: " + std::to_string(result.evaluations.size()) +
                    " of " + std::to_string(space.size()) + " candidates (" +
                    std::to_string(result.freshEvaluations) +
                    " measured now), stopped: " + result.stopReason +
                    format("; the tuning took %.1f ms\n", wallMs);
  for (const search::Evaluation &evaluation : result.evaluations) {
    const search::Measurement &m = evaluation.measurement;
    log += "  " + space.describe(evaluation.config) + ": " +
           (m.ok() ? format("%.4g ms", m.ms) : m.failure) +
           (evaluation.resumed ? " (resumed)\n" : "\n");
  }
  for (const search::Retiming &retiming : result.retimed) {
    const search::Measurement &again = retiming.again;
    log += "  re-timed " + space.describe(retiming.config) + ": " +
           (again.ok() ? format("%.4g ms (first %.4g ms), samples %.4g..",
                                again.ms, retiming.firstMs, again.minMs) +
                             format("%.4g ms", again.maxMs)
                       : again.failure) +
           "\n";
  }
  return log;
}

} // namespace

TuningReport searchShape(TunedKernel &kernel, const DeviceInfo &device,
                         const ArgValue *args, size_t count,
                         const std::vector<int64_t> &signature,
                         const SearchSettings &settings, std::string &log) {
  const Kernel &spec = kernel.spec();
  search::SearchOptions options = settings.options;
  options.resumeKey = {spec.name, spec.sourceHash, device.fingerprint,
                       signature};
  SearchOutcome outcome = kernel.search(nullptr, args, count, options);
  log += describe(outcome.result, outcome.space.space, options.strategy,
                  outcome.report.wallMs);
  return std::move(outcome.report);
}

} // namespace tuna::tune
