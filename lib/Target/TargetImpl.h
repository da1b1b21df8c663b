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

#include "llvm/ADT/StringMap.h"

namespace mlir::tuna::compiler {

/// The code of each variant for one target (one entry per object, e.g. PTX
/// and cubin), keyed by the root of the variant's kernel reference (the
/// gpu.module of a GPU variant, the function of a host variant).
using CodeMap = llvm::StringMap<SmallVector<::tuna::VariantCode, 2>>;

/// The manifest of one dispatch: everything but the code.
FailureOr<::tuna::Kernel> buildKernel(DispatchOp dispatch);

/// Whether the dispatch's variants are GPU kernels (`@module::@func`).
bool isGpuDispatch(DispatchOp dispatch);

/// Lowers and serializes the GPU variants `kernels` (`@module::@entry`) for
/// an NVPTX or AMDGCN target.
LogicalResult compileGpu(ModuleOp module, const Target &target,
                         ArrayRef<SymbolRefAttr> kernels,
                         const CompileOptions &options, ::tuna::Bundle &bundle,
                         CodeMap &code, CompileReport &report);

/// The formats of the objects compileGpu makes of each variant for `target`,
/// in the order it adds them (binary first, when the tools are there).
FailureOr<SmallVector<StringRef, 2>>
gpuObjectFormats(Location loc, const Target &target,
                 const CompileOptions &options);

/// Lowers the host functions named in `functions`, compiles them and links
/// them into one shared library.
LogicalResult compileHost(ModuleOp module, ArrayRef<StringRef> functions,
                          const CompileOptions &options, ::tuna::Bundle &bundle,
                          CodeMap &code, CompileReport &report);

/// Runs `program` with `args`; on failure emits an error at `loc` that names
/// `what` (e.g. the variant) and quotes the tool's output. Returns the tool's
/// combined stdout and stderr.
FailureOr<std::string> runTool(Location loc, const llvm::Twine &what,
                               StringRef program, ArrayRef<StringRef> args);

/// Reads a whole file, emitting an error at `loc` when it cannot.
FailureOr<std::string> readFileBytes(Location loc, StringRef path);

} // namespace mlir::tuna::compiler

#endif // TUNA_LIB_TARGET_TARGETIMPL_H
