//===- VariantBuilder.cpp - Instantiate one planned configuration ---------===//
//
// Step 2 of tuna-expand (see Expand.h): turns one PlannedVariant into code.
//
//  1. clone the kernel (a GPU kernel into a gpu.module of its own, with the
//     device functions and globals of its original module);
//  2. replace every `tuna.param` by a constant of its type and make every
//     scalable vector type fixed at the `vscale` parameter's value (an
//     access marked `tuna.aligned` gets the alignment of that size), then
//     verify the variant: a configuration can make an op invalid;
//  3. record a constant block size as the kernel's known block size, and a
//     cluster of several blocks as its known cluster size;
//  4. apply the space's schedule with its knobs selected;
//  5. canonicalize and CSE, so that each variant keeps only its own code;
//  6. turn each tensor map the body still reads (`tuna.tensor_map`) into a
//     hidden argument `!llvm.ptr {tuna.tensor_map}` after the kernel's own,
//     in map order. The clone keeps the space until then: the op's verifier
//     reads it.
//
// A variant that fails is erased before the error is returned.
//
// This is the only step that creates IR and the one whose cost grows with
// the kernel: a lazy expansion calls it only for the configurations visited.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#include <map>

#define DEBUG_TYPE "tuna-expand"

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::expand;

/// Clones the kernel as `name`: a GPU kernel goes into a gpu.module of its
/// own with every non-kernel symbol of its original module (device
/// functions, globals) it may use; transform sequences stay behind. Variants go before the original, in order.
static FunctionOpInterface cloneKernel(FunctionOpInterface kernelFunc,
                                       StringRef name, OpBuilder &builder) {
  Operation *kernel = kernelFunc.getOperation();
  FunctionOpInterface clone;
  if (isa<gpu::GPUFuncOp>(kernel)) {
    auto original = kernel->getParentOfType<gpu::GPUModuleOp>();
    builder.setInsertionPoint(original);
    auto module =
        cast<gpu::GPUModuleOp>(builder.cloneWithoutRegions(*original));
    module.setName(name);
    module->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
    module.getBodyRegion().emplaceBlock();
    builder.setInsertionPointToStart(module.getBody());
    for (Operation &op : original.getBody()->getOperations()) {
      if (&op == kernel) {
        clone = cast<FunctionOpInterface>(builder.clone(op));
        continue;
      }
      auto func = dyn_cast<gpu::GPUFuncOp>(op);
      if ((func && func.isKernel()) || isa<transform::NamedSequenceOp>(op) ||
          op.hasAttr(TunaDialect::getSpaceAttrName()))
        continue;
      builder.clone(op);
    }
  } else {
    builder.setInsertionPoint(kernel);
    clone = cast<FunctionOpInterface>(builder.clone(*kernel));
  }
  clone.setName(name);
  return clone;
}

/// Whether `value` can be the value of a `tuna.param` of `type` (index or a
/// signless integer): a signed value of the width, except that i1, a flag,
/// takes 0 and 1.
static bool fitsParamType(int64_t value, Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.getWidth() >= 64)
    return true;
  unsigned width = intType.getWidth();
  if (width <= 1)
    return value == 0 || (width == 1 && value == 1);
  return llvm::isIntN(width, value);
}

/// Replaces every `tuna.param` of `clone` by a constant.
static LogicalResult substituteParams(const ResolvedSpace &rs,
                                      ArrayRef<int64_t> config,
                                      FunctionOpInterface clone,
                                      OpBuilder &builder) {
  SmallVector<ParamOp> params;
  clone->walk([&](ParamOp op) { params.push_back(op); });
  for (ParamOp op : params) {
    auto it = llvm::find(rs.names, op.getName());
    if (it == rs.names.end())
      return op.emitOpError() << "reads unknown parameter '" << op.getName()
                              << "' of kernel '" << rs.getKernel().getName() << "'";
    int64_t value = config[it - rs.names.begin()];
    Type type = op.getType();
    if (!fitsParamType(value, type))
      return op.emitOpError() << "value " << value << " of parameter '"
                              << op.getName() << "' does not fit in " << type;
    builder.setInsertionPoint(op);
    Value constant = arith::ConstantOp::create(
        builder, op.getLoc(), type, builder.getIntegerAttr(type, value));
    op.replaceAllUsesWith(constant);
    op.erase();
  }
  return success();
}

/// `type` with every scalable dimension `[n]` made the fixed `n * vscale`.
static VectorType fixVectorWidth(VectorType type, int64_t vscale) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [size, scalable] : llvm::zip(shape, type.getScalableDims()))
    if (scalable)
      size *= vscale;
  return VectorType::get(shape, type.getElementType());
}

Type expand::fixVectorWidths(Type type, int64_t vscale) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](VectorType vector) -> std::optional<Type> {
    if (!vector.isScalable())
      return std::nullopt;
    return fixVectorWidth(vector, vscale);
  });
  return replacer.replace(type);
}

/// Makes every scalable vector type of `clone` fixed at the configuration's
/// `vscale`, wherever it appears (values, block arguments, attributes, and
/// inside memref and other types), and every `vector.vscale` a constant.
static void substituteVscale(const ResolvedSpace &rs, ArrayRef<int64_t> config,
                             Operation *clone, OpBuilder &builder) {
  if (!rs.vscaleParam)
    return;
  int64_t vscale = config[*rs.vscaleParam];
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](VectorType type) -> std::optional<Type> {
    if (!type.isScalable())
      return std::nullopt;
    return fixVectorWidth(type, vscale);
  });
  // A splat is the only dense constant a scalable vector can have; its data
  // is one element, whatever the width.
  replacer.addReplacement([&](SplatElementsAttr attr)
                              -> std::optional<std::pair<Attribute, WalkResult>> {
    auto type = dyn_cast<VectorType>(attr.getType());
    if (!type || !type.isScalable())
      return std::nullopt;
    return std::make_pair(
        DenseElementsAttr::get(fixVectorWidth(type, vscale),
                               attr.getSplatValue<Attribute>()),
        WalkResult::skip());
  });
  replacer.recursivelyReplaceElementsIn(clone, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  SmallVector<vector::VectorScaleOp> vscaleOps;
  clone->walk([&](vector::VectorScaleOp op) { vscaleOps.push_back(op); });
  for (vector::VectorScaleOp op : vscaleOps) {
    builder.setInsertionPoint(op);
    op.replaceAllUsesWith(
        arith::ConstantIndexOp::create(builder, op.getLoc(), vscale)
            .getResult());
    op.erase();
  }
}

/// Gives every access marked `tuna.aligned`, its width now fixed, the
/// alignment of its size in bytes: the largest power of two dividing it
/// (16 for a vector<4xf32>, 4 for a vector<3xf32>).
static void alignMarkedAccesses(Operation *clone, OpBuilder &builder) {
  StringRef marker = TunaDialect::getAlignedAttrName();
  clone->walk([&](Operation *op) {
    if (!op->removeAttr(marker))
      return;
    VectorType type = getContiguousAccessType(op);
    int64_t bytes = type.getNumElements() *
                    type.getElementType().getIntOrFloatBitWidth() / 8;
    op->setAttr("alignment", builder.getI64IntegerAttr(bytes & -bytes));
  });
}

/// Verifies a variant once its parameters are substituted: a configuration
/// can make the body invalid (a vector width a op refuses). The op's error
/// gets a note naming the kernel and the configuration.
static LogicalResult verifyVariant(const ResolvedSpace &rs,
                                   ArrayRef<int64_t> config, Operation *clone) {
  ScopedDiagnosticHandler addNote(clone->getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag.attachNote(rs.getKernel().getLoc())
          << "in the variant of kernel '" << rs.getKernel().getName()
          << "' for configuration " << rs.format(config);
    return failure(); // Passed on to the next handler.
  });
  return verify(clone);
}

/// A constant block becomes the GPU kernel's known block size.
static void setKnownBlockSize(FunctionOpInterface clone, AffineMap block,
                              OpBuilder &builder) {
  auto func = dyn_cast<gpu::GPUFuncOp>(clone.getOperation());
  if (!func || !block ||
      !llvm::all_of(block.getResults(), llvm::IsaPred<AffineConstantExpr>))
    return;
  SmallVector<int32_t> sizes(3, 1);
  for (auto [i, e] : llvm::enumerate(block.getResults()))
    sizes[i] = cast<AffineConstantExpr>(e).getValue();
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(sizes));
}

/// A cluster of more than one block becomes the GPU kernel's known cluster
/// size (the PTX's .reqnctapercluster: a plain launch then forms clusters).
static void setKnownClusterSize(FunctionOpInterface clone, AffineMap cluster,
                                OpBuilder &builder) {
  auto func = dyn_cast<gpu::GPUFuncOp>(clone.getOperation());
  if (!func || !cluster)
    return;
  SmallVector<int32_t> sizes(3, 1);
  for (auto [i, e] : llvm::enumerate(cluster.getResults()))
    sizes[i] = cast<AffineConstantExpr>(e).getValue();
  if (sizes[0] * sizes[1] * sizes[2] > 1)
    func.setKnownClusterSizeAttr(builder.getDenseI32ArrayAttr(sizes));
}

/// More than one block an SM becomes the GPU kernel's `nvvm.minctasm` (the
/// PTX's .minnctapersm); other targets' lowerings ignore the attribute.
static void setMinBlocksPerSM(FunctionOpInterface clone, AffineMap minBlocks,
                              OpBuilder &builder) {
  auto func = dyn_cast<gpu::GPUFuncOp>(clone.getOperation());
  if (!func || !minBlocks)
    return;
  int64_t blocks = minBlocks.getSingleConstantResult();
  if (blocks > 1)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  builder.getI32IntegerAttr(blocks));
}

/// Applies the schedule to `clone` with every knob selected; the knobs are
/// left unselected again for the next variant.
static LogicalResult applySchedule(const ResolvedSpace &rs,
                                   ArrayRef<int64_t> config,
                                   FunctionOpInterface clone,
                                   OpBuilder &builder) {
  transform::NamedSequenceOp schedule = rs.schedule;
  for (Knob knob : rs.knobs) {
    Type type =
        cast<IntegerAttr>(cast<ArrayAttr>(knob.op.getOptions())[0]).getType();
    knob.op.setSelectedAttr(builder.getIntegerAttr(type, config[knob.param]));
  }
  auto module = schedule->getParentOfType<ModuleOp>();
  LogicalResult applied = transform::applyTransformNamedSequence(
      clone, schedule, module, transform::TransformOptions());
  for (Knob knob : rs.knobs)
    knob.op.removeSelectedAttr();
  if (failed(applied))
    return rs.getKernel().emitError() << "schedule of kernel '"
                                 << rs.getKernel().getName()
                                 << "' failed for configuration "
                                 << rs.format(config);
  return success();
}

/// Replaces the `tuna.tensor_map` ops left in `clone` by hidden arguments,
/// one per map read, in map order; returns the maps.
static FailureOr<SmallVector<int64_t>>
addTensorMapArguments(const ResolvedSpace &rs, FunctionOpInterface clone) {
  std::map<int64_t, SmallVector<TensorMapOp>> reads;
  clone->walk([&](TensorMapOp op) { reads[op.getIndex()].push_back(op); });
  MLIRContext *ctx = clone.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto mark = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, "tuna.tensor_map"),
                           UnitAttr::get(ctx))});
  SmallVector<int64_t> maps;
  for (auto &[index, ops] : reads) {
    unsigned position = clone.getNumArguments();
    if (failed(clone.insertArgument(position, ptr, mark, clone.getLoc())))
      return rs.getKernel().emitError()
             << "kernel '" << rs.getKernel().getName()
             << "': cannot add the hidden argument of tensor map " << index;
    for (TensorMapOp op : ops) {
      op.replaceAllUsesWith(clone.getArgument(position));
      op.erase();
    }
    maps.push_back(index);
  }
  return maps;
}

/// Applies the configuration of `variant` to the clone `clone` (steps 2 to
/// 5 of the file's comment).
static LogicalResult
specializeClone(const ResolvedSpace &rs, const PlannedVariant &variant,
                FunctionOpInterface clone,
                const FrozenRewritePatternSet &canonicalization,
                OpBuilder &builder) {
  if (failed(substituteParams(rs, variant.config, clone, builder)))
    return failure();
  // A GPU variant's gpu.module holds its device functions too.
  Operation *variantOp = rs.isGpu() ? clone->getParentOp() : clone;
  substituteVscale(rs, variant.config, variantOp, builder);
  alignMarkedAccesses(variantOp, builder);
  if (failed(verifyVariant(rs, variant.config, variantOp)))
    return failure();
  setKnownBlockSize(clone, variant.block, builder);
  setKnownClusterSize(clone, variant.cluster, builder);
  setMinBlocksPerSM(clone, variant.minBlocks, builder);
  if (rs.schedule && failed(applySchedule(rs, variant.config, clone, builder)))
    return failure();

  if (failed(applyPatternsGreedily(clone.getOperation(), canonicalization)))
    return rs.getKernel().emitError()
           << "canonicalization of kernel '" << rs.getKernel().getName()
           << "' did not converge for configuration "
           << rs.format(variant.config);
  IRRewriter rewriter(clone.getContext());
  DominanceInfo dominance(clone);
  eliminateCommonSubExpressions(rewriter, dominance, clone);
  return success();
}

FailureOr<InstantiatedVariant>
expand::instantiateVariant(const ResolvedSpace &rs,
                           const PlannedVariant &variant, StringRef name,
                           const FrozenRewritePatternSet &canonicalization) {
  LDBG() << "  instantiating " << rs.format(variant.config) << " as @"
         << name;
  OpBuilder builder(rs.getKernel().getContext());
  FunctionOpInterface clone = cloneKernel(rs.kernel, name, builder);
  FailureOr<SmallVector<int64_t>> maps = failure();
  if (succeeded(
          specializeClone(rs, variant, clone, canonicalization, builder)))
    maps = addTensorMapArguments(rs, clone);
  if (failed(maps)) {
    // Nothing invalid is left in the module (a lazy caller keeps it).
    eraseVariant(clone);
    return failure();
  }
  clone->removeAttr(TunaDialect::getSpaceAttrName());
  if (!maps->empty())
    LDBG() << "    takes tensor map(s) " << llvm::interleaved(*maps);
  return InstantiatedVariant{clone, std::move(*maps)};
}

bool expand::isSameVariant(const InstantiatedVariant &a,
                           const PlannedVariant &pa,
                           const InstantiatedVariant &b,
                           const PlannedVariant &pb) {
  if (pa.grid != pb.grid || pa.block != pb.block || pa.smem != pb.smem ||
      pa.cluster != pb.cluster || pa.minBlocks != pb.minBlocks ||
      pa.dynamicConstraints != pb.dynamicConstraints ||
      a.tensorMaps != b.tensorMaps)
    return false;
  // Only the boxes of the maps the variants take matter.
  for (int64_t map : a.tensorMaps)
    if (pa.tensorMapBoxes[map] != pb.tensorMapBoxes[map])
      return false;
  FunctionOpInterface fa = a.func, fb = b.func;
  return OperationEquivalence::isRegionEquivalentTo(
      &fa.getFunctionBody(), &fb.getFunctionBody(),
      OperationEquivalence::IgnoreLocations);
}

void expand::eraseVariant(FunctionOpInterface func) {
  if (isa<gpu::GPUFuncOp>(func.getOperation()))
    func->getParentOp()->erase();
  else
    func->erase();
}
