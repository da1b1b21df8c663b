// A tensor map of a flat buffer (`shape`): matrices passed as rank-1
// memrefs with their sizes as scalars, as kernels-mlir's matmuls take them,
// are viewed as rows x cols tensors over the key values; the box has one
// entry per size. The dispatch table keeps the shape, and the bundle lists
// it with the map (docs/bundle-format.md); the runtime checks at launch
// that the buffer is contiguous and holds the whole view.

// RUN: tuna-opt %s --tuna-expand | FileCheck %s --check-prefix=EXPAND
// RUN: tuna-compile %s --target=nvptx:sm_90a --no-ptxas -o %t.tuna | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=BUNDLE --input-file=%t.tuna

// EXPAND: tuna.dispatch @rows attributes {{{.*}}tensor_maps = [#tuna.tensor_map<arg = 0, box = {{.*}}, shape = #[[SHAPE:map[0-9]*]]>]
// EXPAND-NEXT: tuna.variant @rows__v0::@rows__v0 config {tma = 0 : i64} {{.*}}{{$}}
// EXPAND-NEXT: tuna.variant @rows__v1::@rows__v1 config {tma = 1 : i64} {{.*}} tensor_maps [0] boxes

// SUMMARY: kernel rows: 2 variants, default rows__v0

// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "arg": 0,
// BUNDLE-NEXT:   "l2Promotion": 0,
// BUNDLE-NEXT:   "oobFill": "zero",
// BUNDLE-NEXT:   "shape": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d0"
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d1"
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ]
// BUNDLE-NEXT:  }
// BUNDLE-NEXT: ],

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rows(%a: memref<?xf16>, %m: index, %k: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tma", [0, 1]>],
        defaults = {tma = 0},
        key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>],
        grid = affine_map<(m, k)[tma] -> (1)>,
        block = affine_map<(m, k)[tma] -> (128)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, k)[tma] -> (64, 16)>,
                                        shape = affine_map<(m, k)[tma] -> (m, k)>>],
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %tma = tuna.param "tma" : index
      %c0 = arith.constant 0 : index
      %use_map = arith.cmpi ne, %tma, %c0 : index
      scf.if %use_map {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      gpu.return
    }
  }
}
