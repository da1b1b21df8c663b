// RUN: tuna-opt %s --tuna-expand -allow-unregistered-dialect | FileCheck %s

// Upstream transform.tune.knob as a second way to declare tunables: the
// unresolved knobs of the space's schedule become parameters; every
// combination is a variant, with the schedule applied and the knobs selected.

module attributes {transform.with_named_sequence} {
  func.func @matmul(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) attributes {
      tuna.space = #tuna.space<params = [#tuna.param<"unroll", [1, 2]>], defaults = {unroll = 1, tm = 32, tn = 64}, schedule = @tile>} {
    %u = tuna.param "unroll" : index
    %t = tuna.param "tm" : index
    "test.use"(%u, %t) : (index, index) -> ()
    linalg.matmul ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
    return
  }
  transform.named_sequence @tile(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tm"> options = [16, 32] -> !transform.param<i64>
    %tn = transform.tune.knob<"tn"> options = [64] -> !transform.param<i64>
    // A knob that is already selected is not a parameter.
    %fixed = transform.tune.knob<"fixed"> = 1 : i64 from options = [1, 2] -> !transform.param<i64>
    %tiled, %loops:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, %tn] : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// CHECK-NOT: transform.with_named_sequence
// CHECK-LABEL: func.func @matmul__v0
// CHECK:       "test.use"(%c1, %c16)
// CHECK:       scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c64
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : memref<16x128xf32, {{.*}}>, memref<128x64xf32, {{.*}}>)
// CHECK-LABEL: func.func @matmul__v1
// CHECK:       "test.use"(%c1, %c32)
// CHECK-LABEL: func.func @matmul__v2
// CHECK:       "test.use"(%c2, %c16)
// CHECK-LABEL: func.func @matmul__v3
// CHECK:       "test.use"(%c2, %c32)
// CHECK-NOT:   transform.named_sequence
// CHECK:       tuna.dispatch @matmul
// CHECK-SAME:    default_variant = 1
// CHECK-SAME:    params = ["unroll", "tm", "tn"]
// CHECK-SAME:    written_args = array<i64: 2>
// CHECK-NEXT:    tuna.variant @matmul__v0 config {tm = 16 : i64, tn = 64 : i64, unroll = 1 : i64}
// CHECK-NEXT:    tuna.variant @matmul__v1 config {tm = 32 : i64, tn = 64 : i64, unroll = 1 : i64}
// CHECK-NEXT:    tuna.variant @matmul__v2 config {tm = 16 : i64, tn = 64 : i64, unroll = 2 : i64}
// CHECK-NEXT:    tuna.variant @matmul__v3 config {tm = 32 : i64, tn = 64 : i64, unroll = 2 : i64}
