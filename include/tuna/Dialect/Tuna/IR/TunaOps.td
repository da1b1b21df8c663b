//===- TunaOps.td - Operations of the tuna dialect ---------*- tablegen -*-===//
#ifndef TUNA_OPS_TD
#define TUNA_OPS_TD

include "tuna/Dialect/Tuna/IR/TunaDialect.td"
include "tuna/Dialect/Tuna/IR/TunaAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

class Tuna_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tuna_Dialect, mnemonic, traits>;

def Tuna_ParamOp : Tuna_Op<"param", [Pure]> {
  let summary = "Reads a tuning parameter of the enclosing kernel";
  let description = [{
    Yields the value of the named parameter of the enclosing kernel's
    `tuna.space`. `tuna-expand` replaces it by a constant in every variant.

    ```mlir
    %block = tuna.param "block" : index
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnySignlessIntegerOrIndex:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tuna_TensorMapOp : Tuna_Op<"tensor_map", [Pure]> {
  let summary = "Reads a TMA tensor map of the enclosing kernel";
  let description = [{
    Yields the generic address of the tensor map `index` of the enclosing
    kernel's `tuna.space` (its `tensor_maps`): a 128-byte `CUtensorMap`
    that TMA ops (`nvvm.cp.async.bulk.tensor.*`) take as a plain
    `!llvm.ptr`. `tuna-expand` replaces it in every variant that still uses
    it after folding by a hidden argument `!llvm.ptr {tuna.tensor_map}`,
    one per map used, after the kernel's own arguments in map order.

    ```mlir
    %map = tuna.tensor_map 0 : !llvm.ptr
    ```
  }];
  let arguments = (ins I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$index attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tuna_DispatchOp : Tuna_Op<"dispatch", [
    Symbol, SingleBlock, NoTerminator, IsolatedFromAbove,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The dispatch table of one tunable kernel";
  let description = [{
    Written by `tuna-expand`: everything the runtime needs to choose and
    launch a variant of the kernel `sym_name`: the argument types, which
    memref arguments the kernel may write, the parameters, the key, the
    default variant and, in its body, one `tuna.variant` per variant.

    `function_type` is the ABI of every variant: a variant whose kernel is
    a function of another type is an error (checked wherever the kernel is
    found as a function with a builtin type, i.e. before lowering).

    `targets` is the space's declaration of the targets the kernel
    supports, when it has one. `tensor_maps` are the space's tensor maps,
    when it has some; a variant's hidden parameters take some of them.
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    DenseI64ArrayAttr:$written_args,
    StrArrayAttr:$params,
    TypedArrayAttrBase<Tuna_KeyAttr, "key components">:$key,
    I64Attr:$default_variant,
    StrAttr:$source_hash,
    OptionalAttr<TypedArrayAttrBase<Tuna_TargetAttr, "supported targets">>:$targets,
    OptionalAttr<TypedArrayAttrBase<Tuna_TensorMapAttr, "tensor maps">>:$tensor_maps);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the variants are GPU kernels (`@module::@func`), not host
    /// functions.
    bool hasGpuVariants();
  }];
}

def Tuna_VariantOp : Tuna_Op<"variant", [HasParent<"DispatchOp">]> {
  let summary = "One specialized variant of a tunable kernel";
  let description = [{
    `kernel` names the specialized function (`@module::@func` for GPU
    kernels). Maps and sets take the key values as their inputs, dimensions
    first and then symbols (the key values that an expression multiplies or
    divides by), and nothing else: the parameters are already substituted.
    `constraints` are the launch-time conditions that are left. `cluster`
    is constant: it is compiled into the variant (its known cluster size),
    not launched; so is `min_blocks` (its `nvvm.minctasm`). `tensor_maps`
    lists the tensor maps (indices into the dispatch's `tensor_maps`,
    ascending) that the variant takes as hidden parameters after the
    kernel's own, and `boxes` the box of each, innermost dimension first,
    over the key values.
  }];
  let arguments = (ins
    SymbolRefAttr:$kernel,
    DictionaryAttr:$config,
    OptionalAttr<AffineMapAttr>:$grid,
    OptionalAttr<AffineMapAttr>:$block,
    OptionalAttr<AffineMapAttr>:$smem,
    OptionalAttr<AffineMapAttr>:$cluster,
    OptionalAttr<AffineMapAttr>:$min_blocks,
    OptionalAttr<TypedArrayAttrBase<IntegerSetAttr, "integer sets">>:$constraints,
    OptionalAttr<DenseI64ArrayAttr>:$tensor_maps,
    OptionalAttr<AffineMapArrayAttr>:$boxes);
  let assemblyFormat = [{
    $kernel `config` $config (`grid` $grid^)? (`block` $block^)?
    (`smem` $smem^)? (`cluster` $cluster^)? (`min_blocks` $min_blocks^)?
    (`where` $constraints^)?
    (`tensor_maps` $tensor_maps^)? (`boxes` $boxes^)? attr-dict
  }];
}

def Tuna_FamilyOp : Tuna_Op<"family", [
    Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "One tunable kernel made of several kernels' variants";
  let description = [{
    Declares a kernel `sym_name` whose variants are those of the tunable
    kernels named in `kernels`, so that one tuning picks among them: kernels
    that cannot be one space because a type in them depends on the
    configuration (a wgmma accumulator's width, say). `tuna-expand`
    replaces it by a `tuna.dispatch` table of that name once it has
    expanded the kernels; their own tables stay.

    The kernels must have the same function type, key and targets, and be
    all GPU kernels or all host ones. The family's parameters are `kernel`
    (the index of the variant's kernel in `kernels`) followed by the union
    of theirs in order of first appearance, -1 in the variants of a kernel
    that lacks one; its default is the first kernel's, its tensor maps are
    theirs in order, and it writes what any of them writes.

    ```mlir
    tuna.family @matmul kernels ["matmul_n256", "matmul_n64"]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$kernels);
  let assemblyFormat = "$sym_name `kernels` $kernels attr-dict";
  let hasVerifier = 1;
}

#endif // TUNA_OPS_TD
