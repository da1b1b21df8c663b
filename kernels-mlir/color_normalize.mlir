// The fused color normalization of image pipelines, on a batch of NCHW
// float RGB images (C = 3, values in [0, 1]): brightness, saturation, then
// per-channel normalization, in one pass over the pixels.
//
// Reference (torchvision's adjust_brightness, adjust_saturation, normalize),
// per image n and pixel p, for channels c in (R, G, B):
//   b_c    = clamp(x[n, c, p] * brightness, 0, 1)
//   gray   = 0.299 * b_R + 0.587 * b_G + 0.114 * b_B
//   s_c    = clamp(gray + saturation * (b_c - gray), 0, 1)
//   y[n, c, p] = (s_c - mean_c) * inv_std_c
// computed in double on the CPU.
//
// The grid is (hw / (block * vec), images); each thread takes `vec`
// consecutive pixels of one image and reads and writes the three planes with
// one `vec`-wide access each (16 bytes for vec = 4, when hw is a multiple of
// vec and both buffers are aligned; otherwise one pixel at a time).
// block 64..1024 x vec 1|4: 10 variants; default block = 256, vec = 1.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @color_normalize(%x: memref<?xf32>, %y: memref<?xf32>, %images: index, %hw: index,
                              %brightness: f32, %saturation: f32,
                              %mean_r: f32, %mean_g: f32, %mean_b: f32,
                              %inv_std_r: f32, %inv_std_g: f32, %inv_std_b: f32) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>, #tuna.param<"vec", [1, 4]>],
        defaults = {block = 256, vec = 1},
        key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(images, hw)[block, vec] -> (hw ceildiv (block * vec), images)>,
        block = affine_map<(images, hw)[block, vec] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %vec = tuna.param "vec" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %f0 = arith.constant 0.0 : f32
      %f1 = arith.constant 1.0 : f32
      %wr = arith.constant 0.299 : f32
      %wg = arith.constant 0.587 : f32
      %wb = arith.constant 0.114 : f32
      %bx = gpu.block_id x
      %image = gpu.block_id y
      %tid = gpu.thread_id x
      %first = arith.muli %bx, %block : index
      %thread = arith.addi %first, %tid : index
      %p = arith.muli %thread, %vec : index
      %end = arith.addi %p, %vec : index
      %plane_r = arith.muli %image, %c3 : index
      %r0 = arith.muli %plane_r, %hw : index
      %g0 = arith.addi %r0, %hw : index
      %b0 = arith.addi %g0, %hw : index
      %ir = arith.addi %r0, %p : index
      %ig = arith.addi %g0, %p : index
      %ib = arith.addi %b0, %p : index
      %in_range = arith.cmpi ule, %end, %hw : index
      %px = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %py = memref.extract_aligned_pointer_as_index %y : memref<?xf32> -> index
      %pxy = arith.ori %px, %py : index
      %vec_bytes = arith.muli %vec, %c4 : index
      %pmis = arith.remui %pxy, %vec_bytes : index
      %hmis = arith.remui %hw, %vec : index
      %mis = arith.ori %pmis, %hmis : index
      %aligned = arith.cmpi eq, %mis, %c0 : index
      %is4 = arith.cmpi eq, %vec, %c4 : index
      %ok = arith.andi %in_range, %aligned : i1
      %wide = arith.andi %ok, %is4 : i1
      scf.if %wide {
        %zero = vector.broadcast %f0 : f32 to vector<4xf32>
        %unit = vector.broadcast %f1 : f32 to vector<4xf32>
        %bv = vector.broadcast %brightness : f32 to vector<4xf32>
        %sv = vector.broadcast %saturation : f32 to vector<4xf32>
        %wrv = vector.broadcast %wr : f32 to vector<4xf32>
        %wgv = vector.broadcast %wg : f32 to vector<4xf32>
        %wbv = vector.broadcast %wb : f32 to vector<4xf32>
        %r = vector.load %x[%ir] {alignment = 16} : memref<?xf32>, vector<4xf32>
        %g = vector.load %x[%ig] {alignment = 16} : memref<?xf32>, vector<4xf32>
        %b = vector.load %x[%ib] {alignment = 16} : memref<?xf32>, vector<4xf32>
        %r1a = arith.mulf %r, %bv : vector<4xf32>
        %r1b = arith.maximumf %r1a, %zero : vector<4xf32>
        %r1 = arith.minimumf %r1b, %unit : vector<4xf32>
        %g1a = arith.mulf %g, %bv : vector<4xf32>
        %g1b = arith.maximumf %g1a, %zero : vector<4xf32>
        %g1 = arith.minimumf %g1b, %unit : vector<4xf32>
        %b1a = arith.mulf %b, %bv : vector<4xf32>
        %b1b = arith.maximumf %b1a, %zero : vector<4xf32>
        %b1 = arith.minimumf %b1b, %unit : vector<4xf32>
        %gr = arith.mulf %r1, %wrv : vector<4xf32>
        %gg = math.fma %g1, %wgv, %gr : vector<4xf32>
        %gray = math.fma %b1, %wbv, %gg : vector<4xf32>
        %dr = arith.subf %r1, %gray : vector<4xf32>
        %r2a = math.fma %sv, %dr, %gray : vector<4xf32>
        %r2b = arith.maximumf %r2a, %zero : vector<4xf32>
        %r2 = arith.minimumf %r2b, %unit : vector<4xf32>
        %dg = arith.subf %g1, %gray : vector<4xf32>
        %g2a = math.fma %sv, %dg, %gray : vector<4xf32>
        %g2b = arith.maximumf %g2a, %zero : vector<4xf32>
        %g2 = arith.minimumf %g2b, %unit : vector<4xf32>
        %db = arith.subf %b1, %gray : vector<4xf32>
        %b2a = math.fma %sv, %db, %gray : vector<4xf32>
        %b2b = arith.maximumf %b2a, %zero : vector<4xf32>
        %b2 = arith.minimumf %b2b, %unit : vector<4xf32>
        %mr = vector.broadcast %mean_r : f32 to vector<4xf32>
        %mg = vector.broadcast %mean_g : f32 to vector<4xf32>
        %mb = vector.broadcast %mean_b : f32 to vector<4xf32>
        %sr = vector.broadcast %inv_std_r : f32 to vector<4xf32>
        %sg = vector.broadcast %inv_std_g : f32 to vector<4xf32>
        %sb = vector.broadcast %inv_std_b : f32 to vector<4xf32>
        %r3a = arith.subf %r2, %mr : vector<4xf32>
        %r3 = arith.mulf %r3a, %sr : vector<4xf32>
        %g3a = arith.subf %g2, %mg : vector<4xf32>
        %g3 = arith.mulf %g3a, %sg : vector<4xf32>
        %b3a = arith.subf %b2, %mb : vector<4xf32>
        %b3 = arith.mulf %b3a, %sb : vector<4xf32>
        vector.store %r3, %y[%ir] {alignment = 16} : memref<?xf32>, vector<4xf32>
        vector.store %g3, %y[%ig] {alignment = 16} : memref<?xf32>, vector<4xf32>
        vector.store %b3, %y[%ib] {alignment = 16} : memref<?xf32>, vector<4xf32>
      } else {
        %stop = arith.minui %end, %hw : index
        scf.for %q = %p to %stop step %c1 {
          %jr = arith.addi %r0, %q : index
          %jg = arith.addi %g0, %q : index
          %jb = arith.addi %b0, %q : index
          %r = memref.load %x[%jr] : memref<?xf32>
          %g = memref.load %x[%jg] : memref<?xf32>
          %b = memref.load %x[%jb] : memref<?xf32>
          %r1a = arith.mulf %r, %brightness : f32
          %r1b = arith.maximumf %r1a, %f0 : f32
          %r1 = arith.minimumf %r1b, %f1 : f32
          %g1a = arith.mulf %g, %brightness : f32
          %g1b = arith.maximumf %g1a, %f0 : f32
          %g1 = arith.minimumf %g1b, %f1 : f32
          %b1a = arith.mulf %b, %brightness : f32
          %b1b = arith.maximumf %b1a, %f0 : f32
          %b1 = arith.minimumf %b1b, %f1 : f32
          %gr = arith.mulf %r1, %wr : f32
          %gg = math.fma %g1, %wg, %gr : f32
          %gray = math.fma %b1, %wb, %gg : f32
          %dr = arith.subf %r1, %gray : f32
          %r2a = math.fma %saturation, %dr, %gray : f32
          %r2b = arith.maximumf %r2a, %f0 : f32
          %r2 = arith.minimumf %r2b, %f1 : f32
          %dg = arith.subf %g1, %gray : f32
          %g2a = math.fma %saturation, %dg, %gray : f32
          %g2b = arith.maximumf %g2a, %f0 : f32
          %g2 = arith.minimumf %g2b, %f1 : f32
          %db = arith.subf %b1, %gray : f32
          %b2a = math.fma %saturation, %db, %gray : f32
          %b2b = arith.maximumf %b2a, %f0 : f32
          %b2 = arith.minimumf %b2b, %f1 : f32
          %r3a = arith.subf %r2, %mean_r : f32
          %r3 = arith.mulf %r3a, %inv_std_r : f32
          %g3a = arith.subf %g2, %mean_g : f32
          %g3 = arith.mulf %g3a, %inv_std_g : f32
          %b3a = arith.subf %b2, %mean_b : f32
          %b3 = arith.mulf %b3a, %inv_std_b : f32
          memref.store %r3, %y[%jr] : memref<?xf32>
          memref.store %g3, %y[%jg] : memref<?xf32>
          memref.store %b3, %y[%jb] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
