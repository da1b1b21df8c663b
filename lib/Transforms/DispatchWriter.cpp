//===- DispatchWriter.cpp - Write a kernel's tuna.dispatch table ----------===//
//
// Step 3 of tuna-expand (see Expand.h): records what the runtime needs to
// choose and launch a variant:
//
//  1. the kernel's ABI (its function type) and which memref arguments it may
//     write, following views and aliases;
//  2. the parameters, the key, the default variant and a hash of the source
//     (kernel and schedule) that names the tuning cache's entries;
//  3. one `tuna.variant` per table entry (a built variant, or a planned one
//     under the name it will have): its kernel symbol, configuration, launch
//     maps and launch-time constraints, all taken from the plan, and the
//     tensor maps a built variant takes, with their boxes.
//
// Then the original kernel goes, with a gpu.module left without kernels.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::expand;

/// Whether `user` writes `v` (or an alias of it it yields, pushed on
/// `worklist`). Ops without memory effects that are neither containers nor
/// terminators count as writers.
static bool writes(Operation *user, Value v, SmallVectorImpl<Value> &worklist) {
  if (auto view = dyn_cast<ViewLikeOpInterface>(user);
      view && view.getViewSource() == v) {
    llvm::append_range(worklist, user->getResults());
    return false;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return !user->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
           !user->hasTrait<OpTrait::IsTerminator>();
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (auto &e : list)
    if (isa<MemoryEffects::Write>(e.getEffect()) &&
        (!e.getValue() || e.getValue() == v))
      return true;
  // Ops that yield an alias without being views (casts): follow results.
  for (Value r : user->getResults())
    if (isa<BaseMemRefType>(r.getType()))
      worklist.push_back(r);
  return false;
}

/// Whether a memref argument may be written, following views and aliases.
static bool mayBeWritten(Value memref) {
  SmallVector<Value> worklist{memref};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses())
      if (writes(use.getOwner(), v, worklist))
        return true;
  }
  return false;
}

/// Indices of the kernel's memref arguments that it may write. Only the
/// kernel's own arguments: a gpu.func's entry block also holds its workgroup
/// and private attributions, which the caller never passes.
static SmallVector<int64_t> writtenArguments(FunctionOpInterface kernel) {
  SmallVector<int64_t> written;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    BlockArgument arg = kernel.getArgument(i);
    if (isa<BaseMemRefType>(arg.getType()) && mayBeWritten(arg))
      written.push_back(i);
  }
  return written;
}

static std::string hashKernel(Operation *kernel, Operation *schedule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false);
  kernel->print(os, flags);
  if (schedule)
    schedule->print(os, flags);
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true, 16);
}

/// The symbol a variant's entry is called by: `@name::@name` on GPUs,
/// where a variant has a gpu.module of its own (VariantBuilder.cpp).
static SymbolRefAttr variantSymbol(const ResolvedSpace &rs, StringRef name) {
  auto leaf = FlatSymbolRefAttr::get(rs.getKernel().getContext(), name);
  if (rs.isGpu())
    return SymbolRefAttr::get(leaf.getAttr(), {leaf});
  return leaf;
}

static void writeVariant(OpBuilder &builder, Location loc,
                         const ResolvedSpace &rs, const TableEntry &entry) {
  SmallVector<NamedAttribute> entries;
  for (auto [name, value] : llvm::zip(rs.names, entry.plan->config))
    entries.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
  auto optMap = [](AffineMap m) {
    return m ? AffineMapAttr::get(m) : AffineMapAttr();
  };
  const PlannedVariant &plan = *entry.plan;
  SmallVector<AffineMap> boxes;
  for (int64_t map : entry.tensorMaps)
    boxes.push_back(plan.tensorMapBoxes[map]);
  bool takesMaps = !entry.tensorMaps.empty();
  VariantOp::create(
      builder, loc, variantSymbol(rs, entry.name),
      builder.getDictionaryAttr(entries), optMap(plan.grid),
      optMap(plan.block), optMap(plan.smem), optMap(plan.cluster),
      optMap(plan.minBlocks),
      plan.dynamicConstraints.empty()
          ? ArrayAttr()
          : builder.getArrayAttr(plan.dynamicConstraints),
      takesMaps ? builder.getDenseI64ArrayAttr(entry.tensorMaps)
                : DenseI64ArrayAttr(),
      takesMaps ? builder.getAffineMapArrayAttr(boxes) : ArrayAttr());
}

DispatchOp expand::writeDispatchTable(ModuleOp module, const ResolvedSpace &rs,
                                      ArrayRef<TableEntry> entries,
                                      int64_t defaultVariant) {
  FunctionOpInterface kernel = rs.kernel;
  OpBuilder builder(module.getContext());
  // Tables go last, but before an op that must end the block.
  Block *body = module.getBody();
  if (body->mightHaveTerminator())
    builder.setInsertionPoint(body->getTerminator());
  else
    builder.setInsertionPointToEnd(body);
  ArrayAttr keys = builder.getArrayAttr(SmallVector<Attribute>(
      rs.space.getKey().begin(), rs.space.getKey().end()));
  SmallVector<StringRef> names(rs.names.begin(), rs.names.end());
  ArrayRef<TargetAttr> targets = rs.space.getTargets();
  ArrayRef<TensorMapAttr> maps = rs.space.getTensorMaps();
  Location loc = kernel.getLoc();
  auto dispatch = DispatchOp::create(
      builder, loc, kernel.getName(),
      cast<FunctionType>(kernel.getFunctionType()), writtenArguments(kernel),
      builder.getStrArrayAttr(names), keys, defaultVariant,
      hashKernel(kernel, rs.schedule),
      targets.empty() ? ArrayAttr()
                      : builder.getArrayAttr(SmallVector<Attribute>(
                            targets.begin(), targets.end())),
      maps.empty() ? ArrayAttr()
                   : builder.getArrayAttr(
                         SmallVector<Attribute>(maps.begin(), maps.end())));
  builder.setInsertionPointToStart(&dispatch.getBody().emplaceBlock());
  for (const TableEntry &entry : entries)
    writeVariant(builder, loc, rs, entry);
  return dispatch;
}

FailureOr<PlannedVariant> expand::readTableEntry(const ResolvedSpace &rs,
                                                 VariantOp entry) {
  PlannedVariant plan;
  DictionaryAttr config = entry.getConfig();
  for (const std::string &name : rs.names) {
    auto value = dyn_cast_or_null<IntegerAttr>(config.get(name));
    if (!value)
      return rs.getKernel().emitError()
             << "kernel '" << rs.getKernel().getName() << "': the table entry "
             << entry.getKernel() << " has no integer value of parameter '"
             << name << "'";
    plan.config.push_back(value.getInt());
  }
  if (std::optional<AffineMap> grid = entry.getGrid())
    plan.grid = *grid;
  if (std::optional<AffineMap> block = entry.getBlock())
    plan.block = *block;
  if (std::optional<AffineMap> smem = entry.getSmem())
    plan.smem = *smem;
  if (std::optional<AffineMap> cluster = entry.getCluster())
    plan.cluster = *cluster;
  if (std::optional<AffineMap> minBlocks = entry.getMinBlocks())
    plan.minBlocks = *minBlocks;
  if (ArrayAttr constraints = entry.getConstraintsAttr())
    llvm::append_range(plan.dynamicConstraints, constraints);
  return plan;
}

void expand::eraseExpandedKernel(const ResolvedSpace &space) {
  Operation *kernel = space.kernel;
  Operation *parent = kernel->getParentOp();
  auto module = kernel->getParentOfType<ModuleOp>();
  kernel->erase();
  // The schedule goes before its gpu.module can take it along, so that no
  // pointer to it outlives it.
  if (Operation *schedule = space.schedule)
    if (SymbolTable::symbolKnownUseEmpty(schedule, module))
      schedule->erase();
  if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(parent))
    if (llvm::none_of(gpuModule.getOps<gpu::GPUFuncOp>(),
                      [](gpu::GPUFuncOp f) { return f.isKernel(); }))
      gpuModule.erase();
}
