//===- SpaceResolver.cpp - Resolve and plan a kernel's tuning space -------===//
//
// Step 1 of tuna-expand (see Expand.h): what the configurations of a kernel
// are, and what each turns into. Planning never changes the IR:
//
//  1. resolve: the declared parameters plus the unresolved knobs of the
//     schedule, checked with verifySpace (the same validation as the
//     attribute's verifier, now that every parameter is known), and the
//     defaults and listed configurations as value vectors;
//  2. enumerate: the listed configurations, or the cartesian product of the
//     candidates (the first parameter varying slowest);
//  3. plan each configuration: decide the constraints that no longer read
//     the key, evaluate every launch-map term the parameters decide in
//     checked int64 arithmetic, substitute the parameters into the maps and
//     the remaining (launch-time) constraints, and check the static limits.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tuna-expand"

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::expand;

bool ResolvedSpace::isGpu() const {
  return isa<gpu::GPUFuncOp>(getKernel().getOperation());
}

std::string ResolvedSpace::format(ArrayRef<int64_t> config) const {
  std::string s = "{";
  for (auto [i, name] : llvm::enumerate(names))
    s += (i ? ", " : "") + name + " = " + std::to_string(config[i]);
  return s + "}";
}

//===----------------------------------------------------------------------===//
// Resolving
//===----------------------------------------------------------------------===//

/// Bytes of one workgroup buffer, or nothing when its size is unknown: a
/// dynamic shape, an element count that overflows, or elements that are
/// neither integers, floats, index nor vectors of them. Index elements take
/// the data layout's index size.
static std::optional<int64_t> workgroupBufferBytes(MemRefType type,
                                                   const DataLayout &layout) {
  if (!type.hasStaticShape())
    return std::nullopt;
  int64_t elements = 1;
  for (int64_t size : type.getShape())
    if (llvm::MulOverflow(elements, size, elements))
      return std::nullopt;
  Type elementType = type.getElementType();
  if (isa<IndexType>(getElementTypeOrSelf(elementType))) {
    int64_t bytes;
    if (llvm::MulOverflow(
            elements, static_cast<int64_t>(layout.getTypeSize(elementType)),
            bytes))
      return std::nullopt;
    return bytes;
  }
  // The element count is known not to overflow; upstream multiplies it by
  // the element size in uint64.
  std::optional<uint64_t> bytes = affine::getIntOrFloatMemRefSizeInBytes(type);
  if (!bytes || *bytes > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return static_cast<int64_t>(*bytes);
}

/// Bytes of workgroup memory a GPU kernel declares; an error naming the
/// buffer when one has no known size.
/// With `vscale`, scalable vector types take their width at that value.
static FailureOr<int64_t>
staticWorkgroupBytes(gpu::GPUFuncOp func,
                     std::optional<int64_t> vscale = std::nullopt) {
  DataLayout layout = DataLayout::closest(func);
  int64_t total = 0;
  for (auto [i, arg] : llvm::enumerate(func.getWorkgroupAttributions())) {
    Type argType =
        vscale ? fixVectorWidths(arg.getType(), *vscale) : arg.getType();
    auto type = dyn_cast<MemRefType>(argType);
    std::optional<int64_t> bytes =
        type ? workgroupBufferBytes(type, layout) : std::nullopt;
    if (!bytes || llvm::AddOverflow(total, *bytes, total))
      return func.emitError()
             << "kernel '" << func.getName() << "': workgroup buffer #" << i
             << " of type " << arg.getType()
             << " has no known size in bytes (a static shape of integers, "
                "floats, index or vectors of them is expected)";
  }
  return total;
}

/// The unresolved knobs of the space's schedule, as parameters whose
/// candidates are the knobs' options.
static LogicalResult resolveKnobs(ResolvedSpace &rs, SymbolRefAttr ref,
                                  SmallVectorImpl<ParamAttr> &knobParams) {
  FunctionOpInterface kernel = rs.kernel;
  Operation *found = SymbolTable::lookupNearestSymbolFrom(kernel, ref);
  rs.schedule = dyn_cast_or_null<transform::NamedSequenceOp>(found);
  if (!rs.schedule)
    return kernel.emitError()
           << "schedule " << ref << " is not a transform.named_sequence";
  WalkResult walk = rs.schedule.walk([&](transform::tune::KnobOp knob) {
    if (knob.getSelected())
      return WalkResult::advance();
    StringRef name = knob.getName().getValue();
    auto options = dyn_cast<ArrayAttr>(knob.getOptions());
    if (!options || options.empty() ||
        !llvm::all_of(options, llvm::IsaPred<IntegerAttr>)) {
      knob.emitError() << "knob '" << name << "' used by kernel '"
                       << kernel.getName() << "' must list integer options";
      return WalkResult::interrupt();
    }
    if (llvm::is_contained(rs.names, name)) {
      knob.emitError() << "knob '" << name
                       << "' has the name of a parameter of kernel '"
                       << kernel.getName() << "'";
      return WalkResult::interrupt();
    }
    SmallVector<int64_t> values = llvm::to_vector(llvm::map_range(
        options, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
    rs.knobs.push_back({knob, static_cast<unsigned>(rs.names.size())});
    rs.names.push_back(name.str());
    rs.candidates.push_back(values);
    knobParams.push_back(ParamAttr::get(kernel.getContext(), name, values));
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

std::string expand::describeVscaleUse(Operation *op) {
  if (isa<vector::VectorScaleOp>(op))
    return "'vector.vscale'";
  std::optional<Type> found;
  auto check = [&](Type type) {
    if (!found && isScalableVectorLike(type))
      found = type;
  };
  llvm::for_each(op->getResultTypes(), check);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      llvm::for_each(block.getArgumentTypes(), check);
  op->getAttrDictionary().walk(check);
  if (!found)
    return "";
  std::string text;
  llvm::raw_string_ostream(text) << "the scalable vector type '" << *found
                                  << "'";
  return text;
}

/// A kernel whose space names no `vscale` has no use for scalable vectors:
/// an error at the first op that has one.
static LogicalResult verifyNoVscaleUse(FunctionOpInterface kernel) {
  // The kernel itself for its workgroup buffers, typed by block arguments.
  WalkResult walk = kernel->walk([&](Operation *op) {
    std::string use = describeVscaleUse(op);
    if (use.empty())
      return WalkResult::advance();
    op->emitError() << "kernel '" << kernel.getName() << "' uses " << use
                    << " but its space names no 'vscale' parameter to fix "
                       "the width";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The bytes of the kernel's workgroup buffers: for each value of `vscale`
/// when a buffer has a scalable vector type.
static LogicalResult resolveWorkgroupBytes(ResolvedSpace &rs,
                                           gpu::GPUFuncOp func) {
  bool scalable = llvm::any_of(func.getWorkgroupAttributions(),
                               [](BlockArgument arg) {
                                 return isScalableVectorLike(arg.getType());
                               });
  if (!scalable) {
    FailureOr<int64_t> bytes = staticWorkgroupBytes(func);
    if (failed(bytes))
      return failure();
    rs.workgroupBytes = *bytes;
    return success();
  }
  SmallVector<int64_t> values;
  if (rs.explicitConfigs.empty())
    values = rs.candidates[*rs.vscaleParam];
  for (ArrayRef<int64_t> config : rs.explicitConfigs)
    values.push_back(config[*rs.vscaleParam]);
  for (int64_t vscale : values) {
    FailureOr<int64_t> bytes = staticWorkgroupBytes(func, vscale);
    if (failed(bytes))
      return failure();
    rs.workgroupBytesByVscale[vscale] = *bytes;
  }
  return success();
}

int64_t ResolvedSpace::getWorkgroupBytes(ArrayRef<int64_t> config) const {
  if (workgroupBytesByVscale.empty())
    return workgroupBytes;
  return workgroupBytesByVscale.lookup(config[*vscaleParam]);
}

/// The values of a binding (checked by verifySpace) in parameter order.
static Config bindingValues(const ResolvedSpace &rs, DictionaryAttr binding) {
  Config values;
  for (StringRef name : rs.names)
    values.push_back(cast<IntegerAttr>(binding.get(name)).getInt());
  return values;
}

FailureOr<ResolvedSpace> expand::resolveSpace(FunctionOpInterface kernel,
                                              SpaceAttr space) {
  ResolvedSpace rs;
  rs.kernel = kernel;
  rs.space = space;
  ArrayRef<ParamAttr> params = space.getParams();
  for (ParamAttr p : params) {
    rs.names.push_back(p.getName().str());
    rs.candidates.emplace_back(p.getValues());
  }
  SmallVector<ParamAttr> knobParams;
  if (SymbolRefAttr ref = space.getSchedule())
    if (failed(resolveKnobs(rs, ref, knobParams)))
      return failure();

  auto emitError = [&] {
    return kernel.emitError() << "kernel '" << kernel.getName() << "': ";
  };
  if (failed(verifySpace(emitError, params, space.getConfigs(),
                         space.getDefaults(), space.getConstraints(),
                         space.getKey(), space.getGrid(), space.getBlock(),
                         space.getSmem(), space.getCluster(),
                         space.getMinBlocks(), space.getVscale(),
                         space.getTensorMaps(),
                         bool(space.getSchedule()),
                         ArrayRef<ParamAttr>(knobParams))))
    return failure();

  if (StringAttr vscale = space.getVscale())
    rs.vscaleParam = llvm::find(rs.names, vscale.getValue()) - rs.names.begin();
  else if (failed(verifyNoVscaleUse(kernel)))
    return failure();

  rs.defaults = bindingValues(rs, space.getDefaults());
  if (ArrayAttr configs = space.getConfigs())
    for (Attribute config : configs)
      rs.explicitConfigs.push_back(
          bindingValues(rs, cast<DictionaryAttr>(config)));
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel.getOperation()))
    if (failed(resolveWorkgroupBytes(rs, func)))
      return failure();
  // The dialect's verifier checked that each map describes a memref of a
  // type TMA describes.
  for (TensorMapAttr map : space.getTensorMaps())
    rs.tensorMapElementBytes.push_back(*getTensorMapElementBytes(
        cast<MemRefType>(kernel.getArgumentTypes()[map.getArg()])
            .getElementType()));
  return rs;
}

//===----------------------------------------------------------------------===//
// Enumerating
//===----------------------------------------------------------------------===//

/// Number of configurations, saturated at 2^40.
static uint64_t countConfigs(const ResolvedSpace &rs) {
  if (!rs.explicitConfigs.empty())
    return rs.explicitConfigs.size();
  uint64_t count = 1;
  for (ArrayRef<int64_t> values : rs.candidates)
    count = std::min<uint64_t>(count * values.size(), uint64_t(1) << 40);
  return count;
}

static SmallVector<Config> enumerateConfigs(const ResolvedSpace &rs) {
  if (!rs.explicitConfigs.empty())
    return rs.explicitConfigs;
  SmallVector<Config> configs{{}};
  for (ArrayRef<int64_t> values : rs.candidates) {
    SmallVector<Config> next;
    for (const Config &prefix : configs)
      for (int64_t v : values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    configs = std::move(next);
  }
  return configs;
}

//===----------------------------------------------------------------------===//
// Planning one configuration
//===----------------------------------------------------------------------===//

/// `lhs <kind> rhs` in int64, or nothing when it overflows or divides by a
/// divisor that is not positive (affine divisions are only defined for
/// positive divisors).
static std::optional<int64_t> applyChecked(AffineExprKind kind, int64_t lhs,
                                           int64_t rhs) {
  int64_t result;
  switch (kind) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(lhs, rhs, result))
      return std::nullopt;
    return result;
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(lhs, rhs, result))
      return std::nullopt;
    return result;
  default:
    break;
  }
  if (rhs <= 0)
    return std::nullopt;
  if (kind == AffineExprKind::FloorDiv)
    return llvm::divideFloorSigned(lhs, rhs);
  if (kind == AffineExprKind::CeilDiv)
    return llvm::divideCeilSigned(lhs, rhs);
  int64_t remainder = lhs % rhs;
  return remainder < 0 ? remainder + rhs : remainder;
}

/// The value of `expr`, whose first `numKeySymbols` symbols are key values
/// and the others the parameters, with the parameters of `config`
/// substituted, in exact int64 arithmetic: nothing when it reads a key value,
/// failure when a term that reads none overflows or divides by zero or a
/// negative value. MLIR's own folding leaves such terms unfolded, so they
/// would reach the runtime; a configuration with one is dropped instead.
static FailureOr<std::optional<int64_t>>
evaluateTerms(AffineExpr expr, ArrayRef<int64_t> config,
              unsigned numKeySymbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return std::optional<int64_t>(c.getValue());
  if (auto sym = dyn_cast<AffineSymbolExpr>(expr)) {
    if (sym.getPosition() < numKeySymbols)
      return std::optional<int64_t>();
    return std::optional<int64_t>(config[sym.getPosition() - numKeySymbols]);
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::optional<int64_t>(); // A dimension.
  FailureOr<std::optional<int64_t>> lhs =
      evaluateTerms(binary.getLHS(), config, numKeySymbols);
  FailureOr<std::optional<int64_t>> rhs =
      evaluateTerms(binary.getRHS(), config, numKeySymbols);
  if (failed(lhs) || failed(rhs))
    return failure();
  bool isDivision = binary.getKind() != AffineExprKind::Add &&
                    binary.getKind() != AffineExprKind::Mul;
  if (isDivision && *rhs && **rhs <= 0)
    return failure();
  if (!*lhs || !*rhs)
    return std::optional<int64_t>();
  std::optional<int64_t> value = applyChecked(binary.getKind(), **lhs, **rhs);
  if (!value)
    return failure();
  return value;
}

/// Whether every expression can be evaluated for `config`; see
/// evaluateTerms.
static bool isEvaluable(ArrayRef<AffineExpr> exprs, ArrayRef<int64_t> config,
                        unsigned numKeySymbols) {
  return llvm::all_of(exprs, [&](AffineExpr e) {
    return succeeded(evaluateTerms(e, config, numKeySymbols));
  });
}

/// A map's or set's inputs with the parameters replaced by `params`: its
/// dimensions, then the symbols that are key values (see verifySpace), so
/// that the result takes the key values only, as it did.
struct KeyInputs {
  SmallVector<AffineExpr> dims, symbols;
  unsigned numKeySymbols;

  KeyInputs(unsigned numDims, size_t numKeys, ArrayRef<AffineExpr> params,
            MLIRContext *ctx)
      : numKeySymbols(numKeys - numDims) {
    for (unsigned d = 0; d < numDims; ++d)
      dims.push_back(getAffineDimExpr(d, ctx));
    for (unsigned s = 0; s < numKeySymbols; ++s)
      symbols.push_back(getAffineSymbolExpr(s, ctx));
    llvm::append_range(symbols, params);
  }
};

static AffineMap specializeMap(AffineMap map, const KeyInputs &inputs) {
  return simplifyAffineMap(map.replaceDimsAndSymbols(
      inputs.dims, inputs.symbols, inputs.dims.size(), inputs.numKeySymbols));
}

/// Product of the results of a map, or nothing when one is not constant or
/// the product overflows int64.
static std::optional<int64_t> constantProduct(AffineMap map) {
  int64_t product = 1;
  for (AffineExpr e : map.getResults()) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || llvm::MulOverflow(product, c.getValue(), product))
      return std::nullopt;
  }
  return product;
}

static bool isConstantMap(AffineMap map) {
  return llvm::all_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>);
}

/// A reason to drop a configuration; empty when it is kept.
using DropReason = std::string;

/// Constraint #i with the parameters substituted: decided now (a reason to
/// drop, or kept with nothing left), or its launch-time part appended to
/// `dynamic`.
static DropReason planConstraint(size_t i, IntegerSet set, size_t numKeys,
                                 ArrayRef<int64_t> config,
                                 ArrayRef<AffineExpr> params,
                                 SmallVectorImpl<Attribute> &dynamic) {
  KeyInputs inputs(set.getNumDims(), numKeys, params, set.getContext());
  if (!isEvaluable(set.getConstraints(), config, inputs.numKeySymbols))
    return "constraint #" + std::to_string(i) +
           " overflows int64 or divides by a value that is not positive";
  IntegerSet specialized = set.replaceDimsAndSymbols(
      inputs.dims, inputs.symbols, inputs.dims.size(), inputs.numKeySymbols);
  SmallVector<AffineExpr> dynamicExprs;
  SmallVector<bool> dynamicEqs;
  for (auto [expr, isEq] :
       llvm::zip(specialized.getConstraints(), specialized.getEqFlags())) {
    AffineExpr e = simplifyAffineExpr(expr, inputs.dims.size(),
                                      inputs.numKeySymbols);
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (isEq ? c.getValue() != 0 : c.getValue() < 0)
        return "it breaks constraint #" + std::to_string(i);
      continue;
    }
    dynamicExprs.push_back(e);
    dynamicEqs.push_back(isEq);
  }
  if (!dynamicExprs.empty())
    dynamic.push_back(IntegerSetAttr::get(
        IntegerSet::get(inputs.dims.size(), inputs.numKeySymbols,
                        dynamicExprs, dynamicEqs)));
  return {};
}

/// The launch maps: each term that the configuration decides must be
/// computable, and a size that it makes constant must be usable: a grid or
/// block of no thread never does the kernel's work, and would win tuning.
static DropReason planLaunchMaps(const ResolvedSpace &rs,
                                 ArrayRef<int64_t> config,
                                 ArrayRef<AffineExpr> params,
                                 PlannedVariant &plan) {
  for (auto [what, attr, minimum, out] :
       {std::tuple{"grid", rs.space.getGrid(), int64_t(1), &plan.grid},
        std::tuple{"block", rs.space.getBlock(), int64_t(1), &plan.block},
        std::tuple{"smem", rs.space.getSmem(), int64_t(0), &plan.smem},
        std::tuple{"cluster", rs.space.getCluster(), int64_t(1),
                   &plan.cluster},
        std::tuple{"min_blocks", rs.space.getMinBlocks(), int64_t(1),
                   &plan.minBlocks}}) {
    if (!attr)
      continue;
    AffineMap map = attr.getValue();
    KeyInputs inputs(map.getNumDims(), rs.space.getKey().size(), params,
                     map.getContext());
    if (!isEvaluable(map.getResults(), config, inputs.numKeySymbols))
      return std::string("its '") + what +
             "' map overflows int64 or divides by a value that is not "
             "positive";
    *out = specializeMap(map, inputs);
    for (AffineExpr e : out->getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(e);
          c && c.getValue() < minimum)
        return std::string("its '") + what + "' map gives " +
               std::to_string(c.getValue()) + " (at least " +
               std::to_string(minimum) + " is needed)";
  }
  return {};
}

/// The box of every tensor map with the parameters substituted: computable,
/// and within TMA's rules where it is constant (the runtime checks the rest
/// at launch). A box breaks them for the configuration whether or not its
/// variant uses the map: which maps a variant uses is known only once it is
/// built.
static DropReason planTensorMaps(const ResolvedSpace &rs,
                                 ArrayRef<int64_t> config,
                                 ArrayRef<AffineExpr> params,
                                 PlannedVariant &plan) {
  for (auto [i, map] : llvm::enumerate(rs.space.getTensorMaps())) {
    AffineMap box = map.getBox().getValue();
    KeyInputs inputs(box.getNumDims(), rs.space.getKey().size(), params,
                     box.getContext());
    if (!isEvaluable(box.getResults(), config, inputs.numKeySymbols))
      return "the box of tensor map #" + std::to_string(i) +
             " overflows int64 or divides by a value that is not positive";
    AffineMap specialized = specializeMap(box, inputs);
    std::string why =
        checkTensorMapBox(specialized.getResults(),
                          rs.tensorMapElementBytes[i], map.getSwizzle());
    if (!why.empty())
      return "tensor map #" + std::to_string(i) + ": " + why;
    plan.tensorMapBoxes.push_back(specialized);
  }
  return {};
}

/// Blocks in a cluster that Hopper (sm_90) can launch. Over 8 (the portable
/// size) a function launches only with the non-portable attribute set,
/// which the runtime sets when it loads such a function.
static constexpr int64_t kMaxClusterBlocks = 16;

/// The static limits: threads per block, blocks per cluster and shared
/// memory, where the configuration makes them constant.
static DropReason checkLimits(const ResolvedSpace &rs,
                              const PlannedVariant &plan,
                              const Limits &limits) {
  if (plan.block && isConstantMap(plan.block)) {
    std::optional<int64_t> threads = constantProduct(plan.block);
    if (!threads || *threads > limits.maxThreadsPerBlock)
      return "its block has " +
             (threads ? std::to_string(*threads) : "more than 2^63") +
             " threads, over the limit of " +
             std::to_string(limits.maxThreadsPerBlock);
  }
  if (!rs.isGpu())
    return {};
  if (plan.cluster) {
    std::optional<int64_t> blocks = constantProduct(plan.cluster);
    if (!blocks || *blocks > kMaxClusterBlocks)
      return "its cluster has " +
             (blocks ? std::to_string(*blocks) : "more than 2^63") +
             " blocks, over sm_90's limit of " +
             std::to_string(kMaxClusterBlocks);
  }
  std::optional<int64_t> dynamicBytes =
      plan.smem ? constantProduct(plan.smem) : std::optional<int64_t>(0);
  if (!dynamicBytes)
    return {};
  int64_t bytes = 0;
  bool overflows = llvm::AddOverflow(rs.getWorkgroupBytes(plan.config), *dynamicBytes, bytes);
  if (overflows || bytes > limits.maxSharedMemory)
    return "it needs " +
           (overflows ? std::string("over 2^63") : std::to_string(bytes)) +
           " bytes of shared memory, over the limit of " +
           std::to_string(limits.maxSharedMemory);
  return {};
}

/// Plans one configuration; a reason when it is dropped.
static DropReason planConfig(const ResolvedSpace &rs, ArrayRef<int64_t> config,
                             const Limits &limits, PlannedVariant &plan) {
  MLIRContext *ctx = rs.getKernel().getContext();
  SmallVector<AffineExpr> params;
  for (int64_t v : config)
    params.push_back(getAffineConstantExpr(v, ctx));
  plan.config.assign(config.begin(), config.end());
  if (ArrayAttr sets = rs.space.getConstraints())
    for (auto [i, set] : llvm::enumerate(sets.getAsRange<IntegerSetAttr>()))
      if (DropReason why =
              planConstraint(i, set.getValue(), rs.space.getKey().size(),
                             config, params, plan.dynamicConstraints);
          !why.empty())
        return why;
  if (DropReason why = planLaunchMaps(rs, config, params, plan); !why.empty())
    return why;
  if (DropReason why = planTensorMaps(rs, config, params, plan); !why.empty())
    return why;
  return checkLimits(rs, plan, limits);
}

//===----------------------------------------------------------------------===//
// Planning a space
//===----------------------------------------------------------------------===//

FailureOr<SpacePlan>
expand::planSpace(const ResolvedSpace &rs, const Limits &limits,
                  function_ref<void(const DroppedConfig &)> onDropped) {
  FunctionOpInterface kernel = rs.kernel;
  // Refuse oversized spaces before materializing them.
  uint64_t count = countConfigs(rs);
  LDBG() << "kernel '" << kernel.getName() << "': " << count
         << " configuration(s) of " << rs.names.size() << " parameter(s)";
  if (count > static_cast<uint64_t>(limits.maxConfigs))
    return kernel.emitError() << "kernel '" << kernel.getName() << "' has "
                              << count << " configurations, over the limit of "
                              << limits.maxConfigs << " (max-variants)";

  SpacePlan plan;
  std::optional<size_t> defaultVariant;
  DropReason defaultDropReason;
  for (const Config &config : enumerateConfigs(rs)) {
    bool isDefault = ArrayRef<int64_t>(config) == ArrayRef<int64_t>(rs.defaults);
    PlannedVariant variant;
    if (DropReason why = planConfig(rs, config, limits, variant);
        !why.empty()) {
      LDBG() << "  dropped " << rs.format(config) << ": " << why;
      if (isDefault)
        defaultDropReason = why;
      plan.dropped.push_back({config, why});
      onDropped(plan.dropped.back());
      continue;
    }
    LDBG() << "  planned " << rs.format(config)
           << (isDefault ? " (default)" : "");
    if (isDefault)
      defaultVariant = plan.variants.size();
    plan.variants.push_back(std::move(variant));
  }

  if (plan.variants.empty())
    return kernel.emitError()
           << "kernel '" << kernel.getName()
           << "': every configuration breaks a constraint or a limit";
  if (!defaultVariant)
    return kernel.emitError() << "kernel '" << kernel.getName()
                              << "': the default configuration "
                              << rs.format(rs.defaults)
                              << " is dropped: " << defaultDropReason;
  plan.defaultVariant = *defaultVariant;
  return plan;
}
