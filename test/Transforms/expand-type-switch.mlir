// RUN: tuna-opt %s --tuna-expand | FileCheck %s

// A parameter that changes types: branch on it with scf.index_switch; after
// substitution every variant keeps only its own branch.

func.func @k(%x: memref<?xf32>, %i: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 4]>], defaults = {vec = 1}>} {
  %vec = tuna.param "vec" : index
  scf.index_switch %vec
  case 4 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<4xf32>
    vector.store %v, %x[%i] : memref<?xf32>, vector<4xf32>
    scf.yield
  }
  default {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %x[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @k__v0
// CHECK-NOT:     scf.index_switch
// CHECK-NOT:     vector.load
// CHECK:         memref.load
// CHECK-LABEL: func.func @k__v1
// CHECK-NOT:     scf.index_switch
// CHECK-NOT:     memref.load
// CHECK:         vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
