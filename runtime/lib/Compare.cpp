//===- Compare.cpp - Comparing a candidate's output with a reference ------===//

#include "Compare.h"

#include "tuna/runtime/ScalarType.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

std::optional<std::string> compareElements(ScalarType type, const char *got,
                                           const char *want, size_t bytes,
                                           double atol, double rtol) {
  size_t size = scalarTypeSize(type);
  double tolerance = std::max(rtol, fourUlp(type));
  auto mismatch = [&](size_t offset, auto got, auto want) {
    std::ostringstream text;
    text << "element " << offset / size << ": got " << got << ", expected "
         << want;
    if (isFloatType(type))
      text << " (atol " << atol << ", rtol " << tolerance << ")";
    return text.str();
  };
  for (size_t offset = 0; offset + size <= bytes; offset += size) {
    if (isIntegerType(type)) {
      int64_t a = loadInteger(size, got + offset);
      int64_t b = loadInteger(size, want + offset);
      if (a != b)
        return mismatch(offset, a, b);
      continue;
    }
    double a = loadFloat(type, got + offset);
    double b = loadFloat(type, want + offset);
    if (!(std::isnan(a) && std::isnan(b)) && a != b &&
        !(std::fabs(a - b) <= atol + tolerance * std::fabs(b)))
      return mismatch(offset, a, b);
  }
  return std::nullopt;
}

} // namespace tuna
