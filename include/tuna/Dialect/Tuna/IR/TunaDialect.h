//===- TunaDialect.h - The tuna dialect -------------------------*- C++ -*-===//
#ifndef TUNA_DIALECT_TUNA_IR_TUNADIALECT_H
#define TUNA_DIALECT_TUNA_IR_TUNADIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "tuna/Dialect/Tuna/IR/TunaOpsDialect.h.inc"

#include "tuna/Dialect/Tuna/IR/TunaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaAttrs.h.inc"

#define GET_OP_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaOps.h.inc"

namespace mlir::tuna {
/// Why `chip` is not a chip of `arch` as `tuna-compile --target` spells it
/// (`sm_XY[a]` with XY >= 75, an AMDGPU processor such as `gfx942`), or an
/// empty string when it is one. The host has no chips.
std::string checkChip(TargetArch arch, llvm::StringRef chip);

/// The XY of an NVIDIA chip `sm_XY[a]`, if `chip` is spelled so.
std::optional<unsigned> nvidiaVersion(llvm::StringRef chip);

/// Whether a kernel whose space declares `targets` (none: every target)
/// supports chip `chip` of `arch`.
bool supportsTarget(ArrayRef<TargetAttr> targets, TargetArch arch,
                    llvm::StringRef chip);

/// "nvptx (sm_90a)", "nvptx (sm_80 and newer) and amdgcn": what `targets`
/// declares, for messages.
std::string describeTargets(ArrayRef<TargetAttr> targets);

/// Dimensions a TMA tensor map describes at most.
constexpr unsigned kMaxTensorMapRank = 5;

/// Bytes of an element a tensor map can describe (f16, bf16, f32, f64, i8,
/// i32, i64: CUtensorMapDataType), or nothing for another type.
std::optional<int64_t> getTensorMapElementBytes(Type elementType);

/// Why the box of a tensor map (innermost entry first) breaks TMA's rules
/// where its entries are constant: each entry 1 to 256 elements, the inner
/// box a multiple of 16 bytes and, with a swizzle, within its span. Empty
/// when it does not.
std::string checkTensorMapBox(ArrayRef<AffineExpr> box, int64_t elementBytes,
                              unsigned swizzleBytes);

/// The one validation of a tuning space, used by SpaceAttr::verify and by
/// tuna-expand: parameters, configurations, defaults, key, launch maps,
/// constraints and tensor-map boxes. `knobs` are the parameters that the space's schedule adds
/// (tuna-expand resolves them); while they are unknown (std::nullopt) and
/// the space has a schedule, the checks that need every parameter's name
/// (unknown bindings, symbol counts) are left to tuna-expand.
LogicalResult verifySpace(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<ParamAttr> params, ArrayAttr configs,
                          DictionaryAttr defaults, ArrayAttr constraints,
                          ArrayRef<KeyAttr> key, AffineMapAttr grid,
                          AffineMapAttr block, AffineMapAttr smem,
                          AffineMapAttr cluster, AffineMapAttr minBlocks,
                          StringAttr vscale,
                          ArrayRef<TensorMapAttr> tensorMaps,
                          bool hasSchedule,
                          std::optional<ArrayRef<ParamAttr>> knobs);

/// Whether `type` is or contains a scalable vector type (`vector<[4]xf32>`,
/// `memref<8xvector<[1]xf32>>`): in a tunable kernel, a width that the
/// space's `vscale` parameter fixes per variant.
bool isScalableVectorLike(Type type);

/// The vector that a contiguous vector access (`vector.load`, `vector.store`,
/// `vector.maskedload`, `vector.maskedstore`) reads or writes, null for any
/// other op: the accesses that `tuna.aligned` may mark.
VectorType getContiguousAccessType(Operation *op);
} // namespace mlir::tuna

#endif // TUNA_DIALECT_TUNA_IR_TUNADIALECT_H
