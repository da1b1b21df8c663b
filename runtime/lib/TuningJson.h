//===- TuningJson.h - Tuning results as JSON --------------------*- C++ -*-===//
//
// One form for a candidate's result and a whole report wherever they cross
// a process boundary: between the ranks of a job (Agreement.h, a search
// spread over the ranks) and between tuna-tune's ranks (reportToJson in
// tuna/runtime/Tuning.h).
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_TUNINGJSON_H
#define TUNA_RUNTIME_LIB_TUNINGJSON_H

#include "tuna/runtime/Tuning.h"

#include <nlohmann/json.hpp>

namespace tuna {

/// Every field of `result`.
nlohmann::json candidateToJson(const CandidateResult &result);
/// Reads what candidateToJson wrote; throws tuna::Error on anything else.
CandidateResult candidateFromJson(const nlohmann::json &value);

/// Every field of `report` (reportToJson's text is its dump).
nlohmann::json reportJson(const TuningReport &report);
/// Reads what reportJson wrote; throws tuna::Error on anything else.
TuningReport reportFromJson(const nlohmann::json &value);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_TUNINGJSON_H
