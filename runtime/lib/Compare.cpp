//===- Compare.cpp - Comparing a candidate's output with a reference ------===//
//
// One pass over both buffers, in chunks: a chunk whose bytes are equal
// passes as a whole (memcmp); otherwise its elements are converted to
// double without branches and tested without branches, and only a chunk
// with a failing element is walked again to record the failures. This file
// is compiled with -ffp-contract=off: the rule's `absolute + relative *
// |want|` must round twice, as the device comparison does.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "BitCast.h"

#include "tuna/runtime/ScalarType.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>

namespace tuna {

namespace {

/// All ones when `condition` holds, else zero.
uint32_t maskIf(bool condition) { return 0u - static_cast<uint32_t>(condition); }

/// The float formats: their bits, the signed integer that holds a
/// magnitude (non-negative floats order as their bits), the mask that
/// clears the sign, the bits of infinity (finite magnitudes are below
/// them), and the exact value.
struct Half {
  using Bits = uint16_t;
  using Magnitude = int16_t;
  static constexpr Bits kMagnitude = 0x7fff, kInfinity = 0x7c00;
  /// The exponent rebiased (15 -> 127) in place; infinities and NaNs get
  /// the float's all-ones exponent; subnormals are renormalized as
  /// 2^-14 * (1 + m/1024) - 2^-14. Every case is computed and one chosen
  /// by masks, so that loops vectorize.
  static double value(Bits bits) {
    uint32_t shifted = static_cast<uint32_t>(bits & kMagnitude) << 13;
    uint32_t exponent = shifted & 0x0f800000u;
    uint32_t normal = shifted + (112u << 23);
    uint32_t special = shifted | 0x7f800000u;
    uint32_t subnormal = bitCast<uint32_t>(bitCast<float>(normal + (1u << 23)) -
                                           bitCast<float>(113u << 23));
    uint32_t isSpecial = maskIf(exponent == 0x0f800000u);
    uint32_t isSubnormal = maskIf(exponent == 0);
    uint32_t magnitude = (special & isSpecial) | (subnormal & isSubnormal) |
                         (normal & ~(isSpecial | isSubnormal));
    uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
    return bitCast<float>(magnitude | sign);
  }
  static double valueAt(const char *at) {
    return value(loadUnaligned<Bits>(at));
  }
};

struct BFloat16 {
  using Bits = uint16_t;
  using Magnitude = int16_t;
  static constexpr Bits kMagnitude = 0x7fff, kInfinity = 0x7f80;
  static double value(Bits bits) {
    return bitCast<float>(static_cast<uint32_t>(bits) << 16);
  }
  static double valueAt(const char *at) {
    return value(loadUnaligned<Bits>(at));
  }
};

struct Single {
  using Bits = uint32_t;
  using Magnitude = int32_t;
  static constexpr Bits kMagnitude = 0x7fffffffu, kInfinity = 0x7f800000u;
  static double value(Bits bits) { return bitCast<float>(bits); }
  static double valueAt(const char *at) { return loadUnaligned<float>(at); }
};

struct Double {
  using Bits = uint64_t;
  using Magnitude = int64_t;
  static constexpr Bits kMagnitude = 0x7fffffffffffffffull,
                        kInfinity = 0x7ff0000000000000ull;
  static double value(Bits bits) { return bitCast<double>(bits); }
  static double valueAt(const char *at) { return loadUnaligned<double>(at); }
};

/// Elements per exact-bytes test.
constexpr size_t kChunk = 2048;

/// Four units in the last place at 1.0.
double fourUlp(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return 0x1p-8;
  case ScalarType::BF16:
    return 0x1p-5;
  case ScalarType::F32:
    return 0x1p-21;
  default:
    return 0x1p-50;
  }
}

/// The largest finite magnitude.
template <typename Format>
double largestFinite(const char *data, size_t count) {
  using Bits = typename Format::Bits;
  using Magnitude = typename Format::Magnitude;
  Magnitude largest = 0;
  for (size_t i = 0; i < count; ++i) {
    auto magnitude = static_cast<Magnitude>(
        loadUnaligned<Bits>(data + i * sizeof(Bits)) & Format::kMagnitude);
    largest = std::max<Magnitude>(
        largest, magnitude < static_cast<Magnitude>(Format::kInfinity)
                     ? magnitude
                     : 0);
  }
  return Format::value(static_cast<Bits>(largest));
}

/// Bitwise operators, not short-circuits: no branches in the loops. An
/// infinite `want` allows an infinite error: it must be met exactly.
bool passes(double got, double want, double absolute, double relative) {
  double magnitude = std::fabs(want);
  return ((std::fabs(got - want) <= absolute + relative * magnitude) &
          (magnitude < INFINITY)) |
         (got == want) | (std::isnan(got) & std::isnan(want));
}

double ratioOf(double error, double allowed) {
  double ratio = allowed > 0 ? error / allowed : INFINITY;
  return std::isnan(ratio) ? INFINITY : ratio;
}

/// Collects the failing elements of one comparison.
class Failures {
public:
  Failures(size_t elements, const Allowance &allowance)
      : allowance(allowance) {
    mismatch.elements = elements;
  }

  void add(size_t index, double got, double want) {
    Mismatch candidate;
    candidate.setWorst(index, got, want, allowance);
    double ratio = ratioOf(candidate.error, candidate.allowed);
    if (!mismatch.count++ || ratio > worstRatio) {
      worstRatio = ratio;
      mismatch.setWorst(index, got, want, allowance);
    }
  }

  std::optional<Mismatch> result() const {
    if (!mismatch.count)
      return std::nullopt;
    return mismatch;
  }

private:
  const Allowance &allowance;
  Mismatch mismatch;
  double worstRatio = 0;
};

template <typename Format>
void compareFloats(const char *got, const char *want, size_t count,
                   const Allowance &allowance, Failures &failures) {
  using Bits = typename Format::Bits;
  auto valueAt = [](const char *data, size_t i) {
    return Format::valueAt(data + i * sizeof(Bits));
  };
  // Copies, so that the compiler knows no store changes them.
  double absolute = allowance.absolute, relative = allowance.relative;
  for (size_t first = 0; first < count; first += kChunk) {
    size_t n = std::min(kChunk, count - first);
    const char *g = got + first * sizeof(Bits);
    const char *w = want + first * sizeof(Bits);
    if (!std::memcmp(g, w, n * sizeof(Bits)))
      continue;
    size_t failed = 0;
    for (size_t i = 0; i < n; ++i)
      failed += !passes(valueAt(g, i), valueAt(w, i), absolute, relative);
    for (size_t i = 0; failed && i < n; ++i) {
      double a = valueAt(g, i), b = valueAt(w, i);
      if (!passes(a, b, absolute, relative))
        failures.add(first + i, a, b);
    }
  }
}

template <typename Integer>
void compareIntegers(const char *got, const char *want, size_t count,
                     Failures &failures) {
  for (size_t first = 0; first < count; first += kChunk) {
    size_t n = std::min(kChunk, count - first);
    const char *g = got + first * sizeof(Integer);
    const char *w = want + first * sizeof(Integer);
    if (!std::memcmp(g, w, n * sizeof(Integer)))
      continue;
    for (size_t i = 0; i < n; ++i) {
      Integer a = loadUnaligned<Integer>(g + i * sizeof(Integer));
      Integer b = loadUnaligned<Integer>(w + i * sizeof(Integer));
      if (a != b)
        failures.add(first + i, static_cast<double>(a),
                     static_cast<double>(b));
    }
  }
}

} // namespace

Tolerance toleranceFor(ScalarType type, double atol, double rtol) {
  Tolerance tolerance;
  switch (type) {
  case ScalarType::F16:
    tolerance = {1e-5, 1e-3};
    break;
  case ScalarType::BF16:
    tolerance = {1e-5, 1.6e-2};
    break;
  case ScalarType::F32:
    tolerance = {1e-5, 1.3e-6};
    break;
  case ScalarType::F64:
    tolerance = {1e-7, 1e-7};
    break;
  default:
    return {0, 0};
  }
  if (atol >= 0)
    tolerance.atol = atol;
  if (rtol >= 0)
    tolerance.rtol = rtol;
  return tolerance;
}

double outputScale(ScalarType type, const char *want, size_t bytes) {
  size_t count = bytes / scalarTypeSize(type);
  double largest = 0;
  switch (type) {
  case ScalarType::F16:
    largest = largestFinite<Half>(want, count);
    break;
  case ScalarType::BF16:
    largest = largestFinite<BFloat16>(want, count);
    break;
  case ScalarType::F32:
    largest = largestFinite<Single>(want, count);
    break;
  case ScalarType::F64:
    largest = largestFinite<Double>(want, count);
    break;
  default:
    break;
  }
  return std::max(1.0, largest);
}

Allowance Allowance::of(ScalarType type, double atol, double rtol,
                        double scale) {
  Allowance allowance;
  if (isIntegerType(type)) {
    allowance.exact = true;
    return allowance;
  }
  Tolerance tolerance = toleranceFor(type, atol, rtol);
  allowance.absolute = tolerance.atol * scale;
  allowance.relative = std::max(tolerance.rtol, fourUlp(type));
  return allowance;
}

void Mismatch::setWorst(size_t index, double gotValue, double wantValue,
                        const Allowance &allowance) {
  worst = index;
  got = gotValue;
  want = wantValue;
  error = std::fabs(gotValue - wantValue);
  allowed = allowance.exact
                ? 0
                : allowance.absolute + allowance.relative * std::fabs(wantValue);
}

std::string Mismatch::describe() const {
  // snprintf, not an ostream: the numbers do not depend on the C++ locale
  // of the process the runtime is loaded into.
  char text[320];
  int length = std::snprintf(
      text, sizeof(text),
      "%zu of %zu element%s %s; worst element %zu: got %g, expected %g "
      "(error %g, allowed %g",
      count, elements, elements == 1 ? "" : "s",
      count == 1 ? "differs" : "differ", worst, got, want, error, allowed);
  std::string description(text, std::min<size_t>(length, sizeof(text) - 1));
  if (allowed > 0) {
    std::snprintf(text, sizeof(text), ", %.3gx the tolerance", error / allowed);
    description += text;
  }
  return description + ")";
}

double elementValue(ScalarType type, const char *at) {
  switch (type) {
  case ScalarType::F16:
    return Half::value(loadUnaligned<Half::Bits>(at));
  case ScalarType::BF16:
    return BFloat16::value(loadUnaligned<BFloat16::Bits>(at));
  case ScalarType::F32:
    return Single::value(loadUnaligned<Single::Bits>(at));
  case ScalarType::F64:
    return Double::value(loadUnaligned<Double::Bits>(at));
  case ScalarType::I1:
  case ScalarType::I8:
    return loadUnaligned<int8_t>(at);
  case ScalarType::I16:
    return loadUnaligned<int16_t>(at);
  case ScalarType::I32:
    return loadUnaligned<int32_t>(at);
  case ScalarType::I64:
  case ScalarType::Index:
    return static_cast<double>(loadUnaligned<int64_t>(at));
  }
  return 0;
}

std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        const Allowance &allowance) {
  size_t count = bytes / scalarTypeSize(type);
  Failures failures(count, allowance);
  switch (type) {
  case ScalarType::F16:
    compareFloats<Half>(got, want, count, allowance, failures);
    break;
  case ScalarType::BF16:
    compareFloats<BFloat16>(got, want, count, allowance, failures);
    break;
  case ScalarType::F32:
    compareFloats<Single>(got, want, count, allowance, failures);
    break;
  case ScalarType::F64:
    compareFloats<Double>(got, want, count, allowance, failures);
    break;
  case ScalarType::I1:
  case ScalarType::I8:
    compareIntegers<int8_t>(got, want, count, failures);
    break;
  case ScalarType::I16:
    compareIntegers<int16_t>(got, want, count, failures);
    break;
  case ScalarType::I32:
    compareIntegers<int32_t>(got, want, count, failures);
    break;
  case ScalarType::I64:
  case ScalarType::Index:
    compareIntegers<int64_t>(got, want, count, failures);
    break;
  }
  return failures.result();
}

std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        double atol, double rtol) {
  return compareElements(
      type, got, want, bytes,
      Allowance::of(type, atol, rtol, outputScale(type, want, bytes)));
}

} // namespace tuna
