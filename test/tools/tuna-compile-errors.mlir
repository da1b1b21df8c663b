// RUN: not tuna-compile %s --target=nvptx:sm_9 -o %t.tuna 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tuna-compile %s --target=vulkan -o %t.tuna 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tuna-compile %t.missing.mlir --target=host -o %t.tuna 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tuna-compile %s --target=host -o %t.tuna --verify-diagnostics

// TARGET: tuna-compile: error: unknown target 'nvptx:sm_9': an NVIDIA chip is written sm_XY, XY >= 75 (the oldest CUDA 13 supports)
// ARCH: tuna-compile: error: unknown target 'vulkan': the architecture must be nvptx, amdgcn or host
// MISSING: tuna-compile: error: cannot open input file '{{.*}}missing.mlir'

// A GPU kernel has no variants for the host target: nothing to bundle.
// expected-error @below {{nothing to put in the bundle: no kernel has variants for the requested targets (host)}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>],
        defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>,
        block = affine_map<()[block] -> (block)>
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %y[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
