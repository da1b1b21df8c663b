// RUN: tuna-opt %s -pass-pipeline='builtin.module(gpu.module(tuna-grid-dependency))' \
// RUN:   | FileCheck %s --implicit-check-not=launch_dependents

// Every kernel first waits for the grid before it (and triggers nothing:
// the next grid launches as this one's blocks exit); a function that is
// not a kernel is left alone.

// CHECK-LABEL: gpu.func @kernel
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    arith.constant
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         gpu.return

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%x: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      memref.store %v, %x[%c0] : memref<?xf32>
      gpu.return
    }
    gpu.func @helper(%x: memref<?xf32>) {
      gpu.return
    }
  }
}
