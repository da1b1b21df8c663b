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
// Then each `tuna.family` becomes the table of its kernels' variants
// (Family.cpp).
//
// With `plan-only`, step 2 is left out: the table lists every planned
// configuration under the name its variant will have and the kernel stays,
// for instantiatePlannedVariants (at the end of this file) to build the
// variants that are wanted, when they are.
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

/// The canonicalization patterns of every loaded dialect and registered op:
/// what folds a variant once its parameters are constants.
static FrozenRewritePatternSet collectCanonicalization(MLIRContext *context) {
  RewritePatternSet owning(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(owning);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(owning, context);
  return FrozenRewritePatternSet(std::move(owning));
}

/// A module whose schedules have all been applied (and erased) no longer
/// holds transform sequences.
static void dropTransformSequenceMark(ModuleOp module) {
  if (module->hasAttr(
          transform::TransformDialect::kWithNamedSequenceAttrName) &&
      module.getOps<transform::NamedSequenceOp>().empty())
    module->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
}

/// Scalable vector types and `vector.vscale` stand for a width that a
/// kernel's `vscale` parameter fixes: an error anywhere else.
static LogicalResult verifyVscaleOnlyInKernels(ModuleOp module) {
  WalkResult walk = module->walk<WalkOrder::PreOrder>([](Operation *op) {
    if (op->hasAttr(TunaDialect::getSpaceAttrName()))
      return WalkResult::skip();
    std::string use = describeVscaleUse(op);
    if (use.empty())
      return WalkResult::advance();
    op->emitOpError() << "uses " << use
                    << " outside a tunable kernel: only a kernel whose space "
                       "names a 'vscale' parameter gets fixed vector widths";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// A kernel with a tuning space, and the space.
using TunableKernel = std::pair<FunctionOpInterface, SpaceAttr>;

/// The kernels of `module` that carry a `tuna.space`, in walk order.
static SmallVector<TunableKernel> collectTunableKernels(ModuleOp module) {
  SmallVector<TunableKernel> kernels;
  module->walk([&](FunctionOpInterface func) {
    if (auto space =
            func->getAttrOfType<SpaceAttr>(TunaDialect::getSpaceAttrName()))
      kernels.push_back({func, space});
  });
  return kernels;
}

/// A kernel that a plan-only table names is instantiated from that table
/// (instantiatePlannedVariants), never expanded again: an error at it.
static LogicalResult verifyNoPlannedKernelExpanded(ModuleOp module) {
  for (DispatchOp table : module.getOps<DispatchOp>()) {
    auto planned = table->getAttrOfType<SymbolRefAttr>(
        TunaDialect::getPlannedKernelAttrName());
    Operation *kernel =
        planned ? SymbolTable::lookupNearestSymbolFrom(table, planned)
                : nullptr;
    if (kernel && kernel->hasAttr(TunaDialect::getSpaceAttrName()))
      return kernel->emitError()
             << "kernel '" << SymbolTable::getSymbolName(kernel).getValue()
             << "' is planned by the dispatch table '" << table.getSymName()
             << "': instantiate its variants "
                "(instantiatePlannedVariants) instead of "
                "expanding it again";
  }
  return success();
}

/// The runtime finds kernels by name: two tunable kernels (in different
/// gpu.modules) must not share one.
static LogicalResult verifyUniqueKernelNames(ArrayRef<TunableKernel> kernels) {
  llvm::StringMap<Location> names;
  for (auto [kernel, space] : kernels)
    if (!names.try_emplace(kernel.getName(), kernel.getLoc()).second)
      return kernel.emitError()
             << "two tunable kernels are named '" << kernel.getName()
             << "'; the runtime finds kernels by name";
  return success();
}

/// A GPU kernel's dispatch table takes the kernel's name at the top level,
/// where another symbol may have it already: an error at the table.
static LogicalResult verifyUniqueTopLevelNames(ModuleOp module) {
  llvm::StringMap<Operation *> topLevel;
  for (Operation &op : module.getOps()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      continue;
    auto [it, inserted] = topLevel.try_emplace(name.getValue(), &op);
    if (inserted)
      continue;
    Operation *dispatch = isa<DispatchOp>(op) ? &op : it->second;
    return dispatch->emitError()
           << "kernel '" << name.getValue()
           << "': its dispatch table needs the name '" << name.getValue()
           << "' at the top level of the module, where "
              "another symbol has it";
  }
  return success();
}

namespace {

/// An instantiated variant and the configuration it was built from.
struct BuiltVariant {
  InstantiatedVariant variant;
  const PlannedVariant *plan;
};

struct TunaExpandPass : public tuna::impl::TunaExpandBase<TunaExpandPass> {
  using TunaExpandBase::TunaExpandBase;

  LogicalResult initialize(MLIRContext *context) override {
    canonicalization = collectCanonicalization(context);
    return success();
  }

  void runOnOperation() override;

private:
  LogicalResult expandKernel(FunctionOpInterface kernel, SpaceAttr space,
                             SymbolTable &symbols);
  FailureOr<SmallVector<BuiltVariant>>
  buildVariants(const ResolvedSpace &rs, const SpacePlan &plan,
                SymbolTable &symbols, int64_t &defaultVariant);
  void writePlannedTable(const ResolvedSpace &rs, const SpacePlan &plan,
                         SymbolTable &symbols);

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

/// Writes the table of every planned configuration, each under the name its
/// variant will have, and marks it with the kernel, which stays. A host
/// kernel gives its name to the table and takes a fresh one.
void TunaExpandPass::writePlannedTable(const ResolvedSpace &rs,
                                       const SpacePlan &plan,
                                       SymbolTable &symbols) {
  FunctionOpInterface kernel = rs.kernel;
  SmallVector<TableEntry> entries;
  for (auto [i, planned] : llvm::enumerate(plan.variants))
    entries.push_back({variantName(kernel.getName(), i, symbols), &planned});
  DispatchOp table = writeDispatchTable(
      getOperation(), rs, entries, static_cast<int64_t>(plan.defaultVariant));
  if (!rs.isGpu()) {
    // Renamed through the symbol table, so that later names avoid it.
    std::string name = (kernel.getName() + "__planned").str();
    for (unsigned n = 0; symbols.lookup(name); ++n)
      name = (kernel.getName() + "__planned_" + Twine(n)).str();
    symbols.remove(kernel);
    kernel.setName(name);
    symbols.insert(kernel);
  }
  auto leaf = FlatSymbolRefAttr::get(kernel.getNameAttr());
  auto gpuModule = dyn_cast<gpu::GPUModuleOp>(kernel->getParentOp());
  table->setAttr(TunaDialect::getPlannedKernelAttrName(),
                 gpuModule ? SymbolRefAttr::get(gpuModule.getNameAttr(), {leaf})
                           : SymbolRefAttr(leaf));
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
    FailureOr<InstantiatedVariant> func =
        instantiateVariant(rs, planned, name, canonicalization);
    if (failed(func)) {
      for (BuiltVariant &v : built)
        eraseVariant(v.variant.func);
      return failure();
    }
    const BuiltVariant *same =
        !dedupe ? nullptr : llvm::find_if(built, [&](const BuiltVariant &v) {
          return isSameVariant(v.variant, *v.plan, *func, planned);
        });
    if (same && same != built.end()) {
      LDBG() << "  " << rs.format(planned.config) << " is identical to "
             << rs.format(same->plan->config);
      if (reportDropped)
        kernel.emitRemark() << "kernel '" << kernel.getName()
                            << "': configuration " << rs.format(planned.config)
                            << " is identical to "
                            << rs.format(same->plan->config);
      eraseVariant(func->func);
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

/// The default variant launches where no other can, so it must read no
/// tensor map: a shape TMA cannot describe (a misaligned buffer, a stride)
/// excludes every variant that takes one. Erases the variants otherwise.
static LogicalResult checkDefaultReadsNoMap(FunctionOpInterface kernel,
                                            const ResolvedSpace &rs,
                                            ArrayRef<BuiltVariant> variants,
                                            int64_t defaultVariant) {
  const BuiltVariant &chosen = variants[defaultVariant];
  if (chosen.variant.tensorMaps.empty())
    return success();
  InFlightDiagnostic diag =
      kernel.emitError()
      << "kernel '" << kernel.getName() << "': the default configuration "
      << rs.format(chosen.plan->config) << " reads tensor map "
      << chosen.variant.tensorMaps.front()
      << ", so a shape TMA cannot describe (a misaligned buffer, a stride) "
         "would leave no variant to launch: make the default a configuration "
         "that reads no map";
  for (const BuiltVariant &v : variants)
    eraseVariant(v.variant.func);
  return diag;
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
  if (planOnly) {
    // Which maps a variant takes is known once its body is folded.
    if (!space.getTensorMaps().empty())
      return kernel.emitError()
             << "kernel '" << kernel.getName()
             << "' has tensor maps, whose hidden parameters are known only "
                "once its variants are built: expand it without plan-only";
    LDBG() << "kernel '" << kernel.getName() << "': " << plan->variants.size()
           << " planned variant(s), none instantiated";
    writePlannedTable(*rs, *plan, symbols);
    return success();
  }

  int64_t defaultVariant = 0;
  FailureOr<SmallVector<BuiltVariant>> variants =
      buildVariants(*rs, *plan, symbols, defaultVariant);
  if (failed(variants) ||
      failed(checkDefaultReadsNoMap(kernel, *rs, *variants, defaultVariant)))
    return failure();
  LDBG() << "kernel '" << kernel.getName() << "': " << variants->size()
         << " variant(s), default #" << defaultVariant;
  SmallVector<TableEntry> entries;
  for (BuiltVariant &v : *variants)
    entries.push_back({v.variant.func.getName().str(), v.plan,
                       v.variant.tensorMaps});
  writeDispatchTable(getOperation(), *rs, entries, defaultVariant);
  eraseExpandedKernel(*rs);
  return success();
}

void TunaExpandPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<TunableKernel> kernels = collectTunableKernels(module);
  if (failed(verifyNoPlannedKernelExpanded(module)) ||
      failed(verifyVscaleOnlyInKernels(module)) ||
      failed(verifyUniqueKernelNames(kernels)))
    return signalPassFailure();

  SymbolTable symbols(module);
  for (auto [kernel, space] : kernels)
    if (failed(expandKernel(kernel, space, symbols)))
      return signalPassFailure();
  dropTransformSequenceMark(module);

  if (failed(writeFamilyTables(module)) ||
      failed(verifyUniqueTopLevelNames(module)))
    return signalPassFailure();
}

} // namespace

//===----------------------------------------------------------------------===//
// Instantiating the variants of a planned module
//===----------------------------------------------------------------------===//

/// The kernel a planned table names, with its space; an error at the table
/// when it names none.
static FailureOr<std::pair<FunctionOpInterface, SpaceAttr>>
lookupPlannedKernel(DispatchOp table, SymbolRefAttr ref) {
  auto kernel = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(table, ref));
  SpaceAttr space =
      kernel ? kernel->getAttrOfType<SpaceAttr>(TunaDialect::getSpaceAttrName())
             : SpaceAttr();
  if (!space)
    return table.emitError() << "dispatch table '" << table.getSymName()
                             << "' names the planned kernel " << ref
                             << ", which is not a tunable kernel";
  return std::make_pair(kernel, space);
}

/// Instantiates the wanted entries of one planned table and erases its
/// kernel.
static LogicalResult
instantiateTable(DispatchOp table, SymbolRefAttr kernelRef,
                 function_ref<bool(DispatchOp, size_t)> wanted,
                 const FrozenRewritePatternSet &canonicalization) {
  FailureOr<std::pair<FunctionOpInterface, SpaceAttr>> kernel =
      lookupPlannedKernel(table, kernelRef);
  if (failed(kernel))
    return failure();
  FailureOr<ResolvedSpace> rs = resolveSpace(kernel->first, kernel->second);
  if (failed(rs))
    return failure();
  for (auto [i, entry] : llvm::enumerate(table.getBody().getOps<VariantOp>())) {
    if (!wanted(table, i))
      continue;
    FailureOr<PlannedVariant> plan = readTableEntry(*rs, entry);
    if (failed(plan))
      return failure();
    StringRef name = entry.getKernel().getLeafReference();
    if (failed(instantiateVariant(*rs, *plan, name, canonicalization)))
      return failure();
  }
  eraseExpandedKernel(*rs);
  table->removeAttr(TunaDialect::getPlannedKernelAttrName());
  return success();
}

LogicalResult mlir::tuna::instantiatePlannedVariants(
    ModuleOp module, function_ref<bool(DispatchOp, size_t)> wanted) {
  FrozenRewritePatternSet canonicalization =
      collectCanonicalization(module.getContext());
  for (DispatchOp table : module.getOps<DispatchOp>())
    if (auto kernelRef = table->getAttrOfType<SymbolRefAttr>(
            TunaDialect::getPlannedKernelAttrName()))
      if (failed(instantiateTable(table, kernelRef, wanted, canonicalization)))
        return failure();
  dropTransformSequenceMark(module);
  return success();
}
