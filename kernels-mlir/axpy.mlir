// y = a * x + y over n floats (BLAS saxpy, in place), for the GPU and for
// the host.
//
// Reference: y_out[i] = a * x[i] + y_in[i] for 0 <= i < n (one fused
// multiply-add per element, so the result equals fma(a, x, y) in float).
//
// GPU: `block` threads per block, each thread handling `vec` contiguous
// elements with one vector access per buffer (4-, 8- or 16-byte loads and
// stores); the grid covers n. Threads whose elements are not all in range,
// or whose buffers are not aligned to the vector size, take a scalar loop.
// 5 x 3 = 15 variants; default block = 256, vec = 1. The vector body is
// written once for every width (`vscale = "vec"` and `tuna.aligned`).
// Host: the loop is cut in chunks of `chunk` elements (a constant trip count
// that LLVM unrolls and vectorizes), then a scalar tail; 6 variants.

#fits = affine_set<(n)[block, vec] : (4096 - block * vec >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>, #tuna.param<"vec", [1, 2, 4]>],
        defaults = {block = 256, vec = 1},
        constraints = [#fits],
        key = [#tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(n)[block, vec] -> (n ceildiv (block * vec))>,
        block = affine_map<(n)[block, vec] -> (block)>,
        vscale = "vec"
      >} {
      %block = tuna.param "block" : index
      %vec = tuna.param "vec" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %first_thread = arith.muli %bid, %block : index
      %thread = arith.addi %first_thread, %tid : index
      %i = arith.muli %thread, %vec : index
      %end = arith.addi %i, %vec : index
      %in_range = arith.cmpi ule, %end, %n : index
      %px = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %py = memref.extract_aligned_pointer_as_index %y : memref<?xf32> -> index
      %pxy = arith.ori %px, %py : index
      %vec_bytes = arith.muli %vec, %c4 : index
      %misaligned = arith.remui %pxy, %vec_bytes : index
      %aligned = arith.cmpi eq, %misaligned, %c0 : index
      %fast = arith.andi %in_range, %aligned : i1
      scf.if %fast {
        %vx = vector.load %x[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
        %vy = vector.load %y[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
        %va = vector.broadcast %a : f32 to vector<[1]xf32>
        %r = math.fma %va, %vx, %vy : vector<[1]xf32>
        vector.store %r, %y[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
      } else {
        %stop = arith.minui %end, %n : index
        scf.for %k = %i to %stop step %c1 {
          %vx = memref.load %x[%k] : memref<?xf32>
          %vy = memref.load %y[%k] : memref<?xf32>
          %r = math.fma %a, %vx, %vy : f32
          memref.store %r, %y[%k] : memref<?xf32>
        }
      }
      gpu.return
    }
  }

  func.func @axpy_host(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
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
        %vx = memref.load %x[%k] : memref<?xf32>
        %vy = memref.load %y[%k] : memref<?xf32>
        %r = math.fma %a, %vx, %vy : f32
        memref.store %r, %y[%k] : memref<?xf32>
      }
    }
    scf.for %k = %main to %n step %c1 {
      %vx = memref.load %x[%k] : memref<?xf32>
      %vy = memref.load %y[%k] : memref<?xf32>
      %r = math.fma %a, %vx, %vy : f32
      memref.store %r, %y[%k] : memref<?xf32>
    }
    return
  }
}
