// RUN: tuna-opt %s --tuna-expand | FileCheck %s

// A module whose last op is a terminator (the verifier lets any op end the
// module's block) keeps it last: the dispatch table goes before it. Found by
// the fuzzer (test/fuzz/corpus/expand/terminator-ends-module.mlir).

func.func @k(%x: memref<?xf32>) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = 1}>} {
  %b = tuna.param "b" : index
  %c0 = arith.constant 0 : index
  %f = arith.index_cast %b : index to i32
  %v = arith.sitofp %f : i32 to f32
  memref.store %v, %x[%c0] : memref<?xf32>
  return
}
gpu.yield

// CHECK:      tuna.dispatch @k
// CHECK-NEXT:   tuna.variant @k__v0
// CHECK-NEXT:   tuna.variant @k__v1
// CHECK-NEXT: {{^  }}}
// CHECK-NEXT: gpu.yield
