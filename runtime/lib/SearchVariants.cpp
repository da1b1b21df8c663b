//===- SearchVariants.cpp - A kernel's variants as a search space ---------===//

#include "tuna/runtime/SearchVariants.h"

#include "tuna/runtime/Error.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace tuna {

namespace {

/// The configuration of `variant` as values of `names`, in order; false
/// when the variant has other parameters.
bool valuesOf(const Variant &variant, const std::vector<std::string> &names,
              search::Values &values) {
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

void setTimes(CandidateResult &candidate, const search::Measurement &m) {
  candidate.status = CandidateStatus::Measured;
  candidate.medianMs = m.ms;
  candidate.minMs = m.minMs;
  candidate.maxMs = m.maxMs;
  candidate.samples = m.samples;
}

} // namespace

VariantSpace makeVariantSpace(const Kernel &kernel,
                              const std::vector<int> &candidates) {
  if (candidates.empty())
    throw Error(ErrorCode::InvalidArgument,
                "kernel '" + kernel.name + "': no candidate to search");
  const Variant &first = kernel.variants[candidates.front()];
  std::vector<std::string> names;
  for (const auto &param : first.config)
    names.push_back(param.first);
  std::vector<std::set<int64_t>> seen(names.size());
  std::vector<search::Values> configurations;
  for (int v : candidates) {
    const Variant &variant = kernel.variants[v];
    search::Values values;
    if (!valuesOf(variant, names, values))
      throw Error(ErrorCode::InvalidArgument,
                  "kernel '" + kernel.name + "': variant '" + variant.name +
                      "' has other parameters than '" + first.name +
                      "'; a search needs one set of parameters");
    for (size_t p = 0; p < values.size(); ++p)
      seen[p].insert(values[p]);
    configurations.push_back(std::move(values));
  }
  std::vector<search::Parameter> parameters;
  for (size_t p = 0; p < names.size(); ++p)
    parameters.push_back({names[p], {seen[p].begin(), seen[p].end()}});
  return {search::Space::list(parameters, configurations), candidates};
}

search::Measurement toMeasurement(const CandidateResult &result) {
  // An eliminated candidate is clearly slower than the best of its batch:
  // its median so far is a fair (if rough) time.
  if (result.status != CandidateStatus::Measured &&
      result.status != CandidateStatus::Eliminated)
    return search::Measurement::failed(
        std::string(candidateStatusName(result.status)) +
        (result.reason.empty() ? "" : ": " + result.reason));
  search::Measurement m;
  m.ms = result.medianMs;
  m.minMs = result.minMs;
  m.maxMs = result.maxMs;
  m.samples = result.samples;
  return m;
}

void addCheck(const TuningReport &part, TuningReport &whole) {
  if (part.checked) {
    whole.checked = true;
    whole.checkedAgainst = part.checkedAgainst;
    whole.checkedOn = part.checkedOn;
    whole.checkSkipped.clear();
  } else if (!whole.checked && whole.checkSkipped.empty()) {
    whole.checkSkipped = part.checkSkipped;
  }
  whole.defaultRejected |= part.defaultRejected;
  whole.checkMs += part.checkMs;
}

std::vector<search::Measurement>
VariantEvaluator::measure(const std::vector<search::Values> &configurations,
                          int samples) {
  std::vector<int> variants;
  for (const search::Values &values : configurations)
    variants.push_back(space.variantOf(values));
  TuningReport report = time(variants, samples);
  addCheck(report, checks);
  std::vector<search::Measurement> measured;
  for (int v : variants) {
    timed[v] = report.candidates[v];
    measured.push_back(toMeasurement(report.candidates[v]));
  }
  return measured;
}

void VariantEvaluator::reportCheck(TuningReport &report) const {
  report.checked = checks.checked;
  report.checkedAgainst = checks.checkedAgainst;
  report.checkedOn = checks.checkedOn;
  report.checkSkipped = checks.checked ? "" : checks.checkSkipped;
  report.defaultRejected = checks.defaultRejected;
  report.checkMs = checks.checkMs;
}

double VariantEvaluator::seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void applySearchResult(const VariantSpace &space,
                       const search::SearchResult &result,
                       const std::map<int, CandidateResult> &timed,
                       TuningReport &report) {
  for (const search::Evaluation &evaluation : result.evaluations) {
    int v = space.variants[evaluation.config];
    CandidateResult &candidate = report.candidates[v];
    if (auto it = timed.find(v); it != timed.end()) {
      candidate = it->second;
    } else if (evaluation.measurement.ok()) {
      setTimes(candidate, evaluation.measurement);
    } else {
      candidate.status = CandidateStatus::Unrunnable;
      candidate.reason = evaluation.measurement.failure;
    }
  }
  for (const search::Retiming &retiming : result.retimed)
    if (retiming.again.ok())
      setTimes(report.candidates[space.variants[retiming.config]],
               retiming.again);
  for (CandidateResult &candidate : report.candidates)
    if (candidate.status == CandidateStatus::NotTimed)
      candidate.reason = "not visited by the search";
  if (!result.best)
    throw Error(ErrorCode::Unsupported,
                "every candidate the search visited failed");
  report.chosen = space.variants[*result.best];
}

} // namespace tuna
