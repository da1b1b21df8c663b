//===- FuzzExpr.cpp - libFuzzer target: key and launch-map expressions ----===//
//
// The input is decoded into key values, a key specification (bucketing and
// bins) and a postfix expression. Every expression is checked and printed;
// a well-formed one is compiled and evaluated over the key values (as every
// launch does for its grid, block, shared memory and constraints), and each
// key value is bucketed into a signature component.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tuna/runtime/Expr.h"
#include "tuna/runtime/Signature.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// Reads the input front to back; past its end, reads zeros.
class Input {
public:
  Input(const uint8_t *data, size_t size) : data(data), size(size) {}

  bool empty() const { return at >= size; }
  uint8_t byte() { return at < size ? data[at++] : 0; }
  int64_t integer() {
    uint64_t value = 0;
    size_t n = std::min<size_t>(8, size - std::min(at, size));
    std::memcpy(&value, data + at, n);
    at += n;
    return static_cast<int64_t>(value);
  }
  /// A small integer or, one time in eight, any 64-bit integer.
  int64_t operand() {
    uint8_t head = byte();
    if ((head & 7) == 0)
      return integer();
    return static_cast<int8_t>(head) >> 3;
  }

private:
  const uint8_t *data;
  size_t size;
  size_t at = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  size_t numDims = in.byte() % (tuna::kMaxKey + 1);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < numDims; ++i)
    dims.push_back(in.operand());

  tuna::KeySpec spec;
  spec.bucket = static_cast<tuna::Bucket>(in.byte() % 3);
  for (size_t n = in.byte() % 8; n > 0; --n)
    spec.bins.push_back(in.operand());
  std::vector<int64_t> signature;
  for (int64_t value : dims)
    signature.push_back(tuna::bucketValue(spec, value));
  (void)tuna::formatSignature(signature.data(), signature.size());

  // Each node: an operator byte, then (for constants and dimensions) its
  // operand. Dimension indices may fall outside the key on purpose.
  tuna::Expr expr;
  while (!in.empty()) {
    tuna::ExprNode node;
    node.op = static_cast<tuna::ExprNode::Op>(in.byte() % 7);
    if (node.op == tuna::ExprNode::Op::Const ||
        node.op == tuna::ExprNode::Op::Dim)
      node.value = in.operand();
    expr.push_back(node);
  }
  (void)tuna::formatExpr(expr);
  try {
    tuna::CompiledExpr compiled =
        tuna::CompiledExpr::compile(expr, numDims, 1, "fuzz");
    int64_t result;
    (void)compiled.evaluate(dims.data(), result);
  } catch (const tuna::Error &) {
    if (!tuna::checkExpr(expr, numDims))
      tuna::fuzz::finding("fuzz-expr", "a well-formed expression is refused");
  }
  return 0;
}
