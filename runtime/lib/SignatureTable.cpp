//===- SignatureTable.cpp - Immutable signature -> variant map ------------===//

#include "SignatureTable.h"

#include <algorithm>

namespace tuna {

namespace {
constexpr size_t kMinCapacity = 8;
} // namespace

SignatureTable::SignatureTable(size_t keySize)
    : SignatureTable(keySize, kMinCapacity) {}

SignatureTable::SignatureTable(size_t keySize, size_t capacity)
    : keySize(keySize), capacity(capacity),
      keys(new int64_t[capacity * keySize]()), values(new int32_t[capacity]) {
  std::fill_n(values.get(), capacity, -1);
}

void SignatureTable::insert(const int64_t *signature, int variant) {
  size_t mask = capacity - 1;
  size_t slot = hash(signature) & mask;
  while (values[slot] >= 0 && !equal(&keys[slot * keySize], signature))
    slot = (slot + 1) & mask;
  if (values[slot] < 0)
    ++count;
  std::copy_n(signature, keySize, &keys[slot * keySize]);
  values[slot] = variant;
}

std::unique_ptr<SignatureTable> SignatureTable::with(const int64_t *signature,
                                                     int variant) const {
  size_t newCapacity = capacity;
  while ((count + 1) * 2 > newCapacity)
    newCapacity *= 2;
  std::unique_ptr<SignatureTable> table(
      new SignatureTable(keySize, newCapacity));
  for (size_t slot = 0; slot < capacity; ++slot)
    if (values[slot] >= 0)
      table->insert(&keys[slot * keySize], values[slot]);
  table->insert(signature, variant);
  return table;
}

} // namespace tuna
