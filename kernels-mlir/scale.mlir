// y = s * x over n floats, for the GPU and for the host.
//
// GPU: `block` threads per block, each thread handling `vec` elements spaced
// one block apart (coalesced); the grid covers n. 5 x 3 = 15 variants.
// Host: the loop is cut in chunks of `chunk` elements (a constant trip count
// that LLVM unrolls and vectorizes), then a scalar tail.

#fits = affine_set<(n)[block, vec] : (4096 - block * vec >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>, #tuna.param<"vec", [1, 2, 4]>],
        defaults = {block = 256, vec = 1},
        constraints = [#fits],
        key = [#tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(n)[block, vec] -> (n ceildiv (block * vec))>,
        block = affine_map<(n)[block, vec] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %vec = tuna.param "vec" : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %chunk = arith.muli %block, %vec : index
      %base = arith.muli %bid, %chunk : index
      scf.for %j = %c0 to %vec step %c1 {
        %off = arith.muli %j, %block : index
        %i0 = arith.addi %base, %off : index
        %i = arith.addi %i0, %tid : index
        %in = arith.cmpi ult, %i, %n : index
        scf.if %in {
          %v = memref.load %x[%i] : memref<?xf32>
          %r = arith.mulf %v, %s : f32
          memref.store %r, %y[%i] : memref<?xf32>
        }
      }
      gpu.return
    }
  }

  func.func @scale_host(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4, 8, 16, 64, 256]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 3, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rem = arith.remui %n, %chunk : index
    %main = arith.subi %n, %rem : index
    scf.for %i = %c0 to %main step %chunk {
      scf.for %j = %c0 to %chunk step %c1 {
        %k = arith.addi %i, %j : index
        %v = memref.load %x[%k] : memref<?xf32>
        %r = arith.mulf %v, %s : f32
        memref.store %r, %y[%k] : memref<?xf32>
      }
    }
    scf.for %k = %main to %n step %c1 {
      %v = memref.load %x[%k] : memref<?xf32>
      %r = arith.mulf %v, %s : f32
      memref.store %r, %y[%k] : memref<?xf32>
    }
    return
  }
}
