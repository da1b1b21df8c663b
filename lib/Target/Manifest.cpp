//===- Manifest.cpp - tuna.dispatch to tuna::Kernel -----------------------===//
//
// Translates the dispatch tables written by tuna-expand into the runtime's
// manifest model: argument ABI, parameters, key, tensor maps, and per variant
// its configuration, launch geometry, launch-time constraints and the tensor
// maps it takes as hidden parameters.
//
//===----------------------------------------------------------------------===//

#include "TargetImpl.h"

#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IntegerSet.h"

using namespace mlir;
using namespace mlir::tuna;

/// The manifest's name of a scalar type, or nothing for types a bundle cannot
/// describe.
static std::optional<::tuna::ScalarType> toScalarType(Type type) {
  using ST = ::tuna::ScalarType;
  if (type.isIndex())
    return ST::Index;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.isUnsigned() && intType.getWidth() != 1)
      return std::nullopt;
    switch (intType.getWidth()) {
    case 1:
      return ST::I1;
    case 8:
      return ST::I8;
    case 16:
      return ST::I16;
    case 32:
      return ST::I32;
    case 64:
      return ST::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return ST::F16;
  if (type.isBF16())
    return ST::BF16;
  if (type.isF32())
    return ST::F32;
  if (type.isF64())
    return ST::F64;
  return std::nullopt;
}

namespace {
/// Writes an affine expression in postfix order; see compileAffineExpr.
struct PostfixWriter : AffineExprVisitor<PostfixWriter> {
  ::tuna::Expr &out;
  unsigned numDims;
  PostfixWriter(::tuna::Expr &out, unsigned numDims)
      : out(out), numDims(numDims) {}

  void push(::tuna::ExprNode::Op op, int64_t value = 0) {
    out.push_back({op, value});
  }
  void binary(AffineBinaryOpExpr expr, ::tuna::ExprNode::Op op) {
    visit(expr.getLHS());
    visit(expr.getRHS());
    push(op);
  }
  void visitAddExpr(AffineBinaryOpExpr e) {
    binary(e, ::tuna::ExprNode::Op::Add);
  }
  void visitMulExpr(AffineBinaryOpExpr e) {
    binary(e, ::tuna::ExprNode::Op::Mul);
  }
  void visitModExpr(AffineBinaryOpExpr e) {
    binary(e, ::tuna::ExprNode::Op::Mod);
  }
  void visitFloorDivExpr(AffineBinaryOpExpr e) {
    binary(e, ::tuna::ExprNode::Op::FloorDiv);
  }
  void visitCeilDivExpr(AffineBinaryOpExpr e) {
    binary(e, ::tuna::ExprNode::Op::CeilDiv);
  }
  void visitConstantExpr(AffineConstantExpr e) {
    push(::tuna::ExprNode::Op::Const, e.getValue());
  }
  void visitDimExpr(AffineDimExpr e) {
    push(::tuna::ExprNode::Op::Dim, e.getPosition());
  }
  void visitSymbolExpr(AffineSymbolExpr e) {
    push(::tuna::ExprNode::Op::Dim, numDims + e.getPosition());
  }
};
} // namespace

::tuna::Expr mlir::tuna::compileAffineExpr(AffineExpr expr, unsigned numDims) {
  ::tuna::Expr out;
  PostfixWriter(out, numDims).visit(expr);
  return out;
}

/// Grid or block: one to three sizes, padded with empty expressions (= 1).
static LogicalResult toDims(VariantOp variant, StringRef what,
                            std::optional<AffineMap> map,
                            std::array<::tuna::Expr, 3> &dims) {
  if (!map)
    return success();
  if (map->getNumResults() > 3)
    return variant.emitError() << what << " map has " << map->getNumResults()
                               << " results; at most 3 are allowed";
  for (auto [i, result] : llvm::enumerate(map->getResults()))
    dims[i] = compileAffineExpr(result, map->getNumDims());
  return success();
}

/// The hidden parameters of a variant: per tensor map it takes, the box
/// over the key values and the map's swizzle.
static void buildVariantTensorMaps(VariantOp op, ArrayAttr maps,
                                   ::tuna::Variant &variant) {
  std::optional<ArrayRef<int64_t>> used = op.getTensorMaps();
  if (!used)
    return;
  for (auto [index, boxAttr] : llvm::zip_equal(*used, *op.getBoxes())) {
    ::tuna::VariantTensorMap map;
    map.map = static_cast<int>(index);
    AffineMap box = cast<AffineMapAttr>(boxAttr).getValue();
    for (AffineExpr entry : box.getResults())
      map.box.push_back(compileAffineExpr(entry, box.getNumDims()));
    map.swizzleBytes = cast<TensorMapAttr>(maps[index]).getSwizzle();
    variant.tensorMaps.push_back(std::move(map));
  }
}

static FailureOr<::tuna::Variant> buildVariant(VariantOp op,
                                               ArrayRef<std::string> params,
                                               ArrayAttr maps) {
  ::tuna::Variant variant;
  variant.name = op.getKernel().getLeafReference().str();
  DictionaryAttr config = op.getConfig();
  for (const std::string &param : params) {
    auto value = dyn_cast_or_null<IntegerAttr>(config.get(param));
    if (!value)
      return op.emitError()
             << "config has no integer value for parameter '" << param << "'";
    variant.config.emplace_back(param, value.getInt());
  }
  if (failed(toDims(op, "grid", op.getGrid(), variant.grid)) ||
      failed(toDims(op, "block", op.getBlock(), variant.block)))
    return failure();
  if (std::optional<AffineMap> smem = op.getSmem()) {
    if (smem->getNumResults() != 1)
      return op.emitError() << "smem map must have one result";
    variant.sharedMemBytes =
        compileAffineExpr(smem->getResult(0), smem->getNumDims());
  }
  if (ArrayAttr sets = op.getConstraintsAttr()) {
    for (IntegerSetAttr setAttr : sets.getAsRange<IntegerSetAttr>()) {
      IntegerSet set = setAttr.getValue();
      for (unsigned i = 0, e = set.getNumConstraints(); i < e; ++i)
        variant.constraints.push_back(
            {compileAffineExpr(set.getConstraint(i), set.getNumDims()),
             set.isEq(i)});
    }
  }
  buildVariantTensorMaps(op, maps, variant);
  if (std::optional<AffineMap> minBlocks = op.getMinBlocks())
    variant.minBlocks = static_cast<int>(minBlocks->getSingleConstantResult());
  return variant;
}

FailureOr<::tuna::Kernel> compiler::buildKernel(DispatchOp dispatch) {
  ::tuna::Kernel kernel;
  kernel.name = dispatch.getSymName().str();
  kernel.sourceHash = dispatch.getSourceHash().str();

  llvm::SmallDenseSet<int64_t> written(dispatch.getWrittenArgs().begin(),
                                       dispatch.getWrittenArgs().end());
  FunctionType type = dispatch.getFunctionType();
  if (type.getNumResults() != 0)
    return dispatch.emitError() << "kernel '" << kernel.name
                                << "' returns values; kernels return nothing";
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    ::tuna::ArgSpec arg;
    Type scalar = argType;
    if (auto memref = dyn_cast<MemRefType>(argType)) {
      arg.kind = ::tuna::ArgSpec::Kind::MemRef;
      arg.rank = memref.getRank();
      arg.written = written.contains(i);
      scalar = memref.getElementType();
    }
    std::optional<::tuna::ScalarType> st = toScalarType(scalar);
    if (!st)
      return dispatch.emitError()
             << "kernel '" << kernel.name << "' argument #" << i << " has type "
             << argType
             << ", which a bundle cannot describe (expected a memref of, or "
                "a scalar of, i1/i8/i16/i32/i64/index/f16/bf16/f32/f64)";
    arg.type = *st;
    kernel.args.push_back(arg);
  }

  for (StringRef param : dispatch.getParams().getAsValueRange<StringAttr>())
    kernel.params.push_back(param.str());

  for (KeyAttr key : dispatch.getKey().getAsRange<KeyAttr>()) {
    ::tuna::KeySpec spec;
    spec.arg = key.getArg();
    spec.dim = key.getDim() ? static_cast<int>(*key.getDim()) : -1;
    switch (key.getBucket()) {
    case BucketKind::exact:
      spec.bucket = ::tuna::Bucket::Exact;
      break;
    case BucketKind::pow2:
      spec.bucket = ::tuna::Bucket::Pow2;
      break;
    case BucketKind::bins:
      spec.bucket = ::tuna::Bucket::Bins;
      break;
    }
    spec.bins.assign(key.getBins().begin(), key.getBins().end());
    kernel.key.push_back(std::move(spec));
  }

  if (ArrayAttr maps = dispatch.getTensorMapsAttr())
    for (TensorMapAttr map : maps.getAsRange<TensorMapAttr>()) {
      ::tuna::TensorMapSpec spec;
      spec.arg = static_cast<int>(map.getArg());
      spec.l2PromotionBytes = static_cast<int>(map.getL2Promotion());
      spec.oobFillNaN = map.getOobFill() == OobFill::nan;
      if (AffineMapAttr shape = map.getShape())
        for (AffineExpr size : shape.getValue().getResults())
          spec.shape.push_back(
              compileAffineExpr(size, shape.getValue().getNumDims()));
      kernel.tensorMaps.push_back(std::move(spec));
    }

  kernel.defaultVariant = dispatch.getDefaultVariant();
  for (auto op : dispatch.getBody().getOps<VariantOp>()) {
    FailureOr<::tuna::Variant> variant =
        buildVariant(op, kernel.params, dispatch.getTensorMapsAttr());
    if (failed(variant))
      return failure();
    kernel.variants.push_back(std::move(*variant));
  }
  return kernel;
}
