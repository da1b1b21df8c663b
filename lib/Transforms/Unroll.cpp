//===- Unroll.cpp - Fully unroll the loops marked tuna.unroll -------------===//
//
// See Passes.td (TunaUnroll).
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNAUNROLL
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;

namespace {
struct TunaUnrollPass : public tuna::impl::TunaUnrollBase<TunaUnrollPass> {
  void runOnOperation() override {
    // Post-order: inner loops come before the loops around them, so an outer
    // loop copies bodies that are already unrolled.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tuna::TunaDialect::getUnrollAttrName()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (!loop.getStaticTripCount()) {
        loop.emitError() << "loop marked tuna.unroll has no constant trip "
                            "count (its bounds and step must be constants "
                            "once the tuning parameters are)";
        return signalPassFailure();
      }
      if (failed(loopUnrollFull(loop))) {
        loop.emitError() << "could not unroll a loop marked tuna.unroll";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
