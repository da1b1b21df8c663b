//===- Compile.cpp - Compile expanded kernels into a bundle ---------------===//
//
// compileBundle compiles every variant now (every instantiated one, when
// the tables were planned); planBundle and compileObjects split the same
// work in two: the manifest with objects that have no bytes yet, then the
// code of some variants when they are first needed.
//
//===----------------------------------------------------------------------===//

#include "TargetConfig.h"
#include "TargetImpl.h"

#include "tuna/runtime/Cache.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tuna;

CompileOptions mlir::tuna::getDefaultCompileOptions() {
  CompileOptions options;
  options.rocmBitcodeDir = TUNA_DEFAULT_ROCM_BITCODE_DIR;
  options.ldLld = TUNA_DEFAULT_LD_LLD;
  return options;
}

std::string mlir::tuna::configString(const ::tuna::Variant &variant) {
  std::string text;
  for (const auto &[name, value] : variant.config)
    text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text;
}

std::string mlir::tuna::hostSourceHash(StringRef sourceHash,
                                       StringRef hostCpu) {
  // Host code compiled for another CPU than generic x86-64/AArch64 is
  // another kernel to the tuning cache.
  if (hostCpu == "generic")
    return sourceHash.str();
  return llvm::utohexstr(
      llvm::xxh3_64bits(sourceHash.str() + "/host-cpu=" + hostCpu.str()),
      /*LowerCase=*/true, 16);
}

OwningOpRef<ModuleOp> compiler::cloneOnly(ModuleOp module,
                                          ArrayRef<Operation *> ops) {
  OwningOpRef<ModuleOp> result = ModuleOp::create(module.getLoc());
  for (NamedAttribute attr : module->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      (*result)->setAttr(attr.getName(), attr.getValue());
  OpBuilder builder = OpBuilder::atBlockEnd(result->getBody());
  for (Operation *op : ops)
    builder.clone(*op);
  return result;
}

void compiler::loadPipelineDialects(MLIRContext *context,
                                    const Target &target) {
  PassManager pm(context, ModuleOp::getOperationName());
  buildLowerToTargetPipeline(pm, target);
  DialectRegistry registry;
  pm.getDependentDialects(registry);
  context->appendDialectRegistry(registry);
  for (StringRef name : registry.getDialectNames())
    context->getOrLoadDialect(name);
}

namespace {
/// The dispatches of an expanded module with their manifests (no code yet)
/// and the variants' kernel references, in the same order.
struct Dispatches {
  SmallVector<DispatchOp> ops;
  SmallVector<::tuna::Kernel> kernels;
  SmallVector<SmallVector<SymbolRefAttr>> variantKernels;

  LogicalResult build(ModuleOp module, const CompileOptions &options) {
    if (options.targets.empty())
      return emitError(module.getLoc()) << "no target to compile for";
    ops.assign(module.getOps<DispatchOp>().begin(),
               module.getOps<DispatchOp>().end());
    if (ops.empty())
      return emitError(module.getLoc())
             << "no tuna.dispatch in the module: nothing declares a "
                "tuna.space";
    for (DispatchOp dispatch : ops) {
      FailureOr<::tuna::Kernel> kernel = compiler::buildKernel(dispatch);
      if (failed(kernel))
        return failure();
      if (!dispatch.hasGpuVariants())
        kernel->sourceHash = hostSourceHash(kernel->sourceHash,
                                            options.hostCpu);
      kernels.push_back(std::move(*kernel));
      variantKernels.emplace_back();
      for (auto variant : dispatch.getBody().getOps<VariantOp>())
        variantKernels.back().push_back(variant.getKernel());
    }
    return success();
  }

  /// What diagnostics say of each of `variants` (kernel references of
  /// these dispatches).
  std::vector<compiler::VariantLabel>
  labels(ArrayRef<SymbolRefAttr> variants) const {
    llvm::DenseMap<SymbolRefAttr, std::pair<size_t, size_t>> where;
    for (auto [i, refs] : llvm::enumerate(variantKernels))
      for (auto [v, ref] : llvm::enumerate(refs))
        where[ref] = {i, v};
    llvm::DenseMap<size_t, size_t> perKernel;
    for (SymbolRefAttr ref : variants)
      ++perKernel[where.lookup(ref).first];
    std::vector<compiler::VariantLabel> result;
    for (SymbolRefAttr ref : variants) {
      auto [i, v] = where.lookup(ref);
      result.push_back({ref.getLeafReference().str(), kernels[i].name,
                        configString(kernels[i].variants[v]),
                        perKernel[i]});
    }
    return result;
  }

  /// Whether `target` is of the kind (GPU or host) of dispatch `i`.
  bool matchesKind(const Target &target, size_t i) const {
    return (target.kind == Target::Kind::Host) !=
           DispatchOp(ops[i]).hasGpuVariants();
  }

  /// The targets the space of dispatch `i` declares; empty: every target.
  SmallVector<TargetAttr> declaredTargets(size_t i) const {
    if (std::optional<ArrayAttr> targets = DispatchOp(ops[i]).getTargets())
      return llvm::to_vector(targets->getAsRange<TargetAttr>());
    return {};
  }

  /// Whether a target compiles the variants of dispatch `i`: it is of the
  /// kernel's kind and the kernel supports it.
  bool compiles(const Target &target, size_t i) const {
    return matchesKind(target, i) &&
           supportsTarget(declaredTargets(i), target.arch(), target.chip);
  }

  /// The requested targets of dispatch `i`'s kind that its kernel does not
  /// support, "amdgcn:gfx942, amdgcn:gfx1100"; empty when there are none.
  std::string unsupportedTargets(const CompileOptions &options,
                                 size_t i) const {
    std::string names;
    for (const Target &target : options.targets)
      if (matchesKind(target, i) && !compiles(target, i))
        names += (names.empty() ? "" : ", ") + target.str();
    return names;
  }
};

/// Moves the kernels that got code into `bundle`; notes those that did not,
/// and the targets a kernel was not compiled for because it does not
/// support them (the rule of docs/tuna-compile.md, "Targets a kernel
/// supports"). With no kernel left, the error says why for each.
LogicalResult keepKernelsWithCode(ModuleOp module, Dispatches &dispatches,
                                  const CompileOptions &options,
                                  ::tuna::Bundle &bundle,
                                  CompileReport &report) {
  std::string reasons;
  for (auto [i, dispatch, kernel] :
       llvm::enumerate(dispatches.ops, dispatches.kernels)) {
    bool hasCode = llvm::any_of(kernel.variants, [](const ::tuna::Variant &v) {
      return !v.code.empty();
    });
    std::string unsupported = dispatches.unsupportedTargets(options, i);
    std::string reason =
        unsupported.empty()
            ? "is a " +
                  std::string(dispatch.hasGpuVariants() ? "GPU" : "host") +
                  " kernel and no requested target compiles it"
            : "supports only " +
                  describeTargets(dispatches.declaredTargets(i)) + ", not " +
                  unsupported;
    if (hasCode) {
      if (!unsupported.empty())
        report.notes.push_back("kernel '" + kernel.name + "' " + reason +
                               ": compiled for the other targets only");
      bundle.kernels.push_back(std::move(kernel));
      continue;
    }
    report.notes.push_back("kernel '" + kernel.name + "' " + reason +
                           ": left out");
    reasons += "; kernel '" + dispatch.getSymName().str() + "' " + reason;
  }
  if (!bundle.kernels.empty())
    return success();
  std::string targets;
  for (const Target &target : options.targets)
    targets += (targets.empty() ? "" : ", ") + target.str();
  return emitError(module.getLoc())
         << "nothing to put in the bundle: no kernel has variants for the "
            "requested targets ("
         << targets << ")" << reasons;
}

/// Compiles `variants` (each a kernel reference of `dispatches`) for
/// `target` into `bundle`, and reports the time it took. What the variants
/// report is said once per kernel, not once per variant.
LogicalResult compileFor(ModuleOp module, const Dispatches &dispatches,
                         const Target &target, ArrayRef<SymbolRefAttr> variants,
                         const CompileOptions &options, ::tuna::Bundle &bundle,
                         compiler::CodeMap &code, CompileReport &report) {
  auto start = std::chrono::steady_clock::now();
  LogicalResult result = success();
  {
    compiler::VariantDiagnostics diagnostics(module.getContext(),
                                             dispatches.labels(variants));
    if (target.kind != Target::Kind::Host) {
      result = compiler::compileGpu(module, target, variants, options, bundle,
                                    code, report, diagnostics);
    } else {
      SmallVector<StringRef> functions;
      for (SymbolRefAttr variant : variants)
        functions.push_back(variant.getRootReference().getValue());
      result = compiler::compileHost(module, functions, options, bundle, code,
                                     report, diagnostics);
    }
  }
  if (failed(result))
    return failure();
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  report.times.push_back(
      {target.str(), static_cast<unsigned>(variants.size()), elapsed.count()});
  return success();
}
} // namespace

/// A bundle with no kernels yet, stamped with this compiler's version.
static ::tuna::Bundle emptyBundle() {
  ::tuna::Bundle bundle;
  bundle.tunaVersion = ::tuna::tunaVersion();
  return bundle;
}

FailureOr<::tuna::Bundle>
mlir::tuna::compileBundle(ModuleOp module, const CompileOptions &options,
                          CompileReport &report) {
  Dispatches dispatches;
  if (failed(dispatches.build(module, options)))
    return failure();
  for (DispatchOp dispatch : dispatches.ops)
    if (dispatch->hasAttr(TunaDialect::getPlannedKernelAttrName()))
      return dispatch.emitError()
             << "kernel '" << dispatch.getSymName()
             << "' is only planned (tuna-expand plan-only): instantiate the "
                "variants to compile first (instantiatePlannedVariants)";

  // Variants a planned table lists but that were not instantiated get no
  // code: the runtime sees them as not compiled.
  SymbolTable symbols(module);

  ::tuna::Bundle bundle = emptyBundle();
  SmallVector<compiler::CodeMap> codes(options.targets.size());
  for (auto [target, code] : llvm::zip_equal(options.targets, codes)) {
    // A family's table names its kernels' variants again: each is compiled
    // once.
    SmallVector<SymbolRefAttr> variants;
    llvm::DenseSet<SymbolRefAttr> listed;
    for (size_t i = 0; i < dispatches.ops.size(); ++i)
      if (dispatches.compiles(target, i))
        for (SymbolRefAttr ref : dispatches.variantKernels[i])
          if (symbols.lookup(ref.getRootReference()) &&
              listed.insert(ref).second)
            variants.push_back(ref);
    bool host = target.kind == Target::Kind::Host;
    if (variants.empty()) {
      report.notes.push_back(target.str() + ": nothing to compile: no " +
                             (host ? "host" : "GPU") +
                             " kernel in the input supports it");
      continue;
    }
    if (failed(compileFor(module, dispatches, target, variants, options,
                          bundle, code, report)))
      return failure();
  }

  for (auto [kernel, refs] :
       llvm::zip_equal(dispatches.kernels, dispatches.variantKernels))
    for (auto [variant, ref] : llvm::zip_equal(kernel.variants, refs))
      for (compiler::CodeMap &code : codes) {
        auto it = code.find(ref.getRootReference().getValue());
        if (it != code.end())
          variant.code.insert(variant.code.end(), it->second.begin(),
                              it->second.end());
      }
  if (failed(keepKernelsWithCode(module, dispatches, options, bundle, report)))
    return failure();
  return bundle;
}

/// Object::moduleState of a kernel that `dispatch` names (a variant, or
/// the kernel a planned table was made from), from its code before
/// lowering.
static bool sourceModuleState(DispatchOp dispatch, SymbolRefAttr kernel) {
  Operation *op = SymbolTable::lookupNearestSymbolFrom(dispatch, kernel);
  auto gpuModule = op ? op->getParentOfType<gpu::GPUModuleOp>() : nullptr;
  return gpuModule && compiler::holdsModuleState(gpuModule);
}

FailureOr<::tuna::Bundle> mlir::tuna::planBundle(ModuleOp module,
                                                 const CompileOptions &options,
                                                 CompileReport &report) {
  Dispatches dispatches;
  if (failed(dispatches.build(module, options)))
    return failure();

  ::tuna::Bundle bundle = emptyBundle();
  for (const Target &target : options.targets) {
    SmallVector<StringRef, 2> formats = {"elf-so"};
    std::string triple = llvm::sys::getDefaultTargetTriple();
    if (target.kind != Target::Kind::Host) {
      FailureOr<SmallVector<StringRef, 2>> gpuFormats =
          compiler::gpuObjectFormats(module.getLoc(), target, options);
      if (failed(gpuFormats))
        return failure();
      formats = std::move(*gpuFormats);
      triple = target.kind == Target::Kind::NVPTX ? "nvptx64-nvidia-cuda"
                                                  : "amdgcn-amd-amdhsa";
    }
    for (size_t i = 0; i < dispatches.ops.size(); ++i) {
      if (!dispatches.compiles(target, i))
        continue;
      // A planned table's variants do not exist yet: a kernel that can use
      // module state marks them all.
      DispatchOp dispatch = dispatches.ops[i];
      auto planned = dispatch->getAttrOfType<SymbolRefAttr>(
          TunaDialect::getPlannedKernelAttrName());
      bool plannedState = planned && sourceModuleState(dispatch, planned);
      for (auto [variant, ref] : llvm::zip_equal(
               dispatches.kernels[i].variants, dispatches.variantKernels[i])) {
        bool moduleState =
            planned ? plannedState : sourceModuleState(dispatch, ref);
        for (StringRef format : formats) {
          ::tuna::VariantCode code;
          code.object = static_cast<int>(bundle.objects.size());
          code.symbol = target.kind == Target::Kind::Host
                            ? variant.name + "__packed"
                            : variant.name;
          variant.code.push_back(std::move(code));
          bundle.objects.push_back({target.str(), format.str(), triple,
                                    std::string(),
                                    target.controlsGridDependency(),
                                    moduleState});
        }
      }
    }
  }
  if (failed(keepKernelsWithCode(module, dispatches, options, bundle, report)))
    return failure();
  return bundle;
}

namespace {
/// The variant (its kernel reference) that owns an object of a plan, and
/// the plan's code entry for it.
struct ObjectOwner {
  SymbolRefAttr ref;
  const ::tuna::VariantCode *code = nullptr;
};
using ObjectOwners = llvm::DenseMap<int, ObjectOwner>;
} // namespace

/// Which variant of `module` owns each object of `plan`.
static FailureOr<ObjectOwners> findOwners(ModuleOp module,
                                          const ::tuna::Bundle &plan,
                                          const Dispatches &dispatches) {
  llvm::StringMap<size_t> dispatchOf;
  for (auto [i, kernel] : llvm::enumerate(dispatches.kernels))
    dispatchOf[kernel.name] = i;
  ObjectOwners owners;
  for (const ::tuna::Kernel &kernel : plan.kernels) {
    auto it = dispatchOf.find(kernel.name);
    if (it == dispatchOf.end() ||
        dispatches.kernels[it->second].variants.size() != kernel.variants.size())
      return emitError(module.getLoc())
             << "the plan's kernel '" << kernel.name
             << "' is not the module's";
    for (auto [variant, ref] : llvm::zip_equal(
             kernel.variants, dispatches.variantKernels[it->second]))
      for (const ::tuna::VariantCode &code : variant.code)
        owners[code.object] = {ref, &code};
  }
  return owners;
}

/// The index in `options.targets` of the target named `name`, if any.
static std::optional<size_t> findTarget(const CompileOptions &options,
                                        StringRef name) {
  auto it = llvm::find_if(options.targets,
                          [&](const Target &t) { return t.str() == name; });
  if (it == options.targets.end())
    return std::nullopt;
  return it - options.targets.begin();
}

/// The variants that own `objects`, per target of `options`, each once.
static FailureOr<SmallVector<SmallVector<SymbolRefAttr>>>
variantsToCompile(ModuleOp module, const ::tuna::Bundle &plan,
                  ArrayRef<int> objects, const ObjectOwners &owners,
                  const CompileOptions &options) {
  SmallVector<SmallVector<SymbolRefAttr>> wanted(options.targets.size());
  for (int object : objects) {
    auto owner = owners.find(object);
    if (owner == owners.end() || object < 0 ||
        static_cast<size_t>(object) >= plan.objects.size())
      return emitError(module.getLoc())
             << "object #" << object << " is not in the plan";
    const std::string &targetName = plan.objects[object].target;
    std::optional<size_t> target = findTarget(options, targetName);
    if (!target)
      return emitError(module.getLoc())
             << "object #" << object << " is for " << targetName
             << ", which is not a target of this compile";
    SmallVector<SymbolRefAttr> &list = wanted[*target];
    if (!llvm::is_contained(list, owner->second.ref))
      list.push_back(owner->second.ref);
  }
  return wanted;
}

FailureOr<std::vector<std::string>>
mlir::tuna::compileObjects(ModuleOp module, const ::tuna::Bundle &plan,
                           ArrayRef<int> objects, const CompileOptions &options,
                           CompileReport &report) {
  Dispatches dispatches;
  if (failed(dispatches.build(module, options)))
    return failure();
  FailureOr<ObjectOwners> owners = findOwners(module, plan, dispatches);
  if (failed(owners))
    return failure();
  FailureOr<SmallVector<SmallVector<SymbolRefAttr>>> wanted =
      variantsToCompile(module, plan, objects, *owners, options);
  if (failed(wanted))
    return failure();

  ::tuna::Bundle compiled;
  SmallVector<compiler::CodeMap> codes(options.targets.size());
  for (auto [target, variants, code] :
       llvm::zip_equal(options.targets, *wanted, codes)) {
    if (variants.empty())
      continue;
    if (failed(compileFor(module, dispatches, target, variants, options,
                          compiled, code, report)))
      return failure();
  }

  // Each planned object's bytes: the compiled object of the same owner,
  // format and symbol.
  std::vector<std::string> bytes;
  for (int object : objects) {
    const ::tuna::Object &planned = plan.objects[object];
    const ObjectOwner &owner = owners->find(object)->second;
    const compiler::CodeMap &code = codes[*findTarget(options, planned.target)];
    auto it = code.find(owner.ref.getRootReference().getValue());
    const ::tuna::VariantCode *made = nullptr;
    if (it != code.end())
      for (const ::tuna::VariantCode &candidate : it->second)
        if (compiled.objects[candidate.object].format == planned.format &&
            candidate.symbol == owner.code->symbol)
          made = &candidate;
    if (!made)
      return emitError(module.getLoc())
             << "variant " << owner.ref << " compiled to no " << planned.format
             << " for " << planned.target
             << " (were the tools removed since the plan was made?)";
    bytes.push_back(compiled.objects[made->object].data);
  }
  return bytes;
}
