//===- CompileSource.cpp - MLIR text to a bundle --------------------------===//

#include "tuna/Target/Compile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tuna;

FailureOr<::tuna::Bundle>
mlir::tuna::compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          const TunaExpandOptions &expandOptions,
                          const CompileOptions &options, CompileReport &report,
                          function_ref<LogicalResult(ModuleOp)> expanded) {
  auto last = std::chrono::steady_clock::now();
  auto phase = [&](StringRef name) {
    auto now = std::chrono::steady_clock::now();
    report.phases.push_back(
        {name.str(), std::chrono::duration<double>(now - last).count()});
    last = now;
  };

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  phase("parse");

  PassManager pm(&context, ModuleOp::getOperationName());
  pm.addPass(createTunaExpand(expandOptions));
  if (failed(pm.run(*module)))
    return failure();
  phase("expand");
  if (expanded && failed(expanded(*module)))
    return failure();

  FailureOr<::tuna::Bundle> bundle = compileBundle(*module, options, report);
  if (failed(bundle))
    return failure();
  phase("compile");
  return bundle;
}
