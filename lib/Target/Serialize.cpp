//===- Serialize.cpp - Bundle bytes through the runtime's writer ----------===//
//
// The runtime reports problems with exceptions (tuna::Error); the compiler is
// built without them and calls the runtime's non-throwing tryWriteBundle.
//
//===----------------------------------------------------------------------===//

#include "tuna/Target/Compile.h"

#include "tuna/runtime/Bundle.h"

llvm::Expected<std::string>
mlir::tuna::serializeBundle(const ::tuna::Bundle &bundle) {
  std::string bytes, error;
  if (!::tuna::tryWriteBundle(bundle, "<compiled bundle>", bytes, error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  return bytes;
}
