// RUN: tuna-opt %s --tuna-unroll --split-input-file --verify-diagnostics | FileCheck %s

// A marked loop with a constant trip count becomes copies of its body,
// inner loops first; unmarked loops stay.
// CHECK-LABEL: func.func @tile
// CHECK-COUNT-6: memref.store
// CHECK-NOT:   memref.store
// CHECK:       scf.for
// CHECK-NOT:   tuna.unroll
func.func @tile(%m: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %x = arith.muli %i, %c3 : index
      %y = arith.addi %x, %j : index
      memref.store %zero, %m[%y] : memref<8xf32>
    } {tuna.unroll}
  } {tuna.unroll}
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %m[%i] : memref<8xf32>
  }
  return
}

// -----

func.func @dynamic(%m: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{loop marked tuna.unroll has no constant trip count}}
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %m[%i] : memref<8xf32>
  } {tuna.unroll}
  return
}

// -----

func.func @misplaced() {
  // expected-error @below {{'tuna.unroll' must be a unit attribute on an scf.for}}
  %c0 = arith.constant {tuna.unroll} 0 : index
  return
}
