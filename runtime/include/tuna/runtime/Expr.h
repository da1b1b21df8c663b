//===- Expr.h - Evaluating launch and constraint expressions ---*- C++ -*-===//
//
// Expressions (Manifest.h) are checked and compiled once, when a bundle is
// loaded; evaluating them is allocation-free. Division and modulo follow
// mlir::AffineExpr: floordiv and ceildiv round toward -inf and +inf, and
// `a mod b` has the sign of b (non-negative for the positive divisors affine
// maps use). A result outside int64 fails the evaluation (ExprError::Overflow)
// instead of wrapping: `d0 * 2^62` must not become a zero grid.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_EXPR_H
#define TUNA_RUNTIME_EXPR_H

#include "tuna/runtime/Manifest.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuna {

/// The deepest evaluation stack an expression may need.
constexpr int kMaxExprDepth = 32;

/// Integer division rounding toward -inf; `rhs` must not be 0.
int64_t floorDiv(int64_t lhs, int64_t rhs);
/// Integer division rounding toward +inf; `rhs` must not be 0.
int64_t ceilDiv(int64_t lhs, int64_t rhs);
/// `lhs - floorDiv(lhs, rhs) * rhs`; `rhs` must not be 0.
int64_t floorMod(int64_t lhs, int64_t rhs);

/// Why `expr` is not a well-formed postfix expression over `numDims` key
/// values (a stack underflow, a leftover operand, a dimension out of range,
/// too deep), or nullopt if it is. The empty expression is well-formed.
std::optional<std::string> checkExpr(const Expr &expr, size_t numDims);

/// Renders an expression in infix form, e.g. "(d0 + 127) floordiv 128".
std::string formatExpr(const Expr &expr);

/// The token of a binary operator, in the manifest and in messages: "+",
/// "*", "mod", "floordiv", "ceildiv"; "" for a constant or a key value.
const char *exprOpToken(ExprNode::Op op);

/// Why an evaluation failed.
enum class ExprError { DivisionByZero, Overflow };

/// "divides by zero", "overflows 64-bit integers".
const char *describeExprError(ExprError error);

/// A checked expression ready for evaluation.
class CompiledExpr {
public:
  /// The expression `value`.
  explicit CompiledExpr(int64_t value = 0) : constant(value) {}

  /// Compiles a well-formed expression (see checkExpr); the empty expression
  /// evaluates to `emptyValue`. Throws tuna::Error naming `what` otherwise.
  static CompiledExpr compile(const Expr &expr, size_t numDims,
                              int64_t emptyValue, std::string_view what);

  /// Evaluates over `dims`. Returns false (leaving `result` unspecified and
  /// setting `*error` if given) on division or modulo by zero and on a value
  /// outside int64 anywhere in the expression.
  bool evaluate(const int64_t *dims, int64_t &result,
                ExprError *error = nullptr) const {
    if (nodes.empty()) {
      result = constant;
      return true;
    }
    return evaluateNodes(dims, result, error);
  }

  bool isConstant() const { return nodes.empty(); }

private:
  bool evaluateNodes(const int64_t *dims, int64_t &result,
                     ExprError *error) const;

  int64_t constant;
  std::vector<ExprNode> nodes; ///< Empty when the expression is constant.
};

} // namespace tuna

#endif // TUNA_RUNTIME_EXPR_H
