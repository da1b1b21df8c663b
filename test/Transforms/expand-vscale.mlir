// RUN: tuna-opt %s --tuna-expand --split-input-file | FileCheck %s
// RUN: tuna-opt %s --tuna-expand=plan-only --split-input-file | FileCheck %s --check-prefix=PLANNED

// A body written once for every vector width: the space's `vscale`
// parameter fixes every scalable dimension `[n]` at n * vec in each variant,
// in every position a type can take (op results, block arguments and loop
// results, element types of memrefs, splat constants, type attributes) and
// `vector.vscale` becomes vec.

func.func @sum(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [4, 8]>, #tuna.param<"unroll", [1, 2]>],
    defaults = {vec = 4, unroll = 1}, vscale = "vec">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %unroll = tuna.param "unroll" : index
  %vec = vector.vscale
  %step = arith.muli %vec, %unroll : index
  %acc = memref.alloca() : memref<2xvector<[1]xf32>>
  %zero = arith.constant dense<0.0> : vector<[1]xf32>
  memref.store %zero, %acc[%c0] : memref<2xvector<[1]xf32>>
  %pairs = scf.for %i = %c0 to %n step %step iter_args(%p = %zero) -> vector<[1]xf32> {
    %left = arith.subi %n, %i : index
    %mask = vector.create_mask %left : vector<[1]xi1>
    %v = vector.maskedload %x[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
    %s = arith.addf %p, %v : vector<[1]xf32>
    scf.yield %s : vector<[1]xf32>
  }
  memref.store %pairs, %acc[%c1] : memref<2xvector<[1]xf32>>
  %a = memref.load %acc[%c0] : memref<2xvector<[1]xf32>>
  %b = memref.load %acc[%c1] : memref<2xvector<[1]xf32>>
  %ab = arith.addf %a, %b : vector<[1]xf32>
  %r = vector.reduction <add>, %ab : vector<[1]xf32> into f32
  memref.store %r, %y[%c0] : memref<?xf32>
  return
}

// CHECK-LABEL: func.func @sum__v0(
// CHECK-NOT:     vector<[
// CHECK:         arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         memref.alloca() : memref<2xvector<4xf32>>
// CHECK:         scf.for {{.*}} step %c4{{.*}} -> (vector<4xf32>)
// CHECK:           vector.create_mask {{.*}} : vector<4xi1>
// CHECK:           vector.maskedload {{.*}} : memref<?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:         vector.reduction <add>, {{.*}} : vector<4xf32> into f32
// CHECK-NOT:     vector<[
// CHECK-LABEL: func.func @sum__v1(
// CHECK:         scf.for {{.*}} step %c8{{.*}} -> (vector<4xf32>)
// CHECK-LABEL: func.func @sum__v2(
// CHECK:         memref.alloca() : memref<2xvector<8xf32>>
// CHECK:         scf.for {{.*}} step %c8{{.*}} -> (vector<8xf32>)
// CHECK:           vector.maskedload {{.*}} into vector<8xf32>
// CHECK-LABEL: func.func @sum__v3(
// CHECK:         scf.for {{.*}} step %c16{{.*}} -> (vector<8xf32>)
// CHECK:       tuna.dispatch @sum
// CHECK-SAME:    function_type = (memref<?xf32>, memref<?xf32>, index) -> ()

// The planned kernel keeps its scalable types for instantiatePlannedVariants.
// PLANNED-LABEL: func.func @sum__planned(
// PLANNED:         memref.alloca() : memref<2xvector<[1]xf32>>
// PLANNED:       tuna.dispatch @sum

// -----

// A GPU kernel: its workgroup buffer (a block argument) takes the width too,
// and counts against the shared memory limit at that width: 32 x 4 x vec
// bytes, so vec = 512 (64 KiB) is dropped.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @stage(%x: memref<?xf32>) workgroup(%buf: memref<32xvector<[1]xf32>, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"vec", [2, 512]>], defaults = {vec = 2}, vscale = "vec",
        grid = affine_map<()[vec] -> (1)>, block = affine_map<()[vec] -> (32)>>} {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %v = vector.load %x[%c0] : memref<?xf32>, vector<[1]xf32>
      memref.store %v, %buf[%tid] : memref<32xvector<[1]xf32>, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.module @stage__v0
// CHECK:         gpu.func @stage__v0(%{{.*}}: memref<?xf32>) workgroup(%{{.*}} : memref<32xvector<2xf32>, #gpu.address_space<workgroup>>)
// CHECK:           vector.load {{.*}} : memref<?xf32>, vector<2xf32>
// CHECK-NOT:   gpu.module @stage__v1
// CHECK:       tuna.dispatch @stage
// CHECK-NEXT:    tuna.variant @stage__v0::@stage__v0 config {vec = 2 : i64}
// CHECK-NEXT:  }

// -----

// `tuna.aligned`: the alignment of a scalable access follows its width,
// the largest power of two that divides its size in bytes.

func.func @copy(%x: memref<?xf32>, %y: memref<?xf16>, %i: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [1, 3, 4, 16]>], defaults = {vec = 1}, vscale = "vec">} {
  %v = vector.load %x[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
  %mask = vector.create_mask %i : vector<[2]xi1>
  %pad = arith.constant dense<0.0> : vector<[2]xf16>
  %h = vector.maskedload %y[%i], %mask, %pad {tuna.aligned} : memref<?xf16>, vector<[2]xi1>, vector<[2]xf16> into vector<[2]xf16>
  vector.maskedstore %y[%i], %mask, %h {tuna.aligned} : memref<?xf16>, vector<[2]xi1>, vector<[2]xf16>
  vector.store %v, %x[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
  return
}

// CHECK-LABEL: func.func @copy__v0(
// CHECK-NOT:     tuna.aligned
// CHECK:         vector.load {{.*}} {alignment = 4 : i64} : memref<?xf32>, vector<1xf32>
// CHECK:         vector.maskedload {{.*}} {alignment = 4 : i64} : memref<?xf16>, vector<2xi1>, vector<2xf16>
// CHECK:         vector.maskedstore {{.*}} {alignment = 4 : i64} : memref<?xf16>, vector<2xi1>, vector<2xf16>
// CHECK:         vector.store {{.*}} {alignment = 4 : i64} : memref<?xf32>, vector<1xf32>
// CHECK-LABEL: func.func @copy__v1(
// CHECK:         vector.load {{.*}} {alignment = 4 : i64} : memref<?xf32>, vector<3xf32>
// CHECK:         vector.maskedload {{.*}} {alignment = 4 : i64} : memref<?xf16>, vector<6xi1>, vector<6xf16>
// CHECK-LABEL: func.func @copy__v2(
// CHECK:         vector.load {{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:         vector.maskedload {{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xi1>, vector<8xf16>
// CHECK:         vector.maskedstore {{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xi1>, vector<8xf16>
// CHECK:         vector.store {{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-LABEL: func.func @copy__v3(
// CHECK:         vector.load {{.*}} {alignment = 64 : i64} : memref<?xf32>, vector<16xf32>
// CHECK:         vector.maskedload {{.*}} {alignment = 64 : i64} : memref<?xf16>, vector<32xi1>, vector<32xf16>

// The planned kernel keeps the marker for instantiatePlannedVariants.
// PLANNED-LABEL: func.func @copy__planned(
// PLANNED:         vector.load {{.*}} {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
