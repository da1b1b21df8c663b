//===- TensorMap.h - TMA tensor maps a variant takes -----------*- C++ -*-===//
//
// A variant with Variant::tensorMaps takes, after its proper lowered
// parameters, one 128-byte CUtensorMap per entry, by value. The runtime
// derives each map at launch from a memref argument (Kernel::tensorMaps):
// TensorMapEncoding is what it hands the backend to encode
// (cuTensorMapEncodeTiled's arguments, innermost dimension first), and
// TensorMapBytes the encoded map. docs/tma-design.md, docs/runtime-api.md.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_TENSORMAP_H
#define TUNA_RUNTIME_TENSORMAP_H

#include <cstdint>
#include <type_traits>

namespace tuna {

/// The most tensor maps one variant takes.
constexpr int kMaxTensorMaps = 4;
/// The highest rank a tensor map describes.
constexpr int kMaxTensorMapRank = 5;

/// One encoded map (an opaque CUtensorMap), aligned as the kernel parameter
/// it becomes (`.param .align 64 .b8 p[128]`).
struct alignas(64) TensorMapBytes {
  uint64_t words[16];
};
static_assert(sizeof(TensorMapBytes) == 128, "a CUtensorMap is 128 bytes");

/// What a tiled tensor map is encoded from: cuTensorMapEncodeTiled's
/// arguments, its enums with cuda.h's values (the CUDA backend checks that
/// they match). Every field is 64 bits wide, so the struct has no padding
/// and two encodings compare bytewise; entries past `rank` are 0.
struct TensorMapEncoding {
  /// CUtensorMapDataType: the types Tuna's element types map to.
  enum class DataType : uint64_t {
    UInt8 = 0,    ///< i8
    UInt16 = 1,   ///< i16
    Int32 = 3,    ///< i32
    Int64 = 5,    ///< i64, index
    Float16 = 6,  ///< f16
    Float32 = 7,  ///< f32
    Float64 = 8,  ///< f64
    BFloat16 = 9, ///< bf16
  };
  /// CUtensorMapSwizzle (the plain modes).
  enum class Swizzle : uint64_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };
  /// CUtensorMapL2promotion.
  enum class L2Promotion : uint64_t { None = 0, B64 = 1, B128 = 2, B256 = 3 };
  /// CUtensorMapFloatOOBfill: zeros, or NaN.
  enum class OobFill : uint64_t { None = 0, NaNRequestZeroFma = 1 };

  uint64_t address = 0; ///< Of element (0, ..., 0) of the view.
  uint64_t rank = 0;    ///< 1..kMaxTensorMapRank.
  DataType dataType = DataType::UInt8;
  uint64_t globalDim[kMaxTensorMapRank] = {}; ///< Sizes, innermost first.
  /// Strides in bytes of dimensions 1..rank-1 (innermost first); dimension
  /// 0 is contiguous.
  uint64_t globalStrides[kMaxTensorMapRank - 1] = {};
  uint64_t boxDim[kMaxTensorMapRank] = {};         ///< Innermost first.
  uint64_t elementStrides[kMaxTensorMapRank] = {}; ///< 1 each.
  Swizzle swizzle = Swizzle::None;
  L2Promotion l2Promotion = L2Promotion::None;
  OobFill oobFill = OobFill::None;
  // The interleave is always CU_TENSOR_MAP_INTERLEAVE_NONE.
};
static_assert(std::is_trivially_copyable_v<TensorMapEncoding> &&
                  sizeof(TensorMapEncoding) == 25 * sizeof(uint64_t),
              "TensorMapEncoding must have no padding");

} // namespace tuna

#endif // TUNA_RUNTIME_TENSORMAP_H
