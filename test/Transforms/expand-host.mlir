// RUN: tuna-opt %s --tuna-expand | FileCheck %s

// Host kernels: variants stay func.func at the top level; which memref
// arguments the kernel may write is found through views; keys with bins.

func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 2, 4]>], defaults = {step = 1},
    key = [#tuna.key<arg = 1, dim = 0, bucket = bins, bins = [1024, 65536]>]>} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  %view = memref.subview %y[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  scf.for %i = %c0 to %n step %step {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %view[%i] : memref<?xf32, strided<[1]>>
    %p = arith.mulf %a, %xv : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %view[%i] : memref<?xf32, strided<[1]>>
  }
  return
}

// CHECK-LABEL: func.func @axpy__v0(
// CHECK-NOT:     tuna.space
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK-LABEL: func.func @axpy__v1(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// CHECK-LABEL: func.func @axpy__v2(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK-NOT:   func.func @axpy(
// CHECK:       tuna.dispatch @axpy attributes {default_variant = 0 : i64, function_type = (f32, memref<?xf32>, memref<?xf32>, index) -> (), key = [#tuna.key<arg = 1, dim = 0, bucket = bins, bins = [1024, 65536]>], params = ["step"], source_hash = "{{.*}}", written_args = array<i64: 2>}
// CHECK-NEXT:    tuna.variant @axpy__v0 config {step = 1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @axpy__v1 config {step = 2 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @axpy__v2 config {step = 4 : i64}{{$}}
