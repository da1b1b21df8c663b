//===- SubgroupSize.cpp - gpu.subgroup_size as the target's constant ------===//
//
// See Passes.td (TunaResolveSubgroupSize).
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "llvm/TargetParser/TargetParser.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNARESOLVESUBGROUPSIZE
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;

/// The wavefront size LLVM compiles `chip` with: 32 where the processor
/// runs wave32 (it is then the default) unless `features` ask for wave64.
static int64_t amdgcnWavefrontSize(StringRef chip, StringRef features) {
  unsigned attributes =
      llvm::AMDGPU::getArchAttrAMDGCN(llvm::AMDGPU::parseArchAMDGCN(chip));
  bool wave32 = attributes & llvm::AMDGPU::FEATURE_WAVE32;
  return wave32 && !features.contains("+wavefrontsize64") ? 32 : 64;
}

/// The subgroup size of the single target of `module`, if it has one Tuna
/// knows.
static std::optional<int64_t> subgroupSizeOf(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.size() != 1)
    return std::nullopt;
  if (isa<NVVM::NVVMTargetAttr>(targets[0]))
    return 32;
  if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(targets[0]))
    return amdgcnWavefrontSize(rocdl.getChip(), rocdl.getFeatures());
  return std::nullopt;
}

namespace {
struct TunaResolveSubgroupSizePass
    : public tuna::impl::TunaResolveSubgroupSizeBase<
          TunaResolveSubgroupSizePass> {
  void runOnOperation() override {
    std::optional<int64_t> size = subgroupSizeOf(getOperation());
    if (!size)
      return;
    WalkResult result = getOperation()->walk([&](gpu::SubgroupSizeOp op) {
      if (std::optional<APInt> bound = op.getUpperBound();
          bound && bound->getSExtValue() < *size) {
        op.emitError() << "the target's subgroup size is " << *size
                       << ", above this op's upper_bound "
                       << bound->getSExtValue();
        return WalkResult::interrupt();
      }
      OpBuilder builder(op);
      Value constant =
          arith::ConstantIndexOp::create(builder, op.getLoc(), *size);
      op.replaceAllUsesWith(constant);
      op.erase();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
