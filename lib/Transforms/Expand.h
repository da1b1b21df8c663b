//===- Expand.h - The steps of tuna-expand ----------------------*- C++ -*-===//
//
// tuna-expand works on one kernel at a time, in three steps, each in its own
// file:
//
//  1. SpaceResolver.cpp: resolves the kernel's space (parameters, knobs of its
//     schedule, configurations, defaults) and PLANS every configuration:
//     static constraints and target limits, launch maps and launch-time
//     constraints with the parameters substituted. Planning reads the IR and
//     never changes it; its cost per configuration is a few affine
//     simplifications.
//  2. VariantBuilder.cpp: INSTANTIATES one planned configuration: clones the
//     kernel, replaces its parameters by constants, applies the schedule and
//     folds the body.
//  3. DispatchWriter.cpp: writes the `tuna.dispatch` table of the variants
//     that were built and removes the original kernel.
//
// Once every kernel is expanded, Family.cpp writes the table of each
// `tuna.family` from its kernels' tables.
//
// The seam between planning and instantiation is SpacePlan: everything the
// dispatch table says about a configuration except its kernel symbol is
// known once the space is planned. By default Expand.cpp instantiates every
// planned variant (to drop duplicates); with `plan-only` it writes the table
// of every planned configuration and keeps the kernel, and
// instantiatePlannedVariants (Passes.h) later builds the variants a search
// visits from their table entries.
//
//===----------------------------------------------------------------------===//

#ifndef TUNA_LIB_TRANSFORMS_EXPAND_H
#define TUNA_LIB_TRANSFORMS_EXPAND_H

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include <optional>
#include <string>

namespace mlir::tuna::expand {

/// One value per parameter, in the order of ResolvedSpace::names.
using Config = SmallVector<int64_t>;

/// An unresolved knob of a kernel's schedule and its parameter index.
struct Knob {
  transform::tune::KnobOp op;
  unsigned param;
};

/// A kernel's space with the knobs of its schedule folded in: parameter i is
/// symbol i of every map and set.
struct ResolvedSpace {
  FunctionOpInterface kernel;
  SpaceAttr space;
  SmallVector<std::string> names;
  /// Candidates per parameter (for cartesian spaces).
  SmallVector<SmallVector<int64_t>> candidates;
  /// The listed configurations of a space with `configs`; empty otherwise.
  SmallVector<Config> explicitConfigs;
  Config defaults;
  transform::NamedSequenceOp schedule;
  SmallVector<Knob> knobs;
  /// Bytes of the workgroup buffers a GPU kernel declares; by value of the
  /// `vscale` parameter instead when a buffer has a scalable vector type.
  int64_t workgroupBytes = 0;
  llvm::SmallDenseMap<int64_t, int64_t> workgroupBytesByVscale;
  /// The parameter that fixes the kernel's scalable vector widths.
  std::optional<unsigned> vscaleParam;
  /// Bytes of an element of each tensor map's memref, in map order.
  SmallVector<int64_t> tensorMapElementBytes;

  /// Bytes of the workgroup buffers of the variant of `config`.
  int64_t getWorkgroupBytes(ArrayRef<int64_t> config) const;
  /// The kernel handle, callable from const code.
  FunctionOpInterface getKernel() const { return kernel; }
  bool isGpu() const;
  /// `{name = value, ...}`, for diagnostics.
  std::string format(ArrayRef<int64_t> config) const;
};

/// The target limits a configuration must respect (tuna-expand's options).
struct Limits {
  int64_t maxThreadsPerBlock;
  int64_t maxSharedMemory;
  int64_t maxConfigs;
};

/// What a configuration turns into once its parameters are known; the maps
/// and sets take the key values as dimensions and no symbols.
struct PlannedVariant {
  Config config;
  AffineMap grid, block, smem;
  /// Constant (the space's `cluster` reads only parameters), or null.
  AffineMap cluster;
  /// Constant (the space's `min_blocks` reads only parameters), or null.
  AffineMap minBlocks;
  SmallVector<Attribute> dynamicConstraints;
  /// The box of every tensor map of the space, in map order.
  SmallVector<AffineMap> tensorMapBoxes;
};

/// A configuration that planning dropped, and why.
struct DroppedConfig {
  Config config;
  std::string reason;
};

/// Every configuration of a space, planned or dropped, in enumeration order.
struct SpacePlan {
  SmallVector<PlannedVariant> variants;
  SmallVector<DroppedConfig> dropped;
  /// Index in `variants` of the default configuration.
  size_t defaultVariant = 0;
};

//===----------------------------------------------------------------------===//
// SpaceResolver.cpp
//===----------------------------------------------------------------------===//

/// Resolves `kernel`'s space; errors name the kernel.
FailureOr<ResolvedSpace> resolveSpace(FunctionOpInterface kernel,
                                      SpaceAttr space);

/// What `op` has that needs the `vscale` parameter (a scalable vector type
/// among its results, block arguments or attributes, or `vector.vscale`
/// itself), for diagnostics; empty when nothing.
std::string describeVscaleUse(Operation *op);

/// Plans every configuration; fails (with an error) when the space is over
/// `limits.maxConfigs`, nothing survives, or the default is dropped.
/// `onDropped` sees every dropped configuration as it is decided.
FailureOr<SpacePlan>
planSpace(const ResolvedSpace &space, const Limits &limits,
          function_ref<void(const DroppedConfig &)> onDropped);

//===----------------------------------------------------------------------===//
// VariantBuilder.cpp
//===----------------------------------------------------------------------===//

/// An instantiated variant: its function, and the tensor maps it takes as
/// hidden parameters (indices into the space's `tensor_maps`, ascending).
struct InstantiatedVariant {
  FunctionOpInterface func;
  SmallVector<int64_t> tensorMaps;
};

/// Clones the kernel as `name` with the configuration of `variant` applied;
/// a GPU variant gets a gpu.module of its own, placed before the original.
/// Each tensor map its body still uses once folded becomes a hidden argument.
FailureOr<InstantiatedVariant>
instantiateVariant(const ResolvedSpace &space, const PlannedVariant &variant,
                   StringRef name,
                   const FrozenRewritePatternSet &canonicalization);

/// `type` with every scalable vector dimension `[n]` in it made the fixed
/// `n * vscale`.
Type fixVectorWidths(Type type, int64_t vscale);

/// Whether two instantiated variants launch and compute the same way.
bool isSameVariant(const InstantiatedVariant &a, const PlannedVariant &pa,
                   const InstantiatedVariant &b, const PlannedVariant &pb);

/// Erases an instantiated variant (with its gpu.module for GPU variants).
void eraseVariant(FunctionOpInterface func);

//===----------------------------------------------------------------------===//
// DispatchWriter.cpp
//===----------------------------------------------------------------------===//

/// A row of the dispatch table: the name of its variant (its function's,
/// and on GPUs its gpu.module's) and the plan of its configuration.
struct TableEntry {
  std::string name;
  const PlannedVariant *plan;
  /// The tensor maps the variant takes (InstantiatedVariant::tensorMaps).
  ArrayRef<int64_t> tensorMaps;
};

/// Writes the dispatch table of `space`'s kernel at the end of `module`.
DispatchOp writeDispatchTable(ModuleOp module, const ResolvedSpace &space,
                              ArrayRef<TableEntry> entries,
                              int64_t defaultVariant);

/// The plan a table entry was written from; an error at the kernel when the
/// entry does not fit `space` (a parameter missing or not an integer).
FailureOr<PlannedVariant> readTableEntry(const ResolvedSpace &space,
                                         VariantOp entry);

/// Erases the original kernel of `space`, then its schedule when nothing
/// uses it any more (an applied schedule must not reach code generation),
/// then its gpu.module when no kernel is left there.
void eraseExpandedKernel(const ResolvedSpace &space);

/// Replaces every `tuna.family` of `module` by a dispatch table made of its
/// kernels' variants (Family.cpp), once the kernels are expanded.
LogicalResult writeFamilyTables(ModuleOp module);

} // namespace mlir::tuna::expand

#endif // TUNA_LIB_TRANSFORMS_EXPAND_H
