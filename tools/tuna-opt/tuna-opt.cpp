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
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tuna::registerTunaDialects(registry);
  mlir::registerAllPasses();
  mlir::tuna::registerTunaPasses();
  mlir::tuna::registerTunaPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tuna optimizer driver\n", registry));
}
