//===- CompileSource.cpp - MLIR text to a bundle --------------------------===//

#include "tuna/Target/Compile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::tuna;

/// The handle of every timer below a phase (the passes', also from other
/// threads): Timer starts and stops whatever handle nestTimer returns, and
/// this one records nothing.
static char belowPhases;

/// Whether `handle`, of `manager`, is a phase: not the root, not below one.
static bool isPhase(const PhaseTimingManager *manager, void *handle) {
  return handle != manager && handle != &belowPhases;
}

void PhaseTimingManager::startTimer(void *handle) {
  if (isPhase(this, handle))
    static_cast<Phase *>(handle)->start = std::chrono::steady_clock::now();
}

void PhaseTimingManager::stopTimer(void *handle) {
  if (!isPhase(this, handle))
    return;
  auto *phase = static_cast<Phase *>(handle);
  phase->seconds += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - phase->start)
                        .count();
}

void *PhaseTimingManager::nestTimer(void *handle, const void *,
                                    function_ref<std::string()> nameBuilder) {
  if (handle != this)
    return &belowPhases;
  phases.push_back({nameBuilder()});
  return &phases.back();
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tuna::parseAndExpand(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                           const TunaExpandOptions &expandOptions,
                           TimingScope &timing) {
  TimingScope parseTiming = timing.nest("parse");
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  parseTiming.stop();

  TimingScope expandTiming = timing.nest("expand");
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableTiming(expandTiming);
  pm.addPass(createTunaExpand(expandOptions));
  if (failed(pm.run(*module)))
    return failure();
  return module;
}

FailureOr<::tuna::Bundle>
mlir::tuna::compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          const TunaExpandOptions &expandOptions,
                          const CompileOptions &options, CompileReport &report,
                          TimingScope &timing,
                          function_ref<LogicalResult(ModuleOp)> expanded) {
  FailureOr<OwningOpRef<ModuleOp>> module =
      parseAndExpand(sourceMgr, context, expandOptions, timing);
  if (failed(module))
    return failure();
  if (expanded && failed(expanded(**module)))
    return failure();

  TimingScope compileTiming = timing.nest("compile");
  return compileBundle(**module, options, report);
}
