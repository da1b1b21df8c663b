// RUN: rm -f %t.tuna
// RUN: not tuna-compile %s --target=host -o %t.tuna 2>&1 | FileCheck %s
// RUN: not ls %t.tuna

// A hand-written dispatch table whose function_type disagrees with its
// variant: the bundle's ABI would be wrong and every launch would read its
// arguments from the wrong places (issue 16). Nothing is written.

// CHECK: error: 'tuna.dispatch' op variant #0 kernel @scale__v0 has type '(memref<?xf32>, index) -> ()' but dispatch @scale declares function_type '(memref<?xf32>, memref<?xf32>, index) -> ()'

func.func @scale__v0(%x: memref<?xf32>, %n: index) {
  return
}
tuna.dispatch @scale attributes {default_variant = 0 : i64, function_type = (memref<?xf32>, memref<?xf32>, index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64: 1>} {
  tuna.variant @scale__v0 config {b = 1 : i64}
}
