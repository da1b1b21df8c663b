//===- TensorMapRules.h - What a tensor map can describe -------*- C++ -*-===//
//
// cuTensorMapEncodeTiled's rules (docs/tma-design.md, section 2), split by
// what they depend on:
// - the bundle alone (the map's argument, rank, element type, box arity,
//   swizzle, L2 promotion): the bundle's validation (Validate.cpp), which
//   refuses a bundle that breaks them when it is read;
// - the launch's argument (base address alignment, strides, sizes):
//   checkTensorMapView(), a few integer tests before the signature is
//   computed (its outcome is a hidden signature component);
// - the key values (the box): tensorMapEncoding(), which also computes the
//   encoding the backend is given.
// No driver is involved: these are pure functions.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_TENSORMAPRULES_H
#define TUNA_RUNTIME_LIB_TENSORMAPRULES_H

#include "tuna/runtime/Manifest.h"
#include "tuna/runtime/MemRef.h"
#include "tuna/runtime/TensorMap.h"

#include <string>

namespace tuna {

/// Why a map of one view with one box cannot be encoded; Rule::None when it
/// can. Plain data: finding it allocates nothing.
struct TensorMapProblem {
  enum class Rule {
    None,
    Rank,           ///< `value`: the view's rank, not 1..5.
    BaseAlignment,  ///< `value`: the base address.
    InnerStride,    ///< `value`: the innermost stride, in elements.
    StrideMultiple, ///< `value`: the stride of memref dim `dim`, in bytes.
    StrideRange,    ///< ... not in 1..2^40-1 bytes.
    SizeRange,      ///< `value`: the size of memref dim `dim`, not 1..2^32.
    BoxRange,       ///< `value`: box entry `dim` (innermost first), not 1..256.
    InnerBoxBytes,  ///< `value`: the inner box's bytes, not a multiple of 16.
    SwizzleSpan,    ///< `value`: the inner box's bytes, over the swizzle's.
    ShapeValue,     ///< Shape size `dim` cannot be evaluated (`value`: 0).
    ShapeSize,      ///< `value`: the elements a shape views, over `limit`, the
                    ///< memref's.
  };
  Rule rule = Rule::None;
  int dim = 0;
  int64_t value = 0;
  int64_t limit = 0; ///< SwizzleSpan: the swizzle's bytes.

  explicit operator bool() const { return rule != Rule::None; }
  /// "base address 0x7f0000000008 is not 16-byte aligned (TMA needs 16)".
  std::string describe() const;
};

/// The byte address of element (0, ..., 0) of `view`.
uint64_t tensorMapBase(const MemRefView &view);

/// The row-major view of `memref` (rank 1) as a tensor of `shape` (`rank`
/// sizes, outermost first): the memref must be contiguous (stride 1) and
/// hold every element of it; the sizes 1..2^32. The view's own rules are
/// checkTensorMapView's.
TensorMapProblem viewAsShape(const MemRefView &memref, const int64_t *shape,
                             int rank, MemRefView &view);

/// The rules that depend on the view alone: base address 16-byte aligned,
/// innermost stride 1, other strides in bytes positive multiples of 16 below
/// 2^40, sizes 1..2^32. The view's rank and type are the kernel's (checked by
/// lowering and the bundle's validation).
TensorMapProblem checkTensorMapView(const MemRefView &view);

/// The encoding of a map of `view` (one checkTensorMapView accepted) with
/// `box` (the variant's box evaluated on the key values, innermost first,
/// one entry per dimension), `swizzleBytes` and the settings of `spec`;
/// checks the box's rules (entries 1..256, inner box bytes a multiple of 16
/// and within the swizzle's span). `encoding` is complete only when nothing
/// is wrong.
TensorMapProblem tensorMapEncoding(const MemRefView &view,
                                   const TensorMapSpec &spec,
                                   const int64_t *box, int swizzleBytes,
                                   TensorMapEncoding &encoding);

/// Whether TMA describes memrefs of `type`: i8, i32, i64, f16, bf16, f32,
/// f64 (those the compiler's `tuna.tensor_map` takes).
bool isTensorMapElementType(ScalarType type);

/// "tensor map 0 of argument #1".
std::string tensorMapName(int map, int arg);

/// What a device that cannot take tensor maps says; `why` details it
/// ("NVIDIA A100 is sm_80").
std::string tensorMapsUnsupported(const std::string &why);

/// The CUDA backend's answer to Backend::tensorMapSupport(): empty when a
/// device of compute capability `sm` (90 for 9.0) with a driver that has
/// cuTensorMapEncodeTiled (`driverCanEncode`) takes maps, else why not.
std::string cudaTensorMapSupport(int sm, bool driverCanEncode,
                                 const std::string &deviceName);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_TENSORMAPRULES_H
