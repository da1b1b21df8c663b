// RUN: tuna-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(tuna-resolve-subgroup-size))' | FileCheck %s

// CHECK-LABEL: gpu.module @nvidia
// CHECK:         arith.constant 32 : index
// CHECK-NOT:     gpu.subgroup_size
gpu.module @nvidia [#nvvm.target<chip = "sm_90">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.module @gfx90a
// CHECK:         arith.constant 64 : index
gpu.module @gfx90a [#rocdl.target<chip = "gfx90a">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.module @gfx942
// CHECK:         arith.constant 64 : index
gpu.module @gfx942 [#rocdl.target<chip = "gfx942">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.module @gfx1100
// CHECK:         arith.constant 32 : index
gpu.module @gfx1100 [#rocdl.target<chip = "gfx1100">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

// RDNA in wave64 mode.
// CHECK-LABEL: gpu.module @gfx1100_wave64
// CHECK:         arith.constant 64 : index
gpu.module @gfx1100_wave64 [#rocdl.target<chip = "gfx1100", features = "+wavefrontsize64">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

// No target attribute: left for later.
// CHECK-LABEL: gpu.module @untargeted
// CHECK:         gpu.subgroup_size : index
gpu.module @untargeted {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_size : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}

// -----

gpu.module @bounded [#rocdl.target<chip = "gfx942">] {
  gpu.func @k(%y: memref<?xindex>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{the target's subgroup size is 64, above this op's upper_bound 32}}
    %s = gpu.subgroup_size upper_bound 32 : index
    memref.store %s, %y[%c0] : memref<?xindex>
    gpu.return
  }
}
