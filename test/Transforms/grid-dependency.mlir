// RUN: tuna-opt %s -pass-pipeline='builtin.module(gpu.module(tuna-grid-dependency))' | FileCheck %s

// Every kernel first lets the next grid launch, then waits for the grid
// before it; a function that is not a kernel is left alone.

// CHECK-LABEL: gpu.func @kernel
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
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
