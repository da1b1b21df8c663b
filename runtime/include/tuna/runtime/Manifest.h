//===- Manifest.h - The in-memory model of a Tuna bundle -------*- C++ -*-===//
//
// A bundle is what the compiler hands to the runtime: kernels, their argument
// ABI, the shape key, and for every variant its configuration, launch geometry
// and compiled code. The compiler fills these structs and calls writeBundle();
// the runtime reads them back with readBundle(). The file format lives in
// Bundle.cpp and docs/bundle-format.md; nothing else depends on it.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_MANIFEST_H
#define TUNA_RUNTIME_MANIFEST_H

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tuna {

/// Element type of a memref argument, or the type of a scalar argument.
enum class ScalarType { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

/// One argument of a kernel as the application passes it.
///
/// Lowered calling convention (what the kernel's parameter array holds, for
/// the GPU and for host variants alike): a memref of rank r becomes
/// `allocated ptr, aligned ptr, offset (i64), sizes[r] (i64), strides[r] (i64)`;
/// `index` becomes i64; other scalars keep their type (i1 as one byte).
struct ArgSpec {
  enum class Kind { MemRef, Scalar };
  Kind kind = Kind::Scalar;
  ScalarType type = ScalarType::I64; ///< Element type for memrefs.
  int rank = 0;                      ///< Memrefs only.
  bool written = false;              ///< Memrefs the kernel may write.
};

/// How a key value is turned into a signature component.
enum class Bucket {
  Exact, ///< The value itself.
  Pow2,  ///< The next power of two >= value (values <= 1 map to 1).
  Bins   ///< The smallest bin >= value; larger values share one "any" bucket.
};

/// One component of the shape signature.
struct KeySpec {
  int arg = 0;  ///< Argument index.
  int dim = -1; ///< Memref dimension, or -1 for the value of a scalar argument.
  Bucket bucket = Bucket::Exact;
  std::vector<int64_t> bins; ///< Ascending; Bins only.
};

/// An integer expression over the raw (not bucketed) key values d0..dN-1, in
/// key order, with the tuning parameters already substituted; postfix order.
/// Mirrors mlir::AffineExpr: there is no subtraction (it is `a + b * -1`).
struct ExprNode {
  enum class Op { Const, Dim, Add, Mul, Mod, FloorDiv, CeilDiv };
  Op op = Op::Const;
  int64_t value = 0; ///< Const: the constant; Dim: the key position.
};
using Expr = std::vector<ExprNode>;

/// A launch-time condition on key values: `expr == 0` or `expr >= 0`
/// (mlir::IntegerSet semantics). A variant runs only where all hold.
struct Constraint {
  Expr expr;
  bool isEquality = false;
};

/// Resources the target compiler reported for one variant; -1 when unknown.
struct Resources {
  int registers = -1;
  int64_t sharedBytes = -1;
  int64_t localBytes = -1; ///< Stack frame / spill memory per thread.
  int64_t spillBytes = -1;
};

/// Compiled code: one loadable unit (a PTX module, a cubin, an HSA code
/// object, a host shared library).
struct Object {
  std::string target; ///< "nvptx:sm_90", "amdgcn:gfx942", "host".
  std::string format; ///< "ptx", "cubin", "hsaco", "amdgcn-asm", "elf-so".
  std::string triple; ///< LLVM target triple, informative.
  std::string data;   ///< The bytes.
  /// Its kernels wait for the grid before them in the stream
  /// (griddepcontrol.wait) before they touch memory, so the CUDA backend
  /// launches them with programmatic stream serialization: a kernel's
  /// launch overlaps the end of the one before it (docs/runtime-api.md,
  /// "Programmatic dependent launch").
  bool gridDependency = false;
  /// Its kernels keep state in the module's global memory from one launch
  /// to the next (a split-K workspace, docs/kernels.md), so two launches of
  /// them must not run at once: the GPU backends order its launches on
  /// different streams (docs/runtime-api.md, "Kernels with module state").
  bool moduleState = false;
};

/// Where one variant's code is, for one target.
///
/// GPU objects name the kernel's entry symbol. Host objects name a function
/// `void symbol(void **args)`, where args[i] points at the i-th lowered
/// parameter (the same array a GPU launch takes).
struct VariantCode {
  int object = -1; ///< Index into Bundle::objects.
  std::string symbol;
  Resources resources;
};

/// A TMA tensor map (CUtensorMap) that a kernel's variants may take, derived
/// at launch from one of its memref arguments. What does not vary between
/// variants; the element type is the memref's. docs/tma-design.md.
struct TensorMapSpec {
  int arg = 0;              ///< The memref argument the map describes.
  int l2PromotionBytes = 0; ///< 0, 64, 128 or 256.
  bool oobFillNaN = false;  ///< Out-of-bounds elements read NaN, not zero.
  /// Empty: the memref as it is. Else the sizes, outermost first, over the
  /// key values, of the row-major tensor that a contiguous rank-1 memref is
  /// viewed as.
  std::vector<Expr> shape;
};

/// A hidden parameter of one variant: a map of Kernel::tensorMaps with the
/// box this variant loads. Hidden parameters follow the proper ones, in the
/// order of Variant::tensorMaps; each is the 128-byte map, by value.
struct VariantTensorMap {
  int map = 0;          ///< Index into Kernel::tensorMaps.
  std::vector<Expr> box; ///< Innermost dimension first; one per memref dim.
  int swizzleBytes = 0; ///< 0 (none), 32, 64 or 128.
};

struct Variant {
  std::string name; ///< Symbol of the variant in the expanded IR.
  std::vector<std::pair<std::string, int64_t>> config; ///< In param order.
  std::array<Expr, 3> grid;  ///< Empty expressions mean 1.
  std::array<Expr, 3> block; ///< Empty expressions mean 1.
  Expr sharedMemBytes;       ///< Dynamic shared memory; empty means 0.
  std::vector<Constraint> constraints;
  std::vector<VariantTensorMap> tensorMaps; ///< Hidden parameters; usually none.
  /// Blocks a multiprocessor that the variant asked its compiler to fit
  /// (the space's `min_blocks`); the spills that buys are its design.
  int minBlocks = 1;
  std::vector<VariantCode> code;
};

struct Kernel {
  std::string name;
  std::string sourceHash; ///< Hash of the kernel before expansion (hex).
  std::vector<ArgSpec> args;
  std::vector<std::string> params;
  std::vector<KeySpec> key;
  std::vector<TensorMapSpec> tensorMaps;
  int defaultVariant = 0;
  std::vector<Variant> variants;
};

struct Bundle {
  std::string tunaVersion;
  std::vector<Kernel> kernels;
  std::vector<Object> objects;
};

} // namespace tuna

#endif // TUNA_RUNTIME_MANIFEST_H
