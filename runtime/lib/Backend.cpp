//===- Backend.cpp - Shared backend logic ---------------------------------===//

#include "tuna/runtime/Backend.h"

namespace tuna {

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

} // namespace tuna
