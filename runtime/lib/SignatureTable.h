//===- SignatureTable.h - Immutable signature -> variant map ----*- C++ -*-===//
//
// An open-addressing hash table from bucketed signatures (keySize int64
// values) to variant indices. It is never modified after construction:
// inserting builds a new table, which the kernel publishes through an atomic
// pointer, so lookups need no lock.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_SIGNATURETABLE_H
#define TUNA_RUNTIME_LIB_SIGNATURETABLE_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tuna {

class SignatureTable {
public:
  /// An empty table.
  explicit SignatureTable(size_t keySize);

  /// The variant stored for `signature`, or -1. No allocation.
  int lookup(const int64_t *signature) const noexcept {
    size_t mask = capacity - 1;
    for (size_t slot = hash(signature) & mask;; slot = (slot + 1) & mask) {
      int32_t value = values[slot];
      if (value < 0)
        return -1;
      if (equal(&keys[slot * keySize], signature))
        return value;
    }
  }

  /// A copy of this table with `signature` mapped to `variant`.
  std::unique_ptr<SignatureTable> with(const int64_t *signature,
                                       int variant) const;

private:
  SignatureTable(size_t keySize, size_t capacity);

  size_t hash(const int64_t *signature) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < keySize; ++i) {
      h ^= static_cast<uint64_t>(signature[i]);
      h *= 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    }
    return static_cast<size_t>(h);
  }

  bool equal(const int64_t *a, const int64_t *b) const noexcept {
    for (size_t i = 0; i < keySize; ++i)
      if (a[i] != b[i])
        return false;
    return true;
  }

  void insert(const int64_t *signature, int variant);

  size_t keySize;
  size_t capacity; ///< A power of two; at most half full.
  size_t count = 0;
  std::unique_ptr<int64_t[]> keys;   ///< capacity * keySize.
  std::unique_ptr<int32_t[]> values; ///< -1 marks an empty slot.
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_SIGNATURETABLE_H
