//===- Passes.td - Tuna passes -----------------------------*- tablegen -*-===//
#ifndef TUNA_TRANSFORMS_PASSES_TD
#define TUNA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TunaExpand : Pass<"tuna-expand", "::mlir::ModuleOp"> {
  let summary = "Expand every tuning space into specialized variants and a dispatch table";
  let description = [{
    For every kernel carrying `tuna.space` (a `gpu.func` kernel or a
    `func.func`):

    1. enumerate the configurations (the cartesian product of the parameters'
       candidates, or the explicit `configs`), with the candidates of any
       unresolved `transform.tune.knob` of the space's `schedule`;
    2. drop the configurations that break a compile-time constraint, a
       static limit of the target (threads per block, shared memory) or,
       with their parameters substituted, a rule of a tensor map's box;
    3. clone the kernel once per survivor (a GPU variant gets a `gpu.module`
       of its own so that variants compile independently), replace every
       `tuna.param` by a constant and every scalable vector type by the
       fixed width the space's `vscale` parameter gives it, verify it,
       apply the schedule with the knobs selected, canonicalize, and give
       the variant one hidden `!llvm.ptr {tuna.tensor_map}` argument after
       its own per tensor map its body still reads (`tuna.tensor_map`);
    4. drop variants that became identical to an earlier one;
    5. record a `tuna.dispatch` table and erase the original kernel.

    Then every `tuna.family` becomes a dispatch table of its own, made of
    the variants of the kernels it names (whose tables stay), with a
    parameter `kernel` that says which kernel a variant comes from.

    Errors name the kernel and the parameter. The default configuration must
    survive step 2 and read no tensor map.

    With `plan-only`, steps 3 and 4 are left out (and a kernel with tensor
    maps is an error: which maps a variant reads is known once it is
    built): the table lists every
    configuration that survives step 2, each under the symbol its variant
    will have, and the kernel stays (a host kernel renamed, as the table
    takes its name) so that `instantiatePlannedVariants` can build any of
    them later. A space of 10,000 configurations is planned without
    creating its variants' IR.
  }];
  let options = [
    Option<"maxThreadsPerBlock", "max-threads-per-block", "int64_t",
           /*default=*/"1024",
           "Drop GPU variants whose static block has more threads">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t",
           /*default=*/"49152",
           "Drop GPU variants whose static plus dynamic shared memory per "
           "block exceeds this many bytes">,
    Option<"maxVariants", "max-variants", "int64_t", /*default=*/"16384",
           "Refuse spaces with more configurations than this">,
    Option<"dedupe", "dedupe", "bool", /*default=*/"true",
           "Drop variants identical to an earlier one">,
    Option<"planOnly", "plan-only", "bool", /*default=*/"false",
           "Write the dispatch table of every planned configuration but "
           "instantiate no variant (no deduplication)">,
    Option<"reportDropped", "report-dropped", "bool", /*default=*/"false",
           "Emit a remark for every configuration that is dropped, and why">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::tuna::TunaDialect",
  ];
}

def TunaUnroll : Pass<"tuna-unroll"> {
  let summary = "Fully unroll the scf.for loops marked `tuna.unroll`";
  let description = [{
    Every `scf.for` that carries the unit attribute `tuna.unroll` and whose
    trip count is a constant is replaced by that many copies of its body,
    innermost loops first. Kernels mark the loops over a register tile
    (accumulators and fragments kept in a `memref.alloca`): once the loops
    are unrolled every index into the tile is a constant and LLVM's SROA
    keeps the tile in registers, as `#pragma unroll` does in CUDA. The trip
    count usually depends on tuning parameters, so this runs after
    `tuna-expand` has made them constants. A marked loop whose trip count is
    not constant is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TunaApproximateMath : Pass<"tuna-approximate-math"> {
  let summary = "Replace f32 math functions by upstream's polynomial "
                "approximations (host code)";
  let description = [{
    Rewrites the `math` ops named in `ops` (default: every one listed in
    docs/host-math.md) on f32 scalars and vectors into arithmetic: upstream
    MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`). f16 and bf16 operands
    are computed in f32 and truncated back. f64 and every other function
    are left alone. On the host a vector `math.tanh` would otherwise become
    one libm call per element; after this pass it stays a vector
    computation. The GPU targets do not run it: NVVM lowers math ops to
    libdevice and ROCDL to OCML, both already GPU-native code.
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "The math ops to approximate, by mnemonic (tanh, exp, ...); "
               "empty: the default set">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TunaResolveSubgroupSize
    : Pass<"tuna-resolve-subgroup-size", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Replace gpu.subgroup_size by the target's warp or wavefront size";
  let description = [{
    In a `gpu.module` with one target attribute, every `gpu.subgroup_size`
    becomes a constant: 32 for `#nvvm.target`; for `#rocdl.target`, 32 on
    processors that run wave32 (gfx10 and newer, unless the target's
    features hold `+wavefrontsize64`) and 64 on the others (gfx9: gfx90a,
    gfx942), as LLVM's AMDGPU backend compiles them. Kernels written with
    `gpu.subgroup_size` thus fold their shuffle widths, butterfly step
    counts and per-warp indexing per target before they are unrolled and
    lowered. A size above the op's `upper_bound` is an error. Modules
    without a single NVVM or ROCDL target are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TunaTensorMapArgs : Pass<"tuna-tensor-map-args", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass kernel arguments marked tuna.tensor_map by value as "
                "128-byte grid constants (TMA descriptors)";
  let description = [{
    A `gpu.func` kernel argument of type `!llvm.ptr` marked with the unit
    argument attribute `tuna.tensor_map` is a TMA descriptor (a CUDA
    `CUtensorMap`: 128 bytes, 64-byte aligned) that the launch passes by
    value; the kernel sees the generic address of its parameter and hands it
    to `nvvm.cp.async.bulk.tensor.*`. `convert-gpu-to-nvvm` copies neither
    `llvm.byval` nor `nvvm.grid_constant` from a `gpu.func` argument (and
    the NVVM verifier refuses `nvvm.grid_constant` on anything but an
    `llvm.func` kernel), so this pass runs twice in the NVPTX pipeline:
    before the conversion it records the marked arguments' positions in the
    lowered signature (memrefs expand to several parameters) as the kernel's
    `tuna.tensor_map_params` attribute, which the conversion carries over;
    after it, it gives those `llvm.func` parameters `llvm.byval =
    !llvm.array<128 x i8>`, `llvm.align = 64` and `nvvm.grid_constant`.
    The NVPTX backend then declares `.param .align 64 .b8 name[128]` and
    takes the parameter's address with `cvta.param`. The mark on an
    argument of another type, or on a function that is not a kernel, is an
    error. See docs/tma-design.md.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TunaGridDependency
    : Pass<"tuna-grid-dependency", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Make every kernel wait for the grid before it in its stream, "
                "so that it can be launched before that grid ends";
  let description = [{
    Inserts `nvvm.griddepcontrol wait` at the entry of every `gpu.func`
    kernel of the `gpu.module`: the kernel waits until the grid before it
    in the stream has completed and its memory operations are visible. A
    kernel so compiled is correct however it is launched, and a launch with
    programmatic stream serialization (CUDA's programmatic dependent
    launch, sm_90 and later) may begin as the grid before it ends, instead
    of after. No `launch_dependents` is inserted: the next grid then
    launches as this one's blocks exit (an explicit trigger at the entry
    let it take SMs beside this grid and slowed split-K kernels). The
    NVPTX pipeline runs it for sm_90 and later and marks the objects
    (`grid_dependency` in the bundle's manifest), which the CUDA backend
    launches so (docs/runtime-api.md, "Programmatic dependent launch").
    Functions that are not kernels are left alone.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

#endif // TUNA_TRANSFORMS_PASSES_TD
