//===- tuna-compile.cpp - Tunable MLIR kernels to a bundle ----------------===//
//
//   tuna-compile kernels.mlir --target=nvptx:sm_90 [--target=host ...]
//                -o kernels.tuna
//
// Expands every tuna.space (tuna-expand), compiles every variant for every
// target (lib/Target), writes the bundle and prints a summary.
//
//===----------------------------------------------------------------------===//

#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Target/Compile.h"
#include "tuna/Target/Header.h"
#include "tuna/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tuna;
namespace cl = llvm::cl;

static cl::OptionCategory category("tuna-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Bundle to write"),
                                       cl::value_desc("file"), cl::Required,
                                       cl::cat(category));
static cl::list<std::string>
    targetSpecs("target",
                cl::desc("nvptx:sm_XY[a], amdgcn:gfxNNN or host (repeatable, "
                         "or comma-separated)"),
                cl::CommaSeparated, cl::OneOrMore, cl::cat(category));
static cl::opt<std::string>
    emitVariants("emit-variants",
                 cl::desc("Write the expanded MLIR (after tuna-expand)"),
                 cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    emitDir("emit-dir", cl::desc("Write every object into this directory"),
            cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string>
    headerFile("header",
               cl::desc("Also write a C++ header that embeds the bundle and "
                        "declares one typed launcher per kernel"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> headerNamespace(
    "header-namespace",
    cl::desc("Namespace of the header (default: the header file's stem)"),
    cl::value_desc("name"), cl::cat(category));
static cl::opt<unsigned> threads("j",
                                 cl::desc("Compile threads (default: all "
                                          "cores)"),
                                 cl::init(0), cl::cat(category));
static cl::opt<bool> timing("timing", cl::desc("Print the time of every phase"),
                            cl::cat(category));
static cl::list<std::string> variantIds(
    "variants",
    cl::desc("Plan every configuration but instantiate and compile only "
             "these planned variants of each kernel (ids or ranges N-M, "
             "comma-separated, each for every kernel or, as KERNEL:ID or "
             "KERNEL:N-M, for one; the default variant is always compiled)"),
    cl::value_desc("ids"), cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    ptxasPath("ptxas",
              cl::desc("ptxas to use (default: $CUDA_HOME/bin, "
                       "/usr/local/cuda/bin, PATH)"),
              cl::value_desc("path"), cl::cat(category));
static cl::opt<bool> noPtxas("no-ptxas", cl::desc("PTX only: do not run ptxas"),
                             cl::cat(category));
static cl::opt<std::string>
    rocmBitcode("rocm-bitcode",
                cl::desc("ROCm device bitcode directory (ockl.bc, ...)"),
                cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> ldLld("ld-lld", cl::desc("ld.lld to link with"),
                                  cl::value_desc("path"), cl::cat(category));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check that the diagnostics match the expected-* lines in the "
             "input"),
    cl::cat(category));
/// The defaults of every option below: tuna-expand's are declared once, in
/// Passes.td; the compile options' in CompileOptions.
static const TunaExpandOptions expandDefaults;
static const CompileOptions compileDefaults;

static cl::opt<std::string>
    hostCpu("host-cpu",
            cl::desc("CPU for host code: generic (default), native, or an "
                     "LLVM CPU name"),
            cl::init(compileDefaults.hostCpu), cl::cat(category));

// tuna-expand's options.
static cl::opt<int64_t> maxThreadsPerBlock(
    "max-threads-per-block",
    cl::desc("Drop GPU variants whose static block has more threads"),
    cl::init(expandDefaults.maxThreadsPerBlock), cl::cat(category));
static cl::opt<int64_t> maxSharedMemory(
    "max-shared-memory",
    cl::desc("Drop GPU variants that need more shared memory per block"),
    cl::init(expandDefaults.maxSharedMemory), cl::cat(category));
static cl::opt<int64_t>
    maxVariants("max-variants",
                cl::desc("Refuse spaces with more configurations"),
                cl::init(expandDefaults.maxVariants), cl::cat(category));
static cl::opt<bool> dedupe("dedupe",
                            cl::desc("Drop variants identical to an earlier "
                                     "one"),
                            cl::init(expandDefaults.dedupe), cl::cat(category));
static cl::opt<bool>
    reportDropped("report-dropped",
                  cl::desc("Remark on every configuration that is dropped"),
                  cl::init(expandDefaults.reportDropped), cl::cat(category));

static void note(const llvm::Twine &message) {
  llvm::WithColor::note(llvm::errs(), "tuna-compile") << message << "\n";
}

static LogicalResult fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tuna-compile") << message << "\n";
  return failure();
}

static LogicalResult writeFile(StringRef path, StringRef bytes) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return fail(error);
  file->os() << bytes;
  file->os().flush();
  if (file->os().has_error())
    return fail("cannot write '" + path + "'");
  file->keep();
  return success();
}

/// A parameter name as it may stand in a file name: characters other than
/// letters, digits, '_', '+' and '-' become '_'.
static std::string fileNameSafe(StringRef name) {
  std::string safe = name.str();
  for (char &c : safe)
    if (!llvm::isAlnum(c) && c != '_' && c != '+' && c != '-')
      c = '_';
  return safe;
}

/// The file name of an object in --emit-dir: <kernel>.<config>.<chip>.<ext>,
/// the configuration as name=value pairs joined by commas
/// (`scale.block=256,vec=4.sm_90.ptx`), so that a variant's code is found by
/// what the variant is, not by its number; or <input>.host.so for the host
/// library that holds every host variant.
static std::string objectFileName(const ::tuna::Object &object,
                                  const ::tuna::Kernel &kernel,
                                  const ::tuna::Variant &variant) {
  if (object.format == "elf-so")
    return (llvm::sys::path::stem(inputFile == "-" ? StringRef("stdin")
                                                   : StringRef(inputFile)) +
            ".host.so")
        .str();
  std::string name = fileNameSafe(kernel.name) + ".";
  for (const auto &[index, entry] : llvm::enumerate(variant.config))
    name += (index ? "," : "") + fileNameSafe(entry.first) + "=" +
            std::to_string(entry.second);
  StringRef chip = StringRef(object.target).split(':').second;
  StringRef extension = llvm::StringSwitch<StringRef>(object.format)
                            .Case("amdgcn-asm", "s")
                            .Default(object.format);
  return (name + "." + chip + "." + extension).str();
}

static void printSummary(const ::tuna::Bundle &bundle,
                         const CompileReport &report, double totalSeconds,
                         size_t bundleBytes) {
  llvm::raw_ostream &os = llvm::outs();
  size_t variants = 0;
  for (const ::tuna::Kernel &kernel : bundle.kernels) {
    variants += kernel.variants.size();
    size_t compiled =
        llvm::count_if(kernel.variants, [](const ::tuna::Variant &v) {
          return !v.code.empty();
        });
    os << "kernel " << kernel.name << ": " << kernel.variants.size()
       << " variants";
    if (compiled != kernel.variants.size())
      os << " (" << compiled << " compiled)";
    os << ", default " << kernel.variants[kernel.defaultVariant].name << "\n";
    size_t nameWidth = 0, configWidth = 0;
    for (const ::tuna::Variant &variant : kernel.variants) {
      nameWidth = std::max(nameWidth, variant.name.size());
      configWidth = std::max(configWidth, configString(variant).size());
    }
    for (const ::tuna::Variant &variant : kernel.variants) {
      if (variant.code.empty())
        continue; // Planned, not compiled: one line per kernel says how many.
      os << "  " << llvm::left_justify(variant.name, nameWidth) << "  "
         << llvm::left_justify(configString(variant), configWidth);
      // One group per target: its objects, then the resources reported.
      const ::tuna::VariantCode *last = nullptr;
      auto printResources = [&] {
        if (last && last->resources.registers >= 0)
          os << " regs " << last->resources.registers;
        if (last && last->resources.spillBytes >= 0)
          os << " spill " << last->resources.spillBytes << " B";
      };
      for (const ::tuna::VariantCode &code : variant.code) {
        const ::tuna::Object &object = bundle.objects[code.object];
        if (!last || bundle.objects[last->object].target != object.target) {
          printResources();
          os << "  " << object.target << ":";
        }
        os << " " << object.format << " " << object.data.size() << " B";
        last = &code;
      }
      printResources();
      os << "\n";
    }
  }
  for (const CompileReport::TargetTime &time : report.times)
    os << "compiled " << time.target << ": " << time.variants << " variants in "
       << llvm::format("%.2f", time.seconds) << " s\n";
  os << "wrote " << outputFile << ": " << bundle.kernels.size()
     << (bundle.kernels.size() == 1 ? " kernel, " : " kernels, ") << variants
     << " variants, " << bundle.objects.size() << " objects, " << bundleBytes
     << " B in " << llvm::format("%.2f", totalSeconds) << " s\n";
}

/// The namespace of the header: --header-namespace, else from --header.
static std::string headerNamespaceName() {
  return headerNamespace.empty() ? headerNamespaceFor(headerFile)
                                 : headerNamespace.getValue();
}

/// tuna-expand's options from the command line.
static TunaExpandOptions expandOptionsFromFlags() {
  TunaExpandOptions expandOptions;
  expandOptions.maxThreadsPerBlock = maxThreadsPerBlock;
  expandOptions.maxSharedMemory = maxSharedMemory;
  expandOptions.maxVariants = maxVariants;
  expandOptions.dedupe = dedupe;
  expandOptions.reportDropped = reportDropped;
  // --variants names planned variants: every configuration keeps its id.
  expandOptions.planOnly = !variantIds.empty();
  return expandOptions;
}

/// A range [first, last] of planned variant ids that --variants lists, of
/// the kernel `kernel` (empty: of every kernel).
struct IdRange {
  std::string kernel;
  int64_t first = 0, last = 0;
  bool appliesTo(StringRef name) const {
    return kernel.empty() || kernel == name;
  }
};
using IdRanges = SmallVector<IdRange>;

/// Parses --variants; an error for an item that is not an id or a range.
static FailureOr<IdRanges> parseVariantIds() {
  IdRanges ranges;
  for (StringRef item : variantIds) {
    IdRange range;
    StringRef ids = item.trim();
    bool bad = false;
    if (size_t colon = ids.find(':'); colon != StringRef::npos) {
      range.kernel = ids.take_front(colon).trim().str();
      ids = ids.drop_front(colon + 1);
      bad = range.kernel.empty();
    }
    auto [first, last] = ids.split('-');
    bad = bad || first.trim().getAsInteger(10, range.first) || range.first < 0;
    range.last = range.first;
    if (!bad && !last.empty())
      bad = last.trim().getAsInteger(10, range.last) ||
            range.last < range.first;
    if (bad)
      return fail("--variants: '" + item +
                  "' is not a variant id or a range N-M of them, for every "
                  "kernel or as KERNEL:ID");
    ranges.push_back(range);
  }
  return ranges;
}

/// --variants: instantiates the listed planned variants and every default;
/// an error names an id past a kernel's table or a kernel the module lacks.
static LogicalResult instantiateListed(ModuleOp module,
                                       const IdRanges &ranges) {
  auto tables = module.getOps<DispatchOp>();
  for (const IdRange &range : ranges)
    if (!range.kernel.empty() &&
        llvm::none_of(tables, [&](DispatchOp table) {
          return table.getSymName() == range.kernel;
        })) {
      std::string known;
      for (DispatchOp table : tables)
        known += (known.empty() ? "" : ", ") + table.getSymName().str();
      return fail("--variants: no kernel '" + range.kernel +
                  "' (the kernels: " + known + ")");
    }
  for (DispatchOp table : tables) {
    int64_t count = llvm::range_size(table.getBody().getOps<VariantOp>());
    int64_t highest = -1;
    for (const IdRange &range : ranges)
      if (range.appliesTo(table.getSymName()))
        highest = std::max(highest, range.last);
    if (highest >= count)
      return table.emitError()
             << "--variants: kernel '" << table.getSymName() << "' has "
             << count << " planned variants (ids 0-" << count - 1
             << "); there is no variant " << highest;
  }
  return instantiatePlannedVariants(module, [&](DispatchOp table, size_t i) {
    auto id = static_cast<int64_t>(i);
    return id == table.getDefaultVariant() ||
           llvm::any_of(ranges, [&](const IdRange &range) {
             return range.appliesTo(table.getSymName()) &&
                    range.first <= id && id <= range.last;
           });
  });
}

/// --emit-variants: writes the expanded module.
static LogicalResult writeVariants(ModuleOp module) {
  if (emitVariants.empty())
    return success();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return writeFile(emitVariants, text);
}

/// --emit-dir: writes every object of `bundle` into its own file. Two
/// variants of a kernel with one configuration (a hand-written dispatch
/// table may have them) would share a file: that is an error.
static LogicalResult writeObjects(const ::tuna::Bundle &bundle) {
  if (std::error_code ec = llvm::sys::fs::create_directories(emitDir))
    return fail("cannot create '" + emitDir + "': " + ec.message());
  std::vector<std::string> names(bundle.objects.size());
  llvm::StringMap<std::string> writer; // file name -> the variant writing it
  for (const ::tuna::Kernel &kernel : bundle.kernels)
    for (const auto &[index, variant] : llvm::enumerate(kernel.variants))
      for (const ::tuna::VariantCode &code : variant.code) {
        std::string name =
            objectFileName(bundle.objects[code.object], kernel, variant);
        std::string what =
            ("variant #" + Twine(index) + " of kernel '" + kernel.name + "'")
                .str();
        auto [it, inserted] = writer.try_emplace(name, what);
        if (!inserted && names[code.object] != name)
          return fail(it->second + " and " + what +
                      " have one configuration: --emit-dir cannot name both '" +
                      name + "'");
        names[code.object] = std::move(name);
      }
  for (auto [object, name] : llvm::zip_equal(bundle.objects, names)) {
    llvm::SmallString<128> path(emitDir);
    llvm::sys::path::append(path, name);
    if (failed(writeFile(path, object.data)))
      return failure();
  }
  return success();
}

/// Writes the bundle `bytes`, the header and the objects that were asked
/// for. The header is made before anything is written, so that a kernel it
/// cannot declare leaves no bundle behind either.
static LogicalResult writeOutputs(const ::tuna::Bundle &bundle,
                                  StringRef bytes) {
  std::string header;
  if (!headerFile.empty()) {
    llvm::Expected<std::string> text =
        emitHeader(bundle, bytes, headerNamespaceName(), inputFile);
    if (!text)
      return fail(llvm::toString(text.takeError()));
    header = std::move(*text);
  }
  if (failed(writeFile(outputFile, bytes)))
    return failure();
  if (!headerFile.empty() && failed(writeFile(headerFile, header)))
    return failure();
  if (!emitDir.empty())
    return writeObjects(bundle);
  return success();
}

/// Expands, compiles and writes the bundle; prints the summary and, with
/// --timing, MLIR's timing report of the phases (and of the passes in them).
static LogicalResult compileFile(llvm::SourceMgr &sourceMgr,
                                 MLIRContext &context,
                                 const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  TimingScope timingRoot = timingManager.getRootScope();

  FailureOr<IdRanges> ids = parseVariantIds();
  if (failed(ids))
    return failure();
  auto expanded = [&](ModuleOp module) {
    if (!variantIds.empty() && failed(instantiateListed(module, *ids)))
      return failure();
    return writeVariants(module);
  };
  CompileReport report;
  FailureOr<::tuna::Bundle> bundle =
      compileSource(sourceMgr, context, expandOptionsFromFlags(), options,
                    report, timingRoot, expanded);
  for (const std::string &message : report.notes)
    note(message);
  if (failed(bundle))
    return failure();

  TimingScope writeTiming = timingRoot.nest("write");
  llvm::Expected<std::string> bytes = serializeBundle(*bundle);
  if (!bytes)
    return fail("invalid bundle: " + llvm::toString(bytes.takeError()));
  if (failed(writeOutputs(*bundle, *bytes)))
    return failure();
  writeTiming.stop();

  printSummary(
      *bundle, report,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      bytes->size());
  return success();
}

/// The compile options the command line gives; an error (printed) when a
/// target or the header namespace is wrong, before any kernel compiles.
static FailureOr<CompileOptions> compileOptionsFromFlags() {
  CompileOptions options = getDefaultCompileOptions();
  for (const std::string &spec : targetSpecs) {
    llvm::Expected<Target> target = Target::parse(spec);
    if (!target)
      return fail(llvm::toString(target.takeError()));
    options.targets.push_back(*target);
  }
  if (!headerNamespace.empty() && headerFile.empty())
    return fail("--header-namespace needs --header");
  if (!headerFile.empty())
    if (llvm::Error err = verifyHeaderNamespace(headerNamespaceName()))
      return fail(llvm::toString(std::move(err)));
  options.ptxas = ptxasPath;
  options.noPtxas = noPtxas;
  if (!rocmBitcode.empty())
    options.rocmBitcodeDir = rocmBitcode;
  if (!ldLld.empty())
    options.ldLld = ldLld;
  options.hostCpu = hostCpu;
  return options;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tuna-compile: expand tunable MLIR kernels and compile every variant "
      "into a bundle\n");
  FailureOr<CompileOptions> options = compileOptionsFromFlags();
  if (failed(options))
    return 1;

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input) {
    (void)fail(error);
    return 1;
  }

  DialectRegistry registry;
  registerTunaDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // Diagnostics point at the source; a dump of the failing op is noise here.
  context.printOpOnDiagnostic(false);
  std::unique_ptr<llvm::DefaultThreadPool> pool;
  if (threads != 1) {
    pool = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threads));
    context.setThreadPool(*pool);
  }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  if (verifyDiagnostics) {
    SourceMgrDiagnosticVerifierHandler verifier(sourceMgr, &context);
    (void)compileFile(sourceMgr, context, *options);
    return failed(verifier.verify()) ? 1 : 0;
  }
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return failed(compileFile(sourceMgr, context, *options)) ? 1 : 0;
}
