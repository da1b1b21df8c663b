//===- tuna-opt.cpp - The Tuna optimizer driver ---------------------------===//
//
// mlir-opt with every upstream dialect, extension, translation and pass,
// plus Tuna's dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Target/Compile.h"
#include "tuna/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"

/// MLIR's parser recurses once per nesting level: an input file nested too
/// deep is refused before MlirOptMain parses it, as tuna-compile and the JIT
/// refuse it (checkSourceNesting). Standard input is MlirOptMain's to read,
/// and is not checked; a file that cannot be read is left to MlirOptMain to
/// report.
static mlir::LogicalResult checkInputNesting(llvm::StringRef inputFilename) {
  if (inputFilename == "-")
    return mlir::success();
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename);
  if (!file)
    return mlir::success();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return mlir::tuna::checkSourceNesting(sourceMgr, context);
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tuna::registerTunaDialects(registry);
  mlir::registerAllPasses();
  mlir::tuna::registerTunaPasses();
  mlir::tuna::registerTunaPipelines();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tuna optimizer driver\n", registry);
  if (mlir::failed(checkInputNesting(inputFilename)))
    return EXIT_FAILURE;
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, inputFilename, outputFilename, registry));
}
