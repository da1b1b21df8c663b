//===- Compare.h - Comparing a candidate's output with a reference -*- C++ -*-//
#ifndef TUNA_RUNTIME_LIB_COMPARE_H
#define TUNA_RUNTIME_LIB_COMPARE_H

#include "tuna/runtime/Manifest.h"

#include <cstddef>
#include <optional>
#include <string>

namespace tuna {

/// The tolerances of one comparison.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

/// The tolerance used for `type` when Options::atol or Options::rtol is
/// negative (unset): torch.testing.assert_close's defaults (f16: rtol 1e-3,
/// atol 1e-5; bf16: 1.6e-2, 1e-5; f32: 1.3e-6, 1e-5; f64: 1e-7, 1e-7);
/// integers are compared exactly.
Tolerance toleranceFor(ScalarType type, double atol, double rtol);

/// How a buffer differs from its reference: how many elements are outside
/// the tolerance and the worst of them (the largest error over what was
/// allowed).
struct Mismatch {
  size_t count = 0;
  size_t elements = 0;
  size_t worst = 0; ///< Element index.
  double got = 0, want = 0;
  double error = 0, allowed = 0;

  /// "3 of 4096 elements differ; worst element 17: got 3.5, expected 2
  /// (error 1.5, allowed 0.002, 750x the tolerance)".
  std::string describe() const;
};

/// Compares two host copies of `bytes` bytes of `type` elements. Floats pass
/// when |got - want| <= atol * scale + rtol' * |want|, where scale is the
/// largest finite |want| of the buffer (at least 1), so that the absolute
/// term follows the output's magnitude (an element that a reduction brings
/// near zero carries the rounding of its large terms), and rtol' is at
/// least 4 ulp of the type; both NaN, or equal infinities, pass. Integers
/// must be equal. `atol` or `rtol` < 0: the type's default (toleranceFor).
std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        double atol, double rtol);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_COMPARE_H
