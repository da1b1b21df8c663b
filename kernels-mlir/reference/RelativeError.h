//===- RelativeError.h - How far a kernel's output is from its reference --===//
//
// The one measure of error the benchmarks and the demo report against the
// double-precision references (RowKernels.h and the ones they compute
// themselves). Header-only C++17, no dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TUNA_KERNELS_REFERENCE_RELATIVEERROR_H
#define TUNA_KERNELS_REFERENCE_RELATIVEERROR_H

#include <cmath>
#include <limits>
#include <vector>

namespace tuna::reference {

/// Relative L2 error of `got` against `want` (the absolute one when `want`
/// is all zeros); infinite if any element is not finite (an unwritten
/// NaN-poisoned element, say).
inline double relativeError(const std::vector<float> &got,
                            const std::vector<double> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i]))
      return std::numeric_limits<double>::infinity();
    double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

} // namespace tuna::reference

#endif // TUNA_KERNELS_REFERENCE_RELATIVEERROR_H
