//===- Backend.cpp - Shared backend logic ---------------------------------===//

#include "tuna/runtime/Backend.h"

#include "TensorMapRules.h"

#include <atomic>

namespace tuna {

Backend::Backend() {
  static std::atomic<uint64_t> next{1};
  instance = next.fetch_add(1, std::memory_order_relaxed);
}

int Backend::selectCode(const Bundle &bundle, const Variant &variant) const {
  int best = -1;
  int bestScore = -1;
  for (size_t i = 0; i < variant.code.size(); ++i) {
    int object = variant.code[i].object;
    if (object < 0 || static_cast<size_t>(object) >= bundle.objects.size())
      continue;
    int score = objectScore(bundle.objects[object]);
    if (score > bestScore) {
      bestScore = score;
      best = static_cast<int>(i);
    }
  }
  return best;
}

void *Backend::importMemory(const std::string & /*handle*/) {
  throw Error(ErrorCode::Unsupported,
              "importing another process's memory: the " + info().platform +
                  " backend cannot");
}

void Backend::evictCache(StreamHandle /*stream*/) {
  throw Error(ErrorCode::Unsupported,
              "evicting the device's cache: the " + info().platform +
                  " backend cannot");
}

std::string Backend::tensorMapSupport() const {
  return tensorMapsUnsupported(info().platform + " devices have none");
}

void Backend::encodeTensorMap(const TensorMapEncoding & /*encoding*/,
                              TensorMapBytes & /*map*/, std::string_view what) {
  throw Error(ErrorCode::Unsupported,
              std::string(what) + ": " + tensorMapSupport());
}

} // namespace tuna
