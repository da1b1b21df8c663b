//===- Host.cpp - Host variants to a shared library -----------------------===//
//
// Host variants are top-level functions. They are lowered together to the
// LLVM dialect, split into one module per variant (with private copies of
// whatever they call), and each is translated, wrapped, optimized and
// compiled to an object file in parallel. ld.lld (or cc) links the objects
// into one shared library; calls to libc/libm stay undefined for dlopen.
//
// Every variant gets an entry `void <variant>__packed(void **args)`, where
// args[i] points at the i-th lowered parameter: the same parameter array a
// GPU launch takes, so the runtime calls host and GPU variants alike.
//
//===----------------------------------------------------------------------===//

#include "TargetImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Threading.h"
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

/// The top-level ops `roots` need, transitively, in module order.
static SmallVector<Operation *> collectReachable(ModuleOp module,
                                                 ArrayRef<Operation *> roots) {
  SymbolTable symbols(module);
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

/// A new module with `module`'s attributes and clones of `ops`.
static OwningOpRef<ModuleOp> cloneOnly(ModuleOp module,
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
    return emitError(loc) << "host variant '" << name
                          << "' has no definition after lowering";
  if (!isa<LLVM::LLVMVoidType>(function.getFunctionType().getReturnType()))
    return emitError(loc) << "host variant '" << name
                          << "' returns a value; kernels return nothing";

  HostMachine machine(options);
  FailureOr<std::unique_ptr<llvm::TargetMachine>> picMachine =
      machine.createPic(loc);
  if (failed(picMachine))
    return failure();
  std::optional<SmallVector<char, 0>> object =
      HostVariantToObject(variantModule, name, machine, **picMachine).run();
  if (!object)
    return emitError(loc) << "cannot compile host variant '" << name << "'";
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

LogicalResult compiler::compileHost(ModuleOp module,
                                    ArrayRef<StringRef> functions,
                                    const CompileOptions &options,
                                    ::tuna::Bundle &bundle, CodeMap &code,
                                    CompileReport &report) {
  MLIRContext *ctx = module.getContext();
  SymbolTable symbols(module);
  SmallVector<Operation *> roots;
  for (StringRef name : functions) {
    Operation *function = symbols.lookup(name);
    if (!function)
      return emitError(module.getLoc()) << "no function for variant @" << name;
    roots.push_back(function);
  }

  // Lower the variants (and what they call) together.
  OwningOpRef<ModuleOp> lowered =
      cloneOnly(module, collectReachable(module, roots));
  (*lowered)->removeAttr("gpu.container_module");
  PassManager pm(ctx, ModuleOp::getOperationName());
  buildLowerToTargetPipeline(pm, Target());
  if (failed(pm.run(*lowered)))
    return failure();

  // One module per variant; what it calls becomes private to it.
  SymbolTable loweredSymbols(*lowered);
  SmallVector<OwningOpRef<ModuleOp>> split;
  SmallVector<Location> locs;
  for (StringRef name : functions) {
    Operation *entry = loweredSymbols.lookup(name);
    if (!entry)
      return emitError(module.getLoc())
             << "host variant @" << name << " disappeared during lowering";
    locs.push_back(entry->getLoc());
    split.push_back(cloneOnly(*lowered, collectReachable(*lowered, {entry})));
    for (Operation &op : split.back()->getBody()->getOperations()) {
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
  }

  SmallVector<std::string> objects(functions.size());
  if (failed(failableParallelForEachN(ctx, 0, functions.size(), [&](size_t i) {
        FailureOr<std::string> object =
            compileVariant(*split[i], functions[i], locs[i], options);
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
