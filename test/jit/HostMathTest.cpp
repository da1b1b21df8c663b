//===- HostMathTest.cpp - Accuracy of the host's approximated math --------===//
//
// The host pipeline replaces f32 math functions by polynomials
// (tuna-approximate-math, docs/host-math.md). Each function here runs in a
// host kernel compiled by tuna_jit, vector<8xf32> in the main loop and
// scalar in the tail, on inputs that sweep every binade of both signs
// (every 4096th f32 bit pattern, denormals included) plus special values,
// and is compared with the C library in double:
//
// - where the exact result is a normal f32, the error in units in the last
//   place of that result (ulp) is at most the function's bound;
// - where it is below the smallest normal f32 (denormal or zero), the
//   absolute error is at most FLT_MIN: the approximations may flush it;
// - NaN where the library gives NaN, and the same infinity.
//
// log and log2 are checked on normal inputs and zero only: for denormal
// inputs upstream's approximation is wrong (docs/host-math.md).
//
// It runs for the generic CPU (SSE2, no FMA: the polynomials' fused
// multiply-adds become a multiply and an add) and for this machine's CPU.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// One of the functions the host approximates by default.
struct Function {
  const char *name;            ///< The math op's mnemonic.
  double (*reference)(double); ///< libm's, in double.
  double maxUlp; ///< Bound on normal results (docs/host-math.md).
  /// log and log2 are wrong for denormal inputs: bounded from FLT_MIN on.
  bool normalInputsOnly = false;
};

const std::vector<Function> kFunctions = {
    {"acos", [](double x) { return std::acos(x); }, 2},
    {"asin", [](double x) { return std::asin(x); }, 2},
    {"erf", [](double x) { return std::erf(x); }, 5},
    {"erfc", [](double x) { return std::erfc(x); }, 3},
    {"exp", [](double x) { return std::exp(x); }, 5},
    {"expm1", [](double x) { return std::expm1(x); }, 5},
    {"log", [](double x) { return std::log(x); }, 4, true},
    {"log1p", [](double x) { return std::log1p(x); }, 3},
    {"log2", [](double x) { return std::log2(x); }, 4, true},
    {"tanh", [](double x) { return std::tanh(x); }, 6},
};

/// y[i] = f(x[i]), 8 lanes at a time, then a scalar tail.
std::string kernelSource(const Function &f) {
  std::string vectorOp = "math." + std::string(f.name) + " %v : vector<8xf32>";
  std::string scalarOp = "math." + std::string(f.name) + " %s : f32";
  return R"(
func.func @)" + std::string(f.name) +
         R"((%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"lanes", [8]>],
    defaults = {lanes = 8},
    key = [#tuna.key<arg = 2, bucket = pow2>]
  >} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %rem = arith.remui %n, %c8 : index
  %main = arith.subi %n, %rem : index
  scf.for %i = %c0 to %main step %c8 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<8xf32>
    %r = )" + vectorOp +
         R"(
    vector.store %r, %y[%i] : memref<?xf32>, vector<8xf32>
  }
  scf.for %i = %main to %n step %c1 {
    %s = memref.load %x[%i] : memref<?xf32>
    %r = )" + scalarOp +
         R"(
    memref.store %r, %y[%i] : memref<?xf32>
  }
  return
}
)";
}

std::string moduleSource() {
  std::string source = "module {\n";
  for (const Function &f : kFunctions)
    source += kernelSource(f);
  return source + "}\n";
}

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// Every 4096th bit pattern of each sign (all binades, denormals
/// included), then special values; an odd count, so that the scalar tail
/// runs too.
std::vector<float> sweep() {
  std::vector<float> values;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 4096) {
    values.push_back(fromBits(bits));
    values.push_back(-fromBits(bits));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float special : {0.0f, -0.0f, inf, -inf, std::nanf(""), FLT_MAX,
                        -FLT_MAX, FLT_MIN, -FLT_MIN, 1.0f, -1.0f, 0.5f,
                        88.72f, -87.33f, -103.9f, 9.0f, -9.0f, 10.0f})
    values.push_back(special);
  if (values.size() % 8 == 0)
    values.push_back(0.25f);
  return values;
}

/// The worst error of a function over the sweep.
struct Errors {
  double maxUlp = 0; ///< Over normal results.
  float worstInput = 0;
  double maxTinyAbs = 0; ///< Over results below FLT_MIN.
  std::string mismatch;  ///< The first NaN or infinity that differs.
};

/// The error of `got` in units in the last place of the f32 nearest `want`.
double ulpError(float got, double want) {
  int exponent = std::max(std::ilogb(static_cast<float>(want)), FLT_MIN_EXP - 1);
  double ulp = std::ldexp(1.0, exponent - (FLT_MANT_DIG - 1));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

void record(Errors &errors, float x, float got, double want) {
  auto describe = [&] {
    std::ostringstream os;
    os.precision(9);
    os << "f(" << x << ") = " << got << ", the C library gives " << want;
    return os.str();
  };
  if (std::isnan(want) || std::isinf(static_cast<float>(want))) {
    bool same = std::isnan(want) ? std::isnan(got)
                                 : got == static_cast<float>(want);
    if (!same && errors.mismatch.empty())
      errors.mismatch = describe();
    return;
  }
  if (!std::isfinite(got)) {
    if (errors.mismatch.empty())
      errors.mismatch = describe();
    return;
  }
  if (std::fabs(want) < FLT_MIN) {
    errors.maxTinyAbs = std::max(errors.maxTinyAbs,
                                 std::fabs(static_cast<double>(got) - want));
    return;
  }
  double ulp = ulpError(got, want);
  if (ulp > errors.maxUlp) {
    errors.maxUlp = ulp;
    errors.worstInput = x;
  }
}

class HostMath : public ::testing::TestWithParam<std::string> {};

TEST_P(HostMath, WithinTheDocumentedErrorOfTheCLibrary) {
  tuna::jit::CompilerOptions compilerOptions;
  compilerOptions.targets = {"host"};
  compilerOptions.hostCpu = GetParam();
  tuna::jit::Compiler jit(compilerOptions);
  tuna::Options options;
  options.cacheDir.clear();
  tuna::Module module =
      jit.load(moduleSource(), tuna::Device::host(), options, "math.mlir");

  std::vector<float> x = sweep();
  auto n = static_cast<int64_t>(x.size());
  std::vector<float> y(x.size());

  for (const Function &f : kFunctions) {
    y.assign(x.size(), std::nanf(""));
    module.kernel(f.name).launch(nullptr, tuna::memref(x.data(), {n}),
                                 tuna::memref(y.data(), {n}), n);
    Errors errors;
    size_t checked = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (f.normalInputsOnly && std::fpclassify(x[i]) == FP_SUBNORMAL)
        continue;
      record(errors, x[i], y[i], f.reference(x[i]));
      ++checked;
    }
    std::cout << "[ host-math ] " << GetParam() << " " << f.name << ": max "
              << errors.maxUlp << " ulp at " << errors.worstInput
              << "; below FLT_MIN: max abs error " << errors.maxTinyAbs
              << " (" << checked << " inputs)\n";
    EXPECT_LE(errors.maxUlp, f.maxUlp)
        << f.name << " at " << errors.worstInput << " (cpu " << GetParam()
        << ")";
    EXPECT_LE(errors.maxTinyAbs, FLT_MIN) << f.name;
    EXPECT_EQ(errors.mismatch, "") << f.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Cpus, HostMath, ::testing::Values("generic", "native"),
                         [](const auto &info) { return info.param; });

} // namespace
