//===- Compare.h - Comparing a candidate's output with a reference -*- C++ -*-//
#ifndef TUNA_RUNTIME_LIB_COMPARE_H
#define TUNA_RUNTIME_LIB_COMPARE_H

#include "tuna/runtime/Manifest.h"

#include <optional>
#include <string>

namespace tuna {

/// Compares two host copies of `bytes` bytes of `type` elements. Floats pass
/// when |got - want| <= atol + rtol' * |want| with rtol' = max(rtol, 4 ulp of
/// the type), or both are NaN; integers must be equal. Returns the first
/// mismatch ("element 17: got 3.5, expected 2") or nullopt.
std::optional<std::string> compareElements(ScalarType type, const char *got,
                                           const char *want, size_t bytes,
                                           double atol, double rtol);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_COMPARE_H
