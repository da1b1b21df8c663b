//===- Signature.h - Shape signatures from key values ----------*- C++ -*-===//
//
// A kernel's key (Manifest.h, KeySpec) picks integers out of the launch
// arguments: memref sizes and integer scalars. Bucketing each of them gives
// the shape signature; one tuning result is kept per signature.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_SIGNATURE_H
#define TUNA_RUNTIME_SIGNATURE_H

#include "tuna/runtime/Manifest.h"

#include <cstdint>
#include <limits>
#include <string>

namespace tuna {

/// The most key components a kernel may have.
constexpr int kMaxKey = 16;
/// The most components a signature has: the key's, and for a kernel with
/// tensor maps one hidden component, which of them can describe their
/// arguments (docs/runtime-api.md, "Tensor maps").
constexpr int kMaxSignature = kMaxKey + 1;

/// The bucket of values beyond the last bin of a Bucket::Bins key.
constexpr int64_t kAnyBucket = std::numeric_limits<int64_t>::max();

/// The signature component of `value` under `spec`.
inline int64_t bucketValue(const KeySpec &spec, int64_t value) {
  switch (spec.bucket) {
  case Bucket::Exact:
    return value;
  case Bucket::Pow2: {
    if (value <= 1)
      return 1;
    if (value > (int64_t(1) << 62))
      return kAnyBucket;
    return int64_t(1) << (64 -
                          __builtin_clzll(static_cast<uint64_t>(value - 1)));
  }
  case Bucket::Bins:
    for (int64_t bin : spec.bins)
      if (value <= bin)
        return bin;
    return kAnyBucket;
  }
  return value;
}

/// Renders a signature for people, e.g. "[d0=1024, d1=any]".
std::string formatSignature(const int64_t *signature, size_t size);

} // namespace tuna

#endif // TUNA_RUNTIME_SIGNATURE_H
