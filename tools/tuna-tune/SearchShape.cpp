//===- SearchShape.cpp - Tuning one shape with a search strategy ----------===//

#include "SearchShape.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/SearchVariants.h"
#include "tuna/runtime/Signature.h"

#include <chrono>
#include <cstdio>

namespace tuna::tune {

namespace {

std::string format(const char *pattern, double a, double b = 0, double c = 0) {
  char text[128];
  std::snprintf(text, sizeof(text), pattern, a, b, c);
  return text;
}

/// One line per visited configuration and per re-timing.
std::string describe(const search::SearchResult &result,
                     const search::Space &space, const std::string &strategy) {
  std::string log = strategy +
                    " search: " + std::to_string(result.evaluations.size()) +
                    " of " + std::to_string(space.size()) + " candidates (" +
                    std::to_string(result.freshEvaluations) +
                    " measured now), stopped: " + result.stopReason + "\n";
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
  auto start = std::chrono::steady_clock::now();
  const Kernel &spec = kernel.spec();
  // Classification only: which variants can run for these key values.
  TuningReport report = kernel.measure(nullptr, args, count, {});
  std::vector<int> runnable;
  std::string why;
  for (const CandidateResult &candidate : report.candidates) {
    if (candidate.status == CandidateStatus::NotTimed)
      runnable.push_back(candidate.variant);
    why += "\n  " + candidate.name + ": " + candidate.reason;
  }
  std::string where = "kernel '" + spec.name + "' for " +
                      formatSignature(signature.data(), signature.size());
  if (runnable.empty())
    throw Error(ErrorCode::Unsupported, where + ": no variant can run:" + why);
  VariantSpace candidates = makeVariantSpace(spec, runnable);

  search::SearchOptions options = settings.options;
  options.resumeKey = {spec.name, spec.sourceHash, device.fingerprint,
                       signature};
  VariantEvaluator evaluator(
      candidates, [&](const std::vector<int> &variants, int samples) {
        return kernel.measure(nullptr, args, count, variants, samples);
      });
  search::SearchResult result =
      search::run(candidates.space, evaluator, options);
  log += describe(result, candidates.space, options.strategy);
  try {
    applySearchResult(candidates, result, evaluator.timed, report);
  } catch (const Error &e) {
    throw Error(e.code(), where + ": " + e.what());
  }
  report.chosenName = spec.variants[report.chosen].name;
  report.source = DecisionSource::Tuned;
  report.wallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return report;
}

} // namespace tuna::tune
