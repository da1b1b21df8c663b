//===- Expand.cpp - The tuna-expand pass ----------------------------------===//
//
// Expands every tuning space into specialized variants and a dispatch table
// (see Passes.td for the user's view and Expand.h for the three steps). Per
// kernel:
//
//  1. resolve and plan the space (SpaceResolver.cpp), reporting each dropped
//     configuration when asked;
//  2. instantiate every planned variant (VariantBuilder.cpp) and drop those
//     identical to an earlier one;
//  3. write the dispatch table (DispatchWriter.cpp) and erase the kernel.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tuna-expand"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNAEXPAND
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::expand;

namespace {

struct TunaExpandPass : public tuna::impl::TunaExpandBase<TunaExpandPass> {
  using TunaExpandBase::TunaExpandBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owning(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owning);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owning, context);
    canonicalization = FrozenRewritePatternSet(std::move(owning));
    return success();
  }

  void runOnOperation() override;

private:
  LogicalResult expandKernel(FunctionOpInterface kernel, SpaceAttr space,
                             SymbolTable &symbols);
  FailureOr<SmallVector<BuiltVariant>>
  buildVariants(const ResolvedSpace &rs, const SpacePlan &plan,
                SymbolTable &symbols, int64_t &defaultVariant);

  FrozenRewritePatternSet canonicalization;
};

/// A fresh symbol name for variant `index` of `base`.
std::string variantName(StringRef base, size_t index,
                        const SymbolTable &symbols) {
  std::string name = (base + "__v" + Twine(index)).str();
  for (unsigned n = 0; symbols.lookup(name); ++n)
    name = (base + "__v" + Twine(index) + "_" + Twine(n)).str();
  return name;
}

/// Instantiates every planned variant in order, dropping those identical to
/// an earlier one; `defaultVariant` becomes the default's index among the
/// variants kept. On failure nothing built is left behind.
FailureOr<SmallVector<BuiltVariant>>
TunaExpandPass::buildVariants(const ResolvedSpace &rs, const SpacePlan &plan,
                              SymbolTable &symbols, int64_t &defaultVariant) {
  FunctionOpInterface kernel = rs.kernel;
  SmallVector<BuiltVariant> built;
  for (auto [i, planned] : llvm::enumerate(plan.variants)) {
    std::string name = variantName(kernel.getName(), built.size(), symbols);
    FailureOr<FunctionOpInterface> func =
        instantiateVariant(rs, planned, name, canonicalization);
    if (failed(func)) {
      for (BuiltVariant &v : built)
        eraseVariant(v.func);
      return failure();
    }
    const BuiltVariant *same =
        !dedupe ? nullptr : llvm::find_if(built, [&](const BuiltVariant &v) {
          return isSameVariant(v.func, *v.plan, *func, planned);
        });
    if (same && same != built.end()) {
      LDBG() << "  " << rs.format(planned.config) << " is identical to "
             << rs.format(same->plan->config);
      if (reportDropped)
        kernel.emitRemark() << "kernel '" << kernel.getName()
                            << "': configuration " << rs.format(planned.config)
                            << " is identical to "
                            << rs.format(same->plan->config);
      eraseVariant(*func);
      if (i == plan.defaultVariant)
        defaultVariant = same - built.begin();
      continue;
    }
    if (i == plan.defaultVariant)
      defaultVariant = built.size();
    built.push_back({*func, &planned});
  }
  return built;
}

LogicalResult TunaExpandPass::expandKernel(FunctionOpInterface kernel,
                                           SpaceAttr space,
                                           SymbolTable &symbols) {
  FailureOr<ResolvedSpace> rs = resolveSpace(kernel, space);
  if (failed(rs))
    return failure();
  Limits limits{maxThreadsPerBlock, maxSharedMemory, maxVariants};
  FailureOr<SpacePlan> plan =
      planSpace(*rs, limits, [&](const DroppedConfig &dropped) {
        if (reportDropped)
          kernel.emitRemark()
              << "kernel '" << kernel.getName() << "': dropped configuration "
              << rs->format(dropped.config) << ": " << dropped.reason;
      });
  if (failed(plan))
    return failure();

  int64_t defaultVariant = 0;
  FailureOr<SmallVector<BuiltVariant>> variants =
      buildVariants(*rs, *plan, symbols, defaultVariant);
  if (failed(variants))
    return failure();
  LDBG() << "kernel '" << kernel.getName() << "': " << variants->size()
         << " variant(s), default #" << defaultVariant;
  writeDispatchTable(getOperation(), *rs, *variants, defaultVariant);
  eraseExpandedKernel(kernel);
  return success();
}

void TunaExpandPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<std::pair<FunctionOpInterface, SpaceAttr>> kernels;
  module->walk([&](FunctionOpInterface func) {
    if (auto space =
            func->getAttrOfType<SpaceAttr>(TunaDialect::getSpaceAttrName()))
      kernels.push_back({func, space});
  });

  llvm::StringMap<Location> names;
  for (auto [kernel, space] : kernels) {
    if (!names.try_emplace(kernel.getName(), kernel.getLoc()).second) {
      kernel.emitError() << "two tunable kernels are named '"
                         << kernel.getName()
                         << "'; the runtime finds kernels by name";
      return signalPassFailure();
    }
  }

  // Schedules are collected before their kernels go.
  SetVector<Operation *> usedSchedules;
  for (auto [kernel, space] : kernels)
    if (SymbolRefAttr ref = space.getSchedule())
      if (Operation *schedule =
              SymbolTable::lookupNearestSymbolFrom(kernel, ref))
        usedSchedules.insert(schedule);

  SymbolTable symbols(module);
  for (auto [kernel, space] : kernels)
    if (failed(expandKernel(kernel, space, symbols)))
      return signalPassFailure();

  // Schedules have been applied; they must not reach code generation.
  for (Operation *schedule : usedSchedules)
    if (SymbolTable::symbolKnownUseEmpty(schedule, module))
      schedule->erase();
  if (module->hasAttr(
          transform::TransformDialect::kWithNamedSequenceAttrName) &&
      module.getOps<transform::NamedSequenceOp>().empty())
    module->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);

  // A GPU kernel's dispatch table takes the kernel's name at the top level,
  // where another symbol may have it already.
  llvm::StringMap<Operation *> topLevel;
  for (Operation &op : module.getOps()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      continue;
    auto [it, inserted] = topLevel.try_emplace(name.getValue(), &op);
    if (inserted)
      continue;
    Operation *dispatch = isa<DispatchOp>(op) ? &op : it->second;
    dispatch->emitError() << "kernel '" << name.getValue()
                          << "': its dispatch table needs the name '"
                          << name.getValue()
                          << "' at the top level of the module, where "
                             "another symbol has it";
    return signalPassFailure();
  }
}

} // namespace
