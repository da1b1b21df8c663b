//===- Compare.h - Comparing a candidate's output with a reference -*- C++ -*-//
//
// The rule of the correctness check (Options::check) and its host
// implementation. The CUDA check compares on the device with the same rule
// (DeviceCompare.h); both report through Mismatch.
//
//===----------------------------------------------------------------------===//
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

/// The scale of a reference buffer of `bytes` bytes of float `type`: its
/// largest finite |element|, at least 1 (1 for integers).
double outputScale(ScalarType type, const char *want, size_t bytes);

/// What one comparison allows an element: a float passes when `want` is
/// finite and |got - want| <= absolute + relative * |want| (each operation
/// rounded to double), when got == want (equal infinities) or when both are
/// NaN; an integer (`exact`) when it equals its reference.
struct Allowance {
  double absolute = 0;
  double relative = 0;
  bool exact = false;

  /// Floats: absolute = atol * scale, relative = max(rtol, 4 ulp of the
  /// type), with atol and rtol from toleranceFor(type, atol, rtol); so the
  /// absolute term follows the output's magnitude (an element that a
  /// reduction brings near zero carries the rounding of its large terms).
  static Allowance of(ScalarType type, double atol, double rtol,
                      double scale);
};

/// How a buffer differs from its reference: how many elements are outside
/// the tolerance and the worst of them (the largest error over what was
/// allowed; the first of them on a tie).
struct Mismatch {
  size_t count = 0;
  size_t elements = 0;
  size_t worst = 0; ///< Element index.
  double got = 0, want = 0;
  double error = 0, allowed = 0;

  /// Sets the worst element's fields from its values.
  void setWorst(size_t index, double gotValue, double wantValue,
                const Allowance &allowance);

  /// "3 of 4096 elements differ; worst element 17: got 3.5, expected 2
  /// (error 1.5, allowed 0.002, 750x the tolerance)".
  std::string describe() const;
};

/// The value of the element of `type` at `at`, exactly (integers converted
/// to double).
double elementValue(ScalarType type, const char *at);

/// Compares two host copies of `bytes` bytes of `type` elements under
/// `allowance`.
std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        const Allowance &allowance);

/// The same with the allowance of `atol` and `rtol` (< 0: the type's
/// default, toleranceFor) at the scale of `want` (outputScale).
std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        double atol, double rtol);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_COMPARE_H
