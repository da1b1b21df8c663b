//===- TuningJson.cpp - Tuning results as JSON ----------------------------===//

#include "TuningJson.h"

#include "tuna/runtime/Error.h"

namespace tuna {

using Json = nlohmann::json;

Json reportJson(const TuningReport &report) {
  Json candidates = Json::array();
  for (const CandidateResult &result : report.candidates)
    candidates.push_back(candidateToJson(result));
  return {{"key_values", report.keyValues},
          {"signature", report.signature},
          {"mode", static_cast<int>(report.mode)},
          {"chosen", report.chosen},
          {"chosen_name", report.chosenName},
          {"cold_timing", report.coldTiming},
          {"checked", report.checked},
          {"checked_against", report.checkedAgainst},
          {"default_rejected", report.defaultRejected},
          {"check_skipped", report.checkSkipped},
          {"checked_on", report.checkedOn},
          {"check_ms", report.checkMs},
          {"candidates", candidates},
          {"wall_ms", report.wallMs},
          {"source", static_cast<int>(report.source)},
          {"ranks", report.ranks},
          {"own_choice", report.ownChoice}};
}

Json candidateToJson(const CandidateResult &result) {
  return {
      {"variant", result.variant}, {"name", result.name},
      {"config", result.config},   {"status", static_cast<int>(result.status)},
      {"reason", result.reason},   {"median_ms", result.medianMs},
      {"min_ms", result.minMs},    {"max_ms", result.maxMs},
      {"samples", result.samples}, {"finalist", result.finalist},
      {"behind_finalists", result.behindFinalists},
      {"timed_on", result.timedOn}};
}

CandidateResult candidateFromJson(const Json &value) {
  try {
    CandidateResult result;
    value.at("variant").get_to(result.variant);
    value.at("name").get_to(result.name);
    value.at("config").get_to(result.config);
    result.status = static_cast<CandidateStatus>(value.at("status").get<int>());
    value.at("reason").get_to(result.reason);
    value.at("median_ms").get_to(result.medianMs);
    value.at("min_ms").get_to(result.minMs);
    value.at("max_ms").get_to(result.maxMs);
    value.at("samples").get_to(result.samples);
    value.at("finalist").get_to(result.finalist);
    value.at("behind_finalists").get_to(result.behindFinalists);
    value.at("timed_on").get_to(result.timedOn);
    return result;
  } catch (const Json::exception &e) {
    throw Error(ErrorCode::Internal,
                std::string("a candidate's result in JSON: ") + e.what());
  }
}

std::string reportToJson(const TuningReport &report) {
  return reportJson(report).dump();
}

TuningReport reportFromJson(const std::string &text) {
  Json value;
  try {
    value = Json::parse(text);
  } catch (const Json::exception &e) {
    throw Error(ErrorCode::InvalidArgument,
                std::string("a tuning report in JSON: ") + e.what());
  }
  return reportFromJson(value);
}

TuningReport reportFromJson(const Json &value) {
  try {
    TuningReport report;
    value.at("key_values").get_to(report.keyValues);
    value.at("signature").get_to(report.signature);
    report.mode = static_cast<TuneMode>(value.at("mode").get<int>());
    value.at("chosen").get_to(report.chosen);
    value.at("chosen_name").get_to(report.chosenName);
    value.at("cold_timing").get_to(report.coldTiming);
    value.at("checked").get_to(report.checked);
    value.at("checked_against").get_to(report.checkedAgainst);
    value.at("default_rejected").get_to(report.defaultRejected);
    value.at("check_skipped").get_to(report.checkSkipped);
    value.at("checked_on").get_to(report.checkedOn);
    value.at("check_ms").get_to(report.checkMs);
    for (const Json &candidate : value.at("candidates"))
      report.candidates.push_back(candidateFromJson(candidate));
    value.at("wall_ms").get_to(report.wallMs);
    report.source = static_cast<DecisionSource>(value.at("source").get<int>());
    value.at("ranks").get_to(report.ranks);
    value.at("own_choice").get_to(report.ownChoice);
    return report;
  } catch (const Json::exception &e) {
    throw Error(ErrorCode::InvalidArgument,
                std::string("a tuning report in JSON: ") + e.what());
  }
}

} // namespace tuna
