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
/// "my_kernels"), '_' before a leading digit and after a keyword.
std::string headerNamespaceFor(llvm::StringRef path);

/// Fails unless `ns` can name the header's namespace: a C++ identifier that
/// is no keyword, nor `tuna` or `std`.
llvm::Error verifyHeaderNamespace(llvm::StringRef ns);

/// A C++17 header that embeds `bundleBytes` (the file of `bundle`) and
/// declares, in namespace `ns`, `module(device)` and one typed inline launcher
/// per kernel. `source` names the input in the header's first comment. Fails
/// when verifyHeaderNamespace(ns) does or a kernel's name cannot name a C++
/// function in that namespace.
llvm::Expected<std::string> emitHeader(const ::tuna::Bundle &bundle,
                                       llvm::StringRef bundleBytes,
                                       llvm::StringRef ns,
                                       llvm::StringRef source);

} // namespace mlir::tuna

#endif // TUNA_TARGET_HEADER_H
