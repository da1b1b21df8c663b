// A mistake that every variant of a kernel makes is reported once, with a
// note naming the kernel, how many of its variants made it and (when not
// all) which configurations; the variants are compiled in parallel or not.
// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna --verify-diagnostics
// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna -j 1 --verify-diagnostics
// RUN: not tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna 2>&1 | FileCheck %s

// CHECK-COUNT-1: error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// CHECK-NOT: error: LLVM Translation failed

module attributes {gpu.container_module} {
  // Both errors at the module get the note (the verifier matches one
  // expected-note line to both).
  // expected-error@+3 {{Failed creating the llvm::Module.}}
  // expected-error@+2 {{failed to compile the variant to PTX}}
  // expected-note@+1 {{in all 15 variants of kernel 'fill'}}
  gpu.module @kernels {
    gpu.func @fill(%x: memref<?xf32>, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>, #tuna.param<"unroll", [1, 2, 4]>],
        defaults = {block = 256, unroll = 1},
        key = [#tuna.key<arg = 1, bucket = pow2>],
        grid = affine_map<(n)[block, unroll] -> (n ceildiv block)>,
        block = affine_map<(n)[block, unroll] -> (block)>
      >} {
      %u = tuna.param "unroll" : index
      %i = arith.index_cast %u : index to i32
      %f = arith.sitofp %i : i32 to f32
      // The GPU pipelines lower no linalg op.
      // expected-error@+2 {{LLVM Translation failed for operation: builtin.unrealized_conversion_cast}}
      // expected-note@+1 {{in all 15 variants of kernel 'fill'}}
      %head = memref.subview %x[0] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1]>>
      linalg.fill ins(%f : f32) outs(%head : memref<4xf32, strided<[1]>>)
      gpu.return
    }
  }
}
