//===- CompilerTest.cpp - Unit tests of the compiler's helpers ------------===//
//
// What lib/Pipelines and lib/Target expose beside the passes: target
// parsing, the source hash of host code built for a CPU, and the compiler
// of affine expressions into the runtime's postfix form (checked against
// MLIR's own folding through the runtime's evaluator).
//
//===----------------------------------------------------------------------===//

#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Target/Compile.h"

#include "tuna/runtime/Expr.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using mlir::tuna::Target;

namespace {

//===----------------------------------------------------------------------===//
// Target::parse
//===----------------------------------------------------------------------===//

Target parseOk(llvm::StringRef spec) {
  llvm::Expected<Target> target = Target::parse(spec);
  if (!target) {
    ADD_FAILURE() << spec.str() << ": " << llvm::toString(target.takeError());
    return Target();
  }
  return *target;
}

std::string parseError(llvm::StringRef spec) {
  llvm::Expected<Target> target = Target::parse(spec);
  if (target) {
    ADD_FAILURE() << spec.str() << " was accepted";
    return "";
  }
  return llvm::toString(target.takeError());
}

/// `spec` parses to `kind`, `chip` and `features` and prints back as itself.
void expectTarget(llvm::StringRef spec, Target::Kind kind,
                  llvm::StringRef chip, llvm::StringRef features) {
  Target target = parseOk(spec);
  EXPECT_EQ(target.kind, kind) << spec.str();
  EXPECT_EQ(target.chip, chip) << spec.str();
  EXPECT_EQ(target.features, features) << spec.str();
  EXPECT_EQ(target.str(), spec) << spec.str();
}

TEST(TargetParse, Nvptx) {
  expectTarget("nvptx:sm_90", Target::Kind::NVPTX, "sm_90", "+ptx80");
  EXPECT_EQ(parseOk("nvptx:sm_90a").chip, "sm_90a");
  EXPECT_EQ(parseOk("nvptx:sm_75").chip, "sm_75");
}

TEST(TargetParse, AmdgcnAndHost) {
  expectTarget("amdgcn:gfx942", Target::Kind::AMDGCN, "gfx942", "");
  expectTarget("host", Target::Kind::Host, "", "");
}

TEST(TargetParse, Rejects) {
  EXPECT_NE(parseError("nvptx:sm_70").find("XY >= 75"), std::string::npos);
  EXPECT_NE(parseError("nvptx:90").find("written sm_XY"), std::string::npos);
  EXPECT_NE(parseError("nvptx:sm_").find("written sm_XY"), std::string::npos);
  EXPECT_NE(parseError("amdgcn:gf942").find("gfxNNN"), std::string::npos);
  EXPECT_NE(parseError("amdgcn:gfx").find("gfxNNN"), std::string::npos);
  // The processor must be one LLVM's AMDGPU backend knows.
  EXPECT_NE(parseError("amdgcn:gfx999").find("'gfx999' is none"),
            std::string::npos);
  expectTarget("amdgcn:gfx1100", Target::Kind::AMDGCN, "gfx1100", "");
  EXPECT_NE(parseError("host:x86").find("takes no chip"), std::string::npos);
  std::string unknown = parseError("cuda:sm_90");
  EXPECT_NE(unknown.find("unknown target 'cuda:sm_90'"), std::string::npos);
  EXPECT_NE(unknown.find("nvptx, amdgcn or host"), std::string::npos);
  EXPECT_NE(parseError("").find("unknown target"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// hostSourceHash
//===----------------------------------------------------------------------===//

TEST(HostSourceHash, GenericKeepsTheSourceHash) {
  EXPECT_EQ(mlir::tuna::hostSourceHash("08d8cce6176e3254", "generic"),
            "08d8cce6176e3254");
}

TEST(HostSourceHash, IsStableAcrossVersions) {
  // The value bundles of test/Target/host-cpu-hash.mlir carry (Tuna 0.1.0):
  // tuning caches are keyed by it, so it must not change by accident.
  EXPECT_EQ(mlir::tuna::hostSourceHash("08d8cce6176e3254", "x86-64-v3"),
            "6ea4d15004ff12c2");
}

TEST(HostSourceHash, SeparatesCpusAndSources) {
  std::string v3 = mlir::tuna::hostSourceHash("08d8cce6176e3254", "x86-64-v3");
  std::string native = mlir::tuna::hostSourceHash("08d8cce6176e3254", "native");
  std::string other = mlir::tuna::hostSourceHash("08d8cce6176e3255", "x86-64-v3");
  EXPECT_NE(v3, native);
  EXPECT_NE(v3, other);
  EXPECT_EQ(v3.size(), 16u);
  EXPECT_EQ(v3.find_first_not_of("0123456789abcdef"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// PhaseTimingManager
//===----------------------------------------------------------------------===//

TEST(PhaseTimingManager, KeepsThePhasesInOrderAndNothingBelowThem) {
  mlir::tuna::PhaseTimingManager manager;
  {
    TimingScope root = manager.getRootScope();
    TimingScope parse = root.nest("parse");
    parse.stop();
    TimingScope expand = root.nest("expand");
    {
      // What a pass manager's timing does below a phase: nest, start, stop.
      TimingScope pass = expand.nest("TunaExpand");
      TimingScope deeper = pass.nest("analysis");
    }
    expand.stop();
    TimingScope again = root.nest("parse");
  }
  ASSERT_EQ(manager.getPhases().size(), 3u);
  EXPECT_EQ(manager.getPhases()[0].name, "parse");
  EXPECT_EQ(manager.getPhases()[1].name, "expand");
  EXPECT_EQ(manager.getPhases()[2].name, "parse");
  for (const mlir::tuna::PhaseTimingManager::Phase &phase :
       manager.getPhases())
    EXPECT_GE(phase.seconds, 0.0) << phase.name;
}

//===----------------------------------------------------------------------===//
// compileAffineExpr
//===----------------------------------------------------------------------===//

class AffineExprTest : public ::testing::Test {
protected:
  /// The single result of the affine map `(d0, d1) -> (text)`.
  AffineExpr parse(const std::string &text) {
    return parseMap("(d0, d1) -> (" + text + ")").getResult(0);
  }

  AffineMap parseMap(const std::string &text) {
    Attribute attr = parseAttribute("affine_map<" + text + ">", &context);
    return cast<AffineMapAttr>(attr).getValue();
  }

  /// What MLIR folds `expr` to with d0 = x, d1 = y.
  int64_t fold(AffineExpr expr, int64_t x, int64_t y) {
    AffineExpr folded = simplifyAffineExpr(
        expr.replaceDims({getAffineConstantExpr(x, &context),
                          getAffineConstantExpr(y, &context)}),
        2, 0);
    return cast<AffineConstantExpr>(folded).getValue();
  }

  MLIRContext context;
};

TEST_F(AffineExprTest, EvaluatesAsMlirFolds) {
  const char *exprs[] = {
      "d0",
      "42",
      "d0 + d1 * 3",
      "(d0 + 127) floordiv 128",
      "d0 ceildiv 64",
      "d0 mod 7",
      "d0 * 4 - d1",
      "(d0 floordiv 2) * 3 + d1 ceildiv 3 + d0 mod 5",
      "-d0 + 16",
  };
  const int64_t values[] = {-130, -7, -1, 0, 1, 5, 63, 64, 129, 4096};
  for (const char *text : exprs) {
    AffineExpr expr = parse(text);
    ::tuna::Expr postfix = mlir::tuna::compileAffineExpr(expr, 2);
    ASSERT_EQ(::tuna::checkExpr(postfix, 2), std::nullopt) << text;
    ::tuna::CompiledExpr compiled =
        ::tuna::CompiledExpr::compile(postfix, 2, 0, text);
    for (int64_t x : values)
      for (int64_t y : {int64_t(1), int64_t(3), int64_t(1000)}) {
        int64_t dims[] = {x, y}, result = 0;
        ASSERT_TRUE(compiled.evaluate(dims, result)) << text;
        EXPECT_EQ(result, fold(expr, x, y))
            << text << " at d0 = " << x << ", d1 = " << y;
      }
  }
}

TEST_F(AffineExprTest, PostfixOrder) {
  ::tuna::Expr postfix =
      mlir::tuna::compileAffineExpr(parse("(d0 + 127) floordiv 128"), 2);
  EXPECT_EQ(::tuna::formatExpr(postfix), "(d0 + 127) floordiv 128");
  using Op = ::tuna::ExprNode::Op;
  ASSERT_EQ(postfix.size(), 5u);
  EXPECT_EQ(postfix[0].op, Op::Dim);
  EXPECT_EQ(postfix[0].value, 0);
  EXPECT_EQ(postfix[1].op, Op::Const);
  EXPECT_EQ(postfix[1].value, 127);
  EXPECT_EQ(postfix[2].op, Op::Add);
  EXPECT_EQ(postfix[3].op, Op::Const);
  EXPECT_EQ(postfix[4].op, Op::FloorDiv);
}

// Key values that a map multiplies are its symbols, after its dimensions.
TEST_F(AffineExprTest, SymbolsAreTheKeyValuesAfterTheDimensions) {
  AffineMap map = parseMap("(d0)[s0, s1] -> ((s0 * s1) ceildiv 256 + d0)");
  ::tuna::Expr postfix = mlir::tuna::compileAffineExpr(map.getResult(0), 1);
  EXPECT_EQ(::tuna::formatExpr(postfix), "d0 + ((d1 * d2) ceildiv 256)");
  ::tuna::CompiledExpr compiled =
      ::tuna::CompiledExpr::compile(postfix, 3, 0, "test");
  int64_t keys[] = {1, 1000, 3}, result = 0;
  ASSERT_TRUE(compiled.evaluate(keys, result));
  EXPECT_EQ(result, 13);
}

//===----------------------------------------------------------------------===//
// serializeBundle
//===----------------------------------------------------------------------===//

// The compiler is built without exceptions: a bundle the runtime rejects is
// an llvm::Error carrying the runtime's message, not an exception.
TEST(SerializeBundle, ReportsAnInvalidBundleAsAnError) {
  ::tuna::Bundle bundle;
  ::tuna::Kernel kernel;
  kernel.name = "k";
  kernel.defaultVariant = 1;
  bundle.kernels.push_back(kernel);
  llvm::Expected<std::string> bytes = mlir::tuna::serializeBundle(bundle);
  ASSERT_FALSE(bytes);
  std::string message = llvm::toString(bytes.takeError());
  EXPECT_NE(message.find("<compiled bundle>"), std::string::npos) << message;
  EXPECT_NE(message.find("kernel 'k'"), std::string::npos) << message;
}

TEST(SerializeBundle, WritesAValidBundle) {
  llvm::Expected<std::string> bytes =
      mlir::tuna::serializeBundle(::tuna::Bundle());
  ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  EXPECT_EQ(bytes->substr(0, 4), "TUNA");
}

} // namespace
