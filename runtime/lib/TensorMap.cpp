//===- TensorMap.cpp - What a tensor map can describe, and the map cache --===//

#include "TensorMapCache.h"
#include "TensorMapRules.h"

#include "tuna/runtime/ScalarType.h"

#include <cstdio>
#include <optional>

namespace tuna {

namespace {
using Rule = TensorMapProblem::Rule;

constexpr int64_t kMaxBox = 256;
constexpr int64_t kAlignment = 16;
constexpr int64_t kMaxStrideBytes = int64_t(1) << 40;
constexpr int64_t kMaxSize = int64_t(1) << 32;

std::optional<TensorMapEncoding::DataType> dataTypeOf(ScalarType type) {
  using DataType = TensorMapEncoding::DataType;
  switch (type) {
  case ScalarType::I8:
    return DataType::UInt8;
  case ScalarType::I32:
    return DataType::Int32;
  case ScalarType::I64:
    return DataType::Int64;
  case ScalarType::F16:
    return DataType::Float16;
  case ScalarType::BF16:
    return DataType::BFloat16;
  case ScalarType::F32:
    return DataType::Float32;
  case ScalarType::F64:
    return DataType::Float64;
  case ScalarType::I1:
  case ScalarType::I16:
  case ScalarType::Index:
    break;
  }
  return std::nullopt;
}

using Swizzle = TensorMapEncoding::Swizzle;
using L2Promotion = TensorMapEncoding::L2Promotion;
using OobFill = TensorMapEncoding::OobFill;

/// The mode of a swizzle of `bytes` (0, 32, 64, 128: tensorMapSpecProblem).
Swizzle swizzleOf(int bytes) {
  return bytes == 128  ? Swizzle::B128
         : bytes == 64 ? Swizzle::B64
         : bytes == 32 ? Swizzle::B32
                       : Swizzle::None;
}

/// The mode of an L2 promotion of `bytes` (0, 64, 128, 256).
L2Promotion l2PromotionOf(int bytes) {
  return bytes == 256   ? L2Promotion::B256
         : bytes == 128 ? L2Promotion::B128
         : bytes == 64  ? L2Promotion::B64
                        : L2Promotion::None;
}

TensorMapProblem problem(Rule rule, int dim, int64_t value, int64_t limit = 0) {
  return {rule, dim, value, limit};
}

/// The box's rules: entries 1..256, inner box bytes a multiple of 16 and
/// within the swizzle's span.
TensorMapProblem checkBox(const int64_t *box, int rank, int64_t elementBytes,
                          int swizzleBytes) {
  for (int i = 0; i < rank; ++i)
    if (box[i] < 1 || box[i] > kMaxBox)
      return problem(Rule::BoxRange, i, box[i]);
  int64_t innerBytes = box[0] * elementBytes;
  if (innerBytes % kAlignment)
    return problem(Rule::InnerBoxBytes, 0, innerBytes);
  if (swizzleBytes && innerBytes > swizzleBytes)
    return problem(Rule::SwizzleSpan, 0, innerBytes, swizzleBytes);
  return {};
}
} // namespace

std::string TensorMapProblem::describe() const {
  std::string d = std::to_string(dim), v = std::to_string(value);
  switch (rule) {
  case Rule::None:
    return "";
  case Rule::Rank:
    return "a memref of rank " + v + " (TMA describes ranks 1 to 5)";
  case Rule::BaseAlignment: {
    char address[32];
    std::snprintf(address, sizeof(address), "0x%llx",
                  static_cast<unsigned long long>(value));
    return std::string("base address ") + address +
           " is not 16-byte aligned (TMA needs 16)";
  }
  case Rule::InnerStride:
    return "the stride of the innermost dimension (" + d + ") is " + v +
           " elements, not 1 (TMA needs it contiguous)";
  case Rule::StrideMultiple:
    return "the stride of dimension " + d + " is " + v +
           " bytes, not a multiple of 16";
  case Rule::StrideRange:
    return "the stride of dimension " + d + " is " + v +
           " bytes, not within 1..2^40-1";
  case Rule::SizeRange:
    return "the size of dimension " + d + " is " + v + ", not within 1..2^32";
  case Rule::BoxRange:
    return "box entry " + d + " (innermost first) is " + v +
           ", not within 1..256";
  case Rule::InnerBoxBytes:
    return "the inner box is " + v + " bytes, not a multiple of 16";
  case Rule::SwizzleSpan:
    return "the inner box is " + v + " bytes, over the " +
           std::to_string(limit) + "-byte swizzle";
  case Rule::ShapeValue:
    return "size " + d +
           " of its shape cannot be evaluated for these key values";
  case Rule::ShapeSize:
    return "its shape views " + v + " elements of a memref of " +
           std::to_string(limit);
  }
  return "";
}

uint64_t tensorMapBase(const MemRefView &view) {
  return reinterpret_cast<uint64_t>(view.aligned) +
         static_cast<uint64_t>(view.offset) * scalarTypeSize(view.type);
}

TensorMapProblem viewAsShape(const MemRefView &memref, const int64_t *shape,
                             int rank, MemRefView &view) {
  if (memref.rank != 1)
    return problem(Rule::Rank, 0, memref.rank);
  if (memref.strides[0] != 1)
    return problem(Rule::InnerStride, 0, memref.strides[0]);
  view = memref;
  view.rank = rank;
  int64_t elements = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] < 1 || shape[d] > kMaxSize)
      return problem(Rule::SizeRange, d, shape[d]);
    view.sizes[d] = shape[d];
    view.strides[d] = elements;
    if (__builtin_mul_overflow(elements, shape[d], &elements))
      elements = INT64_MAX;
  }
  if (elements > memref.sizes[0])
    return problem(Rule::ShapeSize, 0, elements, memref.sizes[0]);
  return {};
}

TensorMapProblem checkTensorMapView(const MemRefView &view) {
  if (view.rank < 1 || view.rank > kMaxTensorMapRank)
    return problem(Rule::Rank, 0, view.rank);
  uint64_t base = tensorMapBase(view);
  if (base % kAlignment)
    return problem(Rule::BaseAlignment, 0, static_cast<int64_t>(base));
  int inner = view.rank - 1;
  if (view.strides[inner] != 1)
    return problem(Rule::InnerStride, inner, view.strides[inner]);
  int64_t elementBytes = static_cast<int64_t>(scalarTypeSize(view.type));
  for (int d = inner; d >= 0; --d) {
    if (view.sizes[d] < 1 || view.sizes[d] > kMaxSize)
      return problem(Rule::SizeRange, d, view.sizes[d]);
    if (d == inner)
      continue;
    int64_t bytes = 0;
    if (__builtin_mul_overflow(view.strides[d], elementBytes, &bytes))
      bytes = view.strides[d] < 0 ? INT64_MIN : INT64_MAX;
    if (bytes < 1 || bytes >= kMaxStrideBytes)
      return problem(Rule::StrideRange, d, bytes);
    if (bytes % kAlignment)
      return problem(Rule::StrideMultiple, d, bytes);
  }
  return {};
}

TensorMapProblem tensorMapEncoding(const MemRefView &view,
                                   const TensorMapSpec &spec,
                                   const int64_t *box, int swizzleBytes,
                                   TensorMapEncoding &encoding) {
  int rank = view.rank;
  int64_t elementBytes = static_cast<int64_t>(scalarTypeSize(view.type));
  if (TensorMapProblem found = checkBox(box, rank, elementBytes, swizzleBytes))
    return found;
  encoding = TensorMapEncoding();
  encoding.address = tensorMapBase(view);
  encoding.rank = static_cast<uint64_t>(rank);
  encoding.dataType = *dataTypeOf(view.type);
  // TMA counts dimensions innermost first; memrefs outermost first.
  for (int i = 0; i < rank; ++i) {
    int d = rank - 1 - i;
    encoding.globalDim[i] = static_cast<uint64_t>(view.sizes[d]);
    if (i > 0)
      encoding.globalStrides[i - 1] =
          static_cast<uint64_t>(view.strides[d] * elementBytes);
    encoding.boxDim[i] = static_cast<uint64_t>(box[i]);
    encoding.elementStrides[i] = 1;
  }
  encoding.swizzle = swizzleOf(swizzleBytes);
  encoding.l2Promotion = l2PromotionOf(spec.l2PromotionBytes);
  encoding.oobFill =
      spec.oobFillNaN ? OobFill::NaNRequestZeroFma : OobFill::None;
  return {};
}

bool isTensorMapElementType(ScalarType type) {
  return dataTypeOf(type).has_value();
}

std::string tensorMapName(int map, int arg) {
  return "tensor map " + std::to_string(map) + " of argument #" +
         std::to_string(arg);
}

std::string tensorMapsUnsupported(const std::string &why) {
  return "tensor maps need compute capability 9.0 and a CUDA 12 driver (" +
         why + ")";
}

std::string cudaTensorMapSupport(int sm, bool driverCanEncode,
                                 const std::string &deviceName) {
  if (sm < 90)
    return tensorMapsUnsupported(deviceName + " is sm_" + std::to_string(sm));
  if (!driverCanEncode)
    return tensorMapsUnsupported(
        "the CUDA driver lacks cuTensorMapEncodeTiled");
  return "";
}

TensorMapCache &threadTensorMapCache() {
  // Made on a thread's first map: threads that launch no map-taking variant
  // carry nothing.
  thread_local std::unique_ptr<TensorMapCache> cache;
  if (!cache)
    cache = std::make_unique<TensorMapCache>();
  return *cache;
}

} // namespace tuna
