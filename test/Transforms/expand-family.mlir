// RUN: tuna-opt %s -split-input-file --tuna-expand | FileCheck %s

// A family (`tuna.family`): one dispatch table made of its kernels'
// variants, their configurations led by `kernel` (the kernel's index in the
// list), the first kernel's default, what any kernel writes; the kernels'
// own tables stay and name the same variants.

func.func @narrow(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 2]>], defaults = {step = 2},
    key = [#tuna.key<arg = 2>]>} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %y[%i] : memref<?xf32>
  }
  return
}

func.func @wide(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [4]>], defaults = {step = 4},
    key = [#tuna.key<arg = 2>]>} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %y[%i] : memref<?xf32>
    memref.store %v, %x[%i] : memref<?xf32>
  }
  return
}

tuna.family @copy kernels ["narrow", "wide"]

// CHECK:       tuna.dispatch @copy attributes {default_variant = 1 : i64, function_type = (memref<?xf32>, memref<?xf32>, index) -> (), key = [#tuna.key<arg = 2>], params = ["kernel", "step"], source_hash = "{{[0-9a-f]+}}", written_args = array<i64: 0, 1>}
// CHECK-NEXT:    tuna.variant @narrow__v0 config {kernel = 0 : i64, step = 1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @narrow__v1 config {kernel = 0 : i64, step = 2 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @wide__v0 config {kernel = 1 : i64, step = 4 : i64}{{$}}
// CHECK-NEXT:  }
// CHECK:       tuna.dispatch @narrow attributes {default_variant = 1 : i64, {{.*}} params = ["step"], {{.*}} written_args = array<i64: 1>}
// CHECK:       tuna.dispatch @wide attributes {default_variant = 0 : i64, {{.*}} params = ["step"], {{.*}} written_args = array<i64: 0>}
// CHECK-NOT:   tuna.family

// -----

// Kernels with different parameters: the family's are `kernel` and every
// kernel's in order of first appearance; a kernel's variants record those it
// does not have as -1.

func.func @rows(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 2]>], defaults = {step = 1},
    key = [#tuna.key<arg = 1>]>} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %step {
    memref.store %one, %x[%i] : memref<?xf32>
  }
  return
}

func.func @tiles(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"tile", [8]>, #tuna.param<"step", [1]>], defaults = {tile = 8, step = 1},
    key = [#tuna.key<arg = 1>]>} {
  %c0 = arith.constant 0 : index
  %tile = tuna.param "tile" : index
  %step = tuna.param "step" : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %tile {
    memref.store %two, %x[%i] : memref<?xf32>
  }
  return
}

tuna.family @fill kernels ["rows", "tiles"]

// CHECK-LABEL: tuna.dispatch @fill
// CHECK-SAME:    params = ["kernel", "step", "tile"]
// CHECK-NEXT:    tuna.variant @rows__v0 config {kernel = 0 : i64, step = 1 : i64, tile = -1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @rows__v1 config {kernel = 0 : i64, step = 2 : i64, tile = -1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @tiles__v0 config {kernel = 1 : i64, step = 1 : i64, tile = 8 : i64}{{$}}
// CHECK-NEXT:  }

// -----

// GPU kernels with tensor maps: the family lists the maps of every kernel
// in order, and a variant's map indices move past those of the kernels
// before its own.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @first(%a: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"use", [0, 1]>], defaults = {use = 0},
        key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[use] -> (n ceildiv 128)>,
        block = affine_map<(n)[use] -> (128)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(n)[use] -> (32)>>]>} {
      %use = tuna.param "use" : index
      %c0 = arith.constant 0 : index
      %reads = arith.cmpi ne, %use, %c0 : index
      scf.if %reads {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      gpu.return
    }
    gpu.func @second(%a: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"use", [0, 1]>], defaults = {use = 0},
        key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[use] -> (n ceildiv 256)>,
        block = affine_map<(n)[use] -> (256)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(n)[use] -> (64)>, l2_promotion = 128>]>} {
      %use = tuna.param "use" : index
      %c0 = arith.constant 0 : index
      %reads = arith.cmpi ne, %use, %c0 : index
      scf.if %reads {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      gpu.return
    }
  }
  tuna.family @both kernels ["first", "second"]
}

// CHECK-LABEL: tuna.dispatch @both
// CHECK-SAME:    params = ["kernel", "use"]
// CHECK-SAME:    tensor_maps = [#tuna.tensor_map<arg = 0, box = {{.*}}>, #tuna.tensor_map<arg = 0, box = {{.*}}, l2_promotion = 128>]
// CHECK-NEXT:    tuna.variant @first__v0::@first__v0 config {kernel = 0 : i64, use = 0 : i64} grid {{.*}} block {{.*}}{{$}}
// CHECK-NEXT:    tuna.variant @first__v1::@first__v1 config {kernel = 0 : i64, use = 1 : i64} {{.*}} tensor_maps [0] boxes [{{.*}}]
// CHECK-NEXT:    tuna.variant @second__v0::@second__v0 config {kernel = 1 : i64, use = 0 : i64} grid {{.*}} block {{.*}}{{$}}
// CHECK-NEXT:    tuna.variant @second__v1::@second__v1 config {kernel = 1 : i64, use = 1 : i64} {{.*}} tensor_maps [1] boxes [{{.*}}]
