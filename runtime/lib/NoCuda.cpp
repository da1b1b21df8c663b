//===- NoCuda.cpp - makeCudaBackend when built without CUDA sources -------===//
//
// Compiled only when runtime/lib/cuda/ has no sources (see
// runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Backend.h"

std::unique_ptr<tuna::Backend> tuna::makeCudaBackend(int ordinal) {
  throw Error(ErrorCode::Unsupported,
              "CUDA device " + std::to_string(ordinal) +
                  " requested, but this tuna_runtime was built without CUDA "
                  "support");
}
