// RUN: tuna-opt %s --tuna-expand="report-dropped" -verify-diagnostics | FileCheck %s
// RUN: tuna-opt %s --tuna-expand="dedupe=false" | FileCheck %s --check-prefix=ALL

// `unroll` only feeds a computation that folds away, so configurations that
// differ in it alone become identical variants and are dropped; the default
// maps to the variant it duplicates.

// expected-remark @+2 {{kernel 'k': configuration {tile = 8, unroll = 2} is identical to {tile = 8, unroll = 1}}}
// expected-remark @+1 {{kernel 'k': configuration {tile = 16, unroll = 2} is identical to {tile = 16, unroll = 1}}}
func.func @k(%x: memref<?xf32>, %i: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"tile", [8, 16]>, #tuna.param<"unroll", [1, 2]>],
    defaults = {tile = 16, unroll = 2}>} {
  %t = tuna.param "tile" : index
  %u = tuna.param "unroll" : index
  %zero = arith.subi %u, %u : index
  %j = arith.addi %i, %zero : index
  %k = arith.muli %j, %t : index
  %v = memref.load %x[%k] : memref<?xf32>
  memref.store %v, %x[%i] : memref<?xf32>
  return
}

// CHECK-LABEL: func.func @k__v0
// CHECK: arith.constant 8 : index
// CHECK-LABEL: func.func @k__v1
// CHECK: arith.constant 16 : index
// CHECK-NOT: func.func @k__v2
// CHECK: tuna.dispatch @k
// CHECK-SAME: default_variant = 1
// CHECK-COUNT-2: tuna.variant
// CHECK-NEXT: {{^  }$}}

// ALL: tuna.dispatch @k
// ALL-SAME: default_variant = 3
// ALL-COUNT-4: tuna.variant
