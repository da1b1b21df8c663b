// A synthetic GPU kernel with a space of 10 x 10 x 10 x 10 = 10,000
// configurations, for planning at scale and for the NVPTX compile
// throughput per variant (docs/large-spaces.md). y = 2 * x over n floats:
// `block` threads per block, each thread handles `per` elements `stride`
// apart (a constant trip count that tuna-unroll unrolls), and `skew` shifts
// the thread's first element within its group. All compute the same result.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @large_gpu(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [32, 64, 96, 128, 160, 192, 224, 256, 512, 1024]>,
                  #tuna.param<"per", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]>,
                  #tuna.param<"unit", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]>,
                  #tuna.param<"pad", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]>],
        defaults = {block = 256, per = 1, unit = 1, pad = 0},
        key = [#tuna.key<arg = 2, bucket = pow2>],
        grid = affine_map<(n)[block, per, unit, pad] -> (n ceildiv (block * per))>,
        block = affine_map<(n)[block, per, unit, pad] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %per = tuna.param "per" : index
      %unit = tuna.param "unit" : index
      %pad = tuna.param "pad" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %two = arith.constant 2.0 : f32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %chunk = arith.muli %block, %per : index
      %first = arith.muli %bid, %chunk : index
      %start = arith.addi %first, %tid : index
      // `unit` and `pad` change the code, not the result: the loop walks
      // `per` elements `block` apart in steps of `unit` iterations.
      %steps = arith.muli %per, %unit : index
      %bound = arith.addi %steps, %pad : index
      scf.for %k = %c0 to %bound step %unit {
        %q = arith.divui %k, %unit : index
        %inside = arith.cmpi ult, %k, %steps : index
        %off = arith.muli %q, %block : index
        %i = arith.addi %start, %off : index
        %in_range = arith.cmpi ult, %i, %n : index
        %ok = arith.andi %inside, %in_range : i1
        scf.if %ok {
          %v = memref.load %x[%i] : memref<?xf32>
          %r = arith.mulf %v, %two : f32
          memref.store %r, %y[%i] : memref<?xf32>
        }
      } {tuna.unroll}
      gpu.return
    }
  }
}
