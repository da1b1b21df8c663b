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
      // No launch_dependents: the grid after this one then launches as
      // this one's blocks exit. Triggering it at the entry let it occupy
      // SMs beside this grid, which slowed the cluster split-K matmuls
      // (docs/toolchain-notes.md).
      OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
      NVVM::GriddepcontrolOp::create(builder, func.getLoc(),
                                     NVVM::GridDepActionKind::wait);
    }
  }
};
} // namespace
