//===- TunaAttrs.td - Attributes of the tuna dialect -------*- tablegen -*-===//
#ifndef TUNA_ATTRS_TD
#define TUNA_ATTRS_TD

include "tuna/Dialect/Tuna/IR/TunaDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Tuna_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tuna_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tuna_BucketKind : I32EnumAttr<"BucketKind", "how a key value is bucketed", [
    I32EnumAttrCase<"exact", 0>,
    I32EnumAttrCase<"pow2", 1>,
    I32EnumAttrCase<"bins", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tuna";
}

/// The bucket of a key component; `exact` when omitted.
class Tuna_BucketParameterBase : EnumParameter<Tuna_BucketKind> {
  let defaultValue = "::mlir::tuna::BucketKind::exact";
}
def Tuna_BucketParameter : Tuna_BucketParameterBase;

/// An optional list written in square brackets, `[a, b, ...]`, so that it can
/// sit among the comma-separated fields of a struct format.
class Tuna_BracketedList<string elementType, string parseElement>
    : OptionalArrayRefParameter<elementType> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<}] # elementType # [{>> {
      ::llvm::SmallVector<}] # elementType # [{> elements;
      if ($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                return $_parser.}] # parseElement # [{(elements.emplace_back());
              }))
        return ::mlir::failure();
      return elements;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}
def Tuna_BracketedIntegers : Tuna_BracketedList<"int64_t", "parseInteger">;
def Tuna_BracketedParams
    : Tuna_BracketedList<"::mlir::tuna::ParamAttr", "parseAttribute">;
def Tuna_BracketedKeys
    : Tuna_BracketedList<"::mlir::tuna::KeyAttr", "parseAttribute">;
def Tuna_BracketedTargets
    : Tuna_BracketedList<"::mlir::tuna::TargetAttr", "parseAttribute">;
def Tuna_BracketedTensorMaps
    : Tuna_BracketedList<"::mlir::tuna::TensorMapAttr", "parseAttribute">;

/// A launch map (grid, block, smem) of a space. Affine expressions multiply
/// and divide by symbols only, so a map that fails to parse gets a hint on
/// taking key values as symbols.
def Tuna_LaunchMapParameter : OptionalParameter<"::mlir::AffineMapAttr"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::mlir::AffineMapAttr> {
      ::llvm::SMLoc loc = $_parser.getCurrentLocation();
      ::mlir::AffineMapAttr map;
      if (::mlir::succeeded($_parser.parseAttribute(map)))
        return map;
      $_parser.emitError(loc)
          << "a launch map is affine_map<(key values)[parameters] -> (...)>; "
             "to multiply or divide by key values, take them as symbols: "
             "affine_map<()[rows, cols, block] -> ((rows * cols) ceildiv "
             "block)>";
      return ::mlir::failure();
    }()
  }];
}

def Tuna_ParamAttr : Tuna_Attr<"Param", "param"> {
  let summary = "A tuning parameter and its candidate values";
  let description = [{
    `#tuna.param<"block", [64, 128, 256]>` declares the parameter `block`
    with three candidates. In a space that lists explicit `configs`, the
    candidates are omitted: `#tuna.param<"block">`.
  }];
  let parameters = (ins StringRefParameter<"parameter name">:$name,
                        OptionalArrayRefParameter<"int64_t">:$values);
  let assemblyFormat = "`<` $name (`,` `[` $values^ `]`)? `>`";
}

def Tuna_KeyAttr : Tuna_Attr<"Key", "key"> {
  let summary = "One component of a kernel's shape signature";
  let description = [{
    Names a kernel argument whose value (an integer or index scalar) or
    dimension (`dim = i` of a memref) is part of the shape signature, and how
    it is bucketed: `exact` (default), `pow2` (the next power of two) or
    `bins` (the smallest listed bin that holds the value, one shared bucket
    beyond the last bin).

    ```mlir
    #tuna.key<arg = 3, bucket = pow2>
    #tuna.key<arg = 0, dim = 1, bucket = bins, bins = [32, 64, 128, 256]>
    ```
  }];
  let parameters = (ins
    "unsigned":$arg,
    OptionalParameter<"std::optional<unsigned>">:$dim,
    Tuna_BucketParameter:$bucket,
    Tuna_BracketedIntegers:$bins);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tuna_TargetArch : I32EnumAttr<"TargetArch",
    "the architecture of a compilation target", [
    I32EnumAttrCase<"nvptx", 0>,
    I32EnumAttrCase<"amdgcn", 1>,
    I32EnumAttrCase<"host", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tuna";
}

def Tuna_TargetAttr : Tuna_Attr<"Target", "target"> {
  let summary = "Compilation targets a kernel supports";
  let description = [{
    One entry of a space's `targets`: the chips of one architecture the
    kernel is written for. Without `chips` or `min`, every chip of `arch`.

    ```mlir
    #tuna.target<arch = amdgcn>                    // every AMD GPU
    #tuna.target<arch = nvptx, min = "sm_80">      // sm_80 and newer
    #tuna.target<arch = nvptx, chips = ["sm_90a"]> // exactly these chips
    ```

    `min` is for NVIDIA chips only: `sm_XY` or `sm_XYa` with XY at least
    the minimum's (features of an `a` chip run only on that chip, so an
    `a` chip is named in `chips`). Chips are spelled as `tuna-compile
    --target` takes them.
  }];
  let parameters = (ins
    EnumParameter<Tuna_TargetArch>:$arch,
    OptionalParameter<"::mlir::ArrayAttr">:$chips,
    OptionalParameter<"::mlir::StringAttr">:$min);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the kernel supports chip `chip` of architecture `arch`.
    bool admits(::mlir::tuna::TargetArch arch, ::llvm::StringRef chip) const;
    /// "nvptx (sm_80 and newer)", "nvptx (sm_90a)", "amdgcn".
    std::string describe() const;
  }];
}

def Tuna_OobFill : I32EnumAttr<"OobFill",
    "what a tensor map reads outside its tensor", [
    I32EnumAttrCase<"zero", 0>,
    I32EnumAttrCase<"nan", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tuna";
}

/// The out-of-bounds fill of a tensor map; `zero` when omitted.
def Tuna_OobFillParameter : EnumParameter<Tuna_OobFill> {
  let defaultValue = "::mlir::tuna::OobFill::zero";
}

def Tuna_TensorMapAttr : Tuna_Attr<"TensorMap", "tensor_map"> {
  let summary = "A TMA tensor map of a memref argument";
  let description = [{
    One entry of a space's `tensor_maps`: a CUDA tensor map (`CUtensorMap`)
    that the runtime derives at launch from memref argument `arg`, and that
    the kernel reads with `tuna.tensor_map <index>`.

    - `box`: the box a TMA copy moves, innermost dimension first (as TMA
      and `globalDim` list them), one entry per dimension of the memref
      (at most 5). Its inputs are those of the space's launch maps: the key
      values, then the parameters.
    - `shape` (optional): views a contiguous rank-1 memref as a row-major
      tensor of these sizes, outermost first (as memref sizes are), over the
      key values alone (the launch maps' inputs, reading no parameter); the
      box then has one entry per result. For kernels that take matrices as
      1-D buffers and their sizes as scalars.
    - `swizzle` (optional): the shared-memory swizzle span in bytes, 0
      (none, the default), 32, 64 or 128.
    - `l2_promotion` (optional): L2 promotion in bytes, 0 (none, the
      default), 64, 128 or 256.
    - `oob_fill` (optional): what reads outside the tensor give, `zero`
      (the default) or `nan` (floating-point elements only).

    ```mlir
    #tuna.tensor_map<arg = 0, box = affine_map<()[bm, bk] -> (bk, bm)>,
                     swizzle = 128>
    ```
  }];
  let parameters = (ins
    "unsigned":$arg,
    "::mlir::AffineMapAttr":$box,
    OptionalParameter<"::mlir::AffineMapAttr">:$shape,
    DefaultValuedParameter<"unsigned", "0">:$swizzle,
    DefaultValuedParameter<"unsigned", "0">:$l2_promotion,
    Tuna_OobFillParameter:$oob_fill);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tuna_SpaceAttr : Tuna_Attr<"Space", "space"> {
  let summary = "The tuning space of a kernel";
  let description = [{
    Attached to a kernel as the discardable attribute `tuna.space`.

    - `params`: the parameters, in order (`#tuna.param`). Their order is the
      order of the symbols in every map and set below.
    - `configs` (optional): an explicit list of configurations, each a
      dictionary binding every parameter. Without it the space is the
      cartesian product of the parameters' candidates.
    - `defaults`: the configuration used when tuning is off.
    - `constraints` (optional): integer sets over (key values)[parameters].
      Sets that read no key value are decided at compile time; the others
      at launch time on the actual key values.
    - `key` (optional): the shape signature (`#tuna.key`).
    - `grid`, `block` (GPU kernels): maps (key values)[parameters] -> 1 to 3
      sizes. `smem` (optional): (key values)[parameters] -> dynamic shared
      memory in bytes. `cluster` (optional, GPU kernels): (key
      values)[parameters] -> 1 to 3 sizes of a thread block cluster (sm_90)
      that reads only parameters: it is fixed when a variant is compiled
      (the PTX's `.reqnctapercluster`); a variant whose cluster has more
      than 8 blocks (the portable limit) is dropped. The grid must be a
      multiple of it in every dimension.
    - `min_blocks` (optional, GPU kernels): (key values)[parameters] -> the
      blocks of one variant that an SM should hold at once; like `cluster`
      it may read only parameters. Over 1 it becomes the variant's
      `nvvm.minctasm` (the PTX's `.minnctapersm`), with which ptxas limits
      the registers a thread so that that many blocks fit (spilling if it
      must); other targets ignore it.
    - `vscale` (optional): the parameter that gives the kernel's scalable
      vector types their width. The body is written once with scalable
      dimensions (`vector<[4]xf32>`, `memref<8xvector<[1]xf32>>`) and
      `tuna-expand` makes them fixed in every variant: a scalable dimension
      `[n]` becomes `n * vscale` and `vector.vscale` the parameter's value.
      The parameter's values must be positive.
    - `schedule` (optional): a `transform.named_sequence` applied to every
      variant; its unresolved `transform.tune.knob`s become parameters.
    - `tensor_maps` (optional): TMA tensor maps of memref arguments
      (`#tuna.tensor_map`) that the body reads with `tuna.tensor_map`; a
      variant whose body uses map i takes it as a hidden parameter.
    - `targets` (optional): the targets the kernel supports
      (`#tuna.target`), at most one entry per architecture. Without it, a
      GPU kernel supports every GPU target and a host kernel the host.
      `tuna-compile` compiles a kernel only for the requested targets it
      supports (docs/tuna-compile.md).

    The inputs of every map and set, dimensions first and then symbols, are
    the key values and then the parameters. Key values that an expression
    multiplies or divides by are symbols (affine expressions allow no
    product of dimensions): `affine_map<()[rows, cols, block] -> ((rows *
    cols) ceildiv block)>`.
  }];
  let parameters = (ins
    Tuna_BracketedParams:$params,
    OptionalParameter<"::mlir::ArrayAttr">:$configs,
    OptionalParameter<"::mlir::DictionaryAttr">:$defaults,
    OptionalParameter<"::mlir::ArrayAttr">:$constraints,
    Tuna_BracketedKeys:$key,
    Tuna_LaunchMapParameter:$grid,
    Tuna_LaunchMapParameter:$block,
    Tuna_LaunchMapParameter:$smem,
    Tuna_LaunchMapParameter:$cluster,
    Tuna_LaunchMapParameter:$min_blocks,
    OptionalParameter<"::mlir::StringAttr">:$vscale,
    OptionalParameter<"::mlir::SymbolRefAttr">:$schedule,
    Tuna_BracketedTargets:$targets,
    Tuna_BracketedTensorMaps:$tensor_maps);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TUNA_ATTRS_TD
