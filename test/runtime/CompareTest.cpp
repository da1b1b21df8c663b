//===- CompareTest.cpp - The check's comparison of outputs ----------------===//

#include "Compare.h"
#include "DeviceCompare.h"
#include "OutputCheck.h"
#include "SpecialValues.h"

#include "tuna/runtime/ScalarType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <locale>
#include <random>
#include <string>
#include <vector>

using namespace tuna;

namespace {

template <typename T>
std::optional<Mismatch> compare(ScalarType type, const std::vector<T> &got,
                                const std::vector<T> &want, double atol = -1,
                                double rtol = -1) {
  return compareElements(type, reinterpret_cast<const char *>(got.data()),
                         reinterpret_cast<const char *>(want.data()),
                         got.size() * sizeof(T), atol, rtol);
}

/// Row sums of `rows` x `cols` values, left to right.
std::vector<float> sequentialSums(const std::vector<float> &values,
                                  int64_t cols) {
  std::vector<float> sums(values.size() / cols);
  for (size_t r = 0; r < sums.size(); ++r)
    for (int64_t c = 0; c < cols; ++c)
      sums[r] += values[r * cols + c];
  return sums;
}

/// The same sums, as a GPU block reduces: pairwise.
float pairwise(const float *values, int64_t n) {
  if (n == 1)
    return values[0];
  return pairwise(values, n / 2) + pairwise(values + n / 2, n - n / 2);
}

} // namespace

TEST(CompareTest, DefaultsFollowTheType) {
  Tolerance f32 = toleranceFor(ScalarType::F32, -1, -1);
  EXPECT_EQ(f32.atol, 1e-5);
  EXPECT_EQ(f32.rtol, 1.3e-6);
  EXPECT_EQ(toleranceFor(ScalarType::BF16, -1, -1).rtol, 1.6e-2);
  EXPECT_EQ(toleranceFor(ScalarType::F16, -1, -1).rtol, 1e-3);
  EXPECT_EQ(toleranceFor(ScalarType::F64, -1, -1).atol, 1e-7);
  EXPECT_EQ(toleranceFor(ScalarType::F32, 0.5, -1).atol, 0.5);
  EXPECT_EQ(toleranceFor(ScalarType::F32, -1, 0.25).rtol, 0.25);
  EXPECT_EQ(toleranceFor(ScalarType::I32, -1, -1).atol, 0);
}

// The case: fp32 sums of 4096-long rows in two orders differ by
// more than an absolute 1e-5 where a sum cancels; relative to the output's
// magnitude they agree.
TEST(CompareTest, ReductionsInAnotherOrderPass) {
  constexpr int64_t kRows = 512, kCols = 4096;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::vector<float> values(kRows * kCols);
  for (float &value : values)
    value = real(rng);
  std::vector<float> sequential = sequentialSums(values, kCols);
  std::vector<float> tree(kRows);
  for (int64_t r = 0; r < kRows; ++r)
    tree[r] = pairwise(values.data() + r * kCols, kCols);

  bool absoluteRejects = false;
  for (int64_t r = 0; r < kRows; ++r)
    absoluteRejects |= std::fabs(tree[r] - sequential[r]) >
                       1e-5 + 1.3e-6 * std::fabs(sequential[r]);
  ASSERT_TRUE(absoluteRejects) << "the data no longer shows the problem";
  EXPECT_FALSE(compare(ScalarType::F32, tree, sequential));
}

TEST(CompareTest, SaysWhichElementIsWorstAndByHowMuch) {
  std::vector<float> want(1000, 2.0f), got = want;
  got[17] = 2.5f;
  got[500] = 2.01f;
  std::optional<Mismatch> mismatch = compare(ScalarType::F32, got, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 2u);
  EXPECT_EQ(mismatch->worst, 17u);
  EXPECT_EQ(mismatch->got, 2.5);
  EXPECT_EQ(mismatch->want, 2.0);
  // atol 1e-5 * 2 (the largest |want|) + 1.3e-6 * 2.
  EXPECT_NEAR(mismatch->allowed, 2.26e-5, 1e-9);
  std::string text = mismatch->describe();
  EXPECT_NE(text.find("2 of 1000 elements differ; worst element 17: got 2.5, "
                      "expected 2 (error 0.5, allowed 2.26e-05, 2.21e+04x the "
                      "tolerance)"),
            std::string::npos)
      << text;
}

namespace {
/// Digits in groups of three, with a comma: what an application's
/// std::locale::global(std::locale("en_US.UTF-8")) gives an ostream.
class GroupedThousands : public std::numpunct<char> {
protected:
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};
} // namespace

// The description does not go through the C++ locale of the process it runs
// in: in a Python process that had run torch and Triton, formatting it with
// an ostream crashed the first launch's check (bench/gpu/compare.py with
// TUNA_CHECK=1, a segmentation fault in the number formatting, 2026-11-27).
TEST(CompareTest, TheDescriptionIgnoresTheApplicationsLocale) {
  std::locale previous = std::locale::global(
      std::locale(std::locale::classic(), new GroupedThousands));
  std::vector<float> want(4096, 2.0f), got = want;
  for (size_t i = 0; i < 1234; ++i)
    got[i] = 3.0f;
  std::optional<Mismatch> mismatch = compare(ScalarType::F32, got, want);
  std::string text = mismatch ? mismatch->describe() : "";
  std::locale::global(previous);
  EXPECT_EQ(text.rfind("1234 of 4096 elements differ; worst element 0: got 3,"
                       " expected 2",
                       0),
            0u)
      << text;
}

TEST(CompareTest, ExplicitTolerancesReplaceTheDefaults) {
  std::vector<float> want(4, 1.0f), got = want;
  got[1] = 1.01f;
  EXPECT_TRUE(compare(ScalarType::F32, got, want));
  EXPECT_FALSE(compare(ScalarType::F32, got, want, -1, 0.02));
  EXPECT_FALSE(compare(ScalarType::F32, got, want, 0.02, -1));
}

TEST(CompareTest, NaNsAndIntegers) {
  std::vector<float> nan(3, NAN);
  EXPECT_FALSE(compare(ScalarType::F32, nan, nan));
  std::vector<float> one(3, 1.0f);
  EXPECT_TRUE(compare(ScalarType::F32, nan, one));
  std::vector<int32_t> a = {1, 2, 3}, b = {1, 2, 4};
  EXPECT_FALSE(compare(ScalarType::I32, a, a));
  std::optional<Mismatch> mismatch = compare(ScalarType::I32, a, b);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->worst, 2u);
  EXPECT_EQ(mismatch->describe(),
            "1 of 3 elements differs; worst element 2: got 3, expected 4 "
            "(error 1, allowed 0)");
}

namespace {

/// The rule as first written, one element at a time: the oracle of the
/// fast comparison (and of the device's, test/gpu/CudaCompareTest.cpp).
double oracleValue(ScalarType type, const char *at) {
  uint16_t half;
  std::memcpy(&half, at, sizeof(half));
  switch (type) {
  case ScalarType::F16: {
    int exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
    double value = exponent == 0    ? std::ldexp(mantissa, -24)
                   : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                    : std::ldexp(mantissa | 0x400, exponent - 25);
    return half >> 15 ? -value : value;
  }
  case ScalarType::BF16: {
    uint32_t word = static_cast<uint32_t>(half) << 16;
    float value;
    std::memcpy(&value, &word, sizeof(value));
    return value;
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

std::optional<Mismatch> oracle(ScalarType type, const char *got,
                               const char *want, size_t bytes) {
  size_t size = scalarTypeSize(type);
  size_t count = bytes / size;
  double scale = 1;
  if (isFloatType(type))
    for (size_t i = 0; i < count; ++i) {
      double b = std::fabs(oracleValue(type, want + i * size));
      if (std::isfinite(b))
        scale = std::max(scale, b);
    }
  Allowance allowance = Allowance::of(type, -1, -1, scale);
  Mismatch mismatch;
  mismatch.elements = count;
  double worstRatio = 0;
  for (size_t i = 0; i < count; ++i) {
    double a, b;
    bool fails;
    if (isIntegerType(type)) {
      a = elementValue(type, got + i * size);
      b = elementValue(type, want + i * size);
      fails = std::memcmp(got + i * size, want + i * size, size) != 0;
    } else {
      a = oracleValue(type, got + i * size);
      b = oracleValue(type, want + i * size);
      double allowed = allowance.absolute + allowance.relative * std::fabs(b);
      fails = !(std::isnan(a) && std::isnan(b)) && a != b &&
              !(std::isfinite(b) && std::fabs(a - b) <= allowed);
    }
    if (!fails)
      continue;
    Mismatch element;
    element.setWorst(i, a, b, allowance);
    double ratio =
        element.allowed > 0 ? element.error / element.allowed : INFINITY;
    if (std::isnan(ratio))
      ratio = INFINITY;
    if (!mismatch.count++ || ratio > worstRatio) {
      worstRatio = ratio;
      mismatch.setWorst(i, a, b, allowance);
    }
  }
  if (!mismatch.count)
    return std::nullopt;
  return mismatch;
}

void expectSame(const std::optional<Mismatch> &actual,
                const std::optional<Mismatch> &expected) {
  ASSERT_EQ(actual.has_value(), expected.has_value());
  if (!actual)
    return;
  EXPECT_EQ(actual->count, expected->count);
  EXPECT_EQ(actual->elements, expected->elements);
  EXPECT_EQ(actual->worst, expected->worst);
  EXPECT_EQ(actual->describe(), expected->describe());
}

} // namespace

TEST(CompareTest, EveryHalfAndBFloat16ConvertsExactly) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t half = static_cast<uint16_t>(bits);
    const char *at = reinterpret_cast<const char *>(&half);
    for (ScalarType type : {ScalarType::F16, ScalarType::BF16}) {
      double value = elementValue(type, at);
      double expected = oracleValue(type, at);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(value)) << std::hex << bits;
        EXPECT_EQ(std::signbit(value), std::signbit(expected)) << bits;
      } else {
        EXPECT_EQ(value, expected) << scalarTypeName(type) << std::hex << bits;
        EXPECT_EQ(std::signbit(value), std::signbit(expected)) << bits;
      }
    }
  }
}

TEST(CompareTest, ScaleIsTheLargestFiniteMagnitudeAtLeastOne) {
  std::vector<float> values = {0.5f, -3.0f, INFINITY, NAN, -INFINITY, 2.0f};
  EXPECT_EQ(outputScale(ScalarType::F32,
                        reinterpret_cast<const char *>(values.data()),
                        values.size() * sizeof(float)),
            3.0);
  std::vector<double> small = {0.25, -0.5, NAN};
  EXPECT_EQ(outputScale(ScalarType::F64,
                        reinterpret_cast<const char *>(small.data()),
                        small.size() * sizeof(double)),
            1.0);
  // f16: -1024 (0xe400), +inf (0x7c00), a NaN (0x7e00), a subnormal.
  std::vector<uint16_t> halves = {0xe400, 0x7c00, 0x7e00, 0x0001};
  EXPECT_EQ(outputScale(ScalarType::F16,
                        reinterpret_cast<const char *>(halves.data()),
                        halves.size() * 2),
            1024.0);
  // bf16: -4096 (0xc580), -inf (0xff80).
  std::vector<uint16_t> bfloats = {0xc580, 0xff80};
  EXPECT_EQ(outputScale(ScalarType::BF16,
                        reinterpret_cast<const char *>(bfloats.data()),
                        bfloats.size() * 2),
            4096.0);
  std::vector<int32_t> integers = {1 << 20};
  EXPECT_EQ(outputScale(ScalarType::I32,
                        reinterpret_cast<const char *>(integers.data()), 4),
            1.0);
}

// An expected infinity is met by the same infinity only: the rule's
// allowance grows with |want| and once allowed anything for it.
TEST(CompareTest, InfinitiesAndNaNs) {
  std::vector<float> want = {INFINITY, -INFINITY, NAN, 1.0f, INFINITY, 2.0f};
  std::vector<float> got = want;
  EXPECT_FALSE(compare(ScalarType::F32, got, want));
  got[0] = -INFINITY; // The other infinity: not allowed, infinitely off.
  got[3] = NAN;       // NaN where a number was expected.
  got[5] = 2.5f;      // Finitely off.
  std::optional<Mismatch> mismatch = compare(ScalarType::F32, got, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 3u);
  EXPECT_EQ(mismatch->worst, 0u) << "the first of the infinite ratios";
  got = want;
  got[4] = 1e30f; // A finite number where infinity was expected.
  mismatch = compare(ScalarType::F32, got, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->worst, 4u);
}

// The worst element is the first of those with the largest ratio, also
// across the chunks that the exact-bytes test skips, and elements of a
// chunk that is equal except for one are found.
TEST(CompareTest, WorstIsTheFirstLargestAcrossChunks) {
  std::vector<float> want(10000, 1.0f), got = want;
  got[9000] = 3.0f;
  got[5000] = 3.0f;
  got[7000] = 1.5f;
  std::optional<Mismatch> mismatch = compare(ScalarType::F32, got, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 3u);
  EXPECT_EQ(mismatch->worst, 5000u);
  std::vector<float> only = want;
  only[4095] = 2.0f;
  mismatch = compare(ScalarType::F32, only, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 1u);
  EXPECT_EQ(mismatch->worst, 4095u);
}

TEST(CompareTest, SubnormalHalvesAndTheToleranceEdge) {
  // Two subnormal halves 3 ulp of the subnormal range apart: far below
  // atol * scale, so they pass.
  std::vector<uint16_t> want = {0x0003, 0x3c00}, got = {0x0006, 0x3c00};
  EXPECT_FALSE(compare(ScalarType::F16, got, want));
  // At scale 1 (the largest |want| is 1): allowed = 1e-5 + 4 ulp |want|
  // (4 ulp, 2^-8, is more than the rtol of 1e-3). 1 + 4 2^-10 (0x3c04) is
  // inside; 1 + 5 2^-10 (0x3c05) is outside.
  want = {0x3c00, 0x3c00};
  got = {0x3c04, 0x3c05};
  std::optional<Mismatch> mismatch = compare(ScalarType::F16, got, want);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 1u);
  EXPECT_EQ(mismatch->worst, 1u);
  // An element exactly at the edge passes: |got - want| == allowed.
  std::vector<double> edgeWant = {1.0}, edgeGot = {1.0 + 0.25};
  EXPECT_FALSE(compare(ScalarType::F64, edgeGot, edgeWant, 0.125, 0.125));
  edgeGot = {std::nextafter(1.25, 2.0)};
  EXPECT_TRUE(compare(ScalarType::F64, edgeGot, edgeWant, 0.125, 0.125));
}

TEST(CompareTest, IntegersOfEveryWidth) {
  std::vector<int8_t> bytes = {1, -2, 3}, otherBytes = {1, 2, 3};
  std::optional<Mismatch> mismatch =
      compare(ScalarType::I8, bytes, otherBytes);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->worst, 1u);
  EXPECT_EQ(mismatch->got, -2);
  EXPECT_EQ(mismatch->error, 4);
  EXPECT_TRUE(compare(ScalarType::I1, bytes, otherBytes));
  std::vector<int16_t> shorts = {7, 8}, otherShorts = {7, -8};
  EXPECT_EQ(compare(ScalarType::I16, shorts, otherShorts)->want, -8);
  std::vector<int64_t> longs(5000, int64_t(1) << 40), otherLongs = longs;
  otherLongs[4999] += 1;
  otherLongs[3000] -= 1;
  mismatch = compare(ScalarType::I64, longs, otherLongs);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->count, 2u);
  EXPECT_EQ(mismatch->worst, 3000u);
  EXPECT_TRUE(compare(ScalarType::Index, longs, otherLongs));
  EXPECT_FALSE(compare(ScalarType::Index, longs, longs));
}

// Random outputs of every type with NaNs, infinities, subnormals and
// elements near the tolerance's edge: the same verdict, count, worst
// element and description as the oracle.
TEST(CompareTest, AgreesWithTheElementwiseRuleOnRandomData) {
  std::mt19937 rng(7);
  for (ScalarType type :
       {ScalarType::F16, ScalarType::BF16, ScalarType::F32, ScalarType::F64,
        ScalarType::I8, ScalarType::I32, ScalarType::I64}) {
    size_t size = scalarTypeSize(type);
    for (int round = 0; round < 20; ++round) {
      size_t count = 1 + rng() % 9000;
      std::string want(count * size, '\0'), got;
      for (char &byte : want)
        byte = static_cast<char>(rng());
      got = want;
      // Perturb some elements: flip a low bit (near the edge), a random
      // byte, or write a NaN or infinity pattern.
      size_t changes = rng() % 40;
      for (size_t c = 0; c < changes; ++c) {
        size_t i = rng() % count;
        char *element = &got[i * size];
        switch (rng() % 4) {
        case 0:
          element[0] ^= 1;
          break;
        case 1:
          element[rng() % size] = static_cast<char>(rng());
          break;
        case 2:
          writeSpecial(type, rng(), element);
          break;
        default:
          std::memcpy(element, &want[(rng() % count) * size], size);
          break;
        }
      }
      SCOPED_TRACE(std::string(scalarTypeName(type)) + " round " +
                   std::to_string(round));
      expectSame(compareElements(type, got.data(), want.data(), got.size(),
                                 -1, -1),
                 oracle(type, got.data(), want.data(), got.size()));
    }
  }
}

namespace {

/// One written f32 buffer of `values`, on the host backend.
struct HostScratch {
  explicit HostScratch(std::vector<float> values)
      : backend(makeHostBackend()), data(std::move(values)) {
    ArgSpec output;
    output.kind = ArgSpec::Kind::MemRef;
    output.type = ScalarType::F32;
    output.rank = 1;
    output.written = true;
    spec.args = {output};
    arg.kind = ArgSpec::Kind::MemRef;
    arg.type = arg.memref.type = ScalarType::F32;
    arg.memref.rank = 1;
    arg.memref.allocated = arg.memref.aligned = data.data();
    arg.memref.sizes[0] = static_cast<int64_t>(data.size());
    arg.memref.strides[0] = 1;
    scratch = std::make_unique<ScratchArgs>(*backend, nullptr, spec, &arg, 1);
    scratch->reset();
  }
  float *output() {
    return reinterpret_cast<float *>(scratch->buffers()[0].scratch);
  }

  std::unique_ptr<Backend> backend;
  std::vector<float> data;
  Kernel spec;
  ArgValue arg;
  std::unique_ptr<ScratchArgs> scratch;
};

} // namespace

TEST(CompareTest, TheHostComparesWhereNoDeviceKernelsLoad) {
  std::unique_ptr<Backend> host = makeHostBackend();
  std::string whyNot;
  EXPECT_FALSE(DeviceComparison::load(*host, whyNot));
  EXPECT_NE(whyNot.find("cannot run the comparison kernels"),
            std::string::npos)
      << whyNot;
}

// The outputs the check keeps: a saved output compares equal to the same
// contents and names the argument and the element that differ; an adopted
// host reference keeps its own scale.
TEST(CompareTest, OutputComparerKeepsAndComparesOutputs) {
  HostScratch scratch({1.0f, 2.0f, 3.0f, 4.0f});
  OutputComparer comparer(*scratch.backend, nullptr, *scratch.scratch,
                          nullptr, -1, -1);
  EXPECT_STREQ(comparer.where(), "the host");
  std::unique_ptr<SavedOutput> saved = comparer.save();
  EXPECT_EQ(comparer.differences(*saved), "");
  scratch.output()[2] = 3.5f;
  // Scale 4 (the saved output's largest): allowed 1e-5 * 4 + 1.3e-6 * 3.
  EXPECT_EQ(comparer.differences(*saved),
            "argument 0: 1 of 4 elements differs; worst element 2: got 3.5, "
            "expected 3 (error 0.5, allowed 4.39e-05, 1.14e+04x the "
            "tolerance)");
  std::unique_ptr<SavedOutput> changed = comparer.save();
  EXPECT_EQ(comparer.differences(*changed), "");
  // A reference of 1000 at element 0: the scale 1000 allows 1e-2 there.
  std::vector<float> reference = {1000.0f, 2.0f, 3.5f, 4.0f};
  std::unique_ptr<SavedOutput> adopted = comparer.adopt(
      {std::string(reinterpret_cast<const char *>(reference.data()),
                   reference.size() * sizeof(float))});
  scratch.output()[0] = 1000.005f;
  EXPECT_EQ(comparer.differences(*adopted), "");
  scratch.output()[0] = 1000.5f;
  EXPECT_NE(comparer.differences(*adopted).find("worst element 0"),
            std::string::npos);
}
