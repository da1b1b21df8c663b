//===- BitCast.h - A value's bits as another type ---------------*- C++ -*-===//
//
// C++17 has no std::bit_cast: these are its well-defined spelling
// (std::memcpy, which compilers turn into a register move or a load), for
// the output comparison (Compare.cpp), which reads buffers as elements and
// floats as their bits, and for the worker protocol (Isolation.cpp), which
// sends a double as its bits.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_BITCAST_H
#define TUNA_RUNTIME_LIB_BITCAST_H

#include <cstring>
#include <type_traits>

namespace tuna {

/// The `To` whose bits are those of `from`.
template <typename To, typename From> To bitCast(const From &from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast keeps the size");
  static_assert(std::is_trivially_copyable_v<To> &&
                    std::is_trivially_copyable_v<From>,
                "bitCast copies bits");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

/// The `T` whose bits are the `sizeof(T)` bytes at `at`, aligned or not.
template <typename T> T loadUnaligned(const char *at) {
  static_assert(std::is_trivially_copyable_v<T>, "loadUnaligned copies bits");
  T value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_BITCAST_H
