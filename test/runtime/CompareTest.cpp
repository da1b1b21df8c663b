//===- CompareTest.cpp - The check's comparison of outputs ----------------===//

#include "Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
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
