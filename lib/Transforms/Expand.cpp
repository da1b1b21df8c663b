//===- Expand.cpp - Expand tuning spaces into variants --------------------===//
//
// The autotune pass. See Passes.td for what it does, in order.
//
//===----------------------------------------------------------------------===//

#include "tuna/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace mlir::tuna {
#define GEN_PASS_DEF_TUNAEXPAND
#include "tuna/Transforms/Passes.h.inc"
} // namespace mlir::tuna

using namespace mlir;
using namespace mlir::tuna;

namespace {

/// A kernel's space with the knobs of its schedule folded in: parameter i is
/// symbol i of every map and set.
struct ResolvedSpace {
  mutable FunctionOpInterface kernel;
  SpaceAttr space;
  SmallVector<std::string> names;
  /// Candidates per parameter (cartesian spaces) or whole configurations.
  SmallVector<SmallVector<int64_t>> candidates;
  SmallVector<SmallVector<int64_t>> explicitConfigs;
  SmallVector<int64_t> defaults;
  mutable transform::NamedSequenceOp schedule;
  /// Parameter index of every unresolved knob of the schedule.
  mutable SmallVector<std::pair<transform::tune::KnobOp, unsigned>> knobs;

  bool isGpu() const { return isa<gpu::GPUFuncOp>(kernel.getOperation()); }
};

/// What a configuration turns into once its parameters are known.
struct Specialization {
  SmallVector<int64_t> config;
  AffineMap grid, block, smem;
  SmallVector<Attribute> dynamicConstraints;
};

std::string formatConfig(ArrayRef<std::string> names,
                         ArrayRef<int64_t> config) {
  std::string s = "{";
  for (auto [i, name] : llvm::enumerate(names))
    s += (i ? ", " : "") + name + " = " + std::to_string(config[i]);
  return s + "}";
}

AffineMap specializeMap(AffineMap map, ArrayRef<AffineExpr> paramExprs) {
  SmallVector<AffineExpr> dims;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    dims.push_back(getAffineDimExpr(d, map.getContext()));
  return simplifyAffineMap(
      map.replaceDimsAndSymbols(dims, paramExprs, map.getNumDims(), 0));
}

/// Product of the results of a map, or nothing when one is not constant.
std::optional<int64_t> constantProduct(AffineMap map) {
  int64_t product = 1;
  for (AffineExpr e : map.getResults()) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c)
      return std::nullopt;
    product *= c.getValue();
  }
  return product;
}

/// Bytes of statically sized workgroup memory a GPU kernel declares.
int64_t staticWorkgroupBytes(gpu::GPUFuncOp func) {
  int64_t bytes = 0;
  for (BlockArgument arg : func.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (type && type.hasStaticShape())
      bytes += type.getNumElements() *
               llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

/// Whether a memref argument may be written, following views and aliases.
/// Unknown users count as writers.
bool mayBeWritten(Value memref) {
  SmallVector<Value> worklist{memref};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == v) {
          for (Value r : user->getResults())
            worklist.push_back(r);
          continue;
        }
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        if (user->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
            user->hasTrait<OpTrait::IsTerminator>())
          continue;
        return true;
      }
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
    }
  }
  return false;
}

std::string hashKernel(Operation *kernel, Operation *schedule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false);
  kernel->print(os, flags);
  if (schedule)
    schedule->print(os, flags);
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true, 16);
}

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
  FailureOr<ResolvedSpace> resolve(FunctionOpInterface kernel, SpaceAttr space);
  SmallVector<SmallVector<int64_t>> enumerate(const ResolvedSpace &rs);
  /// Specializes the maps and sets; a reason when the config is dropped.
  FailureOr<Specialization> specialize(const ResolvedSpace &rs,
                                       ArrayRef<int64_t> config,
                                       std::string &whyDropped);
  FailureOr<FunctionOpInterface> instantiate(const ResolvedSpace &rs,
                                             const Specialization &spec,
                                             StringRef name);
  LogicalResult expandKernel(FunctionOpInterface kernel, SpaceAttr space);

  FrozenRewritePatternSet canonicalization;
  SmallVector<Operation *> usedSchedules;
};

FailureOr<ResolvedSpace> TunaExpandPass::resolve(FunctionOpInterface kernel,
                                                 SpaceAttr space) {
  ResolvedSpace rs;
  rs.kernel = kernel;
  rs.space = space;
  for (ParamAttr p : space.getParamList()) {
    rs.names.push_back(p.getName().str());
    rs.candidates.emplace_back(p.getValues());
  }

  if (SymbolRefAttr ref = space.getSchedule()) {
    Operation *found = SymbolTable::lookupNearestSymbolFrom(kernel, ref);
    rs.schedule = dyn_cast_or_null<transform::NamedSequenceOp>(found);
    if (!rs.schedule)
      return kernel.emitError()
             << "schedule " << ref << " is not a transform.named_sequence";
    WalkResult walk = rs.schedule.walk([&](transform::tune::KnobOp knob) {
      if (knob.getSelected())
        return WalkResult::advance();
      auto options = dyn_cast<ArrayAttr>(knob.getOptions());
      if (!options || options.empty() ||
          !llvm::all_of(options, llvm::IsaPred<IntegerAttr>)) {
        knob.emitError() << "knob '" << knob.getName().getValue()
                         << "' used by kernel '" << kernel.getName()
                         << "' must list integer options";
        return WalkResult::interrupt();
      }
      if (llvm::is_contained(rs.names, knob.getName().getValue())) {
        knob.emitError() << "knob '" << knob.getName().getValue()
                         << "' has the name of a parameter of kernel '"
                         << kernel.getName() << "'";
        return WalkResult::interrupt();
      }
      rs.knobs.push_back({knob, static_cast<unsigned>(rs.names.size())});
      rs.names.push_back(knob.getName().str());
      rs.candidates.push_back(llvm::to_vector(llvm::map_range(
          options, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); })));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (rs.names.empty())
      return kernel.emitError() << "kernel '" << kernel.getName()
                                << "' has no parameters: its schedule " << ref
                                << " has no unresolved knobs";
  }

  // Maps and sets take one symbol per parameter, knobs included.
  unsigned numParams = rs.names.size();
  for (auto [what, map] : {std::pair{"grid", space.getGrid()},
                           std::pair{"block", space.getBlock()},
                           std::pair{"smem", space.getSmem()}})
    if (map && map.getValue().getNumSymbols() != numParams)
      return kernel.emitError()
             << "'" << what << "' of kernel '" << kernel.getName() << "' takes "
             << map.getValue().getNumSymbols() << " symbol(s) but it has "
             << numParams << " parameter(s)";
  if (ArrayAttr sets = space.getConstraints())
    for (auto [i, a] : llvm::enumerate(sets))
      if (cast<IntegerSetAttr>(a).getValue().getNumSymbols() != numParams)
        return kernel.emitError()
               << "constraint #" << i << " of kernel '" << kernel.getName()
               << "' takes "
               << cast<IntegerSetAttr>(a).getValue().getNumSymbols()
               << " symbol(s) but it has " << numParams << " parameter(s)";

  auto bindAll = [&](DictionaryAttr dict, StringRef what,
                     SmallVector<int64_t> &out) -> LogicalResult {
    for (StringRef name : rs.names) {
      auto value =
          dict ? dyn_cast_or_null<IntegerAttr>(dict.get(name)) : nullptr;
      if (!value)
        return kernel.emitError()
               << what << " of kernel '" << kernel.getName()
               << "' does not bind parameter '" << name << "'";
      out.push_back(value.getInt());
    }
    for (NamedAttribute entry : dict)
      if (!llvm::is_contained(rs.names, entry.getName().getValue()))
        return kernel.emitError() << what << " of kernel '" << kernel.getName()
                                  << "' binds unknown parameter '"
                                  << entry.getName().getValue() << "'";
    return success();
  };
  if (failed(bindAll(space.getDefaults(), "'defaults'", rs.defaults)))
    return failure();
  for (auto [i, knob] : llvm::enumerate(rs.knobs))
    if (!llvm::is_contained(rs.candidates[knob.second],
                            rs.defaults[knob.second]))
      return kernel.emitError()
             << "default value " << rs.defaults[knob.second] << " of knob '"
             << rs.names[knob.second] << "' is not one of its options";
  if (ArrayAttr configs = space.getConfigs()) {
    for (auto [i, a] : llvm::enumerate(configs)) {
      SmallVector<int64_t> config;
      std::string what = "config #" + std::to_string(i);
      if (failed(bindAll(cast<DictionaryAttr>(a), what, config)))
        return failure();
      rs.explicitConfigs.push_back(std::move(config));
    }
  }
  return rs;
}

SmallVector<SmallVector<int64_t>>
TunaExpandPass::enumerate(const ResolvedSpace &rs) {
  if (!rs.explicitConfigs.empty())
    return rs.explicitConfigs;
  SmallVector<SmallVector<int64_t>> configs{{}};
  for (ArrayRef<int64_t> values : rs.candidates) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &prefix : configs)
      for (int64_t v : values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    configs = std::move(next);
  }
  return configs;
}

FailureOr<Specialization> TunaExpandPass::specialize(const ResolvedSpace &rs,
                                                     ArrayRef<int64_t> config,
                                                     std::string &whyDropped) {
  MLIRContext *ctx = rs.kernel.getContext();
  SmallVector<AffineExpr> paramExprs;
  for (int64_t v : config)
    paramExprs.push_back(getAffineConstantExpr(v, ctx));

  Specialization spec;
  spec.config.assign(config.begin(), config.end());
  if (ArrayAttr sets = rs.space.getConstraints()) {
    for (auto [i, a] : llvm::enumerate(sets)) {
      IntegerSet set = cast<IntegerSetAttr>(a).getValue();
      SmallVector<AffineExpr> dims;
      for (unsigned d = 0; d < set.getNumDims(); ++d)
        dims.push_back(getAffineDimExpr(d, ctx));
      IntegerSet specialized =
          set.replaceDimsAndSymbols(dims, paramExprs, set.getNumDims(), 0);
      SmallVector<AffineExpr> dynamicExprs;
      SmallVector<bool> dynamicEqs;
      for (auto [expr, isEq] :
           llvm::zip(specialized.getConstraints(), specialized.getEqFlags())) {
        AffineExpr e = simplifyAffineExpr(expr, set.getNumDims(), 0);
        if (auto c = dyn_cast<AffineConstantExpr>(e)) {
          bool holds = isEq ? c.getValue() == 0 : c.getValue() >= 0;
          if (!holds) {
            whyDropped = "it breaks constraint #" + std::to_string(i);
            return failure();
          }
          continue;
        }
        dynamicExprs.push_back(e);
        dynamicEqs.push_back(isEq);
      }
      if (!dynamicExprs.empty())
        spec.dynamicConstraints.push_back(IntegerSetAttr::get(
            IntegerSet::get(set.getNumDims(), 0, dynamicExprs, dynamicEqs)));
    }
  }

  if (AffineMapAttr grid = rs.space.getGrid())
    spec.grid = specializeMap(grid.getValue(), paramExprs);
  if (AffineMapAttr smem = rs.space.getSmem())
    spec.smem = specializeMap(smem.getValue(), paramExprs);
  if (AffineMapAttr block = rs.space.getBlock()) {
    spec.block = specializeMap(block.getValue(), paramExprs);
    for (AffineExpr e : spec.block.getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(e); c && c.getValue() <= 0) {
        whyDropped = "its block has a size of " + std::to_string(c.getValue());
        return failure();
      }
    if (std::optional<int64_t> threads = constantProduct(spec.block);
        threads && *threads > maxThreadsPerBlock) {
      whyDropped = "its block has " + std::to_string(*threads) +
                   " threads, over the limit of " +
                   std::to_string(maxThreadsPerBlock);
      return failure();
    }
  }
  if (auto func = dyn_cast<gpu::GPUFuncOp>(rs.kernel.getOperation())) {
    int64_t bytes = staticWorkgroupBytes(func);
    std::optional<int64_t> dynamicBytes =
        spec.smem ? constantProduct(spec.smem) : std::optional<int64_t>(0);
    if (dynamicBytes && bytes + *dynamicBytes > maxSharedMemory) {
      whyDropped = "it needs " + std::to_string(bytes + *dynamicBytes) +
                   " bytes of shared memory, over the limit of " +
                   std::to_string(maxSharedMemory);
      return failure();
    }
  }
  return spec;
}

FailureOr<FunctionOpInterface>
TunaExpandPass::instantiate(const ResolvedSpace &rs, const Specialization &spec,
                            StringRef name) {
  Operation *kernel = rs.kernel.getOperation();
  OpBuilder builder(kernel->getContext());
  FunctionOpInterface clone;
  if (rs.isGpu()) {
    // A gpu.module of its own: the kernel plus every non-kernel symbol of the
    // original module (device functions, globals) it may use. Variants go
    // before the original, in order.
    auto original = kernel->getParentOfType<gpu::GPUModuleOp>();
    builder.setInsertionPoint(original);
    auto module =
        cast<gpu::GPUModuleOp>(builder.cloneWithoutRegions(*original));
    module.setName(name);
    module.getBodyRegion().emplaceBlock();
    builder.setInsertionPointToStart(module.getBody());
    for (Operation &op : original.getBody()->getOperations()) {
      if (&op == kernel) {
        clone = cast<FunctionOpInterface>(builder.clone(op));
        continue;
      }
      auto func = dyn_cast<gpu::GPUFuncOp>(op);
      if ((func && func.isKernel()) ||
          op.hasAttr(TunaDialect::getSpaceAttrName()))
        continue;
      builder.clone(op);
    }
  } else {
    builder.setInsertionPoint(kernel);
    clone = cast<FunctionOpInterface>(builder.clone(*kernel));
  }
  clone.setName(name);
  clone->removeAttr(TunaDialect::getSpaceAttrName());

  // Parameters become constants.
  SmallVector<ParamOp> params;
  clone->walk([&](ParamOp op) { params.push_back(op); });
  for (ParamOp op : params) {
    auto it = llvm::find(rs.names, op.getName());
    if (it == rs.names.end())
      return op.emitOpError() << "reads unknown parameter '" << op.getName()
                              << "' of kernel '" << rs.kernel.getName() << "'";
    int64_t value = spec.config[it - rs.names.begin()];
    Type type = op.getType();
    if (auto intType = dyn_cast<IntegerType>(type)) {
      unsigned width = intType.getWidth();
      if (width < 64 && (value >= (int64_t(1) << (width - 1)) ||
                         value < -(int64_t(1) << (width - 1))))
        return op.emitOpError() << "value " << value << " of parameter '"
                                << op.getName() << "' does not fit in " << type;
    }
    builder.setInsertionPoint(op);
    Value constant = arith::ConstantOp::create(
        builder, op.getLoc(), type, builder.getIntegerAttr(type, value));
    op.replaceAllUsesWith(constant);
    op.erase();
  }

  if (spec.block)
    if (auto func = dyn_cast<gpu::GPUFuncOp>(clone.getOperation());
        func && constantProduct(spec.block)) {
      SmallVector<int32_t> sizes(3, 1);
      for (auto [i, e] : llvm::enumerate(spec.block.getResults()))
        sizes[i] = cast<AffineConstantExpr>(e).getValue();
      func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(sizes));
    }

  if (rs.schedule) {
    for (auto [knob, index] : rs.knobs) {
      Type type =
          cast<IntegerAttr>(cast<ArrayAttr>(knob.getOptions())[0]).getType();
      knob.setSelectedAttr(builder.getIntegerAttr(type, spec.config[index]));
    }
    auto module = rs.schedule->getParentOfType<ModuleOp>();
    LogicalResult applied = transform::applyTransformNamedSequence(
        clone, rs.schedule, module, transform::TransformOptions());
    for (auto [knob, index] : rs.knobs)
      knob.removeSelectedAttr();
    if (failed(applied))
      return rs.kernel.emitError()
             << "schedule of kernel '" << rs.kernel.getName()
             << "' failed for configuration "
             << formatConfig(rs.names, spec.config);
  }

  if (failed(applyPatternsGreedily(clone.getOperation(), canonicalization)))
    return rs.kernel.emitError()
           << "canonicalization of kernel '" << rs.kernel.getName()
           << "' did not converge for configuration "
           << formatConfig(rs.names, spec.config);
  IRRewriter rewriter(clone.getContext());
  DominanceInfo dominance(clone);
  eliminateCommonSubExpressions(rewriter, dominance, clone);
  return clone;
}

bool sameVariant(FunctionOpInterface a, const Specialization &sa,
                 FunctionOpInterface b, const Specialization &sb) {
  if (sa.grid != sb.grid || sa.block != sb.block || sa.smem != sb.smem ||
      sa.dynamicConstraints != sb.dynamicConstraints)
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &a.getFunctionBody(), &b.getFunctionBody(),
      OperationEquivalence::IgnoreLocations);
}

void eraseVariant(FunctionOpInterface func) {
  if (isa<gpu::GPUFuncOp>(func.getOperation()))
    func->getParentOp()->erase();
  else
    func->erase();
}

LogicalResult TunaExpandPass::expandKernel(FunctionOpInterface kernel,
                                           SpaceAttr space) {
  FailureOr<ResolvedSpace> resolved = resolve(kernel, space);
  if (failed(resolved))
    return failure();
  ResolvedSpace &rs = *resolved;

  // Refuse oversized spaces before materializing them.
  uint64_t count = rs.explicitConfigs.size();
  if (rs.explicitConfigs.empty()) {
    count = 1;
    for (ArrayRef<int64_t> values : rs.candidates)
      count = std::min<uint64_t>(count * values.size(), uint64_t(1) << 40);
  }
  if (count > static_cast<uint64_t>(maxVariants))
    return kernel.emitError() << "kernel '" << kernel.getName() << "' has "
                              << count << " configurations, over the limit of "
                              << maxVariants.getValue() << " (max-variants)";

  MLIRContext *ctx = kernel.getContext();
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  std::string baseName = kernel.getName().str();

  struct Survivor {
    FunctionOpInterface func;
    Specialization spec;
    SmallVector<int64_t> firstConfig;
  };
  SmallVector<Survivor> survivors;
  std::optional<int64_t> defaultIndex;
  std::string defaultDropReason;

  for (const SmallVector<int64_t> &config : enumerate(rs)) {
    bool isDefault =
        ArrayRef<int64_t>(config) == ArrayRef<int64_t>(rs.defaults);
    std::string why;
    FailureOr<Specialization> spec = specialize(rs, config, why);
    if (failed(spec)) {
      if (isDefault)
        defaultDropReason = why;
      if (reportDropped)
        kernel.emitRemark()
            << "kernel '" << kernel.getName() << "': dropped configuration "
            << formatConfig(rs.names, config) << ": " << why;
      continue;
    }
    std::string name = baseName + "__v" + std::to_string(survivors.size());
    for (unsigned n = 0; symbols.lookup(name); ++n)
      name = baseName + "__v" + std::to_string(survivors.size()) + "_" +
             std::to_string(n);
    FailureOr<FunctionOpInterface> func = instantiate(rs, *spec, name);
    if (failed(func))
      return failure();

    std::optional<size_t> duplicateOf;
    if (dedupe)
      for (auto [i, s] : llvm::enumerate(survivors))
        if (sameVariant(s.func, s.spec, *func, *spec)) {
          duplicateOf = i;
          break;
        }
    if (duplicateOf) {
      eraseVariant(*func);
      if (reportDropped)
        kernel.emitRemark()
            << "kernel '" << kernel.getName() << "': configuration "
            << formatConfig(rs.names, config) << " is identical to "
            << formatConfig(rs.names, survivors[*duplicateOf].firstConfig);
      if (isDefault)
        defaultIndex = *duplicateOf;
      continue;
    }
    if (isDefault)
      defaultIndex = survivors.size();
    survivors.push_back({*func, std::move(*spec), config});
  }

  auto fail = [&](InFlightDiagnostic diag) {
    for (Survivor &s : survivors)
      eraseVariant(s.func);
    return diag;
  };
  if (survivors.empty())
    return fail(kernel.emitError()
                << "kernel '" << kernel.getName()
                << "': every configuration breaks a constraint or a limit");
  if (!defaultIndex)
    return fail(kernel.emitError() << "kernel '" << kernel.getName()
                                   << "': the default configuration "
                                   << formatConfig(rs.names, rs.defaults)
                                   << " is dropped: " << defaultDropReason);

  // The dispatch table, at the end of the top-level module.
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<int64_t> written;
  // Only the kernel's own arguments: a gpu.func's entry block also holds its
  // workgroup and private attributions, which the caller never passes.
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    BlockArgument arg = kernel.getArgument(i);
    if (isa<BaseMemRefType>(arg.getType()) && mayBeWritten(arg))
      written.push_back(i);
  }
  ArrayAttr keys = space.getKey() ? space.getKey() : builder.getArrayAttr({});
  auto functionType = cast<FunctionType>(kernel.getFunctionType());
  std::string hash = hashKernel(kernel, rs.schedule);
  Location loc = kernel.getLoc();
  auto dispatch =
      DispatchOp::create(builder, loc, baseName, functionType, written,
                         builder.getStrArrayAttr(SmallVector<StringRef>(
                             rs.names.begin(), rs.names.end())),
                         keys, *defaultIndex, hash);
  builder.setInsertionPointToStart(&dispatch.getBody().emplaceBlock());
  for (Survivor &s : survivors) {
    SmallVector<NamedAttribute> entries;
    for (auto [name, value] : llvm::zip(rs.names, s.firstConfig))
      entries.push_back(
          builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
    SymbolRefAttr ref = FlatSymbolRefAttr::get(s.func.getNameAttr());
    if (rs.isGpu())
      ref = SymbolRefAttr::get(
          cast<gpu::GPUModuleOp>(s.func->getParentOp()).getNameAttr(),
          {FlatSymbolRefAttr::get(s.func.getNameAttr())});
    auto optMap = [](AffineMap m) {
      return m ? AffineMapAttr::get(m) : AffineMapAttr();
    };
    VariantOp::create(builder, loc, ref, builder.getDictionaryAttr(entries),
                      optMap(s.spec.grid), optMap(s.spec.block),
                      optMap(s.spec.smem),
                      s.spec.dynamicConstraints.empty()
                          ? ArrayAttr()
                          : builder.getArrayAttr(s.spec.dynamicConstraints));
  }

  if (rs.schedule && !llvm::is_contained(usedSchedules, rs.schedule))
    usedSchedules.push_back(rs.schedule);

  // The original kernel is replaced by its variants; a GPU module left
  // without kernels goes with it.
  Operation *parent = kernel->getParentOp();
  kernel->erase();
  if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(parent))
    if (llvm::none_of(gpuModule.getOps<gpu::GPUFuncOp>(),
                      [](gpu::GPUFuncOp f) { return f.isKernel(); }))
      gpuModule.erase();
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
    auto [it, inserted] = names.try_emplace(kernel.getName(), kernel.getLoc());
    if (!inserted) {
      kernel.emitError() << "two tunable kernels are named '"
                         << kernel.getName()
                         << "'; the runtime finds kernels by name";
      return signalPassFailure();
    }
  }

  usedSchedules.clear();
  for (auto [kernel, space] : kernels)
    if (failed(expandKernel(kernel, space)))
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
