//===- Header.h - A C++ header that embeds a bundle -------------*- C++ -*-===//
#ifndef TUNA_TARGET_HEADER_H
#define TUNA_TARGET_HEADER_H

#include "tuna/runtime/Manifest.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tuna {

/// The namespace a header written to `path` gets: its stem, with characters
/// that cannot appear in an identifier replaced by '_' ("my-kernels.h" ->
/// "my_kernels").
std::string headerNamespaceFor(llvm::StringRef path);

/// A C++17 header that embeds `bundleBytes` (the file of `bundle`) and
/// declares, in namespace `ns`, `module(device)` and one typed inline launcher
/// per kernel. Fails when `ns` is not a C++ identifier or a kernel name would
/// not make a valid function name.
llvm::Expected<std::string> emitHeader(const ::tuna::Bundle &bundle,
                                       llvm::StringRef bundleBytes,
                                       llvm::StringRef ns,
                                       llvm::StringRef source);

} // namespace mlir::tuna

#endif // TUNA_TARGET_HEADER_H
