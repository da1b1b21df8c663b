//===- FuzzExpand.cpp - libFuzzer target: tuna-expand on mutated kernels --===//
//
// The input is MLIR text. It is parsed as tuna-compile and the JIT parse it
// (parseTunaSource: nesting deeper than MLIR's recursive parser can take is
// refused first), with the Tuna dialect and every upstream dialect tuna-opt
// registers; a module that parses (and so verifies) goes through
// tuna-expand with every diagnostic captured. The
// pass may refuse the input, but it must not crash, and IR it accepts must
// verify afterwards. Each input gets a fresh context, so that a finding
// reproduces from its input alone.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "tuna/Pipelines/Pipelines.h"
#include "tuna/Target/Compile.h"
#include "tuna/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mlir;

/// LLVM's headers poison the free space of llvm::BumpPtrAllocator when
/// compiled with ASan; the instrumented copies of those templates in this
/// program then interpose on the uninstrumented libMLIR, which writes to the
/// poisoned memory without unpoisoning it (a false use-after-poison).
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace {
const DialectRegistry &registry() {
  static const DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry;
    mlir::tuna::registerTunaDialects(*registry);
    return registry;
  }();
  return *registry;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(); // As some lit tests do.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  // MLIR's lexer reads a buffer up to its terminating NUL, which libFuzzer's
  // input lacks: copy it into a MemoryBuffer, as tuna-opt reads files.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size)),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      mlir::tuna::parseTunaSource(sourceMgr, context);
  if (!module)
    return 0;

  // Fewer variants than the default 4096 keep one input under a second;
  // spaces above the limit are refused with an error, which is covered too.
  mlir::tuna::TunaExpandOptions options;
  options.maxVariants = 64;
  options.reportDropped = true;
  PassManager pm(&context);
  pm.enableVerifier(false);
  pm.addPass(mlir::tuna::createTunaExpand(options));
  if (succeeded(pm.run(*module)) && failed(verify(*module))) {
    std::fprintf(stderr, "fuzz-expand: tuna-expand produced invalid IR\n");
    std::abort();
  }
  return 0;
}
