//===- Signature.cpp - Shape signatures from key values -------------------===//

#include "tuna/runtime/Signature.h"

namespace tuna {

std::string formatSignature(const int64_t *signature, size_t size) {
  std::string text = "[";
  for (size_t i = 0; i < size; ++i) {
    if (i)
      text += ", ";
    text += "d" + std::to_string(i) + "=";
    text += signature[i] == kAnyBucket ? "any" : std::to_string(signature[i]);
  }
  return text + "]";
}

} // namespace tuna
