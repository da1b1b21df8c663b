// RUN: tuna-compile %s --target=nvptx:sm_90a --ptxas=%S/Inputs/ptxas-performance-loss.sh \
// RUN:   -o %t.tuna --verify-diagnostics | FileCheck %s

// ptxas says "Potential Performance Loss" (wgmma serialized, ...) only in its
// -v report, as info: tuna-compile turns such a line into a warning at the
// kernel, with a note naming the variants, and keeps the variant (it is
// correct, only slower than written). The stand-in ptxas reports it for
// every variant; ptxas' mention of the variant's symbol reads as the
// kernel's name.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-warning@+2 {{ptxas: Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage in the function 'stage' (C7515)}}
    // expected-note@+1 {{in the only variant of kernel 'stage': block=128}}
    gpu.func @stage(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128]>],
        defaults = {block = 128},
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

// CHECK:      kernel stage: 1 variants, default stage__v0
// CHECK-NEXT:   stage__v0  block=128  nvptx:sm_90a: cubin 11 B ptx {{[0-9]+}} B regs 30 spill 0 B
