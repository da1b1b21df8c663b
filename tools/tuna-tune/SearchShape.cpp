//===- SearchShape.cpp - Tuning one shape with a search strategy ----------===//

#include "SearchShape.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Manifest.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

namespace tuna::tune {

namespace {

using search::Measurement;
using search::Values;

/// The configuration of variant `v` as values of `names`, in order; false
/// when the variant has other parameters.
bool valuesOf(const Variant &variant, const std::vector<std::string> &names,
              Values &values) {
  if (variant.config.size() != names.size())
    return false;
  values.clear();
  for (const std::string &name : names) {
    auto it =
        std::find_if(variant.config.begin(), variant.config.end(),
                     [&](const auto &param) { return param.first == name; });
    if (it == variant.config.end())
      return false;
    values.push_back(it->second);
  }
  return true;
}

/// The candidates of one signature as a search space: the parameters of the
/// kernel's configurations, and the configurations of the variants that can
/// run for this launch.
struct CandidateSpace {
  std::vector<std::string> names;
  std::vector<int> variants; ///< By configuration id.
  std::optional<search::Space> space;
};

CandidateSpace candidateSpace(const Kernel &kernel,
                              const TuningReport &classified) {
  CandidateSpace result;
  for (const auto &param : kernel.variants.front().config)
    result.names.push_back(param.first);
  std::vector<std::set<int64_t>> seen(result.names.size());
  std::vector<Values> configurations;
  for (const CandidateResult &candidate : classified.candidates) {
    if (candidate.status != CandidateStatus::NotTimed)
      continue;
    const Variant &variant = kernel.variants[candidate.variant];
    Values values;
    if (!valuesOf(variant, result.names, values))
      throw Error(ErrorCode::InvalidArgument,
                  "kernel '" + kernel.name + "': variant '" + variant.name +
                      "' has other parameters than '" +
                      kernel.variants.front().name +
                      "'; a search needs one set of parameters");
    for (size_t p = 0; p < values.size(); ++p)
      seen[p].insert(values[p]);
    configurations.push_back(values);
    result.variants.push_back(candidate.variant);
  }
  if (configurations.empty()) {
    std::string why;
    for (const CandidateResult &candidate : classified.candidates)
      why += "\n  " + candidate.name + ": " + candidate.reason;
    throw Error(ErrorCode::Unsupported,
                "kernel '" + kernel.name + "': no variant can run:" + why);
  }
  std::vector<search::Parameter> parameters;
  for (size_t p = 0; p < result.names.size(); ++p)
    parameters.push_back({result.names[p], {seen[p].begin(), seen[p].end()}});
  result.space = search::Space::list(parameters, configurations);
  return result;
}

/// Times configurations through TunedKernel::measure, on the wall clock.
class KernelEvaluator : public search::Evaluator {
public:
  KernelEvaluator(TunedKernel &kernel, const ArgValue *args, size_t count,
                  const CandidateSpace &candidates)
      : kernel(kernel), args(args), count(count), candidates(candidates) {}

  std::vector<Measurement> measure(const std::vector<Values> &configurations,
                                   int samples) override {
    std::vector<int> variants;
    for (const Values &values : configurations)
      variants.push_back(
          candidates.variants[*candidates.space->findValues(values)]);
    TuningReport report =
        kernel.measure(nullptr, args, count, variants, samples);
    std::vector<Measurement> measured;
    for (int v : variants) {
      const CandidateResult &result = report.candidates[v];
      timed[v] = result;
      measured.push_back(toMeasurement(result));
    }
    return measured;
  }

  double seconds() override {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  /// The latest result of each variant measured.
  std::map<int, CandidateResult> timed;

private:
  static Measurement toMeasurement(const CandidateResult &result) {
    // An eliminated candidate is clearly slower than the best of its batch:
    // its median so far is a fair (if rough) time.
    if (result.status != CandidateStatus::Measured &&
        result.status != CandidateStatus::Eliminated)
      return Measurement::failed(
          std::string(candidateStatusName(result.status)) +
          (result.reason.empty() ? "" : ": " + result.reason));
    Measurement m;
    m.ms = result.medianMs;
    m.minMs = result.minMs;
    m.maxMs = result.maxMs;
    m.samples = result.samples;
    return m;
  }

  TunedKernel &kernel;
  const ArgValue *args;
  size_t count;
  const CandidateSpace &candidates;
};

std::string format(const char *pattern, double a, double b = 0, double c = 0) {
  char text[128];
  std::snprintf(text, sizeof(text), pattern, a, b, c);
  return text;
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
  CandidateSpace candidates = candidateSpace(spec, report);

  search::SearchOptions options = settings.options;
  options.resumeKey = {spec.name, spec.sourceHash, device.fingerprint,
                       signature};
  KernelEvaluator evaluator(kernel, args, count, candidates);
  search::SearchResult result =
      search::run(*candidates.space, evaluator, options);

  const search::Space &space = *candidates.space;
  log += options.strategy +
         " search: " + std::to_string(result.evaluations.size()) + " of " +
         std::to_string(space.size()) + " candidates (" +
         std::to_string(result.freshEvaluations) +
         " measured now), stopped: " + result.stopReason + "\n";
  for (const search::Evaluation &evaluation : result.evaluations) {
    int v = candidates.variants[evaluation.config];
    CandidateResult &candidate = report.candidates[v];
    const Measurement &m = evaluation.measurement;
    log += "  " + space.describe(evaluation.config) + ": ";
    if (m.ok()) {
      log += format("%.4g ms", m.ms);
      candidate.status = CandidateStatus::Measured;
      candidate.medianMs = m.ms;
      candidate.minMs = m.minMs;
      candidate.maxMs = m.maxMs;
      candidate.samples = m.samples;
    } else {
      log += m.failure;
      candidate.status = CandidateStatus::Unrunnable;
      candidate.reason = m.failure;
      if (auto it = evaluator.timed.find(v); it != evaluator.timed.end())
        candidate = it->second;
    }
    log += evaluation.resumed ? " (resumed)\n" : "\n";
  }
  for (const search::Retiming &retiming : result.retimed) {
    log += "  re-timed " + space.describe(retiming.config) + ": ";
    if (!retiming.again.ok()) {
      log += retiming.again.failure + "\n";
      continue;
    }
    log += format("%.4g ms (first %.4g ms), samples %.4g..", retiming.again.ms,
                  retiming.firstMs, retiming.again.minMs) +
           format("%.4g ms\n", retiming.again.maxMs);
    CandidateResult &candidate =
        report.candidates[candidates.variants[retiming.config]];
    candidate.medianMs = retiming.again.ms;
    candidate.minMs = retiming.again.minMs;
    candidate.maxMs = retiming.again.maxMs;
    candidate.samples = retiming.again.samples;
  }
  for (CandidateResult &candidate : report.candidates)
    if (candidate.status == CandidateStatus::NotTimed)
      candidate.reason = "not visited by the search";
  if (!result.best)
    throw Error(ErrorCode::Unsupported,
                "kernel '" + spec.name + "' for " +
                    formatSignature(signature.data(), signature.size()) +
                    ": every candidate the search visited failed");
  report.chosen = candidates.variants[*result.best];
  report.chosenName = spec.variants[report.chosen].name;
  report.source = DecisionSource::Tuned;
  report.wallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return report;
}

} // namespace tuna::tune
