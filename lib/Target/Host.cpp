//===- Host.cpp - Host variants to a shared library -----------------------===//
//
// Host variants are top-level functions. Each is cloned into a module of its
// own (with private copies of whatever it calls), lowered to the LLVM
// dialect, translated, wrapped, optimized and compiled to an object file,
// the variants in parallel. ld.lld (or cc) links the objects
// into one shared library; calls to libc/libm stay undefined for dlopen.
//
// Every variant gets an entry `void <variant>__packed(void **args)`, where
// args[i] points at the i-th lowered parameter: the same parameter array a
// GPU launch takes, so the runtime calls host and GPU variants alike.
//
//===----------------------------------------------------------------------===//

#include "TargetImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/ModuleToObject.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::tuna;

/// The top-level ops of `module` (whose table is `symbols`) that `roots`
/// need, transitively, in module order.
static SmallVector<Operation *> collectReachable(ModuleOp module,
                                                 const SymbolTable &symbols,
                                                 ArrayRef<Operation *> roots) {
  llvm::SetVector<Operation *> reached(roots.begin(), roots.end());
  for (size_t i = 0; i < reached.size(); ++i) {
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(reached[i]);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *op = symbols.lookup(use.getSymbolRef().getRootReference()))
        reached.insert(op);
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : module.getBody()->getOperations())
    if (reached.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// Adds `void <name>__packed(void **args)` calling `name` with *args[i].
static llvm::Function *addPackedWrapper(llvm::Function &function) {
  llvm::Module &module = *function.getParent();
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptrType = llvm::PointerType::getUnqual(ctx);
  auto *wrapperType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrType}, false);
  llvm::Function *wrapper =
      llvm::Function::Create(wrapperType, llvm::GlobalValue::ExternalLinkage,
                             function.getName() + "__packed", module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : function.args()) {
    llvm::Value *slot = builder.CreateConstGEP1_64(ptrType, wrapper->getArg(0),
                                                   param.getArgNo());
    llvm::Value *pointer = builder.CreateLoad(ptrType, slot);
    args.push_back(builder.CreateLoad(param.getType(), pointer));
  }
  builder.CreateCall(&function, args);
  builder.CreateRetVoid();
  // Only the wrapper is exported; O3 inlines the variant into it.
  function.setLinkage(llvm::GlobalValue::InternalLinkage);
  return wrapper;
}

namespace {
/// The machine host code is compiled for.
struct HostMachine {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string cpu;
  std::string features;

  explicit HostMachine(const CompileOptions &options) : cpu(options.hostCpu) {
    static const bool initialized = [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      return true;
    }();
    (void)initialized;
    if (cpu != "native")
      return;
    cpu = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    features = llvm::join(list, ",");
  }

  /// A position-independent machine: the code goes into a shared library.
  FailureOr<std::unique_ptr<llvm::TargetMachine>>
  createPic(Location loc) const {
    std::string error;
    llvm::Triple parsed(triple);
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(parsed, error);
    if (!target)
      return emitError(loc) << error;
    std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
        parsed, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
        std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    if (!machine)
      return emitError(loc) << "cannot create a target machine for " << triple
                            << " (cpu " << cpu << ")";
    return machine;
  }
};

/// One host variant's module to an object file through upstream's
/// ModuleToObject (translation to LLVM IR, O3, emission), adding the packed
/// entry after translation. Objects are emitted with a position-independent
/// machine: the base class's has the default (static) relocation model,
/// which a shared library cannot hold.
class HostVariantToObject : public LLVM::ModuleToObject {
public:
  HostVariantToObject(ModuleOp module, StringRef entry,
                      const HostMachine &machine,
                      llvm::TargetMachine &picMachine)
      : ModuleToObject(*module, machine.triple, machine.cpu, machine.features,
                       /*optLevel=*/3),
        entry(entry), picMachine(picMachine) {}

protected:
  void handleModulePostLink(llvm::Module &module) override {
    // The object's file symbol names the variant.
    module.setModuleIdentifier(entry);
    module.setSourceFileName(entry);
    if (llvm::Function *function = module.getFunction(entry))
      addPackedWrapper(*function);
  }

  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &module) override {
    SmallVector<char, 0> object;
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (picMachine.addPassesToEmitFile(codegen, os, nullptr,
                                       llvm::CodeGenFileType::ObjectFile))
      return getOperation().emitError(
          "the host target cannot emit object files");
    codegen.run(module);
    return object;
  }

private:
  StringRef entry;
  llvm::TargetMachine &picMachine;
};
} // namespace

/// Checks that `name` is a kernel of `variantModule` (defined, returns
/// nothing), then compiles it.
static FailureOr<std::string> compileVariant(ModuleOp variantModule,
                                             StringRef name, Location loc,
                                             const CompileOptions &options) {
  auto function = variantModule.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!function || function.isExternal())
    return emitError(loc) << "the host variant has no definition after "
                             "lowering";
  if (!isa<LLVM::LLVMVoidType>(function.getFunctionType().getReturnType()))
    return emitError(loc)
           << "the host variant returns a value; kernels return nothing";

  HostMachine machine(options);
  FailureOr<std::unique_ptr<llvm::TargetMachine>> picMachine =
      machine.createPic(loc);
  if (failed(picMachine))
    return failure();
  std::optional<SmallVector<char, 0>> object =
      HostVariantToObject(variantModule, name, machine, **picMachine).run();
  if (!object)
    return emitError(loc) << "cannot compile the host variant";
  return std::string(object->begin(), object->end());
}

/// Links `objects` into a shared library with ld.lld, else with cc.
static FailureOr<std::string> linkSharedLibrary(Location loc,
                                                ArrayRef<std::string> objects,
                                                const CompileOptions &options,
                                                CompileReport &report) {
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("tuna-host", dir))
    return emitError(loc) << "cannot create a temporary directory: "
                          << ec.message();
  llvm::scope_exit removeDir([&] { llvm::sys::fs::remove_directories(dir); });

  std::string library = (dir + "/variants.so").str();
  std::string linker = options.ldLld;
  bool useLld = !linker.empty() && llvm::sys::fs::can_execute(linker);
  if (!useLld) {
    std::optional<std::string> cc =
        llvm::sys::Process::FindInEnvPath("PATH", "cc");
    if (!cc)
      return emitError(loc) << "cannot link host code: neither ld.lld '"
                            << options.ldLld << "' nor cc found";
    linker = *cc;
    report.notes.push_back("host: ld.lld '" + options.ldLld +
                           "' not found: linking with " + linker);
  }
  SmallVector<std::string> files;
  for (auto [i, object] : llvm::enumerate(objects)) {
    files.push_back((dir + "/v" + llvm::Twine(i) + ".o").str());
    std::error_code ec;
    llvm::raw_fd_ostream os(files.back(), ec);
    os << object;
    if (ec || os.has_error())
      return emitError(loc) << "cannot write '" << files.back() << "'";
  }
  SmallVector<StringRef> args = {linker, "-shared", "-o", library};
  if (useLld)
    args.append({"--as-needed", "-z", "noexecstack"});
  for (const std::string &file : files)
    args.push_back(file);
  if (failed(compiler::runTool(loc, "linking the host variants", linker, args)))
    return failure();
  return compiler::readFileBytes(loc, library);
}

/// A module of the variant `entry` and what it calls, lowered to the LLVM
/// dialect; what it calls becomes private to it.
static FailureOr<OwningOpRef<ModuleOp>>
lowerHostVariant(ModuleOp module, const SymbolTable &symbols,
                 Operation *entry) {
  OwningOpRef<ModuleOp> lowered =
      compiler::cloneOnly(module, collectReachable(module, symbols, {entry}));
  (*lowered)->removeAttr("gpu.container_module");
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildLowerToTargetPipeline(pm, Target());
  if (failed(pm.run(*lowered)))
    return failure();
  StringRef name = SymbolTable::getSymbolName(entry);
  for (Operation &op : lowered->getBody()->getOperations()) {
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      if (func.getName() != name && !func.isExternal())
        func.setLinkage(LLVM::Linkage::Internal);
    } else if (auto global = dyn_cast<LLVM::GlobalOp>(op)) {
      bool defined =
          global.getValueOrNull() || !global.getInitializerRegion().empty();
      if (defined && global.getLinkage() == LLVM::Linkage::External)
        global.setLinkage(LLVM::Linkage::Internal);
    }
  }
  return lowered;
}

LogicalResult compiler::compileHost(ModuleOp module,
                                    ArrayRef<StringRef> functions,
                                    const CompileOptions &options,
                                    ::tuna::Bundle &bundle, CodeMap &code,
                                    CompileReport &report,
                                    VariantDiagnostics &diagnostics) {
  SymbolTable symbols(module);
  SmallVector<Operation *> entries;
  for (StringRef name : functions) {
    Operation *function = symbols.lookup(name);
    if (!function)
      return emitError(module.getLoc()) << "no function for variant @" << name;
    entries.push_back(function);
  }

  loadPipelineDialects(module.getContext(), Target());
  SmallVector<std::string> objects(functions.size());
  if (failed(diagnostics.forEach([&](size_t i) -> LogicalResult {
        FailureOr<OwningOpRef<ModuleOp>> lowered =
            lowerHostVariant(module, symbols, entries[i]);
        if (failed(lowered))
          return failure();
        FailureOr<std::string> object = compileVariant(
            **lowered, functions[i], entries[i]->getLoc(), options);
        if (failed(object))
          return failure();
        objects[i] = std::move(*object);
        return success();
      })))
    return failure();

  FailureOr<std::string> library =
      linkSharedLibrary(module.getLoc(), objects, options, report);
  if (failed(library))
    return failure();

  int index = static_cast<int>(bundle.objects.size());
  bundle.objects.push_back({Target().str(), "elf-so",
                            llvm::sys::getDefaultTargetTriple(),
                            std::move(*library)});
  for (StringRef name : functions) {
    ::tuna::VariantCode variantCode;
    variantCode.object = index;
    variantCode.symbol = (name + "__packed").str();
    code[name].push_back(variantCode);
  }
  return success();
}
