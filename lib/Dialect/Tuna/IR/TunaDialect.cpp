//===- TunaDialect.cpp - The tuna dialect ---------------------------------===//

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/TargetParser/TargetParser.h"

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
// TargetAttr
//===----------------------------------------------------------------------===//

std::optional<unsigned> mlir::tuna::nvidiaVersion(StringRef chip) {
  unsigned version;
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  chip.consume_back("a");
  if (chip.empty() || chip.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

std::string mlir::tuna::checkChip(TargetArch arch, StringRef chip) {
  switch (arch) {
  case TargetArch::nvptx: {
    std::optional<unsigned> version = nvidiaVersion(chip);
    if (!version)
      return "an NVIDIA chip is written sm_XY";
    if (*version < 75)
      return "an NVIDIA chip is written sm_XY, XY >= 75 (the oldest CUDA 13 "
             "supports)";
    return "";
  }
  case TargetArch::amdgcn:
    if (!chip.starts_with("gfx"))
      return "an AMD chip is written gfxNNN";
    if (llvm::AMDGPU::parseArchAMDGCN(chip) == llvm::AMDGPU::GK_NONE)
      return "an AMD chip is written gfxNNN, a processor LLVM knows, and '" +
             chip.str() + "' is none";
    return "";
  case TargetArch::host:
    break;
  }
  return "the host target takes no chip";
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 TargetArch arch, ArrayAttr chips,
                                 StringAttr min) {
  StringRef archName = stringifyTargetArch(arch);
  if (chips && min)
    return emitError() << "#tuna.target for " << archName
                       << " takes 'chips' or 'min', not both";
  if (min && arch != TargetArch::nvptx)
    return emitError() << "#tuna.target: 'min' is for nvptx chips, not "
                       << archName;
  if (chips && chips.empty())
    return emitError() << "#tuna.target for " << archName
                       << " lists no chips (leave 'chips' out for all)";
  SmallVector<StringAttr> named;
  if (min)
    named.push_back(min);
  for (Attribute chip : chips ? chips.getValue() : ArrayRef<Attribute>()) {
    auto name = dyn_cast<StringAttr>(chip);
    if (!name)
      return emitError() << "#tuna.target for " << archName
                         << ": chips are strings, got " << chip;
    named.push_back(name);
  }
  for (StringAttr chip : named) {
    std::string why = checkChip(arch, chip.getValue());
    if (!why.empty())
      return emitError() << "#tuna.target: bad " << archName << " chip "
                         << chip << ": " << why;
  }
  if (min && min.getValue().ends_with("a"))
    return emitError() << "#tuna.target: 'min' cannot be " << min
                       << ": the features of an 'a' chip run only on it; "
                          "name it in 'chips'";
  return success();
}

bool TargetAttr::admits(TargetArch arch, StringRef chip) const {
  if (arch != getArch())
    return false;
  if (StringAttr min = getMin()) {
    std::optional<unsigned> version = nvidiaVersion(chip);
    return version && *version >= *nvidiaVersion(min.getValue());
  }
  if (ArrayAttr chips = getChips())
    return llvm::any_of(chips, [&](Attribute named) {
      return cast<StringAttr>(named).getValue() == chip;
    });
  return true;
}

std::string TargetAttr::describe() const {
  std::string text = stringifyTargetArch(getArch()).str();
  if (StringAttr min = getMin())
    return text + " (" + min.getValue().str() + " and newer)";
  if (ArrayAttr chips = getChips()) {
    text += " (";
    llvm::interleave(
        chips, [&](Attribute chip) { text += cast<StringAttr>(chip).getValue(); },
        [&] { text += ", "; });
    text += ")";
  }
  return text;
}

bool mlir::tuna::supportsTarget(ArrayRef<TargetAttr> targets, TargetArch arch,
                                StringRef chip) {
  return targets.empty() || llvm::any_of(targets, [&](TargetAttr target) {
           return target.admits(arch, chip);
         });
}

std::string mlir::tuna::describeTargets(ArrayRef<TargetAttr> targets) {
  std::string text;
  for (auto [i, target] : llvm::enumerate(targets)) {
    if (i > 0)
      text += i + 1 == targets.size() ? " and " : ", ";
    text += target.describe();
  }
  return text;
}

//===----------------------------------------------------------------------===//
// TensorMapAttr
//===----------------------------------------------------------------------===//

LogicalResult
TensorMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned arg, AffineMapAttr box, AffineMapAttr shape,
                      unsigned swizzle, unsigned l2Promotion, OobFill oobFill) {
  unsigned rank = box ? box.getValue().getNumResults() : 0;
  if (rank < 1 || rank > kMaxTensorMapRank)
    return emitError() << "tensor map of argument " << arg << ": its box has "
                       << rank << " entries; TMA describes 1 to "
                       << kMaxTensorMapRank << " dimensions";
  if (shape && shape.getValue().getNumResults() != rank)
    return emitError() << "tensor map of argument " << arg << ": its shape has "
                       << shape.getValue().getNumResults()
                       << " sizes and its box " << rank
                       << " entries; the box has one entry per size";
  if (!llvm::is_contained({0u, 32u, 64u, 128u}, swizzle))
    return emitError() << "tensor map of argument " << arg << ": swizzle "
                       << swizzle << " is not one of 0, 32, 64, 128 (bytes)";
  if (!llvm::is_contained({0u, 64u, 128u, 256u}, l2Promotion))
    return emitError() << "tensor map of argument " << arg
                       << ": l2_promotion " << l2Promotion
                       << " is not one of 0, 64, 128, 256 (bytes)";
  return success();
}

std::optional<int64_t> mlir::tuna::getTensorMapElementBytes(Type type) {
  if (type.isF16() || type.isBF16())
    return 2;
  if (type.isF32() || type.isSignlessInteger(32))
    return 4;
  if (type.isF64() || type.isSignlessInteger(64))
    return 8;
  if (type.isSignlessInteger(8))
    return 1;
  return std::nullopt;
}

std::string mlir::tuna::checkTensorMapBox(ArrayRef<AffineExpr> box,
                                          int64_t elementBytes,
                                          unsigned swizzleBytes) {
  for (auto [i, entry] : llvm::enumerate(box))
    if (auto c = dyn_cast<AffineConstantExpr>(entry);
        c && (c.getValue() < 1 || c.getValue() > 256))
      return "box entry " + std::to_string(i) + " is " +
             std::to_string(c.getValue()) +
             " (a TMA box is 1 to 256 elements per dimension)";
  auto inner = box.empty() ? AffineConstantExpr()
                           : dyn_cast<AffineConstantExpr>(box.front());
  if (!inner)
    return {};
  int64_t bytes = inner.getValue() * elementBytes;
  if (bytes % 16 != 0)
    return "its inner box is " + std::to_string(bytes) +
           " bytes, not a multiple of 16";
  if (swizzleBytes != 0 && bytes > swizzleBytes)
    return "its inner box is " + std::to_string(bytes) + " bytes, over the " +
           std::to_string(swizzleBytes) + "-byte swizzle span";
  return {};
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

/// The inputs of a map or set of the space, dimensions first and then
/// symbols, are the key values and then the parameters. A key value may be a
/// symbol: affine expressions multiply and divide by symbols only, so a map
/// that multiplies two key values takes them as symbols. Without the knobs of
/// a schedule (`numParams` unknown), only the key values are checked.
static LogicalResult verifyInputs(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef what, unsigned numDims,
                                  unsigned numSymbols, size_t numKeys,
                                  std::optional<unsigned> numParams) {
  if (numDims > numKeys)
    return emitError() << what << " takes " << numDims
                       << " dimension(s) but the key has " << numKeys
                       << " component(s) (parameters are symbols)";
  size_t keySymbols = numKeys - numDims;
  if (numParams ? numSymbols == keySymbols + *numParams
                : numSymbols >= keySymbols)
    return success();
  auto diag = emitError() << what << " takes " << numDims
                          << " dimension(s) and " << numSymbols
                          << " symbol(s) but the key has " << numKeys
                          << " component(s)";
  if (numParams)
    diag << " and the space declares " << *numParams << " parameter(s)";
  return diag << "; its inputs, dimensions then symbols, are the key values "
                 "then the parameters";
}

/// Whether `exprs`, over the inputs of a map or set of the space whose first
/// `numDims` are dimensions, read key component `d`: a dimension, or a symbol
/// for the key values past the dimensions (see verifyInputs).
static bool readsKeyValue(ArrayRef<AffineExpr> exprs, unsigned numDims,
                          unsigned d) {
  return llvm::any_of(exprs, [&](AffineExpr e) {
    return d < numDims ? e.isFunctionOfDim(d)
                       : e.isFunctionOfSymbol(d - numDims);
  });
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
  return verifyInputs(emitError, ("'" + what + "'").str(), m.getNumDims(),
                      m.getNumSymbols(), numKeys, numParams);
}

/// Constraint #i: its inputs are the key values and the parameters (see
/// verifyInputs), and the key components it reads are exact (a launch-time condition must
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
  if (failed(verifyInputs(emitError, "constraint #" + std::to_string(i),
                          set.getNumDims(), set.getNumSymbols(), key.size(),
                          numParams)))
    return failure();
  for (auto [d, k] : llvm::enumerate(key)) {
    if (readsKeyValue(set.getConstraints(), set.getNumDims(), d) &&
        k.getBucket() != BucketKind::exact)
      return emitError() << "constraint #" << i << " reads key component " << d
                         << " (argument " << k.getArg()
                         << "), which must then use 'exact' bucketing, not '"
                         << stringifyBucketKind(k.getBucket()) << "'";
  }
  return success();
}

/// The `vscale` parameter: declared (or a knob), and every value it can take
/// is a positive integer, as it multiplies vector widths.
static LogicalResult verifyVscale(function_ref<InFlightDiagnostic()> emitError,
                                  StringAttr vscale, ArrayAttr configs,
                                  DictionaryAttr defaults,
                                  const ParamSet &params) {
  if (!vscale)
    return success();
  auto it = params.byName.find(vscale.getValue());
  if (it == params.byName.end()) {
    if (!params.complete)
      return success();
    auto diag = emitError() << "'vscale' names unknown parameter '"
                            << vscale.getValue() << "'; the space declares:";
    for (ParamAttr p : params.all())
      diag << " '" << p.getName() << "'";
    return diag;
  }
  auto checkValue = [&](int64_t value, StringRef where) -> LogicalResult {
    if (value > 0)
      return success();
    return emitError() << "'vscale' parameter '" << vscale.getValue()
                       << "' takes the value " << value << " in " << where
                       << "; a vector width multiple must be positive";
  };
  for (int64_t value : it->second.getValues())
    if (failed(checkValue(value, "its candidates")))
      return failure();
  SmallVector<std::pair<DictionaryAttr, std::string>> bindings;
  if (defaults)
    bindings.push_back({defaults, "'defaults'"});
  if (configs)
    for (auto [i, config] : llvm::enumerate(configs))
      bindings.push_back(
          {cast<DictionaryAttr>(config), "config #" + std::to_string(i)});
  for (auto &[binding, where] : bindings)
    if (auto value = dyn_cast_or_null<IntegerAttr>(binding.get(vscale)))
      if (failed(checkValue(value.getInt(), where)))
        return failure();
  return success();
}

/// The shape of tensor map #i, if any: the inputs of a launch map, of which
/// it reads only the key values (a map's tensor cannot depend on a
/// configuration).
static LogicalResult
verifyTensorMapShape(function_ref<InFlightDiagnostic()> emitError, size_t i,
                     TensorMapAttr map, size_t numKeys,
                     std::optional<unsigned> numParams) {
  if (!map.getShape())
    return success();
  std::string what = "the shape of tensor map #" + std::to_string(i);
  AffineMap shape = map.getShape().getValue();
  if (failed(verifyInputs(emitError, what, shape.getNumDims(),
                          shape.getNumSymbols(), numKeys, numParams)))
    return failure();
  unsigned keySymbols = numKeys - shape.getNumDims();
  for (AffineExpr size : shape.getResults()) {
    bool readsParam = false;
    size.walk([&](AffineExpr e) {
      if (auto symbol = dyn_cast<AffineSymbolExpr>(e))
        readsParam |= symbol.getPosition() >= keySymbols;
    });
    if (readsParam)
      return emitError() << what
                         << " reads a parameter; a shape is a function of "
                            "the key values";
  }
  return success();
}

/// The box of every tensor map takes the inputs of a launch map, and the key
/// components it reads are exact, as for launch-time constraints: the box a
/// variant takes must be the same for every value of a signature's bucket.
static LogicalResult
verifyTensorMapBoxes(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<TensorMapAttr> maps, ArrayRef<KeyAttr> key,
                     std::optional<unsigned> numParams) {
  for (auto [i, map] : llvm::enumerate(maps)) {
    if (failed(verifyTensorMapShape(emitError, i, map, key.size(), numParams)))
      return failure();
    std::string what = "the box of tensor map #" + std::to_string(i);
    AffineMap box = map.getBox().getValue();
    if (failed(verifyInputs(emitError, what, box.getNumDims(),
                            box.getNumSymbols(), key.size(), numParams)))
      return failure();
    for (auto [d, k] : llvm::enumerate(key))
      if (readsKeyValue(box.getResults(), box.getNumDims(), d) &&
          k.getBucket() != BucketKind::exact)
        return emitError() << what << " reads key component " << d
                           << " (argument " << k.getArg()
                           << "), which must then use 'exact' bucketing, "
                              "not '"
                           << stringifyBucketKind(k.getBucket()) << "'";
  }
  return success();
}

LogicalResult mlir::tuna::verifySpace(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<ParamAttr> params,
    ArrayAttr configs, DictionaryAttr defaults, ArrayAttr constraints,
    ArrayRef<KeyAttr> key, AffineMapAttr grid, AffineMapAttr block,
    AffineMapAttr smem, AffineMapAttr cluster, AffineMapAttr minBlocks,
    StringAttr vscale, ArrayRef<TensorMapAttr> tensorMaps, bool hasSchedule,
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
      failed(verifyDefaults(emitError, defaults, configs, set)) ||
      failed(verifyVscale(emitError, vscale, configs, defaults, set)))
    return failure();
  // Maps and sets take one symbol per parameter, knobs included.
  std::optional<unsigned> numParams;
  if (set.complete)
    numParams = set.size();
  if (failed(verifyMap(emitError, "grid", grid, 3, key.size(), numParams)) ||
      failed(verifyMap(emitError, "block", block, 3, key.size(), numParams)) ||
      failed(verifyMap(emitError, "smem", smem, 1, key.size(), numParams)) ||
      failed(verifyMap(emitError, "cluster", cluster, 3, key.size(),
                       numParams)) ||
      failed(verifyMap(emitError, "min_blocks", minBlocks, 1, key.size(),
                       numParams)))
    return failure();
  for (auto [what, map] : {std::pair{"cluster", cluster},
                           std::pair{"min_blocks", minBlocks}}) {
    if (!map)
      continue;
    for (unsigned d = 0; d < key.size(); ++d)
      if (readsKeyValue(map.getValue().getResults(),
                        map.getValue().getNumDims(), d))
        return emitError() << "'" << what << "' reads key component " << d
                           << "; a variant's " << what
                           << " is fixed when it is compiled, so it may "
                              "read only parameters";
  }
  if (constraints)
    for (auto [i, a] : llvm::enumerate(constraints))
      if (failed(verifyConstraint(emitError, i, a, key, numParams)))
        return failure();
  return verifyTensorMapBoxes(emitError, tensorMaps, key, numParams);
}

LogicalResult SpaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<ParamAttr> params, ArrayAttr configs,
                                DictionaryAttr defaults, ArrayAttr constraints,
                                ArrayRef<KeyAttr> key, AffineMapAttr grid,
                                AffineMapAttr block, AffineMapAttr smem,
                                AffineMapAttr cluster,
                                AffineMapAttr minBlocks, StringAttr vscale,
                                SymbolRefAttr schedule,
                                ArrayRef<TargetAttr> targets,
                                ArrayRef<TensorMapAttr> tensorMaps) {
  for (auto [i, target] : llvm::enumerate(targets))
    for (TargetAttr earlier : targets.take_front(i))
      if (earlier.getArch() == target.getArch())
        return emitError() << "'targets' names "
                           << stringifyTargetArch(target.getArch())
                           << " twice (one entry per architecture)";
  return verifySpace(emitError, params, configs, defaults, constraints, key,
                     grid, block, smem, cluster, minBlocks, vscale,
                     tensorMaps,
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

/// Checks that every tensor map describes an argument that exists and is a
/// memref of a type TMA describes, of the box's rank, and that its box obeys
/// TMA's rules where it is constant. Used for kernels and for the dispatch
/// tables written from them.
static LogicalResult
verifyTensorMapArguments(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<TensorMapAttr> maps,
                         ArrayRef<Type> argTypes) {
  for (auto [i, map] : llvm::enumerate(maps)) {
    if (map.getArg() >= argTypes.size())
      return emitError() << "tensor map #" << i << " describes argument "
                         << map.getArg() << " but the kernel has "
                         << argTypes.size() << " argument(s)";
    Type type = argTypes[map.getArg()];
    auto memref = dyn_cast<MemRefType>(type);
    std::optional<int64_t> bytes =
        memref ? getTensorMapElementBytes(memref.getElementType())
               : std::nullopt;
    if (!bytes)
      return emitError() << "tensor map #" << i << " describes argument "
                         << map.getArg() << " of type " << type
                         << "; a tensor map describes a memref of f16, bf16, "
                            "f32, f64, i8, i32 or i64";
    AffineMap box = map.getBox().getValue();
    if (map.getShape() && memref.getRank() != 1)
      return emitError() << "tensor map #" << i << " views argument "
                         << map.getArg() << " of rank " << memref.getRank()
                         << " as a shape; a shape views a rank-1 memref";
    if (!map.getShape() && box.getNumResults() != memref.getRank())
      return emitError() << "tensor map #" << i << " has a box of "
                         << box.getNumResults() << " entries for argument "
                         << map.getArg() << " of rank " << memref.getRank()
                         << "; the box has one entry per dimension, "
                            "innermost first";
    if (map.getOobFill() == OobFill::nan &&
        !isa<FloatType>(memref.getElementType()))
      return emitError() << "tensor map #" << i
                         << " fills out-of-bounds elements with NaN, but "
                            "argument "
                         << map.getArg() << " has integer elements";
    std::string why =
        checkTensorMapBox(box.getResults(), *bytes, map.getSwizzle());
    if (!why.empty())
      return emitError() << "tensor map #" << i << ": " << why;
  }
  return success();
}

bool mlir::tuna::isScalableVectorLike(Type type) {
  return type
      .walk([](VectorType vector) {
        return vector.isScalable() ? WalkResult::interrupt()
                                   : WalkResult::advance();
      })
      .wasInterrupted();
}

VectorType mlir::tuna::getContiguousAccessType(Operation *op) {
  return TypeSwitch<Operation *, VectorType>(op)
      .Case<vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
            vector::MaskedStoreOp>([](auto access) {
        return access.getVectorType();
      })
      .Default([](Operation *) { return VectorType(); });
}

/// `tuna.aligned` marks a 1-D scalable vector access of whole bytes: its
/// address is a multiple of its size, whatever width tuna-expand gives it,
/// and tuna-expand states that size as the access's `alignment`.
static LogicalResult verifyAlignedAttr(Operation *op, Attribute value) {
  StringRef name = TunaDialect::getAlignedAttrName();
  if (!isa<UnitAttr>(value))
    return op->emitError() << "'" << name << "' must be a unit attribute";
  VectorType type = getContiguousAccessType(op);
  if (!type)
    return op->emitError()
           << "'" << name
           << "' must mark a vector.load, vector.store, vector.maskedload or "
              "vector.maskedstore";
  if (type.getRank() != 1 || !type.isScalable())
    return op->emitError() << "'" << name
                           << "' needs a 1-D scalable vector, whose width "
                              "the space's 'vscale' fixes; got "
                           << type << " (state a fixed access's 'alignment')";
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitError() << "'" << name
                           << "' needs elements of whole bytes; got "
                           << element;
  if (op->hasAttr("alignment"))
    return op->emitError() << "has both 'alignment' and '" << name
                           << "': keep one";
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
  if (attr.getName() == getAlignedAttrName())
    return verifyAlignedAttr(op, attr.getValue());
  if (attr.getName() == getPlannedKernelAttrName()) {
    if (!isa<SymbolRefAttr>(attr.getValue()) || !isa<DispatchOp>(op))
      return op->emitError() << "'tuna.planned_kernel' must be a symbol "
                                "reference on a tuna.dispatch";
    return success();
  }
  // Written by tuna-tensor-map-args between its two runs in the NVPTX
  // pipeline (docs/tma-design.md): the lowered positions of a kernel's
  // tensor-map parameters.
  if (attr.getName().getValue() == "tuna.tensor_map_params") {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()) ||
        !(isGpuKernel(op) || op->getName().getStringRef() == "llvm.func"))
      return op->emitError() << "'tuna.tensor_map_params' must be an i64 "
                                "array on a gpu.func kernel or an llvm.func";
    return success();
  }
  if (attr.getName() != getSpaceAttrName())
    return op->emitError() << "unknown tuna attribute '"
                           << attr.getName().getValue() << "'";
  auto space = dyn_cast<SpaceAttr>(attr.getValue());
  if (!space)
    return op->emitError() << "'tuna.space' must be a #tuna.space attribute";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || !(isa<gpu::GPUFuncOp>(op) ||
                 op->getName().getStringRef() == "func.func"))
    return op->emitError()
           << "'tuna.space' must be attached to a func.func or gpu.func";
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (parent->hasAttr(getSpaceAttrName()))
      return op->emitError() << "a tunable kernel cannot be nested in "
                                "another tunable kernel";

  if (failed(verifyKeyArguments([&] { return op->emitError(); },
                                 space.getKey(), func.getArgumentTypes())) ||
      failed(verifyTensorMapArguments([&] { return op->emitError(); },
                                      space.getTensorMaps(),
                                      func.getArgumentTypes())))
    return failure();
  if (!space.getTensorMaps().empty() && !isGpuKernel(op))
    return op->emitError() << "'tensor_maps' needs a GPU kernel (TMA is an "
                              "NVIDIA sm_90 unit)";
  for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                            func.getResultTypes()))
    if (isScalableVectorLike(type))
      return op->emitError()
             << "the signature of a tunable kernel is the ABI of all its "
                "variants: it cannot use the scalable vector type "
             << type << ", whose width depends on 'vscale'";

  if (isGpuKernel(op)) {
    if (!space.getGrid() || !space.getBlock())
      return op->emitError()
             << "GPU kernel with a tuning space needs 'grid' and 'block'";
  } else if (isa<gpu::GPUFuncOp>(op)) {
    return op->emitError() << "'tuna.space' on a gpu.func that is not a kernel";
  } else if (space.getGrid() || space.getBlock() || space.getSmem() ||
             space.getCluster() || space.getMinBlocks()) {
    return op->emitError() << "host kernels take no 'grid', 'block', 'smem', "
                              "'cluster' or 'min_blocks'";
  }
  for (TargetAttr target : space.getTargets())
    if ((target.getArch() == TargetArch::host) == isGpuKernel(op))
      return op->emitError()
             << "'targets' of a " << (isGpuKernel(op) ? "GPU" : "host")
             << " kernel names " << stringifyTargetArch(target.getArch())
             << (isGpuKernel(op) ? " (a GPU kernel runs on nvptx or amdgcn)"
                                 : " (a host kernel runs on the host)");
  return success();
}

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

/// The space of the kernel around `op`, or null when none has one.
static SpaceAttr getEnclosingSpace(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  SpaceAttr space;
  while (func && !space) {
    space = func->getAttrOfType<SpaceAttr>(TunaDialect::getSpaceAttrName());
    if (!space)
      func = func->getParentOfType<FunctionOpInterface>();
  }
  return space;
}

LogicalResult ParamOp::verify() {
  SpaceAttr space = getEnclosingSpace(*this);
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
// FamilyOp
//===----------------------------------------------------------------------===//

LogicalResult FamilyOp::verify() {
  if (getKernels().empty())
    return emitOpError() << "names no kernels";
  llvm::StringSet<> seen;
  for (StringRef kernel : getKernels().getAsValueRange<StringAttr>())
    if (!seen.insert(kernel).second)
      return emitOpError() << "names kernel '" << kernel << "' twice";
  return success();
}

//===----------------------------------------------------------------------===//
// TensorMapOp
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(getType());
  if (!ptr || ptr.getAddressSpace() != 0)
    return emitOpError() << "yields " << getType()
                         << "; a tensor map is read as an !llvm.ptr (the "
                            "generic address of its 128 bytes)";
  SpaceAttr space = getEnclosingSpace(*this);
  if (!space)
    return emitOpError() << "must be inside a kernel that has a 'tuna.space'";
  int64_t count = space.getTensorMaps().size();
  if (getIndex() < 0 || getIndex() >= count)
    return emitOpError() << "reads tensor map " << getIndex()
                         << " but the space declares " << count
                         << " (its 'tensor_maps')";
  return success();
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

/// A variant's hidden parameters: ascending indices into the dispatch's
/// tensor maps, each with a box over the key values of the map's rank.
static LogicalResult verifyVariantTensorMaps(VariantOp v, ArrayAttr maps,
                                             unsigned numKeys) {
  ArrayRef<int64_t> used =
      v.getTensorMaps() ? *v.getTensorMaps() : ArrayRef<int64_t>();
  size_t numBoxes = v.getBoxes() ? v.getBoxes()->size() : 0;
  if (numBoxes != used.size())
    return v.emitOpError() << "takes " << used.size()
                           << " tensor map(s) but has " << numBoxes
                           << " box(es); each map it takes has one";
  int64_t count = maps ? maps.size() : 0;
  for (auto [i, index] : llvm::enumerate(used)) {
    if (index < 0 || index >= count || (i > 0 && index <= used[i - 1]))
      return v.emitOpError() << "tensor maps must be ascending indices below "
                             << count << " (the dispatch's), got " << index;
    AffineMap box = cast<AffineMapAttr>((*v.getBoxes())[i]).getValue();
    AffineMap declared =
        cast<TensorMapAttr>(maps[index]).getBox().getValue();
    if (box.getNumInputs() != numKeys ||
        box.getNumResults() != declared.getNumResults())
      return v.emitOpError()
             << "the box of tensor map " << index << " must take the "
             << numKeys << " key value(s) and have "
             << declared.getNumResults() << " entries, got "
             << AffineMapAttr::get(box);
  }
  return success();
}

bool DispatchOp::hasGpuVariants() {
  for (VariantOp variant : getBody().getOps<VariantOp>())
    return !variant.getKernel().getNestedReferences().empty();
  return false;
}

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
  SmallVector<TensorMapAttr> maps;
  if (ArrayAttr attr = getTensorMapsAttr())
    maps.assign(attr.getAsRange<TensorMapAttr>().begin(),
                attr.getAsRange<TensorMapAttr>().end());
  if (failed(verifyKeyArguments([&] { return emitOpError(); }, keys,
                                getFunctionType().getInputs())) ||
      failed(verifyTensorMapArguments([&] { return emitOpError(); }, maps,
                                      getFunctionType().getInputs())))
    return failure();
  unsigned numKeys = keys.size();
  for (VariantOp v : variants) {
    if (failed(verifyVariantTensorMaps(v, getTensorMapsAttr(), numKeys)))
      return failure();
    for (std::optional<AffineMap> map :
         {v.getGrid(), v.getBlock(), v.getSmem(), v.getCluster(),
          v.getMinBlocks()})
      if (map && map->getNumInputs() != numKeys)
        return v.emitOpError() << "maps must take the " << numKeys
                               << " key value(s) as their dimensions and "
                                  "symbols, got "
                               << map->getNumDims() << " and "
                               << map->getNumSymbols();
    if (std::optional<AffineMap> cluster = v.getCluster();
        cluster && (cluster->getNumResults() < 1 ||
                    cluster->getNumResults() > 3 || !cluster->isConstant()))
      return v.emitOpError() << "cluster must be 1 to 3 constant sizes (it is "
                                "compiled into the variant), got "
                             << AffineMapAttr::get(*cluster);
    if (std::optional<AffineMap> minBlocks = v.getMinBlocks();
        minBlocks &&
        (minBlocks->getNumResults() != 1 || !minBlocks->isConstant() ||
         minBlocks->getSingleConstantResult() < 1))
      return v.emitOpError() << "min_blocks must be one constant of at least "
                                "1 (it is compiled into the variant), got "
                             << AffineMapAttr::get(*minBlocks);
    if (std::optional<ArrayAttr> sets = v.getConstraints())
      for (Attribute a : *sets) {
        IntegerSet set = cast<IntegerSetAttr>(a).getValue();
        if (set.getNumInputs() != numKeys)
          return v.emitOpError() << "constraints must take the " << numKeys
                                 << " key value(s) as their dimensions and "
                                    "symbols, got "
                                 << set.getNumDims() << " and "
                                 << set.getNumSymbols();
      }
  }
  return success();
}

/// Every variant is called with the dispatch's ABI, followed by one
/// `!llvm.ptr` per tensor map it takes: a kernel of another type would read
/// its arguments from the wrong places. Kernels that are not found
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
    SmallVector<Type> inputs(expected.getInputs());
    if (std::optional<ArrayRef<int64_t>> maps = variant.getTensorMaps())
      inputs.append(maps->size(), LLVM::LLVMPointerType::get(getContext()));
    FunctionType withMaps =
        FunctionType::get(getContext(), inputs, expected.getResults());
    auto type = dyn_cast<FunctionType>(func.getFunctionType());
    if (type && type != withMaps && withMaps != expected)
      return emitOpError() << "variant #" << i << " kernel "
                           << variant.getKernel() << " has type " << type
                           << " but takes " << variant.getTensorMaps()->size()
                           << " tensor map(s), so its type must be "
                           << withMaps
                           << " (the dispatch's with one !llvm.ptr per map)";
    if (type && type != withMaps)
      return emitOpError() << "variant #" << i << " kernel "
                           << variant.getKernel() << " has type " << type
                           << " but dispatch @" << getSymName()
                           << " declares function_type " << expected;
  }
  return success();
}
