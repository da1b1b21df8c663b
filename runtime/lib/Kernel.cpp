//===- Kernel.cpp - The launch path of a self-tuning kernel ---------------===//
//
// launch() = lower + key + lookup + launch. Everything it does for a known
// signature works on the stack; strings are built only for errors.
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"
#include "TensorMapCache.h"
#include "TensorMapRules.h"

#include "tuna/runtime/ScalarType.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace tuna {

namespace {
std::string describeSpec(const ArgSpec &spec) {
  if (spec.kind == ArgSpec::Kind::Scalar)
    return std::string("an ") + scalarTypeName(spec.type) + " scalar";
  return "a rank-" + std::to_string(spec.rank) + " memref of " +
         scalarTypeName(spec.type);
}

std::string describeValue(const ArgValue &value) {
  if (value.kind == ArgSpec::Kind::Scalar)
    return std::string("an ") + scalarTypeName(value.type) + " scalar";
  return "a rank-" + std::to_string(value.memref.rank) + " memref of " +
         scalarTypeName(value.memref.type);
}

bool sameElementType(ScalarType a, ScalarType b) {
  auto canonical = [](ScalarType type) {
    return type == ScalarType::Index ? ScalarType::I64 : type;
  };
  return canonical(a) == canonical(b);
}

/// The range an integer of `type` accepts, read as signed or as unsigned.
bool integerFits(ScalarType type, int64_t value) {
  switch (type) {
  case ScalarType::I1:
    return value == 0 || value == 1;
  case ScalarType::I8:
    return value >= INT8_MIN && value <= UINT8_MAX;
  case ScalarType::I16:
    return value >= INT16_MIN && value <= UINT16_MAX;
  case ScalarType::I32:
    return value >= INT32_MIN && value <= UINT32_MAX;
  default:
    return true;
  }
}

/// Converts a scalar to the ABI type; false if it does not convert.
bool convertScalar(const ArgSpec &spec, const ArgValue &value, uint64_t &slot) {
  if (isIntegerType(spec.type)) {
    if (!isIntegerType(value.type) || !integerFits(spec.type, value.intValue))
      return false;
    slot = static_cast<uint64_t>(value.intValue);
    return true;
  }
  slot = 0;
  if (spec.type == ScalarType::F32 || spec.type == ScalarType::F64) {
    if (value.type != ScalarType::F32 && value.type != ScalarType::F64)
      return false;
    if (spec.type == ScalarType::F32) {
      float f = static_cast<float>(value.floatValue);
      std::memcpy(&slot, &f, sizeof(f));
    } else {
      std::memcpy(&slot, &value.floatValue, sizeof(double));
    }
    return true;
  }
  if (value.type != spec.type)
    return false;
  slot = static_cast<uint64_t>(value.intValue) & 0xffff;
  return true;
}

/// Compiles the hidden parameters of `variant` (named `what`) into `state`;
/// state.tensorMapProblem says why they cannot be made when the device takes
/// no maps (`support`). The bundle's validation checked the maps themselves.
void compileTensorMaps(const Kernel &kernel, const Variant &variant,
                       size_t keySize, const std::string &support,
                       const std::string &what, VariantState &state) {
  if (variant.tensorMaps.empty())
    return;
  for (const VariantTensorMap &map : variant.tensorMaps) {
    VariantState::CompiledTensorMap compiled;
    compiled.map = map.map;
    compiled.rank = static_cast<int>(map.box.size());
    compiled.swizzleBytes = map.swizzleBytes;
    compiled.what =
        what + ", " + tensorMapName(map.map, kernel.tensorMaps[map.map].arg);
    for (int i = 0; i < compiled.rank; ++i)
      compiled.box[i] = CompiledExpr::compile(map.box[i], keySize, 1,
                                              compiled.what + " box[" +
                                                  std::to_string(i) + "]");
    state.tensorMaps.push_back(std::move(compiled));
  }
  state.tensorMapProblem = support;
}

/// The proper lowered parameters of a launch of `kernel` (see ArgSpec).
int loweredParamCount(const Kernel &kernel) {
  int count = 0;
  for (const ArgSpec &arg : kernel.args)
    count += arg.kind == ArgSpec::Kind::Scalar ? 1 : 3 + 2 * arg.rank;
  return count;
}
} // namespace

//===----------------------------------------------------------------------===//
// TunedKernel::Impl
//===----------------------------------------------------------------------===//

TunedKernel::Impl::Impl(Module::Impl &module, const Kernel &spec)
    : module(module), spec(spec), backend(module.device.backend()) {
  size_t keySize = spec.key.size();
  signatureSize = keySize + (spec.tensorMaps.empty() ? 0 : 1);
  for (size_t m = 0; m < spec.tensorMaps.size(); ++m) {
    std::vector<CompiledExpr> &shape = tensorMapShapes.emplace_back();
    for (size_t d = 0; d < spec.tensorMaps[m].shape.size(); ++d)
      shape.push_back(CompiledExpr::compile(
          spec.tensorMaps[m].shape[d], keySize, 1,
          describe() + " " +
              tensorMapName(static_cast<int>(m), spec.tensorMaps[m].arg) +
              " shape[" + std::to_string(d) + "]"));
  }
  loweredCount = loweredParamCount(spec);
  std::string mapSupport;
  for (const Variant &variant : spec.variants)
    if (!variant.tensorMaps.empty() && mapSupport.empty())
      mapSupport = backend.tensorMapSupport();
  variants.resize(spec.variants.size());
  const char *axes[] = {"x", "y", "z"};
  for (size_t v = 0; v < spec.variants.size(); ++v) {
    const Variant &variant = spec.variants[v];
    VariantState &state = variants[v];
    std::string what = describe() + " variant '" + variant.name + "'";
    state.spec = &variant;
    state.config = formatConfig(variant.config);
    for (int d = 0; d < 3; ++d) {
      state.grid[d] = CompiledExpr::compile(variant.grid[d], keySize, 1,
                                            what + " grid." + axes[d]);
      state.block[d] = CompiledExpr::compile(variant.block[d], keySize, 1,
                                             what + " block." + axes[d]);
    }
    state.sharedBytes = CompiledExpr::compile(variant.sharedMemBytes, keySize,
                                              0, what + " sharedMemBytes");
    for (const Constraint &constraint : variant.constraints)
      state.constraints.push_back(
          {CompiledExpr::compile(constraint.expr, keySize, 0,
                                 what + " constraint"),
           constraint.isEquality});
    compileTensorMaps(spec, variant, keySize, mapSupport, what, state);
    state.code = backend.selectCode(module.bundle, variant);
  }

  bool runnable = false;
  for (const VariantState &state : variants)
    runnable |= state.code >= 0;
  if (!runnable) {
    const DeviceInfo &info = backend.info();
    unavailable = describe() + " has no code for this device (" +
                  info.platform + " " + info.arch + ", " + info.name +
                  "); the bundle has code for:";
    // A bundle often has one object per variant: each target once, counted.
    std::vector<std::pair<std::string, int>> targets;
    for (const Object &object : module.bundle.objects) {
      std::string target = object.target + " (" + object.format;
      auto same = std::find_if(targets.begin(), targets.end(),
                               [&](const auto &t) { return t.first == target; });
      if (same == targets.end())
        targets.push_back({target, 1});
      else
        ++same->second;
    }
    for (const auto &[target, objects] : targets)
      unavailable += " " + target +
                     (objects > 1 ? ", " + std::to_string(objects) + " objects"
                                  : "") +
                     ")";
    if (module.bundle.objects.empty())
      unavailable += " nothing";
  }

  tables.push_back(std::make_unique<SignatureTable>(signatureSize));
  table.store(tables.back().get(), std::memory_order_release);
}

TunedKernel::Impl::~Impl() = default;

std::string TunedKernel::Impl::describe() const {
  return "kernel '" + spec.name + "' in '" + module.origin + "'";
}

void TunedKernel::Impl::lower(const ArgValue *args, size_t count,
                              LoweredArgs &lowered) const {
  if (count != spec.args.size())
    throw Error(ErrorCode::InvalidArgument,
                describe() + " takes " + std::to_string(spec.args.size()) +
                    " arguments, got " + std::to_string(count));
  void **param = lowered.params;
  for (size_t i = 0; i < count; ++i) {
    const ArgSpec &argSpec = spec.args[i];
    const ArgValue &value = args[i];
    if (value.kind != argSpec.kind ||
        (argSpec.kind == ArgSpec::Kind::MemRef &&
         (value.memref.rank != argSpec.rank ||
          !sameElementType(value.memref.type, argSpec.type))))
      throw Error(ErrorCode::InvalidArgument,
                  describe() + " argument " + std::to_string(i) +
                      ": expected " + describeSpec(argSpec) + ", got " +
                      describeValue(value));
    if (argSpec.kind == ArgSpec::Kind::Scalar) {
      if (!convertScalar(argSpec, value, lowered.scalars[i]))
        throw Error(
            ErrorCode::InvalidArgument,
            describe() + " argument " + std::to_string(i) + ": expected " +
                describeSpec(argSpec) + ", got " + describeValue(value) +
                (isIntegerType(value.type) && isIntegerType(argSpec.type)
                     ? " of value " + std::to_string(value.intValue) +
                           ", out of range"
                     : std::string()));
      *param++ = &lowered.scalars[i];
      continue;
    }
    MemRefView &view = const_cast<MemRefView &>(value.memref);
    *param++ = &view.allocated;
    *param++ = &view.aligned;
    *param++ = &view.offset;
    for (int d = 0; d < view.rank; ++d) {
      if (view.sizes[d] < 0)
        throw Error(ErrorCode::InvalidArgument,
                    describe() + " argument " + std::to_string(i) + ": size " +
                        std::to_string(view.sizes[d]) + " of dimension " +
                        std::to_string(d) + " is negative");
      *param++ = &view.sizes[d];
    }
    for (int d = 0; d < view.rank; ++d)
      *param++ = &view.strides[d];
  }
}

void TunedKernel::Impl::computeKey(const ArgValue *args, int64_t *keyValues,
                                   int64_t *signature) const {
  for (size_t k = 0; k < spec.key.size(); ++k) {
    const KeySpec &key = spec.key[k];
    const ArgValue &arg = args[key.arg];
    keyValues[k] = key.dim >= 0 ? arg.memref.sizes[key.dim] : arg.intValue;
    signature[k] = bucketValue(key, keyValues[k]);
  }
  if (!spec.tensorMaps.empty())
    signature[spec.key.size()] = tensorMapBits(args, keyValues);
}

TensorMapProblem TunedKernel::Impl::tensorMapView(size_t m,
                                                  const ArgValue *args,
                                                  const int64_t *keyValues,
                                                  MemRefView &view) const {
  const MemRefView &memref = args[spec.tensorMaps[m].arg].memref;
  const std::vector<CompiledExpr> &shape = tensorMapShapes[m];
  if (shape.empty()) {
    view = memref;
    return checkTensorMapView(view);
  }
  int64_t sizes[kMaxTensorMapRank];
  for (size_t d = 0; d < shape.size(); ++d)
    if (!shape[d].evaluate(keyValues, sizes[d]))
      return {TensorMapProblem::Rule::ShapeValue, static_cast<int>(d), 0, 0};
  if (TensorMapProblem problem =
          viewAsShape(memref, sizes, static_cast<int>(shape.size()), view))
    return problem;
  return checkTensorMapView(view);
}

int64_t TunedKernel::Impl::tensorMapBits(const ArgValue *args,
                                         const int64_t *keyValues) const {
  int64_t bits = 0;
  // Bit 63 would make the component negative; a kernel has far fewer maps.
  // The bundle's validation made every map's argument a memref.
  MemRefView view;
  for (size_t m = 0; m < spec.tensorMaps.size() && m < 63; ++m)
    if (!tensorMapView(m, args, keyValues, view))
      bits |= int64_t(1) << m;
  return bits;
}

std::string
TunedKernel::Impl::tensorMapExclusion(int index, const ArgValue *args,
                                      const int64_t *keyValues,
                                      const int64_t *signature) const {
  int64_t bits = spec.tensorMaps.empty() ? 0 : signature[spec.key.size()];
  for (const VariantState::CompiledTensorMap &map :
       variants[index].tensorMaps) {
    if (map.map < 63 && (bits >> map.map & 1))
      continue;
    int arg = spec.tensorMaps[map.map].arg;
    MemRefView view;
    TensorMapProblem problem = tensorMapView(map.map, args, keyValues, view);
    return tensorMapName(map.map, arg) + ": " +
           (problem ? problem.describe()
                    : "it cannot describe its argument for this signature");
  }
  return "";
}

const TensorMapBytes &
TunedKernel::Impl::tensorMap(int index, size_t j, const ArgValue *args,
                             const int64_t *keyValues) const {
  const VariantState &variant = variants[index];
  if (!variant.tensorMapProblem.empty())
    throw Error(ErrorCode::Unsupported, describe() + " variant '" +
                                            variant.spec->name +
                                            "': " + variant.tensorMapProblem);
  const VariantState::CompiledTensorMap &map = variant.tensorMaps[j];
  const TensorMapSpec &mapSpec = spec.tensorMaps[map.map];
  int64_t box[kMaxTensorMapRank];
  for (int i = 0; i < map.rank; ++i) {
    ExprError error;
    if (!map.box[i].evaluate(keyValues, box[i], &error))
      throw Error(ErrorCode::InvalidArgument, map.what + ": box entry " +
                                                  std::to_string(i) + " " +
                                                  describeExprError(error));
  }
  TensorMapEncoding encoding;
  MemRefView view;
  TensorMapProblem problem = tensorMapView(map.map, args, keyValues, view);
  if (!problem)
    problem = tensorMapEncoding(view, mapSpec, box, map.swizzleBytes, encoding);
  if (problem)
    throw Error(ErrorCode::InvalidArgument,
                map.what + ": " + problem.describe());
  return threadTensorMapCache().get(
      backend.instanceId(), encoding,
      [&](const TensorMapEncoding &e, TensorMapBytes &bytes) {
        backend.encodeTensorMap(e, bytes, map.what);
      });
}

[[gnu::noinline]] void TunedKernel::Impl::launchWithTensorMaps(
    int index, StreamHandle stream, const ArgValue *args,
    const int64_t *keyValues, const LaunchDims &dims, void **params) {
  const VariantState &variant = variants[index];
  TensorMapBytes maps[kMaxTensorMaps];
  // The bundle's validation allows at most kMaxTensorMaps.
  for (size_t j = 0; j < variant.spec->tensorMaps.size(); ++j) {
    maps[j] = tensorMap(index, j, args, keyValues);
    params[loweredCount + j] = &maps[j];
  }
  backend.launch(variant.function, stream, dims, params);
}

std::string DimsProblem::describe() const {
  std::string name = field;
  switch (kind) {
  case Kind::DivisionByZero:
    return name + " divides by zero";
  case Kind::Overflow:
    return name + " overflows 64-bit integers";
  case Kind::OutOfRange:
    return name + " evaluates to " + std::to_string(value);
  case Kind::OverLimit:
    break;
  }
  if (name == "threads per block")
    return std::to_string(value) + " threads per block, the device allows " +
           std::to_string(limit) + " for this function";
  if (name == "shared memory")
    return std::to_string(value) + " bytes of shared memory, the device has " +
           std::to_string(limit);
  return name + " evaluates to " + std::to_string(value) +
         ", over the device's limit of " + std::to_string(limit);
}

bool TunedKernel::Impl::computeDims(const VariantState &variant,
                                    const int64_t *keyValues, LaunchDims &dims,
                                    DimsProblem &problem) const {
  return evaluateDims(variant, keyValues, dims, problem) &&
         withinFunctionLimits(variant, dims, problem);
}

bool TunedKernel::Impl::evaluateDims(const VariantState &variant,
                                     const int64_t *keyValues, LaunchDims &dims,
                                     DimsProblem &problem) const {
  using Kind = DimsProblem::Kind;
  static const char *const gridNames[] = {"grid.x", "grid.y", "grid.z"};
  static const char *const blockNames[] = {"block.x", "block.y", "block.z"};
  const DeviceInfo &info = backend.info();
  auto fail = [&](Kind kind, const char *field, int64_t value, int64_t limit) {
    problem = {kind, field, value, limit};
    return false;
  };
  auto check = [&](const CompiledExpr &expr, const char *field, int64_t min,
                   int64_t max, uint32_t &out) {
    int64_t value;
    ExprError error;
    if (!expr.evaluate(keyValues, value, &error))
      return fail(error == ExprError::DivisionByZero ? Kind::DivisionByZero
                                                     : Kind::Overflow,
                  field, 0, 0);
    if (value < min || value > UINT32_MAX)
      return fail(Kind::OutOfRange, field, value, 0);
    if (value > max)
      return fail(Kind::OverLimit, field, value, max);
    out = static_cast<uint32_t>(value);
    return true;
  };
  for (int d = 0; d < 3; ++d)
    if (!check(variant.grid[d], gridNames[d], 0, info.maxGridDim[d],
               dims.grid[d]) ||
        !check(variant.block[d], blockNames[d], 1, info.maxBlockDim[d],
               dims.block[d]))
      return false;
  if (!check(variant.sharedBytes, "sharedMemBytes", 0, INT64_MAX,
             dims.sharedBytes))
    return false;
  int64_t threads = int64_t(dims.block[0]) * dims.block[1];
  if (threads > INT32_MAX || (threads *= dims.block[2]) > INT32_MAX ||
      threads > info.maxThreadsPerBlock)
    return fail(Kind::OverLimit, "threads per block", threads,
                info.maxThreadsPerBlock);
  return true;
}

bool TunedKernel::Impl::withinFunctionLimits(const VariantState &variant,
                                             const LaunchDims &dims,
                                             DimsProblem &problem) const {
  const DeviceInfo &info = backend.info();
  int64_t threads = int64_t(dims.block[0]) * dims.block[1] * dims.block[2];
  if (variant.function && threads > variant.limits.maxThreadsPerBlock) {
    problem = {DimsProblem::Kind::OverLimit, "threads per block", threads,
               variant.limits.maxThreadsPerBlock};
    return false;
  }
  int64_t shared = int64_t(dims.sharedBytes) + variant.limits.staticSharedBytes;
  if (shared > info.maxSharedBytesPerBlock) {
    problem = {DimsProblem::Kind::OverLimit, "shared memory", shared,
               info.maxSharedBytesPerBlock};
    return false;
  }
  return true;
}

const TunedKernel::Impl::KeyedFacts &
TunedKernel::Impl::keyedFacts(const int64_t *keyValues) {
  KeyedFacts &facts = lastKeyedFacts;
  size_t keySize = spec.key.size();
  if (facts.excluded.size() == variants.size() &&
      std::equal(facts.keyValues.begin(), facts.keyValues.end(), keyValues,
                 keyValues + keySize))
    return facts;
  facts.keyValues.assign(keyValues, keyValues + keySize);
  facts.excluded.assign(variants.size(), std::string());
  facts.dims.assign(variants.size(), LaunchDims());
  facts.problems.assign(variants.size(), std::nullopt);
  for (size_t v = 0; v < variants.size(); ++v) {
    const VariantState &variant = variants[v];
    for (size_t c = 0; c < variant.constraints.size(); ++c) {
      const VariantState::CompiledConstraint &constraint =
          variant.constraints[c];
      int64_t value;
      bool ok = constraint.expr.evaluate(keyValues, value) &&
                (constraint.isEquality ? value == 0 : value >= 0);
      if (!ok) {
        facts.excluded[v] =
            "constraint " + std::to_string(c) + " (" +
            formatExpr(variant.spec->constraints[c].expr) +
            (constraint.isEquality ? " == 0" : " >= 0") + ") does not hold";
        break;
      }
    }
    DimsProblem problem;
    if (!evaluateDims(variant, keyValues, facts.dims[v], problem))
      facts.problems[v] = problem;
  }
  return facts;
}

void TunedKernel::Impl::launchVariant(int index, StreamHandle stream,
                                      const ArgValue *args,
                                      const int64_t *keyValues, void **params) {
  const VariantState &variant = variants[index];
  LaunchDims dims;
  DimsProblem problem;
  if (!computeDims(variant, keyValues, dims, problem))
    throw Error(ErrorCode::InvalidArgument,
                describe() + " variant '" + variant.spec->name +
                    "': " + problem.describe() + " for key values " +
                    formatSignature(keyValues, spec.key.size()));
  // An empty grid: nothing to compute (tuning never picks a variant with an
  // empty grid where another one has work, see Tuner.cpp).
  if (dims.grid[0] == 0 || dims.grid[1] == 0 || dims.grid[2] == 0)
    return;
  if (!variant.spec->tensorMaps.empty())
    return launchWithTensorMaps(index, stream, args, keyValues, dims, params);
  backend.launch(variant.function, stream, dims, params);
}

bool TunedKernel::Impl::ensureLoaded(VariantState &variant) {
  if (variant.function)
    return true;
  if (!variant.loadError.empty() || variant.code < 0)
    return false;
  const VariantCode &code = variant.spec->code[variant.code];
  std::string what = describe() + " variant '" + variant.spec->name + "'";
  try {
    ModuleHandle object = module.object(code.object, what);
    FunctionHandle function = backend.getFunction(object, code.symbol, what);
    variant.limits = backend.functionLimits(function);
    variant.function = function;
    return true;
  } catch (const Error &e) {
    variant.loadError = e.what();
    return false;
  }
}

//===----------------------------------------------------------------------===//
// TunedKernel
//===----------------------------------------------------------------------===//

TunedKernel::TunedKernel(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

TunedKernel::~TunedKernel() = default;

const std::string &TunedKernel::name() const { return impl->spec.name; }

const Kernel &TunedKernel::spec() const { return impl->spec; }

void TunedKernel::launch(StreamHandle stream, const ArgValue *args,
                         size_t count) {
  Impl &kernel = *impl;
  if (stepsBeingTuned.load(std::memory_order_relaxed) &&
      launchInTunedStep(kernel, stream, args, count))
    return;
  LoweredArgs lowered;
  kernel.lower(args, count, lowered);
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxSignature];
  kernel.computeKey(args, keyValues, signature);
  int variant = kernel.table.load(std::memory_order_acquire)->lookup(signature);
  if (variant < 0)
    variant = kernel.decide(stream, args, count, keyValues, signature);
  kernel.launchVariant(variant, stream, args, keyValues, lowered.params);
}

std::vector<int64_t> TunedKernel::signature(const ArgValue *args,
                                            size_t count) const {
  LoweredArgs lowered;
  impl->lower(args, count, lowered);
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxSignature];
  impl->computeKey(args, keyValues, signature);
  return std::vector<int64_t>(signature, signature + impl->signatureSize);
}

int TunedKernel::chosenVariant(const std::vector<int64_t> &signature) const {
  if (signature.size() != impl->signatureSize)
    throw Error(ErrorCode::InvalidArgument,
                impl->describe() + " has " +
                    std::to_string(impl->signatureSize) +
                    " signature components, the signature " +
                    std::to_string(signature.size()));
  return impl->table.load(std::memory_order_acquire)->lookup(signature.data());
}

TuningReport TunedKernel::measure(StreamHandle stream, const ArgValue *args,
                                  size_t count,
                                  const std::vector<int> &variants,
                                  int samples) {
  return impl->measure(stream, args, count, variants, samples);
}

SearchOutcome TunedKernel::search(StreamHandle stream, const ArgValue *args,
                                  size_t count,
                                  const search::SearchOptions &options) {
  return impl->search(stream, args, count, options);
}

void TunedKernel::setReference(Reference reference, std::string name) {
  std::lock_guard<std::mutex> lock(impl->module.device.tuningMutex());
  impl->reference = std::move(reference);
  impl->referenceName = std::move(name);
}

std::vector<TuningReport> TunedKernel::reports() const {
  std::lock_guard<std::mutex> lock(impl->module.device.tuningMutex());
  return impl->history;
}

} // namespace tuna
