//===- CompileSource.cpp - MLIR text to a bundle --------------------------===//

#include "tuna/Target/Compile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tuna;

namespace {
/// Appends the wall time since the previous phase to a report.
class PhaseClock {
public:
  explicit PhaseClock(CompileReport &report) : report(report) {}
  void done(StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    report.phases.push_back(
        {phase.str(), std::chrono::duration<double>(now - last).count()});
    last = now;
  }

private:
  CompileReport &report;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};
} // namespace

FailureOr<OwningOpRef<ModuleOp>>
mlir::tuna::parseAndExpand(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                           const TunaExpandOptions &expandOptions,
                           CompileReport &report) {
  PhaseClock clock(report);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  clock.done("parse");

  PassManager pm(&context, ModuleOp::getOperationName());
  pm.addPass(createTunaExpand(expandOptions));
  if (failed(pm.run(*module)))
    return failure();
  clock.done("expand");
  return module;
}

FailureOr<::tuna::Bundle>
mlir::tuna::compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          const TunaExpandOptions &expandOptions,
                          const CompileOptions &options, CompileReport &report,
                          function_ref<LogicalResult(ModuleOp)> expanded) {
  FailureOr<OwningOpRef<ModuleOp>> module =
      parseAndExpand(sourceMgr, context, expandOptions, report);
  if (failed(module))
    return failure();
  if (expanded && failed(expanded(**module)))
    return failure();

  PhaseClock clock(report);
  FailureOr<::tuna::Bundle> bundle = compileBundle(**module, options, report);
  if (failed(bundle))
    return failure();
  clock.done("compile");
  return bundle;
}
