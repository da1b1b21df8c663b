//===- Passes.h - Tuna passes -----------------------------------*- C++ -*-===//
#ifndef TUNA_TRANSFORMS_PASSES_H
#define TUNA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

namespace mlir::tuna {

#define GEN_PASS_DECL
#include "tuna/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tuna/Transforms/Passes.h.inc"

/// Instantiates the variants of a `tuna-expand{plan-only}` module for which
/// `wanted(dispatch, i)` holds (i: the variant's index in the table), each
/// under the symbol its table entry names, then erases the planned kernels
/// and the schedules no one uses any more. The module is then what
/// tuna-expand without deduplication makes, except that the entries not
/// wanted name no symbol: compileBundle leaves them without code. Errors
/// (a table entry that does not match its space, a schedule that fails)
/// are emitted at the kernel.
LogicalResult
instantiatePlannedVariants(ModuleOp module,
                           function_ref<bool(DispatchOp, size_t)> wanted);

} // namespace mlir::tuna

#endif // TUNA_TRANSFORMS_PASSES_H
