// y = gelu(x + bias) on a row-major rows x cols float matrix, bias per
// column, with the tanh form of GELU:
//   gelu(v) = 0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3)))
// docs/tutorial.md builds, tunes and embeds it step by step.

module attributes {gpu.container_module} {
  // GPU: one thread per element, `block` threads per block. The grid is
  // flat, rows * cols elements: the key values it multiplies are symbols.
  gpu.module @kernels {
    gpu.func @bias_gelu(%x: memref<?xf32>, %bias: memref<?xf32>, %y: memref<?xf32>,
                        %rows: index, %cols: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>],
        defaults = {block = 256},
        key = [#tuna.key<arg = 3, bucket = pow2>, #tuna.key<arg = 4, bucket = pow2>],
        grid = affine_map<()[rows, cols, block] -> ((rows * cols) ceildiv block)>,
        block = affine_map<()[rows, cols, block] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %first = arith.muli %bid, %block : index
      %i = arith.addi %first, %tid : index
      %n = arith.muli %rows, %cols : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %c = arith.remui %i, %cols : index
        %v = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %bias[%c] : memref<?xf32>
        %half = arith.constant 0.5 : f32
        %one = arith.constant 1.0 : f32
        %k0 = arith.constant 0.7978845608 : f32
        %k1 = arith.constant 0.044715 : f32
        %s = arith.addf %v, %b : f32
        %s2 = arith.mulf %s, %s : f32
        %s3 = arith.mulf %s2, %s : f32
        %inner = math.fma %k1, %s3, %s : f32
        %arg = arith.mulf %k0, %inner : f32
        %t = math.tanh %arg : f32
        %onet = arith.addf %one, %t : f32
        %hs = arith.mulf %half, %s : f32
        %r = arith.mulf %hs, %onet : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  // Host: row after row; each row's columns in chunks of `chunk` (a
  // constant trip count that LLVM unrolls), then a scalar tail.
  func.func @bias_gelu_host(%x: memref<?xf32>, %bias: memref<?xf32>, %y: memref<?xf32>,
                            %rows: index, %cols: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4, 16, 64]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 3, bucket = pow2>, #tuna.key<arg = 4, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rem = arith.remui %cols, %chunk : index
    %main = arith.subi %cols, %rem : index
    scf.for %row = %c0 to %rows step %c1 {
      %base = arith.muli %row, %cols : index
      scf.for %c = %c0 to %main step %chunk {
        scf.for %j = %c0 to %chunk step %c1 {
          %col = arith.addi %c, %j : index
          func.call @gelu_store(%x, %bias, %y, %base, %col)
              : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
        }
      }
      scf.for %col = %main to %cols step %c1 {
        func.call @gelu_store(%x, %bias, %y, %base, %col)
            : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
      }
    }
    return
  }

  func.func private @gelu_store(%x: memref<?xf32>, %bias: memref<?xf32>, %y: memref<?xf32>,
                                %base: index, %col: index) {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %i = arith.addi %base, %col : index
    %v = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %bias[%col] : memref<?xf32>
    %s = arith.addf %v, %b : f32
    %s2 = arith.mulf %s, %s : f32
    %s3 = arith.mulf %s2, %s : f32
    %inner = math.fma %k1, %s3, %s : f32
    %arg = arith.mulf %k0, %inner : f32
    %t = math.tanh %arg : f32
    %onet = arith.addf %one, %t : f32
    %hs = arith.mulf %half, %s : f32
    %r = arith.mulf %hs, %onet : f32
    memref.store %r, %y[%i] : memref<?xf32>
    return
  }
}
