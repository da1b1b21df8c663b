//===- SpecialValues.h - Infinities and NaNs for comparison tests -*- C++ -*-//
//
// Shared by the check's comparison tests on the host (CompareTest) and on
// the GPU (test/gpu/CudaCompareTest).
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TEST_RUNTIME_SPECIALVALUES_H
#define TUNA_TEST_RUNTIME_SPECIALVALUES_H

#include "tuna/runtime/ScalarType.h"

#include <cstdint>
#include <cstring>

namespace tuna {

/// Writes an infinity or a NaN of `type` (`choice`'s bits for integers) at
/// `at`, of a sign and kind chosen by `choice`.
inline void writeSpecial(ScalarType type, uint32_t choice, char *at) {
  bool nan = choice & 1, negative = choice & 2;
  uint64_t bits = choice;
  switch (type) {
  case ScalarType::F16:
    bits = (nan ? 0x7e00 : 0x7c00) | (negative ? 0x8000 : 0);
    break;
  case ScalarType::BF16:
    bits = (nan ? 0x7fc0 : 0x7f80) | (negative ? 0x8000 : 0);
    break;
  case ScalarType::F32:
    bits = (nan ? 0x7fc00000u : 0x7f800000u) | (negative ? 0x80000000u : 0);
    break;
  case ScalarType::F64:
    bits = (nan ? 0x7ff8000000000000ull : 0x7ff0000000000000ull) |
           (negative ? 0x8000000000000000ull : 0);
    break;
  default:
    break;
  }
  std::memcpy(at, &bits, scalarTypeSize(type));
}

} // namespace tuna

#endif // TUNA_TEST_RUNTIME_SPECIALVALUES_H
