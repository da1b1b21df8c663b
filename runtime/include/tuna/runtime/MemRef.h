//===- MemRef.h - Launch arguments as the application passes them -*- C++ -*-//
//
// MemRefView is a strided view in MLIR's memref descriptor layout; ArgValue
// is one tagged launch argument (a memref or a scalar). Both are plain data:
// building them never allocates.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_MEMREF_H
#define TUNA_RUNTIME_MEMREF_H

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Manifest.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

namespace tuna {

/// The highest memref rank the runtime handles.
constexpr int kMaxRank = 8;
/// The most arguments a kernel may take.
constexpr int kMaxArgs = 64;

/// A memref descriptor: element (i0, ..., ir-1) is at
/// `aligned + (offset + sum(ik * strides[k])) * sizeof(element)`.
struct MemRefView {
  void *allocated = nullptr; ///< What the allocator returned.
  void *aligned = nullptr;   ///< Base of the indexing; usually == allocated.
  int64_t offset = 0;        ///< In elements.
  int64_t sizes[kMaxRank];   ///< Only the first `rank` are meaningful.
  int64_t strides[kMaxRank]; ///< In elements; the first `rank`.
  int rank = 0;
  ScalarType type = ScalarType::F32;
};

/// An IEEE half, as its bits.
struct Half {
  uint16_t bits;
};
/// A bfloat16, as its bits.
struct BFloat16 {
  uint16_t bits;
};

/// The ScalarType of a C++ element type.
template <typename T> constexpr ScalarType scalarTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return ScalarType::I1;
  else if constexpr (std::is_same_v<U, float>)
    return ScalarType::F32;
  else if constexpr (std::is_same_v<U, double>)
    return ScalarType::F64;
  else if constexpr (std::is_same_v<U, Half>)
    return ScalarType::F16;
  else if constexpr (std::is_same_v<U, BFloat16>)
    return ScalarType::BF16;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 1)
    return ScalarType::I8;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 2)
    return ScalarType::I16;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 4)
    return ScalarType::I32;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 8)
    return ScalarType::I64;
  else
    static_assert(sizeof(U) == 0, "no tuna::ScalarType for this C++ type");
}

/// A contiguous row-major view of `data` with the given sizes.
inline MemRefView memref(ScalarType type, void *data,
                         std::initializer_list<int64_t> sizes) {
  if (sizes.size() > static_cast<size_t>(kMaxRank))
    throw Error(ErrorCode::InvalidArgument,
                "memref of rank " + std::to_string(sizes.size()) +
                    " exceeds the maximum rank " + std::to_string(kMaxRank));
  MemRefView view;
  view.allocated = view.aligned = data;
  view.rank = static_cast<int>(sizes.size());
  view.type = type;
  int dim = 0;
  for (int64_t size : sizes)
    view.sizes[dim++] = size;
  int64_t stride = 1;
  for (int d = view.rank - 1; d >= 0; --d) {
    view.strides[d] = stride;
    stride *= view.sizes[d];
  }
  return view;
}

template <typename T>
MemRefView memref(T *data, std::initializer_list<int64_t> sizes) {
  return memref(scalarTypeOf<T>(), const_cast<std::remove_cv_t<T> *>(data),
                sizes);
}

/// One launch argument.
struct ArgValue {
  ArgSpec::Kind kind = ArgSpec::Kind::Scalar;
  /// The scalar's type, or the memref's element type.
  ScalarType type = ScalarType::I64;
  /// Integers (sign-extended), f16/bf16 bits (zero-extended).
  int64_t intValue = 0;
  double floatValue = 0; ///< f32 and f64.
  MemRefView memref;     ///< Memrefs only.
};

inline ArgValue toArg(const MemRefView &view) {
  ArgValue arg;
  arg.kind = ArgSpec::Kind::MemRef;
  arg.type = view.type;
  arg.memref = view;
  return arg;
}

inline ArgValue toArg(float value) {
  ArgValue arg;
  arg.type = ScalarType::F32;
  arg.floatValue = value;
  return arg;
}

inline ArgValue toArg(double value) {
  ArgValue arg;
  arg.type = ScalarType::F64;
  arg.floatValue = value;
  return arg;
}

inline ArgValue toArg(Half value) {
  ArgValue arg;
  arg.type = ScalarType::F16;
  arg.intValue = value.bits;
  return arg;
}

inline ArgValue toArg(BFloat16 value) {
  ArgValue arg;
  arg.type = ScalarType::BF16;
  arg.intValue = value.bits;
  return arg;
}

template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
ArgValue toArg(T value) {
  ArgValue arg;
  arg.type = scalarTypeOf<T>();
  arg.intValue = static_cast<int64_t>(value);
  return arg;
}

} // namespace tuna

#endif // TUNA_RUNTIME_MEMREF_H
