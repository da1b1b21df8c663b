//===- Compile.h - Compile expanded kernels into a bundle -------*- C++ -*-===//
//
// Turns a module after `tuna-expand` into a tuna::Bundle: the manifest of
// every `tuna.dispatch` and, per requested target, the compiled code of every
// variant (PTX and cubins, AMDGCN assembly and HSA code objects, a host shared
// library). Variants compile in parallel on the context's thread pool.
// compileSource is the whole path from MLIR text to a bundle (parse,
// tuna-expand, compileBundle), shared by tuna-compile and tuna_jit.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TARGET_COMPILE_H
#define TUNA_TARGET_COMPILE_H

#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Transforms/Passes.h"
#include "tuna/runtime/Manifest.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tuna {

/// How to compile, and which external tools to use.
struct CompileOptions {
  /// The targets to compile for, at least one.
  SmallVector<Target> targets;

  /// ptxas: an explicit path, or empty to search $CUDA_HOME/bin,
  /// /usr/local/cuda/bin and PATH. Without ptxas, NVIDIA targets get PTX only.
  std::string ptxas;
  /// Do not look for ptxas: PTX only.
  bool noPtxas = false;

  /// The ROCm device bitcode (ockl.bc, ocml.bc, ...) for AMDGCN targets.
  std::string rocmBitcodeDir;
  /// ld.lld, for HSA code objects and host shared libraries.
  std::string ldLld;

  /// The CPU host code is compiled for: `generic` (runs on any CPU of the
  /// host architecture), `native` (this machine), or an LLVM CPU name.
  std::string hostCpu = "generic";
};

/// Defaults for the external tools, as found when Tuna was built.
CompileOptions getDefaultCompileOptions();

/// What happened besides the bundle: notes for the user (e.g. no ptxas) and
/// the wall time of every target.
struct CompileReport {
  struct TargetTime {
    std::string target;
    unsigned variants = 0;
    double seconds = 0;
  };
  std::vector<std::string> notes;
  std::vector<TargetTime> times;
};

/// A TimingManager that keeps the wall time of each phase: the timers nested
/// directly in its root, in the order they started (deeper timers, such as
/// those of passes, are not kept). tuna_jit reports these; tuna-compile
/// --timing prints MLIR's DefaultTimingManager report instead.
class PhaseTimingManager : public TimingManager {
public:
  struct Phase {
    std::string name;
    double seconds = 0;
    std::chrono::steady_clock::time_point start;
  };
  const std::deque<Phase> &getPhases() const { return phases; }

protected:
  std::optional<void *> rootTimer() override { return this; }
  void startTimer(void *handle) override;
  void stopTimer(void *handle) override;
  void *nestTimer(void *handle, const void *id,
                  function_ref<std::string()> nameBuilder) override;

private:
  std::deque<Phase> phases; ///< A deque: handles point into it.
};

/// Compiles every tuna.dispatch of `module` (already expanded) for every
/// target of `options`. `module` is left unchanged: each target lowers a
/// clone. A table entry whose variant was not instantiated (a planned table,
/// see instantiatePlannedVariants) gets no code; a table still planned is an
/// error. Errors are emitted as MLIR diagnostics at the offending op.
FailureOr<::tuna::Bundle> compileBundle(ModuleOp module,
                                        const CompileOptions &options,
                                        CompileReport &report);

/// The manifest compileBundle would make of `module`, with the objects each
/// variant will have (format, target, entry symbol) but without their bytes,
/// for compiling variants only when they are needed (compileObjects). What
/// the target compilers report (resources) is unknown (-1) in a plan.
/// `module` may hold planned tables (tuna-expand plan-only): a plan lists
/// every entry, instantiated or not.
FailureOr<::tuna::Bundle> planBundle(ModuleOp module,
                                     const CompileOptions &options,
                                     CompileReport &report);

/// Compiles the variants that own `objects` (indices into `plan.objects`;
/// `plan` is planBundle's result for the same `module` and `options`, or for
/// the planned module `module` was instantiated from), all of
/// one target together and in parallel, and returns each object's bytes, in
/// the order of `objects`. Host objects of one call share one library.
FailureOr<std::vector<std::string>>
compileObjects(ModuleOp module, const ::tuna::Bundle &plan,
               ArrayRef<int> objects, const CompileOptions &options,
               CompileReport &report);

/// How deep brackets of MLIR text may nest: MLIR's parser recurses once
/// per level (about 4,000 levels overflow an 8 MB stack; an app's thread
/// that runs the JIT may have less).
constexpr unsigned kMaxSourceNesting = 256;

/// Fails, with an error at the place emitted in `context`, where brackets
/// of the main buffer of `sourceMgr` nest deeper than kMaxSourceNesting
/// (those in string literals and `//` comments do not count).
LogicalResult checkSourceNesting(llvm::SourceMgr &sourceMgr,
                                 MLIRContext &context);

/// Parses the main buffer of `sourceMgr` in `context` once
/// checkSourceNesting passes. Errors are emitted as MLIR diagnostics in
/// `context`.
OwningOpRef<ModuleOp> parseTunaSource(llvm::SourceMgr &sourceMgr,
                                      MLIRContext &context);

/// Parses the main buffer of `sourceMgr` in `context` (parseTunaSource) and
/// runs tuna-expand with `expandOptions`, timed as the phases "parse" and "expand" nested in
/// `timing` (an empty scope times nothing). Errors are emitted as MLIR
/// diagnostics in `context`.
FailureOr<OwningOpRef<ModuleOp>>
parseAndExpand(llvm::SourceMgr &sourceMgr, MLIRContext &context,
               const TunaExpandOptions &expandOptions, TimingScope &timing);

/// Parses the main buffer of `sourceMgr` in `context`, runs tuna-expand with
/// `expandOptions`, hands the expanded module to `expanded` (when given; a
/// failure there stops the compile) and compiles it with compileBundle: the
/// phases "parse", "expand" and "compile" of `timing`. Errors are emitted as
/// MLIR diagnostics in `context`, at their source location; the caller's
/// diagnostic handler decides where they go.
FailureOr<::tuna::Bundle>
compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
              const TunaExpandOptions &expandOptions,
              const CompileOptions &options, CompileReport &report,
              TimingScope &timing,
              function_ref<LogicalResult(ModuleOp)> expanded = nullptr);

/// The runtime's postfix form (tuna::Expr) of an affine expression whose
/// inputs are the key values: its `numDims` dimensions, then its symbols
/// (key value `numDims + i` is symbol i). Launch geometry, shared memory
/// sizes and constraints reach the manifest through it.
::tuna::Expr compileAffineExpr(AffineExpr expr, unsigned numDims);

/// A variant's configuration as tuna-compile's summary and diagnostics
/// write it: `block=64 vec=4`.
std::string configString(const ::tuna::Variant &variant);

/// The source hash of a host kernel compiled for `hostCpu`: `sourceHash`
/// for generic code, else a hash of both, so that the tuning cache does not
/// reuse a pick for AVX-512 code for SSE2 code of the same source.
std::string hostSourceHash(StringRef sourceHash, StringRef hostCpu);

/// Validates `bundle` and returns its file bytes (tuna::writeBundle), or an
/// error naming what the runtime would reject.
llvm::Expected<std::string> serializeBundle(const ::tuna::Bundle &bundle);

} // namespace mlir::tuna

#endif // TUNA_TARGET_COMPILE_H
