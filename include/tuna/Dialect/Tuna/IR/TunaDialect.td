//===- TunaDialect.td - The tuna dialect -------------------*- tablegen -*-===//
#ifndef TUNA_DIALECT_TD
#define TUNA_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tuna_Dialect : Dialect {
  let name = "tuna";
  let cppNamespace = "::mlir::tuna";
  let summary = "Self-tuning kernels: tunable spaces, parameters and dispatch tables";
  let description = [{
    A kernel (`gpu.func` or `func.func`) declares its tuning space in the
    discardable attribute `tuna.space` and reads parameters through
    `tuna.param`. The `tuna-expand` pass turns the space into one variant per
    surviving configuration and records a `tuna.dispatch` table that the
    bundle writer and the runtime consume.
  }];
  // `tuna.tensor_map` yields an !llvm.ptr, and a variant that takes tensor
  // maps has !llvm.ptr arguments.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable attribute that declares a kernel's space.
    static constexpr ::llvm::StringLiteral getSpaceAttrName() {
      return ::llvm::StringLiteral("tuna.space");
    }
    /// Name of the unit attribute that marks an scf.for for tuna-unroll.
    static constexpr ::llvm::StringLiteral getUnrollAttrName() {
      return ::llvm::StringLiteral("tuna.unroll");
    }
    /// Name of the unit attribute that makes a scalable vector access's
    /// alignment follow its width: aligned to its size in bytes once
    /// tuna-expand fixes the width.
    static constexpr ::llvm::StringLiteral getAlignedAttrName() {
      return ::llvm::StringLiteral("tuna.aligned");
    }
    /// Name of the attribute of a `tuna.dispatch` whose variants are planned
    /// but not instantiated (tuna-expand plan-only): the planned kernel.
    static constexpr ::llvm::StringLiteral getPlannedKernelAttrName() {
      return ::llvm::StringLiteral("tuna.planned_kernel");
    }
  }];
}

#endif // TUNA_DIALECT_TD
