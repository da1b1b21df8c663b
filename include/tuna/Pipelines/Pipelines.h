//===- Pipelines.h - Registered Tuna pipelines and targets ------*- C++ -*-===//
//
// The targets Tuna compiles for, the dialects its compiler loads, and the
// lowering pipeline of each target, built as typed C++ (as upstream's
// GPU/Pipelines/GPUToNVVMPipeline.cpp does) and registered for tuna-opt as
// `tuna-lower-nvptx`, `tuna-lower-amdgcn` and `tuna-lower-host`.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_PIPELINES_PIPELINES_H
#define TUNA_PIPELINES_PIPELINES_H

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tuna {

/// A compilation target, written `nvptx:sm_90`, `amdgcn:gfx942` or `host`.
struct Target {
  enum class Kind { NVPTX, AMDGCN, Host };
  Kind kind = Kind::Host;
  std::string chip;     ///< sm_90, gfx942; empty for the host.
  std::string features; ///< LLVM target features, e.g. +ptx80.

  /// Parses `nvptx:sm_XY[a]`, `amdgcn:gfxNNN` or `host`.
  static llvm::Expected<Target> parse(llvm::StringRef spec);
  /// The spelling parse() accepts, e.g. `nvptx:sm_90`.
  std::string str() const;
  /// The architecture as a space's `targets` names it.
  TargetArch arch() const;
  /// Whether its kernels wait for the grid before them (tuna-grid-dependency:
  /// NVPTX sm_90 and later), so that the runtime may launch them early.
  bool controlsGridDependency() const;
};

/// The dialects a Tuna kernel may use and the target pipelines lower, with
/// the interfaces, transform-dialect extensions and LLVM IR translations the
/// compiler needs (tuna-compile and tuna_jit load exactly these; tuna-opt
/// adds every upstream dialect).
void registerTunaDialects(DialectRegistry &registry);

/// Lowers the expanded variants of `target` to the LLVM dialect (NVVM or
/// ROCDL inside their gpu.modules; the host variants at the top level).
void buildLowerToTargetPipeline(OpPassManager &pm, const Target &target);

/// Registers `tuna-lower-nvptx`, `tuna-lower-amdgcn` and `tuna-lower-host`.
void registerTunaPipelines();

} // namespace mlir::tuna

#endif // TUNA_PIPELINES_PIPELINES_H
