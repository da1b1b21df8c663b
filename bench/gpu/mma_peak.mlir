// The tensor-core ceiling of mma.sync on this GPU, without memory: each
// block runs `iters` rounds of 8 independent mma.sync.m16n8k16 (f16 inputs,
// f32 accumulators) on register operands, split over its warps (iters /
// warps rounds each, so every variant does the same work and the tuner's
// times compare throughputs), then writes one sum per thread so that
// nothing is dead. 528 blocks (4 per H100 SM) of 1 to 16 warps: 1 to
// 16 warps per SM sub-partition (scheduler).
// 2 * 16 * 8 * 16 = 4096 flops per mma.sync; tuna-kernels-bench reports
// 528 * iters * 8 * 4096 flops over the device time as the ceiling
// that matmul_f16 (kernels-mlir/matmul.mlir) is measured against.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma_peak(%out: memref<?xf32>, %iters: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"warps", [1, 2, 4, 8, 16]>],
        defaults = {warps = 8},
        key = [#tuna.key<arg = 1>],
        grid = affine_map<(it)[warps] -> (528)>,
        block = affine_map<(it)[warps] -> (warps * 32)>
      >} {
      %warps = tuna.param "warps" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %t = arith.index_cast %tid : index to i32
      %tf = arith.sitofp %t : i32 to f16
      %a = vector.broadcast %tf : f16 to vector<4x2xf16>
      %b = vector.broadcast %tf : f16 to vector<2x2xf16>
      %z = arith.constant dense<0.0> : vector<2x2xf32>
      %rounds = arith.divui %iters, %warps : index
      %r:8 = scf.for %i = %c0 to %rounds step %c1
          iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z)
          -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>,
              vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
        %y0 = nvgpu.mma.sync (%a, %b, %x0) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y1 = nvgpu.mma.sync (%a, %b, %x1) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y2 = nvgpu.mma.sync (%a, %b, %x2) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y3 = nvgpu.mma.sync (%a, %b, %x3) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y4 = nvgpu.mma.sync (%a, %b, %x4) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y5 = nvgpu.mma.sync (%a, %b, %x5) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y6 = nvgpu.mma.sync (%a, %b, %x6) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        %y7 = nvgpu.mma.sync (%a, %b, %x7) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        scf.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7 : vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>
      }
      %s01 = arith.addf %r#0, %r#1 : vector<2x2xf32>
      %s23 = arith.addf %r#2, %r#3 : vector<2x2xf32>
      %s45 = arith.addf %r#4, %r#5 : vector<2x2xf32>
      %s67 = arith.addf %r#6, %r#7 : vector<2x2xf32>
      %s03 = arith.addf %s01, %s23 : vector<2x2xf32>
      %s47 = arith.addf %s45, %s67 : vector<2x2xf32>
      %s = arith.addf %s03, %s47 : vector<2x2xf32>
      %s0 = vector.extract %s[0, 0] : f32 from vector<2x2xf32>
      %nt = arith.muli %warps, %c32 : index
      %base = arith.muli %bid, %nt : index
      %gi = arith.addi %base, %tid : index
      memref.store %s0, %out[%gi] : memref<?xf32>
      gpu.return
    }
  }
}
