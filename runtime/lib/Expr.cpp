//===- Expr.cpp - Evaluating launch and constraint expressions ------------===//

#include "tuna/runtime/Expr.h"
#include "tuna/runtime/Error.h"

namespace tuna {

namespace {
bool isBinary(ExprNode::Op op) {
  return op != ExprNode::Op::Const && op != ExprNode::Op::Dim;
}

/// Applies a binary operator; false (saying why) on division by zero or a
/// result outside int64.
bool apply(ExprNode::Op op, int64_t lhs, int64_t rhs, int64_t &result,
           ExprError &error) {
  error = ExprError::Overflow;
  switch (op) {
  case ExprNode::Op::Add:
    return !__builtin_add_overflow(lhs, rhs, &result);
  case ExprNode::Op::Mul:
    return !__builtin_mul_overflow(lhs, rhs, &result);
  case ExprNode::Op::Mod:
  case ExprNode::Op::FloorDiv:
  case ExprNode::Op::CeilDiv:
    if (rhs == 0) {
      error = ExprError::DivisionByZero;
      return false;
    }
    if (rhs == -1) { // INT64_MIN / -1 is the one quotient out of range.
      if (op == ExprNode::Op::Mod) {
        result = 0;
        return true;
      }
      return !__builtin_mul_overflow(lhs, int64_t(-1), &result);
    }
    result = op == ExprNode::Op::Mod        ? floorMod(lhs, rhs)
             : op == ExprNode::Op::FloorDiv ? floorDiv(lhs, rhs)
                                            : ceilDiv(lhs, rhs);
    return true;
  case ExprNode::Op::Const:
  case ExprNode::Op::Dim:
    break;
  }
  return false;
}

/// " + ", " floordiv ": a binary operator between its operands.
std::string opSpelling(ExprNode::Op op) {
  return std::string(" ") + exprOpToken(op) + " ";
}
} // namespace

const char *exprOpToken(ExprNode::Op op) {
  switch (op) {
  case ExprNode::Op::Add:
    return "+";
  case ExprNode::Op::Mul:
    return "*";
  case ExprNode::Op::Mod:
    return "mod";
  case ExprNode::Op::FloorDiv:
    return "floordiv";
  case ExprNode::Op::CeilDiv:
    return "ceildiv";
  case ExprNode::Op::Const:
  case ExprNode::Op::Dim:
    break;
  }
  return "";
}

const char *describeExprError(ExprError error) {
  return error == ExprError::DivisionByZero ? "divides by zero"
                                            : "overflows 64-bit integers";
}

int64_t floorDiv(int64_t lhs, int64_t rhs) {
  int64_t quotient = lhs / rhs;
  if ((lhs % rhs != 0) && ((lhs < 0) != (rhs < 0)))
    --quotient;
  return quotient;
}

int64_t ceilDiv(int64_t lhs, int64_t rhs) {
  int64_t quotient = lhs / rhs;
  if ((lhs % rhs != 0) && ((lhs < 0) == (rhs < 0)))
    ++quotient;
  return quotient;
}

int64_t floorMod(int64_t lhs, int64_t rhs) {
  int64_t remainder = lhs % rhs;
  if (remainder != 0 && ((remainder < 0) != (rhs < 0)))
    remainder += rhs;
  return remainder;
}

std::optional<std::string> checkExpr(const Expr &expr, size_t numDims) {
  int depth = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    const ExprNode &node = expr[i];
    if (node.op == ExprNode::Op::Dim &&
        (node.value < 0 || static_cast<uint64_t>(node.value) >= numDims))
      return "token " + std::to_string(i) + " reads d" +
             std::to_string(node.value) + " but the key has " +
             std::to_string(numDims) + " value(s)";
    if (isBinary(node.op)) {
      if (depth < 2)
        return "token " + std::to_string(i) + " (" + opSpelling(node.op) +
               ") lacks an operand";
      --depth;
    } else if (++depth > kMaxExprDepth) {
      return "deeper than " + std::to_string(kMaxExprDepth) + " operands";
    }
  }
  if (!expr.empty() && depth != 1)
    return "leaves " + std::to_string(depth) + " values instead of one";
  return std::nullopt;
}

std::string formatExpr(const Expr &expr) {
  if (checkExpr(expr, SIZE_MAX))
    return "<malformed expression>";
  std::vector<std::string> stack;
  for (const ExprNode &node : expr) {
    if (node.op == ExprNode::Op::Const) {
      stack.push_back(std::to_string(node.value));
    } else if (node.op == ExprNode::Op::Dim) {
      stack.push_back("d" + std::to_string(node.value));
    } else {
      std::string rhs = std::move(stack.back());
      stack.pop_back();
      std::string &lhs = stack.back();
      lhs = "(" + lhs + opSpelling(node.op) + rhs + ")";
    }
  }
  if (stack.empty())
    return "";
  std::string &result = stack.back();
  if (result.size() > 1 && result.front() == '(' && result.back() == ')')
    return result.substr(1, result.size() - 2);
  return result;
}

CompiledExpr CompiledExpr::compile(const Expr &expr, size_t numDims,
                                   int64_t emptyValue, std::string_view what) {
  if (std::optional<std::string> problem = checkExpr(expr, numDims))
    throw Error(ErrorCode::BadBundle,
                std::string(what) + ": malformed expression: " + *problem);
  if (expr.empty())
    return CompiledExpr(emptyValue);
  CompiledExpr compiled;
  bool hasDim = false;
  for (const ExprNode &node : expr)
    hasDim |= node.op == ExprNode::Op::Dim;
  compiled.nodes = expr;
  if (!hasDim) {
    int64_t value;
    if (compiled.evaluateNodes(nullptr, value, nullptr)) {
      compiled.nodes.clear();
      compiled.constant = value;
    }
  }
  return compiled;
}

bool CompiledExpr::evaluateNodes(const int64_t *dims, int64_t &result,
                                 ExprError *error) const {
  int64_t stack[kMaxExprDepth];
  int top = 0;
  for (const ExprNode &node : nodes) {
    switch (node.op) {
    case ExprNode::Op::Const:
      stack[top++] = node.value;
      break;
    case ExprNode::Op::Dim:
      stack[top++] = dims[node.value];
      break;
    default: {
      --top;
      ExprError why;
      if (!apply(node.op, stack[top - 1], stack[top], stack[top - 1], why)) {
        if (error)
          *error = why;
        return false;
      }
      break;
    }
    }
  }
  result = stack[0];
  return true;
}

} // namespace tuna
