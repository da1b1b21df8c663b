//===- TargetImpl.h - Pieces of compileBundle -------------------*- C++ -*-===//
//
// Private to lib/Target: the manifest builder and one compiler per target
// kind. Each compiler appends its Objects to the bundle and reports, per
// variant, where its code is.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_LIB_TARGET_TARGETIMPL_H
#define TUNA_LIB_TARGET_TARGETIMPL_H

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"
#include "tuna/Target/Compile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <mutex>
#include <vector>

namespace mlir::tuna::compiler {

/// The code of each variant for one target (one entry per object, e.g. PTX
/// and cubin), keyed by the root of the variant's kernel reference (the
/// gpu.module of a GPU variant, the function of a host variant).
using CodeMap = llvm::StringMap<SmallVector<::tuna::VariantCode, 2>>;

/// The manifest of one dispatch: everything but the code.
FailureOr<::tuna::Kernel> buildKernel(DispatchOp dispatch);

/// What a diagnostic of a variant says about it.
struct VariantLabel {
  std::string symbol; ///< The variant's kernel symbol, e.g. scale__v3.
  std::string kernel; ///< The kernel it is a variant of.
  std::string config; ///< e.g. `block=64 vec=4`.
  size_t kernelVariants = 0; ///< How many variants of the kernel compile.
};

/// Compiles the variants of one target, each labelled, and reports what
/// they say once per distinct diagnostic instead of once per variant: the
/// diagnostics emitted inside forEach are held back and, when this object
/// is destroyed, emitted once each with a note naming the kernel, how many
/// of its variants reported it and their configurations (a tool's mention
/// of the variant's symbol reads as the kernel's name).
class VariantDiagnostics {
public:
  VariantDiagnostics(MLIRContext *context, std::vector<VariantLabel> labels);
  ~VariantDiagnostics();

  ArrayRef<VariantLabel> getLabels() const { return labels; }

  /// Runs `compile(i)` for every variant i, in parallel on the context's
  /// thread pool when it has one, every variant also after one failed.
  /// Fails if any did.
  LogicalResult forEach(function_ref<LogicalResult(size_t)> compile);

private:
  void emit();

  struct Held {
    size_t variant;
    size_t order;
    Diagnostic diag;
  };
  MLIRContext *context;
  std::vector<VariantLabel> labels;
  DiagnosticEngine::HandlerID handler;
  std::mutex mutex;
  std::vector<Held> held;
};

/// Lowers and serializes the GPU variants `kernels` (`@module::@entry`) for
/// an NVPTX or AMDGCN target.
LogicalResult compileGpu(ModuleOp module, const Target &target,
                         ArrayRef<SymbolRefAttr> kernels,
                         const CompileOptions &options, ::tuna::Bundle &bundle,
                         CodeMap &code, CompileReport &report,
                         VariantDiagnostics &diagnostics);

/// Whether the code of `gpuModule` uses a mutable global outside shared
/// memory: state that outlives a launch (Object::moduleState).
bool holdsModuleState(gpu::GPUModuleOp gpuModule);

/// The formats of the objects compileGpu makes of each variant for `target`,
/// in the order it adds them (binary first, when the tools are there).
FailureOr<SmallVector<StringRef, 2>>
gpuObjectFormats(Location loc, const Target &target,
                 const CompileOptions &options);

/// Lowers and compiles each host function named in `functions` (with what
/// it calls) and links them into one shared library.
LogicalResult compileHost(ModuleOp module, ArrayRef<StringRef> functions,
                          const CompileOptions &options, ::tuna::Bundle &bundle,
                          CodeMap &code, CompileReport &report,
                          VariantDiagnostics &diagnostics);

/// A new module with `module`'s attributes and clones of `ops`.
OwningOpRef<ModuleOp> cloneOnly(ModuleOp module, ArrayRef<Operation *> ops);

/// Loads the dialects the lowering pipeline of `target` needs, so that the
/// variants' pipelines, run in parallel, load none.
void loadPipelineDialects(MLIRContext *context, const Target &target);

/// Runs `program` with `args`; on failure emits an error at `loc` that names
/// `what` (e.g. the variant's PTX) and quotes the tool's output. Returns the
/// tool's combined stdout and stderr, in which every `first` of `spellings`
/// (e.g. a temporary file's path) reads `second`.
FailureOr<std::string>
runTool(Location loc, const llvm::Twine &what, StringRef program,
        ArrayRef<StringRef> args,
        ArrayRef<std::pair<StringRef, StringRef>> spellings = {});

/// Reads a whole file, emitting an error at `loc` when it cannot.
FailureOr<std::string> readFileBytes(Location loc, StringRef path);

} // namespace mlir::tuna::compiler

#endif // TUNA_LIB_TARGET_TARGETIMPL_H
