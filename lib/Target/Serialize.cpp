//===- Serialize.cpp - Bundle bytes through the runtime's writer ----------===//
//
// The runtime reports problems with exceptions (tuna::Error); LLVM is built
// without them. This file alone is compiled with -fexceptions and turns them
// into llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "tuna/Target/Compile.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"

llvm::Expected<std::string>
mlir::tuna::serializeBundle(const ::tuna::Bundle &bundle) {
  try {
    ::tuna::validateBundle(bundle, "<compiled bundle>");
    return ::tuna::writeBundle(bundle);
  } catch (const ::tuna::Error &error) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   error.what());
  }
}
