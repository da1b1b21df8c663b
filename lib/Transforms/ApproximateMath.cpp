//===- ApproximateMath.cpp - f32 math functions as polynomials ------------===//
//
// See Passes.td (TunaApproximateMath) and docs/host-math.md, which gives the
// accuracy of every function approximated by default.
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNAAPPROXIMATEMATH
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;

/// The functions approximated by default: the upstream approximations
/// within a few ulp of libm (test/jit/HostMathTest.cpp). Not atan and
/// atan2 (up to 40 ulp; atan2(0, x) is NaN), cbrt (NaN at infinity, wrong
/// for denormals), sin and cos (docs/host-math.md).
static constexpr StringLiteral kDefaultFunctions[] = {
    "acos", "asin", "erf",  "erfc", "exp",
    "expm1", "log", "log1p", "log2", "tanh"};

/// Every function upstream can approximate (populate...Patterns' list).
static constexpr StringLiteral kApproximable[] = {
    "acos", "asin", "atan",  "atan2", "cbrt", "cos",  "erf", "erfc",
    "exp",  "expm1", "log",  "log1p", "log2", "sin", "tanh"};

/// a * b + c as a multiply and an add that LLVM may contract: fused on a
/// CPU with FMA.
static Value multiplyAdd(OpBuilder &builder, math::FmaOp fma) {
  auto contract = arith::FastMathFlagsAttr::get(fma.getContext(),
                                                arith::FastMathFlags::contract);
  Value product = arith::MulFOp::create(builder, fma.getLoc(), fma.getA(),
                                        fma.getB(), contract);
  return arith::AddFOp::create(builder, fma.getLoc(), product, fma.getC(),
                               contract);
}

/// The f32 floor of `floor`'s operand through a conversion to i32 and
/// back, exact for every input: t = trunc(x), minus one where t > x, for
/// |x| < 2^23 (larger values, infinities and NaN are their own floor), with
/// x's sign (floor(-0.0) is -0.0).
static Value floorByConversion(OpBuilder &builder, math::FloorOp floor) {
  Location loc = floor.getLoc();
  Value x = floor.getOperand();
  Type type = x.getType();
  auto constant = [&](float value) -> Value {
    TypedAttr attr = builder.getF32FloatAttr(value);
    if (auto shaped = dyn_cast<ShapedType>(type))
      attr = DenseElementsAttr::get(shaped, attr);
    return arith::ConstantOp::create(builder, loc, attr);
  };
  Type intType = builder.getI32Type();
  if (auto shaped = dyn_cast<ShapedType>(type))
    intType = shaped.clone(intType);
  Value truncated = arith::SIToFPOp::create(
      builder, loc, type, arith::FPToSIOp::create(builder, loc, intType, x));
  Value above = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGT,
                                      truncated, x);
  Value down = arith::SelectOp::create(
      builder, loc, above,
      arith::SubFOp::create(builder, loc, truncated, constant(1.0f)),
      truncated);
  Value small = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OLT,
      math::AbsFOp::create(builder, loc, x), constant(8388608.0f));
  Value result = arith::SelectOp::create(builder, loc, small, down, x);
  return math::CopySignOp::create(builder, loc, result, x);
}

namespace {
struct TunaApproximateMathPass
    : public tuna::impl::TunaApproximateMathBase<TunaApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    ArrayRef<StringLiteral> defaults = kDefaultFunctions;
    SmallVector<std::string> names(ops.begin(), ops.end());
    if (names.empty())
      names.assign(defaults.begin(), defaults.end());
    llvm::StringSet<> wanted;
    for (const std::string &name : names) {
      if (!llvm::is_contained(kApproximable, StringRef(name)))
        return emitError(UnknownLoc::get(context))
               << "tuna-approximate-math: no approximation of 'math." << name
               << "' (known: " << llvm::join(ArrayRef<StringLiteral>(kApproximable), ", ") << ")";
      wanted.insert("math." + name);
    }
    auto approximated = [&](StringRef opName) {
      return wanted.contains(opName);
    };
    RewritePatternSet patterns(context);
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    frozenPatterns = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    llvm::DenseSet<Operation *> written;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::FmaOp, math::FloorOp>(op))
        written.insert(op);
    });
    if (failed(applyPatternsGreedily(getOperation(), frozenPatterns)))
      return signalPassFailure();
    // What the polynomials use besides arithmetic must not call libm
    // either: on the generic x86-64 (no FMA, no SSE4.1 rounding) LLVM makes
    // a math.fma a call to fmaf and a math.floor one to floorf, per element.
    getOperation()->walk([&](Operation *op) {
      if (written.contains(op))
        return;
      OpBuilder builder(op);
      if (auto fma = dyn_cast<math::FmaOp>(op)) {
        op->getResult(0).replaceAllUsesWith(multiplyAdd(builder, fma));
        op->erase();
      } else if (auto floor = dyn_cast<math::FloorOp>(op);
                 floor && getElementTypeOrSelf(floor.getType()).isF32()) {
        op->getResult(0).replaceAllUsesWith(floorByConversion(builder, floor));
        op->erase();
      }
    });
  }

private:
  FrozenRewritePatternSet frozenPatterns;
};
} // namespace
