//===- TensorMapArgs.cpp - TMA descriptors as grid-constant parameters ----===//
//
// See Passes.td (TunaTensorMapArgs) and docs/tma-design.md.
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNATENSORMAPARGS
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;

static constexpr StringLiteral kTensorMapArg = "tuna.tensor_map";
static constexpr StringLiteral kTensorMapParams = "tuna.tensor_map_params";
/// sizeof(CUtensorMap) and its alignment (cuda.h: CU_TENSOR_MAP_NUM_QWORDS
/// 16, alignas(64)).
static constexpr int64_t kTensorMapBytes = 128;
static constexpr int64_t kTensorMapAlign = 64;

/// Before convert-gpu-to-nvvm: the positions of the marked arguments in the
/// lowered signature, as the function attribute tuna.tensor_map_params.
static LogicalResult recordTensorMapArgs(gpu::GPUFuncOp func) {
  SmallVector<unsigned> marked;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, kTensorMapArg))
      marked.push_back(i);
  if (marked.empty())
    return success();
  if (!func.isKernel())
    return func.emitError() << "'" << kTensorMapArg
                            << "' marks an argument of a function that is not "
                               "a kernel: only a kernel parameter can be a "
                               "grid constant";
  LLVMTypeConverter converter(func.getContext());
  TypeConverter::SignatureConversion conversion(func.getNumArguments());
  if (!converter.convertFunctionSignature(func.getFunctionType(),
                                          /*isVariadic=*/false,
                                          /*useBarePtrCallConv=*/false,
                                          conversion))
    return func.emitError() << "cannot lower the signature of '"
                            << func.getName() << "'";
  SmallVector<int64_t> params;
  for (unsigned i : marked) {
    auto ptr = dyn_cast<LLVM::LLVMPointerType>(func.getArgumentTypes()[i]);
    if (!ptr || ptr.getAddressSpace() != 0)
      return func.emitError()
             << "argument #" << i << " is marked '" << kTensorMapArg
             << "' but has type " << func.getArgumentTypes()[i]
             << "; a tensor map argument is an !llvm.ptr (the generic "
                "address of the 128-byte parameter)";
    auto mapping = conversion.getInputMapping(i);
    if (!mapping || mapping->size != 1)
      return func.emitError() << "argument #" << i
                              << " does not lower to one parameter";
    params.push_back(mapping->inputNo);
    func.removeArgAttr(i, kTensorMapArg);
  }
  func->setAttr(kTensorMapParams,
                DenseI64ArrayAttr::get(func.getContext(), params));
  return success();
}

/// After convert-gpu-to-nvvm: byval [128 x i8], align 64, grid_constant.
static LogicalResult applyTensorMapParams(LLVM::LLVMFuncOp func) {
  auto params = func->getAttrOfType<DenseI64ArrayAttr>(kTensorMapParams);
  if (!params)
    return success();
  MLIRContext *ctx = func.getContext();
  auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                        kTensorMapBytes);
  for (int64_t p : params.asArrayRef()) {
    if (p < 0 || p >= static_cast<int64_t>(func.getNumArguments()) ||
        !isa<LLVM::LLVMPointerType>(func.getArgumentTypes()[p]))
      return func.emitError() << "'" << kTensorMapParams << "' names parameter "
                              << p << ", which is not a pointer";
    func.setArgAttr(p, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(bytes));
    func.setArgAttr(p, LLVM::LLVMDialect::getAlignAttrName(),
                    IntegerAttr::get(IntegerType::get(ctx, 64),
                                     kTensorMapAlign));
    func.setArgAttr(p, NVVM::NVVMDialect::getGridConstantAttrName(),
                    UnitAttr::get(ctx));
  }
  func->removeAttr(kTensorMapParams);
  return success();
}

namespace {
struct TunaTensorMapArgsPass
    : public tuna::impl::TunaTensorMapArgsBase<TunaTensorMapArgsPass> {
  void runOnOperation() override {
    for (Operation &op : getOperation().getBody()->getOperations()) {
      LogicalResult result = success();
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op))
        result = recordTensorMapArgs(func);
      else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
        result = applyTensorMapParams(func);
      if (failed(result))
        return signalPassFailure();
    }
  }
};
} // namespace
