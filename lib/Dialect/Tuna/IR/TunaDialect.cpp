//===- TunaDialect.cpp - The tuna dialect ---------------------------------===//

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tuna;

#include "tuna/Dialect/Tuna/IR/TunaEnums.cpp.inc"
#include "tuna/Dialect/Tuna/IR/TunaOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaOps.cpp.inc"

void TunaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tuna/Dialect/Tuna/IR/TunaAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tuna/Dialect/Tuna/IR/TunaOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// KeyAttr
//===----------------------------------------------------------------------===//

LogicalResult KeyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned arg, std::optional<unsigned> dim,
                              BucketKind bucket, ArrayRef<int64_t> bins) {
  if (bucket != BucketKind::bins) {
    if (!bins.empty())
      return emitError() << "key on argument " << arg
                         << " lists bins but its bucket is '"
                         << stringifyBucketKind(bucket) << "'";
    return success();
  }
  if (bins.empty())
    return emitError() << "key on argument " << arg
                       << " uses 'bins' bucketing but lists no bins";
  for (auto [i, bin] : llvm::enumerate(bins)) {
    if (bin <= 0)
      return emitError() << "key on argument " << arg
                         << ": bins must be positive, got " << bin;
    if (i > 0 && bin <= bins[i - 1])
      return emitError() << "key on argument " << arg
                         << ": bins must be strictly ascending, got " << bin
                         << " after " << bins[i - 1];
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SpaceAttr
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Validation of a space (SpaceAttr::verify and tuna-expand)
//===----------------------------------------------------------------------===//

namespace {
/// A space's parameters as the checks see them. Without its schedule's knobs
/// (`complete` false), names the schedule may add are not checked.
struct ParamSet {
  SmallVector<ParamAttr> declared;
  ArrayRef<ParamAttr> knobs;
  llvm::StringMap<ParamAttr> byName;
  bool complete = true;

  size_t size() const { return declared.size() + knobs.size(); }
  bool isKnob(StringRef name) const {
    return llvm::any_of(knobs, [&](ParamAttr k) { return k.getName() == name; });
  }
  /// Every parameter, declared ones first.
  SmallVector<ParamAttr> all() const {
    SmallVector<ParamAttr> result(declared);
    result.append(knobs.begin(), knobs.end());
    return result;
  }
};
} // namespace

static LogicalResult collectParams(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<ParamAttr> params,
                                   ArrayRef<ParamAttr> knobs, ParamSet &set) {
  set.declared.assign(params.begin(), params.end());
  set.knobs = knobs;
  for (ParamAttr p : set.all())
    if (!set.byName.try_emplace(p.getName(), p).second)
      return emitError() << "parameter '" << p.getName()
                         << "' is declared twice";
  return success();
}

/// Candidates of a cartesian space: every declared parameter lists them
/// (knobs list their options), each once.
static LogicalResult verifyCandidates(function_ref<InFlightDiagnostic()> emitError,
                                      const ParamSet &params) {
  for (ParamAttr p : params.declared) {
    if (p.getValues().empty())
      return emitError() << "parameter '" << p.getName()
                         << "' has no candidate values";
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t v : p.getValues())
      if (!seen.insert(v).second)
        return emitError() << "parameter '" << p.getName()
                           << "' lists candidate " << v << " twice";
  }
  return success();
}

/// `what` (a config or the defaults) binds every parameter to an integer and
/// nothing else.
static LogicalResult verifyBinding(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef what, DictionaryAttr binding,
                                   const ParamSet &params) {
  for (NamedAttribute entry : binding) {
    if (!params.byName.count(entry.getName()) && params.complete)
      return emitError() << what << " binds unknown parameter '"
                         << entry.getName().getValue() << "'";
    if (!isa<IntegerAttr>(entry.getValue()))
      return emitError() << what << " binds '" << entry.getName().getValue()
                         << "' to a non-integer " << entry.getValue();
  }
  for (ParamAttr p : params.all())
    if (!binding.get(p.getName()))
      return emitError() << what << " does not bind parameter '"
                         << p.getName() << "'";
  return success();
}

/// Explicit configurations: the declared parameters list no candidates and
/// every configuration binds every parameter.
static LogicalResult verifyConfigs(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayAttr configs, const ParamSet &params) {
  if (configs.empty())
    return emitError() << "'configs' is empty";
  for (ParamAttr p : params.declared)
    if (!p.getValues().empty())
      return emitError() << "parameter '" << p.getName()
                         << "' lists candidates but the space has explicit "
                            "'configs'";
  for (auto [i, a] : llvm::enumerate(configs)) {
    auto config = dyn_cast<DictionaryAttr>(a);
    if (!config)
      return emitError() << "config #" << i << " must be a dictionary, got "
                         << a;
    if (failed(verifyBinding(emitError, "config #" + std::to_string(i), config,
                             params)))
      return failure();
  }
  return success();
}

/// The default configuration binds every parameter to one of its candidates
/// (or is one of the listed configurations).
static LogicalResult verifyDefaults(function_ref<InFlightDiagnostic()> emitError,
                                    DictionaryAttr defaults, ArrayAttr configs,
                                    const ParamSet &params) {
  if (!defaults) {
    if (params.size() == 0)
      return success();
    return emitError() << "the space has no 'defaults' configuration";
  }
  if (failed(verifyBinding(emitError, "'defaults'", defaults, params)))
    return failure();
  for (NamedAttribute entry : defaults) {
    auto it = params.byName.find(entry.getName());
    if (it == params.byName.end() ||
        (configs && !params.isKnob(entry.getName())))
      continue;
    int64_t value = cast<IntegerAttr>(entry.getValue()).getInt();
    if (!llvm::is_contained(it->second.getValues(), value))
      return emitError() << "default value " << value << " of parameter '"
                         << entry.getName().getValue()
                         << "' is not one of its candidates";
  }
  SmallVector<ParamAttr> all = params.all();
  if (configs && llvm::none_of(configs, [&](Attribute c) {
        auto config = cast<DictionaryAttr>(c);
        return llvm::all_of(all, [&](ParamAttr p) {
          return config.get(p.getName()) == defaults.get(p.getName());
        });
      }))
    return emitError() << "'defaults' is not one of the listed 'configs'";
  return success();
}

static LogicalResult verifyMap(function_ref<InFlightDiagnostic()> emitError,
                               StringRef what, AffineMapAttr map,
                               unsigned maxResults, unsigned numKeys,
                               std::optional<unsigned> numParams) {
  if (!map)
    return success();
  AffineMap m = map.getValue();
  if (m.getNumResults() < 1 || m.getNumResults() > maxResults) {
    auto diag = emitError() << "'" << what << "' must have ";
    if (maxResults == 1)
      diag << "1 result";
    else
      diag << "1 to " << maxResults << " results";
    return diag << ", got " << m.getNumResults();
  }
  if (m.getNumDims() != numKeys)
    return emitError() << "'" << what << "' takes " << m.getNumDims()
                       << " dimension(s) but the key has " << numKeys
                       << " component(s)";
  if (numParams && m.getNumSymbols() != *numParams)
    return emitError() << "'" << what << "' takes " << m.getNumSymbols()
                       << " symbol(s) but the space declares " << *numParams
                       << " parameter(s)";
  return success();
}

/// Constraint #i: its dimensions are the key, its symbols the parameters,
/// and the key components it reads are exact (a launch-time condition must
/// hold for every value of a signature's bucket).
static LogicalResult
verifyConstraint(function_ref<InFlightDiagnostic()> emitError, size_t i,
                 Attribute attr, ArrayRef<KeyAttr> key,
                 std::optional<unsigned> numParams) {
  auto setAttr = dyn_cast<IntegerSetAttr>(attr);
  if (!setAttr)
    return emitError() << "constraint #" << i << " must be an affine_set, got "
                       << attr;
  IntegerSet set = setAttr.getValue();
  if (set.getNumDims() != key.size())
    return emitError() << "constraint #" << i << " takes " << set.getNumDims()
                       << " dimension(s) but the key has " << key.size()
                       << " component(s)";
  if (numParams && set.getNumSymbols() != *numParams)
    return emitError() << "constraint #" << i << " takes "
                       << set.getNumSymbols()
                       << " symbol(s) but the space declares " << *numParams
                       << " parameter(s)";
  for (auto [d, k] : llvm::enumerate(key)) {
    bool reads = llvm::any_of(set.getConstraints(), [&](AffineExpr e) {
      return e.isFunctionOfDim(d);
    });
    if (reads && k.getBucket() != BucketKind::exact)
      return emitError() << "constraint #" << i << " reads key component " << d
                         << " (argument " << k.getArg()
                         << "), which must then use 'exact' bucketing, not '"
                         << stringifyBucketKind(k.getBucket()) << "'";
  }
  return success();
}

LogicalResult mlir::tuna::verifySpace(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<ParamAttr> params,
    ArrayAttr configs, DictionaryAttr defaults, ArrayAttr constraints,
    ArrayRef<KeyAttr> key, AffineMapAttr grid, AffineMapAttr block,
    AffineMapAttr smem, AffineMapAttr cluster, bool hasSchedule,
    std::optional<ArrayRef<ParamAttr>> knobs) {
  ParamSet set;
  set.complete = !hasSchedule || knobs.has_value();
  if (failed(collectParams(emitError, params, knobs.value_or(ArrayRef<ParamAttr>()),
                           set)))
    return failure();
  if (set.size() == 0 && set.complete)
    return emitError() << "the space declares no parameters"
                       << (hasSchedule ? " and its schedule has no unresolved "
                                         "knobs"
                                       : "");
  if (failed(configs ? verifyConfigs(emitError, configs, set)
                     : verifyCandidates(emitError, set)) ||
      failed(verifyDefaults(emitError, defaults, configs, set)))
    return failure();
  // Maps and sets take one symbol per parameter, knobs included.
  std::optional<unsigned> numParams;
  if (set.complete)
    numParams = set.size();
  if (failed(verifyMap(emitError, "grid", grid, 3, key.size(), numParams)) ||
      failed(verifyMap(emitError, "block", block, 3, key.size(), numParams)) ||
      failed(verifyMap(emitError, "smem", smem, 1, key.size(), numParams)) ||
      failed(verifyMap(emitError, "cluster", cluster, 3, key.size(),
                       numParams)))
    return failure();
  if (cluster)
    for (unsigned d = 0; d < key.size(); ++d)
      if (llvm::any_of(cluster.getValue().getResults(), [&](AffineExpr e) {
            return e.isFunctionOfDim(d);
          }))
        return emitError() << "'cluster' reads key component " << d
                           << "; a variant's cluster is fixed when it is "
                              "compiled, so it may read only parameters";
  if (constraints)
    for (auto [i, a] : llvm::enumerate(constraints))
      if (failed(verifyConstraint(emitError, i, a, key, numParams)))
        return failure();
  return success();
}

LogicalResult SpaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<ParamAttr> params, ArrayAttr configs,
                                DictionaryAttr defaults, ArrayAttr constraints,
                                ArrayRef<KeyAttr> key, AffineMapAttr grid,
                                AffineMapAttr block, AffineMapAttr smem,
                                AffineMapAttr cluster,
                                SymbolRefAttr schedule) {
  return verifySpace(emitError, params, configs, defaults, constraints, key,
                     grid, block, smem, cluster,
                     /*hasSchedule=*/bool(schedule),
                     /*knobs=*/std::nullopt);
}

//===----------------------------------------------------------------------===//
// Attaching a space to a kernel
//===----------------------------------------------------------------------===//

/// Checks that every key component reads an argument that exists and has
/// the right type: an integer or index scalar, or a memref with the dimension
/// named. Used for kernels and for the dispatch tables written from them.
static LogicalResult
verifyKeyArguments(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<KeyAttr> keys, ArrayRef<Type> argTypes) {
  for (auto [i, key] : llvm::enumerate(keys)) {
    if (key.getArg() >= argTypes.size())
      return emitError() << "key component " << i << " names argument "
                         << key.getArg() << " but the kernel has "
                         << argTypes.size() << " argument(s)";
    Type type = argTypes[key.getArg()];
    if (std::optional<unsigned> dim = key.getDim()) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        return emitError() << "key component " << i << " reads dimension "
                           << *dim << " of argument " << key.getArg()
                           << ", which is not a ranked memref but " << type;
      if (*dim >= memref.getRank())
        return emitError() << "key component " << i << " reads dimension "
                           << *dim << " of argument " << key.getArg()
                           << ", which has rank " << memref.getRank();
    } else if (!type.isSignlessIntOrIndex()) {
      return emitError() << "key component " << i << " reads argument "
                         << key.getArg() << " as an integer, but its type is "
                         << type << " (name a memref dimension with 'dim = N')";
    }
  }
  return success();
}

static bool isGpuKernel(Operation *op) {
  auto func = dyn_cast<gpu::GPUFuncOp>(op);
  return func && func.isKernel();
}

LogicalResult TunaDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getUnrollAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || op->getName().getStringRef() != "scf.for")
      return op->emitError()
             << "'tuna.unroll' must be a unit attribute on an scf.for";
    return success();
  }
  if (attr.getName() == getPlannedKernelAttrName()) {
    if (!isa<SymbolRefAttr>(attr.getValue()) || !isa<DispatchOp>(op))
      return op->emitError() << "'tuna.planned_kernel' must be a symbol "
                                "reference on a tuna.dispatch";
    return success();
  }
  if (attr.getName() != getSpaceAttrName())
    return op->emitError() << "unknown tuna attribute '"
                           << attr.getName().getValue() << "'";
  auto space = dyn_cast<SpaceAttr>(attr.getValue());
  if (!space)
    return op->emitError() << "'tuna.space' must be a #tuna.space attribute";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'tuna.space' must be attached to a function";

  if (failed(verifyKeyArguments([&] { return op->emitError(); },
                                 space.getKey(), func.getArgumentTypes())))
    return failure();

  if (isGpuKernel(op)) {
    if (!space.getGrid() || !space.getBlock())
      return op->emitError()
             << "GPU kernel with a tuning space needs 'grid' and 'block'";
  } else if (isa<gpu::GPUFuncOp>(op)) {
    return op->emitError() << "'tuna.space' on a gpu.func that is not a kernel";
  } else if (space.getGrid() || space.getBlock() || space.getSmem() ||
             space.getCluster()) {
    return op->emitError()
           << "host kernels take no 'grid', 'block', 'smem' or 'cluster'";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  SpaceAttr space;
  while (func && !space) {
    space = func->getAttrOfType<SpaceAttr>(TunaDialect::getSpaceAttrName());
    if (!space)
      func = func->getParentOfType<FunctionOpInterface>();
  }
  if (!space)
    return emitOpError() << "must be inside a kernel that has a 'tuna.space'";
  if (space.getSchedule())
    return success(); // Knob names are resolved by tuna-expand.
  for (ParamAttr p : space.getParams())
    if (p.getName() == getName())
      return success();
  auto diag = emitOpError() << "reads unknown parameter '" << getName()
                            << "'; the space declares:";
  for (ParamAttr p : space.getParams())
    diag << " '" << p.getName() << "'";
  return diag;
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

LogicalResult DispatchOp::verify() {
  auto variants = llvm::to_vector(getBody().front().getOps<VariantOp>());
  if (variants.empty())
    return emitOpError() << "has no variants";
  if (getDefaultVariant() < 0 ||
      getDefaultVariant() >= static_cast<int64_t>(variants.size()))
    return emitOpError() << "default variant " << getDefaultVariant()
                         << " is out of range [0, " << variants.size() << ")";
  unsigned numArgs = getFunctionType().getNumInputs();
  for (int64_t arg : getWrittenArgs())
    if (arg < 0 || arg >= numArgs)
      return emitOpError() << "written argument " << arg << " is out of range";
  SmallVector<KeyAttr> keys(getKey().getAsRange<KeyAttr>());
  if (failed(verifyKeyArguments([&] { return emitOpError(); }, keys,
                                getFunctionType().getInputs())))
    return failure();
  unsigned numKeys = keys.size();
  for (VariantOp v : variants) {
    for (std::optional<AffineMap> map :
         {v.getGrid(), v.getBlock(), v.getSmem(), v.getCluster()})
      if (map && (map->getNumDims() != numKeys || map->getNumSymbols() != 0))
        return v.emitOpError() << "maps must take the " << numKeys
                               << " key value(s) and no symbols";
    if (std::optional<ArrayAttr> sets = v.getConstraints())
      for (Attribute a : *sets) {
        IntegerSet set = cast<IntegerSetAttr>(a).getValue();
        if (set.getNumDims() != numKeys || set.getNumSymbols() != 0)
          return v.emitOpError() << "constraints must take the " << numKeys
                                 << " key value(s) and no symbols";
      }
  }
  return success();
}

/// Every variant is called with the dispatch's ABI: a kernel of another type
/// would read its arguments from the wrong places. Kernels that are not found
/// or no longer have a builtin function type (lowered to LLVM, or compiled
/// into a gpu.binary) are not checked.
LogicalResult
DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FunctionType expected = getFunctionType();
  for (auto [i, variant] :
       llvm::enumerate(getBody().front().getOps<VariantOp>())) {
    Operation *kernel =
        symbolTable.lookupNearestSymbolFrom(*this, variant.getKernel());
    if (!kernel)
      continue;
    auto func = dyn_cast<FunctionOpInterface>(kernel);
    if (!func)
      return emitOpError() << "variant #" << i << " names "
                           << variant.getKernel() << ", which is not a function";
    auto type = dyn_cast<FunctionType>(func.getFunctionType());
    if (type && type != expected)
      return emitOpError() << "variant #" << i << " kernel "
                           << variant.getKernel() << " has type " << type
                           << " but dispatch @" << getSymName()
                           << " declares function_type " << expected;
  }
  return success();
}
