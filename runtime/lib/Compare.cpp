//===- Compare.cpp - Comparing a candidate's output with a reference ------===//

#include "Compare.h"

#include "tuna/runtime/ScalarType.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace tuna {

namespace {
float halfToFloat(uint16_t bits) {
  int sign = bits >> 15;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -value : value;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

double loadFloat(ScalarType type, const char *at) {
  switch (type) {
  case ScalarType::F16:
  case ScalarType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, at, sizeof(bits));
    return type == ScalarType::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
  }
  case ScalarType::F32: {
    float value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  default: {
    double value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  }
}

/// Four units in the last place at 1.0.
double fourUlp(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return 4 * std::ldexp(1.0, -10);
  case ScalarType::BF16:
    return 4 * std::ldexp(1.0, -7);
  case ScalarType::F32:
    return 4 * std::ldexp(1.0, -23);
  default:
    return 4 * std::ldexp(1.0, -52);
  }
}

int64_t loadInteger(size_t size, const char *at) {
  switch (size) {
  case 1: {
    int8_t value;
    std::memcpy(&value, at, size);
    return value;
  }
  case 2: {
    int16_t value;
    std::memcpy(&value, at, size);
    return value;
  }
  case 4: {
    int32_t value;
    std::memcpy(&value, at, size);
    return value;
  }
  default: {
    int64_t value;
    std::memcpy(&value, at, sizeof(value));
    return value;
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

std::string Mismatch::describe() const {
  std::ostringstream text;
  text << count << " of " << elements << " element"
       << (elements == 1 ? "" : "s") << (count == 1 ? " differs" : " differ")
       << "; worst element " << worst << ": got " << got << ", expected "
       << want << " (error " << error << ", allowed " << allowed;
  if (allowed > 0)
    text << ", " << std::setprecision(3) << error / allowed
         << "x the tolerance";
  text << ")";
  return text.str();
}

std::optional<Mismatch> compareElements(ScalarType type, const char *got,
                                        const char *want, size_t bytes,
                                        double atol, double rtol) {
  size_t size = scalarTypeSize(type);
  Mismatch mismatch;
  mismatch.elements = bytes / size;
  double worstRatio = 0;
  auto record = [&](size_t offset, double a, double b, double allowed) {
    double error = std::fabs(a - b);
    double ratio = allowed > 0 ? error / allowed : INFINITY;
    if (std::isnan(ratio))
      ratio = INFINITY;
    if (!mismatch.count++ || ratio > worstRatio) {
      worstRatio = ratio;
      mismatch.worst = offset / size;
      mismatch.got = a;
      mismatch.want = b;
      mismatch.error = error;
      mismatch.allowed = allowed;
    }
  };
  if (isIntegerType(type)) {
    for (size_t offset = 0; offset + size <= bytes; offset += size) {
      int64_t a = loadInteger(size, got + offset);
      int64_t b = loadInteger(size, want + offset);
      if (a != b)
        record(offset, static_cast<double>(a), static_cast<double>(b), 0);
    }
  } else {
    Tolerance tolerance = toleranceFor(type, atol, rtol);
    double scale = 1;
    for (size_t offset = 0; offset + size <= bytes; offset += size) {
      double b = std::fabs(loadFloat(type, want + offset));
      if (std::isfinite(b))
        scale = std::max(scale, b);
    }
    double absolute = tolerance.atol * scale;
    double relative = std::max(tolerance.rtol, fourUlp(type));
    for (size_t offset = 0; offset + size <= bytes; offset += size) {
      double a = loadFloat(type, got + offset);
      double b = loadFloat(type, want + offset);
      double allowed = absolute + relative * std::fabs(b);
      if (!(std::isnan(a) && std::isnan(b)) && a != b &&
          !(std::fabs(a - b) <= allowed))
        record(offset, a, b, allowed);
    }
  }
  if (!mismatch.count)
    return std::nullopt;
  return mismatch;
}

} // namespace tuna
