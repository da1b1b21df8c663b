//===- GridDependency.cpp - Kernels that wait for the grid before them ----===//
//
// See Passes.td (TunaGridDependency) and docs/runtime-api.md, "Programmatic
// dependent launch".
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNAGRIDDEPENDENCY
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;

namespace {
struct TunaGridDependencyPass
    : public tuna::impl::TunaGridDependencyBase<TunaGridDependencyPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      NVVM::GriddepcontrolOp::create(
          builder, loc, NVVM::GridDepActionKind::launch_dependents);
      NVVM::GriddepcontrolOp::create(builder, loc,
                                     NVVM::GridDepActionKind::wait);
    }
  }
};
} // namespace
