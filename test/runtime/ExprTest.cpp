//===- ExprTest.cpp - Expressions, bucketing and signatures ---------------===//

#include "TestBundles.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Expr.h"
#include "tuna/runtime/Signature.h"

#include <gtest/gtest.h>

using namespace tuna;
using namespace tuna::test;
using Op = ExprNode::Op;

namespace {
int64_t eval(const Expr &expr, std::vector<int64_t> dims) {
  CompiledExpr compiled = CompiledExpr::compile(expr, dims.size(), 1, "test");
  int64_t result = 0;
  EXPECT_TRUE(compiled.evaluate(dims.data(), result));
  return result;
}
} // namespace

TEST(ExprTest, DivisionRoundsLikeMlir) {
  EXPECT_EQ(floorDiv(7, 2), 3);
  EXPECT_EQ(floorDiv(-7, 2), -4);
  EXPECT_EQ(floorDiv(-8, 2), -4);
  EXPECT_EQ(floorDiv(7, -2), -4);
  EXPECT_EQ(ceilDiv(7, 2), 4);
  EXPECT_EQ(ceilDiv(-7, 2), -3);
  EXPECT_EQ(ceilDiv(-8, 2), -4);
  EXPECT_EQ(floorMod(7, 4), 3);
  EXPECT_EQ(floorMod(-7, 4), 1);
  EXPECT_EQ(floorMod(-8, 4), 0);
}

TEST(ExprTest, EvaluatesPostfix) {
  // (d0 + 127) floordiv 128
  Expr blocks = {dim(0), constant(127), op(Op::Add), constant(128),
                 op(Op::FloorDiv)};
  EXPECT_EQ(eval(blocks, {1000}), 8);
  EXPECT_EQ(eval(blocks, {1024}), 8);
  EXPECT_EQ(eval(blocks, {-1}), 0);
  EXPECT_EQ(eval(blocks, {-200}), -1);
  // d0 ceildiv d1, d0 mod 4, d0 * -1 + d1
  EXPECT_EQ(eval({dim(0), dim(1), op(Op::CeilDiv)}, {-7, 2}), -3);
  EXPECT_EQ(eval({dim(0), constant(4), op(Op::Mod)}, {-3}), 1);
  EXPECT_EQ(
      eval({dim(0), constant(-1), op(Op::Mul), dim(1), op(Op::Add)}, {3, 10}),
      7);
}

TEST(ExprTest, EmptyAndConstantExpressions) {
  CompiledExpr empty = CompiledExpr::compile({}, 0, 1, "test");
  int64_t value = 0;
  EXPECT_TRUE(empty.isConstant());
  EXPECT_TRUE(empty.evaluate(nullptr, value));
  EXPECT_EQ(value, 1);
  CompiledExpr folded = CompiledExpr::compile(
      {constant(6), constant(7), op(Op::Mul)}, 0, 1, "test");
  EXPECT_TRUE(folded.isConstant());
  EXPECT_TRUE(folded.evaluate(nullptr, value));
  EXPECT_EQ(value, 42);
}

TEST(ExprTest, DivisionByZeroFailsEvaluation) {
  CompiledExpr expr = CompiledExpr::compile(
      {constant(1), dim(0), op(Op::FloorDiv)}, 1, 1, "test");
  int64_t zero = 0, result;
  EXPECT_FALSE(expr.evaluate(&zero, result));
  int64_t minusOne = -1;
  EXPECT_TRUE(expr.evaluate(&minusOne, result));
  EXPECT_EQ(result, -1);
}

TEST(ExprTest, OverflowFailsEvaluation) {
  ExprError error = ExprError::DivisionByZero;
  int64_t result;
  // d0 * 2^62 wrapped to 0 for d0 = 4: an empty grid instead of an error.
  CompiledExpr scaled = CompiledExpr::compile(
      {dim(0), constant(int64_t(1) << 62), op(Op::Mul)}, 1, 1, "test");
  int64_t four = 4, one = 1;
  EXPECT_FALSE(scaled.evaluate(&four, result, &error));
  EXPECT_EQ(error, ExprError::Overflow);
  EXPECT_TRUE(scaled.evaluate(&one, result));
  EXPECT_EQ(result, int64_t(1) << 62);

  CompiledExpr sum = CompiledExpr::compile(
      {dim(0), constant(INT64_MAX), op(Op::Add)}, 1, 1, "test");
  EXPECT_FALSE(sum.evaluate(&one, result, &error));
  EXPECT_EQ(error, ExprError::Overflow);
  int64_t minusOne = -1;
  EXPECT_TRUE(sum.evaluate(&minusOne, result));
  EXPECT_EQ(result, INT64_MAX - 1);

  // INT64_MIN floordiv -1 is 2^63; INT64_MIN mod -1 is 0.
  CompiledExpr quotient = CompiledExpr::compile(
      {dim(0), constant(-1), op(Op::FloorDiv)}, 1, 1, "test");
  int64_t lowest = INT64_MIN;
  EXPECT_FALSE(quotient.evaluate(&lowest, result, &error));
  EXPECT_EQ(error, ExprError::Overflow);
  CompiledExpr remainder =
      CompiledExpr::compile({dim(0), constant(-1), op(Op::Mod)}, 1, 1, "test");
  EXPECT_TRUE(remainder.evaluate(&lowest, result));
  EXPECT_EQ(result, 0);

  // A constant expression that overflows is not folded: it fails when used.
  CompiledExpr constantOverflow = CompiledExpr::compile(
      {constant(INT64_MAX), constant(2), op(Op::Mul)}, 0, 1, "test");
  EXPECT_FALSE(constantOverflow.isConstant());
  EXPECT_FALSE(constantOverflow.evaluate(nullptr, result, &error));
  EXPECT_EQ(error, ExprError::Overflow);

  CompiledExpr divide = CompiledExpr::compile(
      {constant(1), dim(0), op(Op::FloorDiv)}, 1, 1, "test");
  int64_t zero = 0;
  EXPECT_FALSE(divide.evaluate(&zero, result, &error));
  EXPECT_EQ(error, ExprError::DivisionByZero);
}

TEST(ExprTest, MalformedExpressionsAreRejected) {
  EXPECT_EQ(checkExpr({op(Op::Add)}, 1).value(),
            "token 0 ( + ) lacks an operand");
  EXPECT_EQ(checkExpr({dim(0), dim(0)}, 1).value(),
            "leaves 2 values instead of one");
  EXPECT_EQ(checkExpr({dim(3)}, 1).value(),
            "token 0 reads d3 but the key has 1 value(s)");
  Expr deep(kMaxExprDepth + 1, constant(1));
  EXPECT_TRUE(checkExpr(deep, 0).has_value());
  EXPECT_THROW(CompiledExpr::compile({op(Op::Mul)}, 0, 0, "test"), Error);
}

TEST(ExprTest, Formats) {
  EXPECT_EQ(formatExpr({dim(0), constant(127), op(Op::Add), constant(128),
                        op(Op::FloorDiv)}),
            "(d0 + 127) floordiv 128");
}

TEST(SignatureTest, Bucketing) {
  KeySpec exact;
  EXPECT_EQ(bucketValue(exact, 1000), 1000);

  KeySpec pow2;
  pow2.bucket = Bucket::Pow2;
  EXPECT_EQ(bucketValue(pow2, -5), 1);
  EXPECT_EQ(bucketValue(pow2, 0), 1);
  EXPECT_EQ(bucketValue(pow2, 1), 1);
  EXPECT_EQ(bucketValue(pow2, 2), 2);
  EXPECT_EQ(bucketValue(pow2, 3), 4);
  EXPECT_EQ(bucketValue(pow2, 1024), 1024);
  EXPECT_EQ(bucketValue(pow2, 1025), 2048);
  EXPECT_EQ(bucketValue(pow2, (int64_t(1) << 62) + 1), kAnyBucket);

  KeySpec bins;
  bins.bucket = Bucket::Bins;
  bins.bins = {16, 64};
  EXPECT_EQ(bucketValue(bins, -3), 16);
  EXPECT_EQ(bucketValue(bins, 16), 16);
  EXPECT_EQ(bucketValue(bins, 17), 64);
  EXPECT_EQ(bucketValue(bins, 65), kAnyBucket);
  EXPECT_EQ(bucketValue(bins, 1 << 30), kAnyBucket);
}

TEST(SignatureTest, Formats) {
  int64_t signature[] = {1024, kAnyBucket};
  EXPECT_EQ(formatSignature(signature, 2), "[d0=1024, d1=any]");
}
