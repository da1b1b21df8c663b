//===- Agreement.cpp - One decision for all ranks of a job ----------------===//

#include "Agreement.h"

#include "TuningJson.h"

#include "tuna/runtime/Signature.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tuna {

namespace {
using Json = nlohmann::json;

/// FNV-1a, 64 bits, over `bytes`, continuing from `hash`.
uint64_t fnv1a(std::string_view bytes, uint64_t hash = 0xcbf29ce484222325ull) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

DecisionSource sourceNamed(const std::string &name) {
  for (DecisionSource source : {DecisionSource::Tuned, DecisionSource::Cache,
                                DecisionSource::Default})
    if (name == decisionSourceName(source))
      return source;
  throw Error(ErrorCode::Internal, "unknown decision source '" + name + "'");
}


/// What this rank timed of a spread tuning: the candidate list it split
/// and the results of its share.
Json spreadResults(const CandidateSpread &spread, const TuningReport &report) {
  Json results = Json::array();
  for (int v : spread.candidates()) {
    const CandidateResult &r = report.candidates[v];
    if (r.status != CandidateStatus::NotTimed)
      results.push_back(candidateToJson(r));
  }
  return {{"candidates", spread.candidates()}, {"results", results}};
}

/// Why no candidate of `report` was measured, one line per candidate.
std::string failedCandidates(const TuningReport &report) {
  std::string text;
  for (const CandidateResult &r : report.candidates)
    if (r.status != CandidateStatus::NotTimed &&
        r.status != CandidateStatus::Measured)
      text += "\n  " + r.name + (r.timedOn.empty() ? "" : " on " + r.timedOn) +
              ": " + candidateStatusName(r.status) +
              (r.reason.empty() ? "" : ": " + r.reason);
  return text;
}

constexpr const char *kContract =
    "ranks must launch tuned kernels with new signatures in the same order, "
    "with the same bundle, on the same device model (docs/runtime-api.md, "
    "\"Several ranks\")";
} // namespace

const std::string &TunedKernel::Impl::bundleHash() {
  if (!bundleHashText.empty())
    return bundleHashText;
  uint64_t hash = fnv1a(spec.name);
  std::vector<int> objects;
  for (const Variant &variant : spec.variants) {
    hash = fnv1a(variant.name + "\n", hash);
    for (const auto &[param, value] : variant.config)
      hash = fnv1a(param + "=" + std::to_string(value) + "\n", hash);
    for (const VariantCode &code : variant.code) {
      hash = fnv1a(code.symbol + "@" + std::to_string(code.object) + "\n",
                   hash);
      objects.push_back(code.object);
    }
  }
  std::sort(objects.begin(), objects.end());
  objects.erase(std::unique(objects.begin(), objects.end()), objects.end());
  // Objects that a provider fills on demand (a lazy JIT) differ in what is
  // filled yet: only their description is compared.
  for (int object : objects)
    if (!module.provider)
      hash = fnv1a(module.bundle.objects[object].data, hash);
  bundleHashText = hex(hash);
  return bundleHashText;
}

int agreedVariant(const std::vector<RankOutcome> &outcomes) {
  const RankOutcome &first = outcomes.front();
  if (first.source != DecisionSource::Tuned)
    return first.chosen;
  int best = -1;
  double bestMs = 0;
  if (first.spread) {
    for (const RankOutcome &outcome : outcomes)
      for (size_t v = 0; v < outcome.medianMs.size(); ++v) {
        double ms = outcome.medianMs[v];
        if (ms >= 0 && (best < 0 || ms < bestMs ||
                        (ms == bestMs && static_cast<int>(v) < best))) {
          best = static_cast<int>(v);
          bestMs = ms;
        }
      }
    return best;
  }
  for (size_t v = 0; v < first.medianMs.size(); ++v) {
    double slowest = 0;
    bool everywhere = true;
    for (const RankOutcome &outcome : outcomes) {
      if (outcome.source != DecisionSource::Tuned)
        continue;
      if (v >= outcome.medianMs.size() || outcome.medianMs[v] < 0) {
        everywhere = false;
        break;
      }
      slowest = std::max(slowest, outcome.medianMs[v]);
    }
    if (everywhere && (best < 0 || slowest < bestMs)) {
      best = static_cast<int>(v);
      bestMs = slowest;
    }
  }
  return best >= 0 ? best : first.chosen;
}

Agreement::Agreement(TunedKernel::Impl &kernel, const int64_t *keyValues,
                     const int64_t *signature,
                     TunedKernel::Impl::Persisted &remembered)
    : exclusive(kernel.module.options.communicator->agreementMutex()),
      kernel(kernel), communicator(*kernel.module.options.communicator),
      timeoutMs(kernel.module.options.agreeTimeoutMs), keyValues(keyValues),
      signature(signature, signature + kernel.signatureSize) {
  const DeviceInfo &info = kernel.backend.info();
  Json what = {{"kernel", kernel.spec.name},
               {"signature", this->signature},
               {"source hash", kernel.spec.sourceHash},
               {"bundle hash", kernel.bundleHash()},
               {"device", info.name + " (" + info.arch + ")"},
               {"spread over ranks",
                kernel.module.options.spreadOverRanks},
               {"cached", remembered.variant},
               {"shortlist", remembered.shortlist},
               {"failed", remembered.failed}};
  std::vector<std::string> all = exchange(what.dump());
  Json first = Json::parse(all.front());
  std::string differences;
  for (size_t r = 1; r < all.size(); ++r) {
    Json other = Json::parse(all[r]);
    for (const char *field : {"kernel", "signature", "source hash",
                              "bundle hash", "device", "spread over ranks"})
      if (other[field] != first[field]) {
        differences += "\n  rank " + std::to_string(r) + " has " + field +
                       " " + other[field].dump() + ", rank 0 " +
                       first[field].dump();
        break;
      }
  }
  if (!differences.empty())
    throw Error(ErrorCode::InvalidArgument,
                where() + ": the ranks are not deciding the same thing: " +
                    kContract + ":" + differences);
  remembered.variant = first["cached"].get<int>();
  remembered.shortlist = first["shortlist"].get<std::vector<int>>();
  remembered.failed =
      first["failed"].get<std::vector<std::pair<std::string, std::string>>>();
}

std::string Agreement::where() const {
  return kernel.describe() + " for " +
         formatSignature(signature.data(), signature.size()) + " on rank " +
         std::to_string(communicator.rank()) + " of " +
         std::to_string(communicator.size());
}

std::vector<std::string> Agreement::exchange(const std::string &mine) const {
  try {
    return allGatherStrings(communicator, mine, timeoutMs);
  } catch (const Error &e) {
    throw Error(e.code(), where() + ": " + e.what() + " (" + kContract + ")");
  }
}

TuningReport Agreement::decide(const std::function<TuningReport()> &decideHere,
                               const CandidateSpread *spread) {
  TuningReport report;
  Json mine;
  try {
    report = decideHere();
    std::vector<double> medians;
    for (const CandidateResult &result : report.candidates)
      medians.push_back(result.competes() ? result.medianMs : -1);
    mine = {{"source", decisionSourceName(report.source)},
            {"chosen", report.chosen},
            {"medians", medians}};
    if (spread && spread->overRanks() && !spread->candidates().empty())
      mine["spread"] = spreadResults(*spread, report);
  } catch (const Error &e) {
    mine = {{"error", e.what()}};
  }
  std::vector<RankOutcome> outcomes;
  std::vector<Json> all;
  std::string failures;
  for (const std::string &text : exchange(mine.dump())) {
    Json &outcome = all.emplace_back(Json::parse(text));
    RankOutcome &rank = outcomes.emplace_back();
    if (outcome.contains("error")) {
      failures += "\n  rank " + std::to_string(outcomes.size() - 1) + ": " +
                  outcome["error"].get<std::string>();
      continue;
    }
    rank.source = sourceNamed(outcome["source"].get<std::string>());
    rank.chosen = outcome["chosen"].get<int>();
    rank.medianMs = outcome["medians"].get<std::vector<double>>();
    rank.spread = outcome.contains("spread");
  }
  if (!failures.empty())
    throw Error(ErrorCode::Unsupported,
                where() + ": some ranks could not decide:" + failures);
  if (outcomes.front().spread)
    mergeSpread(all, report);
  int agreed = agreedVariant(outcomes);
  if (agreed < 0)
    throw Error(ErrorCode::Unsupported,
                where() + ": no candidate could be timed on any rank:" +
                    failedCandidates(report));
  report.ownChoice = report.chosen;
  report.ranks = communicator.size();
  if (agreed != report.chosen)
    admitAgreed(report, agreed);
  if (kernel.module.options.verbose) {
    const CandidateResult &pick = report.candidates[agreed];
    std::fprintf(stderr, "tuna: %s: the ranks agreed on [%d] %s (%s)%s\n",
                 where().c_str(), agreed, pick.name.c_str(),
                 pick.config.c_str(),
                 report.ownChoice == agreed
                     ? ", this rank's own pick"
                     : (", not this rank's own pick [" +
                        std::to_string(report.ownChoice) + "]")
                           .c_str());
  }
  return report;
}

void Agreement::mergeSpread(const std::vector<Json> &outcomes,
                            TuningReport &report) const {
  const Json &first = outcomes.front()["spread"]["candidates"];
  std::string differences;
  for (size_t r = 1; r < outcomes.size(); ++r)
    if (!outcomes[r].contains("spread") ||
        outcomes[r]["spread"]["candidates"] != first)
      differences += "\n  rank " + std::to_string(r) + " has candidates " +
                     (outcomes[r].contains("spread")
                          ? outcomes[r]["spread"]["candidates"].dump()
                          : std::string("none (it timed all)")) +
                     ", rank 0 " + first.dump();
  if (!differences.empty())
    throw Error(ErrorCode::InvalidArgument,
                where() + ": the ranks split different candidates: " +
                    kContract + ":" + differences);
  int me = communicator.rank();
  for (size_t r = 0; r < outcomes.size(); ++r) {
    if (static_cast<int>(r) == me)
      continue;
    for (const Json &result : outcomes[r]["spread"]["results"])
      mergeRankResult(candidateFromJson(result), static_cast<int>(r), report);
  }
}

void Agreement::admitAgreed(TuningReport &report, int variant) const {
  CandidateResult &result = report.candidates[variant];
  std::string why;
  if (result.status != CandidateStatus::Measured &&
      result.status != CandidateStatus::NotTimed &&
      result.status != CandidateStatus::Eliminated)
    why = std::string(candidateStatusName(result.status)) + ": " +
          result.reason;
  VariantState &state = kernel.variants[variant];
  LaunchDims dims;
  DimsProblem problem;
  if (why.empty() && !kernel.ensureLoaded(state))
    why = state.loadError;
  else if (why.empty() && !kernel.computeDims(state, keyValues, dims, problem))
    why = problem.describe();
  if (!why.empty())
    throw Error(ErrorCode::Unsupported,
                where() + ": the ranks agreed on variant '" + result.name +
                    "', which cannot run on this rank: " + why);
  report.chosen = variant;
  report.chosenName = result.name;
}

} // namespace tuna
