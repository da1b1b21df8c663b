//===- GPU.cpp - NVPTX and AMDGCN variants to objects ---------------------===//
//
// Lowers the variants' gpu.modules with the target's pipeline, then
// serializes every module in parallel through the attached target attribute
// (#nvvm.target, #rocdl.target), exactly as gpu-module-to-binary would, but
// keeping the assembly: PTX is also run through ptxas (cubin and resource
// report), AMDGCN assembly is assembled and linked into an HSA code object.
//
//===----------------------------------------------------------------------===//

#include "TargetImpl.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::tuna;

FailureOr<std::string> compiler::readFileBytes(Location loc, StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read '" << path
                          << "': " << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

FailureOr<std::string>
compiler::runTool(Location loc, const llvm::Twine &what, StringRef program,
                  ArrayRef<StringRef> args,
                  ArrayRef<std::pair<StringRef, StringRef>> spellings) {
  llvm::SmallString<128> log;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tuna-tool", "log", log))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  llvm::FileRemover removeLog(log);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  FailureOr<std::string> output = readFileBytes(loc, log);
  if (failed(output))
    return failure();
  for (auto [from, to] : spellings)
    for (size_t at = output->find(from); at != std::string::npos;
         at = output->find(from, at + to.size()))
      output->replace(at, from.size(), to.str());
  if (rc != 0) {
    InFlightDiagnostic diag = emitError(loc)
                              << what << ": " << program << " failed";
    if (!message.empty())
      diag << " (" << message << ")";
    if (!output->empty())
      diag << ":\n" << StringRef(*output).rtrim();
    return diag;
  }
  return output;
}

//===----------------------------------------------------------------------===//
// NVPTX
//===----------------------------------------------------------------------===//

/// Finds ptxas: the explicit path, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH.
static FailureOr<std::string> findPtxas(Location loc,
                                        const CompileOptions &options) {
  if (!options.ptxas.empty()) {
    if (!llvm::sys::fs::can_execute(options.ptxas))
      return emitError(loc) << "ptxas '" << options.ptxas
                            << "' does not exist or is not executable";
    return options.ptxas;
  }
  SmallVector<std::string, 2> candidates;
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    candidates.push_back(*home + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &candidate : candidates)
    if (llvm::sys::fs::can_execute(candidate))
      return candidate;
  if (std::optional<std::string> onPath =
          llvm::sys::Process::FindInEnvPath("PATH", "ptxas"))
    return *onPath;
  return std::string();
}

/// Reads `ptxas -v`'s report for the single entry of a module.
static ::tuna::Resources parsePtxasReport(StringRef log) {
  ::tuna::Resources resources;
  auto find = [&](StringRef pattern, int64_t &out) {
    SmallVector<StringRef, 2> matches;
    if (llvm::Regex(pattern).match(log, &matches))
      matches[1].getAsInteger(10, out);
  };
  int64_t registers = -1, spillStores = -1, spillLoads = -1;
  find("Used ([0-9]+) registers", registers);
  resources.registers = static_cast<int>(registers);
  if (registers >= 0)
    resources.sharedBytes = 0; // ptxas omits "bytes smem" when there is none.
  find("([0-9]+) bytes smem", resources.sharedBytes);
  find("([0-9]+) bytes stack frame", resources.localBytes);
  find("([0-9]+) bytes spill stores", spillStores);
  find("([0-9]+) bytes spill loads", spillLoads);
  if (spillStores >= 0 && spillLoads >= 0)
    resources.spillBytes = spillStores + spillLoads;
  return resources;
}

/// ptxas reports code it had to make slower than written ("Potential
/// Performance Loss", e.g. wgmma instructions serialized) only with -v, as
/// info: a warning at the variant, so that nobody benchmarks such a variant
/// without knowing.
static void reportPtxasPerformanceLoss(gpu::GPUModuleOp gpuModule,
                                       StringRef entry, StringRef log) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    size_t at = line.find("Potential Performance Loss");
    if (at == StringRef::npos)
      continue;
    StringRef code = line.take_front(at).trim();
    if (code.consume_front("ptxas info") || code.consume_front("ptxas warning"))
      code = code.ltrim(" :").rtrim();
    Operation *kernel = gpuModule.lookupSymbol(entry);
    mlir::emitWarning(kernel ? kernel->getLoc() : gpuModule.getLoc(),
                      "ptxas: ")
        << line.drop_front(at).rtrim()
        << (code.empty() ? "" : " " + code.str());
  }
}

FailureOr<SmallVector<StringRef, 2>>
compiler::gpuObjectFormats(Location loc, const Target &target,
                           const CompileOptions &options) {
  if (target.kind == Target::Kind::NVPTX) {
    if (options.noPtxas)
      return SmallVector<StringRef, 2>{"ptx"};
    FailureOr<std::string> ptxas = findPtxas(loc, options);
    if (failed(ptxas))
      return failure();
    return ptxas->empty() ? SmallVector<StringRef, 2>{"ptx"}
                          : SmallVector<StringRef, 2>{"cubin", "ptx"};
  }
  bool linker =
      !options.ldLld.empty() && llvm::sys::fs::can_execute(options.ldLld);
  return linker ? SmallVector<StringRef, 2>{"hsaco", "amdgcn-asm"}
                : SmallVector<StringRef, 2>{"amdgcn-asm"};
}

//===----------------------------------------------------------------------===//
// AMDGCN
//===----------------------------------------------------------------------===//

namespace {
/// A ROCm toolkit as MLIR's ROCDL serializer expects it, made of symlinks:
/// `amdgcn/bitcode` -> the device bitcode, `llvm/bin/ld.lld` -> ld.lld.
/// Removed on destruction.
struct RocmToolkit {
  llvm::SmallString<128> root;
  bool hasLinker = false;

  ~RocmToolkit() {
    if (!root.empty())
      llvm::sys::fs::remove_directories(root);
  }

  LogicalResult create(Location loc, const CompileOptions &options) {
    if (!llvm::sys::fs::is_directory(options.rocmBitcodeDir) ||
        !llvm::sys::fs::exists(options.rocmBitcodeDir + "/ockl.bc"))
      return emitError(loc)
             << "ROCm device bitcode (ockl.bc, ocml.bc, ...) not found in '"
             << options.rocmBitcodeDir
             << "': install rocm-device-libs, or pass --rocm-bitcode=DIR";
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("tuna-rocm", root))
      return emitError(loc)
             << "cannot create a temporary directory: " << ec.message();
    llvm::SmallString<128> bitcode(options.rocmBitcodeDir);
    llvm::sys::fs::make_absolute(bitcode);
    std::error_code ec = llvm::sys::fs::create_directories(root + "/amdgcn");
    if (!ec)
      ec = llvm::sys::fs::create_link(bitcode, root + "/amdgcn/bitcode");
    hasLinker =
        !options.ldLld.empty() && llvm::sys::fs::can_execute(options.ldLld);
    if (!ec && hasLinker) {
      ec = llvm::sys::fs::create_directories(root + "/llvm/bin");
      if (!ec)
        ec = llvm::sys::fs::create_link(options.ldLld,
                                        root + "/llvm/bin/ld.lld");
    }
    if (ec)
      return emitError(loc) << "cannot make the ROCm toolkit in '" << root
                            << "': " << ec.message();
    return success();
  }
};
} // namespace

/// Resources from the code object's `amdhsa.kernels` metadata.
static ::tuna::Resources amdResources(MLIRContext *ctx, StringRef entry,
                                      ArrayRef<char> hsaco) {
  ::tuna::Resources resources;
  Builder builder(ctx);
  std::optional<DenseMap<StringAttr, NamedAttrList>> metadata =
      ROCDL::getAMDHSAKernelsELFMetadata(builder, hsaco);
  if (!metadata)
    return resources;
  auto it = metadata->find(builder.getStringAttr(entry));
  if (it == metadata->end())
    return resources;
  auto get = [&](StringRef name) -> int64_t {
    if (auto value = dyn_cast_or_null<IntegerAttr>(it->second.get(name)))
      return value.getInt();
    return -1;
  };
  resources.registers = static_cast<int>(get("vgpr_count"));
  resources.sharedBytes = get("group_segment_fixed_size");
  resources.localBytes = get("private_segment_fixed_size");
  int64_t vgprSpills = get("vgpr_spill_count");
  int64_t sgprSpills = get("sgpr_spill_count");
  if (vgprSpills >= 0 && sgprSpills >= 0)
    resources.spillBytes = 4 * (vgprSpills + sgprSpills);
  return resources;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

namespace {
/// The external tools of one GPU target.
struct GpuTools {
  std::string ptxas; ///< Empty: PTX only.
  RocmToolkit rocm;
};

/// What one variant compiles to.
struct GpuCode {
  std::string assembly; ///< PTX or AMDGCN assembly.
  std::string binary;   ///< cubin or HSA code object; empty without tools.
  ::tuna::Resources resources;
  bool moduleState = false;
};
} // namespace

/// Finds the tools of `target` before the slow part, so that a missing one
/// fails early; notes the outputs a missing optional tool costs.
static LogicalResult findGpuTools(Location loc, const Target &target,
                                  const CompileOptions &options,
                                  CompileReport &report, GpuTools &tools) {
  if (target.kind == Target::Kind::NVPTX) {
    if (options.noPtxas)
      return success();
    FailureOr<std::string> found = findPtxas(loc, options);
    if (failed(found))
      return failure();
    tools.ptxas = std::move(*found);
    if (tools.ptxas.empty())
      report.notes.push_back(target.str() +
                             ": ptxas not found (pass --ptxas=PATH or set "
                             "CUDA_HOME): PTX only, no cubins or resources");
    return success();
  }
  if (failed(tools.rocm.create(loc, options)))
    return failure();
  if (!tools.rocm.hasLinker)
    report.notes.push_back(target.str() + ": ld.lld '" + options.ldLld +
                           "' not found: AMDGCN assembly only, no HSA "
                           "code objects");
  return success();
}

/// A module holding only a clone of `gpuModule` (a variant), lowered with
/// the target's pipeline.
static FailureOr<OwningOpRef<ModuleOp>>
lowerGpuVariant(ModuleOp module, gpu::GPUModuleOp gpuModule,
                const Target &target) {
  OwningOpRef<ModuleOp> lowered = compiler::cloneOnly(module, {gpuModule});
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildLowerToTargetPipeline(pm, target);
  if (failed(pm.run(*lowered)))
    return failure();
  return lowered;
}

/// Runs ptxas on the PTX of `result`: the cubin, the resources, and a
/// warning for code ptxas made slower than written.
static LogicalResult runPtxas(gpu::GPUModuleOp gpuModule, StringRef entry,
                              StringRef chip, StringRef ptxas,
                              GpuCode &result) {
  llvm::SmallString<128> ptxFile, cubinFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tuna-" + entry, "ptx", ptxFile))
    return gpuModule.emitError("cannot create a temporary file: ")
           << ec.message();
  llvm::FileRemover removePtx(ptxFile);
  cubinFile = ptxFile;
  llvm::sys::path::replace_extension(cubinFile, "cubin");
  llvm::FileRemover removeCubin(cubinFile);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile, ec);
    os << result.assembly;
    if (ec || os.has_error())
      return gpuModule.emitError("cannot write '") << ptxFile << "'";
  }
  std::string arch = ("-arch=" + chip).str();
  // The output names the PTX as --emit-dir would: identical errors of
  // several variants read the same.
  std::string ptxName = (entry + ".ptx").str();
  FailureOr<std::string> log = compiler::runTool(
      gpuModule.getLoc(), "the variant's PTX", ptxas,
      {ptxas, arch, "-v", "-o", cubinFile, ptxFile}, {{ptxFile, ptxName}});
  if (failed(log))
    return failure();
  FailureOr<std::string> cubin =
      compiler::readFileBytes(gpuModule.getLoc(), cubinFile);
  if (failed(cubin))
    return failure();
  result.binary = std::move(*cubin);
  result.resources = parsePtxasReport(*log);
  reportPtxasPerformanceLoss(gpuModule, entry, *log);
  return success();
}

/// Assembles and links the AMDGCN assembly of `result` into an HSA code
/// object, and reads its resources.
static LogicalResult linkHsaco(gpu::GPUModuleOp gpuModule, StringRef entry,
                               StringRef chip, const RocmToolkit &rocm,
                               GpuCode &result) {
  auto emitErr = [&] { return gpuModule.emitError(); };
  auto rocdl = cast<ROCDL::ROCDLTargetAttr>(gpuModule.getTargetsAttr()[0]);
  FailureOr<SmallVector<char, 0>> object =
      ROCDL::assembleIsa(result.assembly, rocdl.getTriple(), chip,
                         rocdl.getFeatures(), emitErr);
  if (failed(object))
    return failure();
  FailureOr<SmallVector<char, 0>> hsaco =
      ROCDL::linkObjectCode(*object, rocm.root, emitErr);
  if (failed(hsaco))
    return failure();
  result.binary.assign(hsaco->begin(), hsaco->end());
  result.resources = amdResources(gpuModule.getContext(), entry, *hsaco);
  return success();
}

/// Serializes one lowered variant through its target attribute (assembly),
/// then makes the binary when the tools are there.
static LogicalResult compileVariant(gpu::GPUModuleOp gpuModule,
                                    StringRef entry, const Target &target,
                                    const GpuTools &tools, GpuCode &result) {
  bool nvptx = target.kind == Target::Kind::NVPTX;
  ArrayAttr targets = gpuModule.getTargetsAttr();
  auto targetAttr = targets && targets.size() == 1
                        ? dyn_cast<gpu::TargetAttrInterface>(targets[0])
                        : gpu::TargetAttrInterface();
  if (!targetAttr)
    return gpuModule.emitError("expected exactly one GPU target attribute");
  gpu::TargetOptions targetOptions(
      nvptx ? StringRef() : StringRef(tools.rocm.root), {}, {}, {},
      gpu::CompilationTarget::Assembly);
  std::optional<SmallVector<char, 0>> assembly =
      targetAttr.serializeToObject(gpuModule, targetOptions);
  if (!assembly)
    return gpuModule.emitError("failed to compile the variant to ")
           << (nvptx ? "PTX" : "AMDGCN assembly");
  result.assembly.assign(assembly->begin(), assembly->end());
  if (nvptx && !tools.ptxas.empty())
    return runPtxas(gpuModule, entry, target.chip, tools.ptxas, result);
  if (!nvptx && tools.rocm.hasLinker)
    return linkHsaco(gpuModule, entry, target.chip, tools.rocm, result);
  return success();
}

/// Generic (0) and global (1) memory: what outlives a launch, on NVPTX and
/// AMDGPU alike (shared memory, constants and the stack are 3, 4 and 5).
static bool isDeviceMemory(unsigned addressSpace) { return addressSpace <= 1; }

bool compiler::holdsModuleState(gpu::GPUModuleOp gpuModule) {
  SymbolTableCollection symbols;
  auto usesState = [&](Operation *op) {
    if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
      LLVM::GlobalOp global = address.getGlobal(symbols);
      return global && !global.getConstant() &&
             isDeviceMemory(global.getAddrSpace());
    }
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      if (!global || global.getConstant())
        return false;
      Attribute space = global.getType().getMemorySpace();
      if (!space)
        return true;
      if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
        return gpuSpace.getValue() == gpu::AddressSpace::Global;
      auto number = dyn_cast<IntegerAttr>(space);
      return number && isDeviceMemory(number.getInt());
    }
    return false;
  };
  return gpuModule
      ->walk([&](Operation *op) {
        return usesState(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Adds the objects of every variant to `bundle` (binary first) and records
/// them in `code`.
static void addGpuObjects(const Target &target,
                          ArrayRef<SymbolRefAttr> kernels,
                          MutableArrayRef<GpuCode> results,
                          ::tuna::Bundle &bundle, compiler::CodeMap &code) {
  bool nvptx = target.kind == Target::Kind::NVPTX;
  StringRef triple = nvptx ? "nvptx64-nvidia-cuda" : "amdgcn-amd-amdhsa";
  StringRef assemblyFormat = nvptx ? "ptx" : "amdgcn-asm";
  StringRef binaryFormat = nvptx ? "cubin" : "hsaco";
  for (auto [kernel, result] : llvm::zip_equal(kernels, results)) {
    auto addObject = [&](StringRef format, std::string data) {
      ::tuna::VariantCode variantCode;
      variantCode.object = static_cast<int>(bundle.objects.size());
      variantCode.symbol = kernel.getLeafReference().str();
      variantCode.resources = result.resources;
      bundle.objects.push_back({target.str(), format.str(), triple.str(),
                                std::move(data),
                                target.controlsGridDependency(),
                                result.moduleState});
      code[kernel.getRootReference().getValue()].push_back(variantCode);
    };
    if (!result.binary.empty())
      addObject(binaryFormat, std::move(result.binary));
    addObject(assemblyFormat, std::move(result.assembly));
  }
}

LogicalResult compiler::compileGpu(ModuleOp module, const Target &target,
                                   ArrayRef<SymbolRefAttr> kernels,
                                   const CompileOptions &options,
                                   ::tuna::Bundle &bundle, CodeMap &code,
                                   CompileReport &report,
                                   VariantDiagnostics &diagnostics) {
  Location loc = module.getLoc();
  GpuTools tools;
  if (failed(findGpuTools(loc, target, options, report, tools)))
    return failure();

  SymbolTable symbols(module);
  SmallVector<gpu::GPUModuleOp> gpuModules;
  for (SymbolRefAttr kernel : kernels) {
    auto gpuModule =
        symbols.lookup<gpu::GPUModuleOp>(kernel.getRootReference());
    if (!gpuModule)
      return emitError(loc) << "no gpu.module for variant " << kernel;
    gpuModules.push_back(gpuModule);
  }

  // Each variant is lowered and compiled on its own, in parallel.
  loadPipelineDialects(module.getContext(), target);
  SmallVector<GpuCode> results(kernels.size());
  if (failed(diagnostics.forEach([&](size_t i) -> LogicalResult {
        FailureOr<OwningOpRef<ModuleOp>> lowered =
            lowerGpuVariant(module, gpuModules[i], target);
        if (failed(lowered))
          return failure();
        auto gpuModule = *(*lowered)->getOps<gpu::GPUModuleOp>().begin();
        results[i].moduleState = holdsModuleState(gpuModule);
        return compileVariant(gpuModule,
                              kernels[i].getLeafReference().getValue(),
                              target, tools, results[i]);
      })))
    return failure();
  addGpuObjects(target, kernels, results, bundle, code);
  return success();
}
