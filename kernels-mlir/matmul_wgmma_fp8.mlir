// C = scale_a scale_b A B^T for fp8 e4m3 matrices on Hopper's warpgroup
// tensor cores (wgmma, sm_90a): A is M x K and B is N x K, both row-major
// (K-major) bytes in the OCP e4m3 ("e4m3fn") encoding; C is M x N bf16,
// row-major (overwritten); fp32 accumulation; scale_a and scale_b are the
// per-tensor scales (f32 scalars). B is given as N x K because wgmma reads
// 8-bit operands only K-major (PTX ISA, "Matrix Descriptor Format": the
// transpose immediates exist only for .f16/.bf16), which is also the layout
// torch._scaled_mm wants for its second operand (a column-major K x N, i.e.
// a row-major N x K). The byte buffers are `memref<?xi8>`: the kernel only
// copies them to shared memory, and the wgmma reads them as e4m3.
//
// Reference: C[i, j] = scale_a scale_b sum_k A[i, k] B[j, k], in double
// from the same e4m3 values (bench/gpu/compare.py, against
// torch._scaled_mm).
//
// matmul_e4m3_wgmma follows matmul_f16_wgmma (matmul_wgmma.mlir, whose
// header describes the pipeline: the cp.async ring of `stages` buffers,
// `stages - 2 + deep` tiles in flight, the peeled tile 0 with scale-d 0, the
// grouped block order, mask = 0/1) and its split-K; what differs for 8-bit
// inputs:
//  - One wgmma is m64n256k32: 32 bytes of K, as for fp16's k16. A bk-deep
//    tile (bk = 128 or 256 bytes) is bk / 128 column blocks of 128-byte
//    rows, four wgmma each.
//  - A and B land the same way: K-major, 128-byte swizzled (row r of a
//    column block at 128 r bytes, its 16-byte chunk j at chunk
//    j ^ (r mod 8)); A's tile is bm rows, B's 256. Both descriptors are
//    K-major: leading byte offset 16 (unused), stride byte offset 1024 (8
//    rows), swizzle 128 B; the k32 slices advance 32 bytes along the rows,
//    the next column block is 128 bm (A) or 32 KiB (B) bytes on.
//  - The epilogue multiplies by scale_a scale_b before the bf16 rounding.
// split > 1 (split-K, for skinny M and K-heavy shapes) is matmul_f16_wgmma's
// scheme, unchanged (see its header): `split` blocks (grid z) share a tile
// of C, block z taking its contiguous share of the k tiles (split <= 8)
// or k tiles z, z + split, z + 2 split, ... (split >= 16). With split
// <= 8 they form one thread block cluster (the `cluster` map, 1 x 1 x
// split); with split >= 16 they add their fp32 tiles in the module's
// workspace and the last to arrive scales, rounds and stores them (M, N
// <= 1024). In a cluster, after a cluster barrier block z sums its
// bm / split rows of every block's fp32 tile through distributed shared
// memory (mapa, ld.shared::cluster), in block order. The scale multiplies
// that sum, once, before the rounding. Constraints: K > (split - 1) bk,
// split <= 8 dividing 16 or 16 <= split <= 64.
// Shapes: mask = 0 variants need M, N and K multiples of bm, 256 and bk;
// mask = 1 variants take any M, any N multiple of 8 and any K multiple of 16
// (a 16-byte copy never straddles the end of a row): rows past M or N and
// chunks past K read nothing and zero-fill, stores past M or N are skipped.
// mask = 2 variants (the 64-column twin's space) need N and K multiples of
// 256 and bk and take any M: A's copies and the stores are masked as with
// mask = 1, B's copies are whole. The default is a mask = 1 variant
// (split = 1). Needs sm_90a and
// `--max-shared-memory=232448`. 9 of the 19 configurations below have
// split > 1: bm = 64 (M <= 64) with mask = 1 and split 2, 4, 8, 16 and with
// mask = 0 and split 4, 8, 16; bm = 128, split = 8 and 16 for
// 256 x 256 x 65536.

#tiles = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, split] : ((m mod bm) * (1 - mask) * (2 - mask) == 0, (n mod 256) * (mask - 1) == 0, (k mod bk) * (mask - 1) == 0, n mod 8 == 0, k mod 16 == 0, m - 1 >= 0, n - 1 >= 0, k - 1 >= 0, stages + deep - 3 >= 0)>
// split > 1: as matmul_f16_wgmma's (its header and #split).
#split = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, split] : (k - (split - 1) * bk - 1 >= 0, 64 - split >= 0, (16 mod split) * (1 - (split floordiv 16 + 3) floordiv 4) == 0, ((split floordiv 16 + 3) floordiv 4) * (1024 - m) >= 0, ((split floordiv 16 + 3) floordiv 4) * (1024 - n) >= 0)>
// The epilogue's fp32 tile (bm rows of 264 floats) reuses the stages' bytes.
#epilogue = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, split] : (stages * (bm + 256) * bk - bm * 1056 >= 0)>
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // split >= 16: the blocks' sums of C (M x N fp32, M and N up to 1024)
    // and each tile's arrivals (below); both zero between launches.
    llvm.mlir.global internal @split_sums(dense<0.0> : tensor<1048576xf32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1048576 x f32>
    llvm.mlir.global internal @split_arrivals(dense<0> : tensor<4096xi32>) {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.array<4096 x i32>
    // sm_90a only (`targets`): wgmma exists nowhere else.
    gpu.func @matmul_e4m3_wgmma(%a: memref<?xi8>, %b: memref<?xi8>, %c: memref<?xbf16>,
                                %m: index, %n: index, %k: index,
                                %scale_a: f32, %scale_b: f32) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"bm">, #tuna.param<"bk">, #tuna.param<"stages">, #tuna.param<"gm">,
                  #tuna.param<"deep">, #tuna.param<"mask">, #tuna.param<"split">],
        configs = [{bm = 128, bk = 128, stages = 4, gm = 8, deep = 0, mask = 0, split = 1},
                   {bm = 128, bk = 128, stages = 4, gm = 1, deep = 0, mask = 0, split = 1},
                   {bm = 128, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 1},
                   {bm = 128, bk = 128, stages = 3, gm = 8, deep = 1, mask = 0, split = 1},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 1},
                   {bm = 64, bk = 256, stages = 2, gm = 8, deep = 1, mask = 0, split = 1},
                   {bm = 128, bk = 256, stages = 2, gm = 8, deep = 1, mask = 0, split = 1},
                   {bm = 128, bk = 128, stages = 4, gm = 8, deep = 0, mask = 1, split = 1},
                   {bm = 128, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 1},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 1},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 2},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 4},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 8},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 4},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 8},
                   {bm = 128, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 8},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 1, split = 16},
                   {bm = 64, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 16},
                   {bm = 128, bk = 128, stages = 4, gm = 8, deep = 1, mask = 0, split = 16}],
        defaults = {bm = 128, bk = 128, stages = 4, gm = 8, deep = 0, mask = 1, split = 1},
        constraints = [#tiles, #epilogue, #split],
        key = [#tuna.key<arg = 3>, #tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, split] -> (n ceildiv 256, m ceildiv bm, split)>,
        block = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, split] -> (bm * 2)>,
        smem = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, split] -> (stages * (bm + 256) * bk + 1024)>,
        cluster = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, split] -> (1, 1, split - ((split floordiv 16 + 3) floordiv 4) * (split - 1))>,
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %bm = tuna.param "bm" : index
      %bk = tuna.param "bk" : index
      %stages = tuna.param "stages" : index
      %gm = tuna.param "gm" : index
      %deep = tuna.param "deep" : index
      %mask = tuna.param "mask" : index
      %split = tuna.param "split" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c264 = arith.constant 264 : index
      %c1024 = arith.constant 1024 : index
      %c8192 = arith.constant 8192 : index
      %bn = arith.constant 256 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %nthreads = arith.muli %bm, %c2 : index
      %wg = arith.divui %tid, %c128 : index
      // Grouped block order: consecutive blocks walk gm block rows of a
      // block column, then the next column of the group.
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %pid0 = arith.muli %by, %gx : index
      %pid = arith.addi %pid0, %bx : index
      %gwidth = arith.muli %gm, %gx : index
      %group = arith.divui %pid, %gwidth : index
      %gfirst = arith.muli %group, %gm : index
      %grest = arith.subi %gy, %gfirst : index
      %gsize = arith.minui %grest, %gm : index
      %ging = arith.remui %pid, %gwidth : index
      %pg0 = arith.remui %ging, %gsize : index
      %pm = arith.addi %gfirst, %pg0 : index
      %pn = arith.divui %ging, %gsize : index
      %row0 = arith.muli %pm, %bm : index
      %col0 = arith.muli %pn, %bn : index

      // Shared memory: A stages (bm x bk bytes each), then B stages
      // (256 x bk bytes each), from the first 1024-byte aligned address.
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sraw = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %mis = arith.remui %sraw, %c1024 : index
      %shift0 = arith.subi %c1024, %mis : index
      %shift = arith.remui %shift0, %c1024 : index
      %saddr = arith.addi %sraw, %shift : index
      %sa_size = arith.muli %bm, %bk : index
      %sb_size = arith.muli %bn, %bk : index
      %na = arith.muli %stages, %sa_size : index
      %nb = arith.muli %stages, %sb_size : index
      %sa = memref.view %smem[%shift][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %sb_off = arith.addi %shift, %na : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, #gpu.address_space<workgroup>>
      %saddr_b = arith.addi %saddr, %na : index

      // A thread copies the same 16-byte chunk tj of rows tr, tr + rpp,
      // tr + 2 rpp, ... of A's tile and of B's (cpr chunks a row, rpp rows a
      // pass of the copy loop; rpp = 2 bm / cpr is a multiple of 8, so the
      // swizzle by row mod 8 is the thread's own). Column block tj / 8 of a
      // tile starts 128 rows bytes on.
      %cpr = arith.divui %bk, %c16 : index
      %rpp = arith.divui %nthreads, %cpr : index
      %tr = arith.divui %tid, %cpr : index
      %tj = arith.remui %tid, %cpr : index
      %a_iters = arith.divui %bm, %rpp : index
      %b_iters = arith.divui %bn, %rpp : index
      %tcol = arith.muli %tj, %c16 : index
      %tcb = arith.divui %tj, %c8 : index
      %tjj = arith.remui %tj, %c8 : index
      %tr7 = arith.andi %tr, %c7 : index
      %tsj = arith.xori %tjj, %tr7 : index
      %tscol = arith.muli %tsj, %c16 : index
      %acb = arith.muli %bm, %c128 : index
      %bcb = arith.muli %bn, %c128 : index
      %a_cbo = arith.muli %tcb, %acb : index
      %b_cbo = arith.muli %tcb, %bcb : index
      %a_tso = arith.addi %a_cbo, %tscol : index
      %b_tso = arith.addi %b_cbo, %tscol : index
      // split > 1: block z takes k tiles z, z + split, z + 2 split, ...
      // (split >= 16) or its contiguous share (split <= 8) of the T tiles
      // of K, as in matmul_f16_wgmma.
      %ktiles_all = arith.ceildivui %k, %bk : index
      %bz = gpu.block_id z
      %splitting = arith.cmpi ne, %split, %c1 : index
      // The blocks of a tile meet in a cluster (split <= 8) or add their
      // tiles in global memory (split >= 16), in the epilogue.
      %summing = arith.cmpi uge, %split, %c16 : index
      %clustering = arith.cmpi ult, %split, %c16 : index
      %clustered = arith.andi %splitting, %clustering : i1
      %kleft_strided = arith.subi %ktiles_all, %bz : index
      %ktiles_strided = arith.ceildivui %kleft_strided, %split : index
      %share_start = arith.muli %bz, %ktiles_all : index
      %share_first = arith.divui %share_start, %split : index
      %share_end0 = arith.addi %share_start, %ktiles_all : index
      %share_end = arith.divui %share_end0, %split : index
      %share_tiles = arith.subi %share_end, %share_first : index
      %kfirst_split = arith.select %summing, %bz, %share_first : index
      %ktiles_split = arith.select %summing, %ktiles_strided, %share_tiles : index
      %kfirst = arith.select %splitting, %kfirst_split, %c0 : index
      %ktiles = arith.select %splitting, %ktiles_split, %ktiles_all : index
      %kstep = arith.select %summing, %split, %c1 : index
      %pre0 = arith.subi %stages, %c2 : index
      %pre = arith.addi %pre0, %deep : index
      %deep1 = arith.cmpi eq, %deep, %c1 : index
      %deep0 = arith.cmpi eq, %deep, %c0 : index
      %whole = arith.cmpi eq, %mask, %c0 : index
      %b_whole = arith.cmpi ne, %mask, %c1 : index

      // Prologue: tiles 0 .. stages - 3 + deep, one cp.async group each.
      scf.for %s = %c0 to %pre step %c1 {
        %live = arith.cmpi ult, %s, %ktiles : index
        scf.if %live {
          %ks = arith.muli %s, %kstep : index
          %kg = arith.addi %kfirst, %ks : index
          %ka = arith.muli %kg, %bk : index
          %ra_base = arith.muli %s, %sa_size : index
          %rb_base = arith.muli %s, %sb_size : index
          scf.for %i = %c0 to %a_iters step %c1 {
            %ci = arith.muli %i, %rpp : index
            %r = arith.addi %ci, %tr : index
            %gr = arith.addi %row0, %r : index
            %sr = arith.muli %r, %c128 : index
            %s1 = arith.addi %ra_base, %a_tso : index
            %si = arith.addi %s1, %sr : index
            // Rows past M read row 0 (nothing: src-size 0), as chunks past K.
            %row_in = arith.cmpi ult, %gr, %m : index
            %gk = arith.addi %ka, %tcol : index
            %k_in = arith.cmpi ult, %gk, %k : index
            %in = arith.andi %row_in, %k_in : i1
            %ok = arith.ori %whole, %in : i1
            %grc = arith.select %row_in, %gr, %c0 : index
            %gro = arith.muli %grc, %k : index
            %gi = arith.addi %gro, %gk : index
            %nsrc = arith.select %ok, %c16, %c0 : index
            scf.if %whole {
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 16 {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            } else {
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 16, %nsrc {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            }
          } {tuna.unroll}
          scf.for %i = %c0 to %b_iters step %c1 {
            %ci = arith.muli %i, %rpp : index
            %r = arith.addi %ci, %tr : index
            %gr = arith.addi %col0, %r : index
            %sr = arith.muli %r, %c128 : index
            %s1 = arith.addi %rb_base, %b_tso : index
            %si = arith.addi %s1, %sr : index
            %row_in = arith.cmpi ult, %gr, %n : index
            %gk = arith.addi %ka, %tcol : index
            %k_in = arith.cmpi ult, %gk, %k : index
            %in = arith.andi %row_in, %k_in : i1
            %ok = arith.ori %whole, %in : i1
            %grc = arith.select %row_in, %gr, %c0 : index
            %gro = arith.muli %grc, %k : index
            %gi = arith.addi %gro, %gk : index
            %nsrc = arith.select %ok, %c16, %c0 : index
            scf.if %b_whole {
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 16 {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            } else {
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 16, %nsrc {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            }
          } {tuna.unroll}
        }
        nvvm.cp.async.commit.group
      } {tuna.unroll}

      // Descriptors (swizzle 128 B, leading byte offset 16, stride byte
      // offset 1024) for A and B alike; this warpgroup's rows of A are
      // 8 KiB into each column block.
      %hi = arith.constant 4611686293305360384 : i64
      %acb_enc0 = arith.muli %bm, %c8 : index
      %acb_enc = arith.index_cast %acb_enc0 : index to i64
      %big = arith.cmpi eq, %bk, %c256 : index
      %mask14 = arith.constant 16383 : i64
      %wg_off = arith.muli %wg, %c8192 : index
      %i2 = arith.constant 2 : i64
      %i4 = arith.constant 4 : i64
      %i6 = arith.constant 6 : i64
      %i2048 = arith.constant 2048 : i64
      %sh4 = arith.constant 4 : i64
      %acc0 = llvm.mlir.poison : !acc
      // Tile 0, peeled: its first wgmma ignores the accumulator registers
      // (scale-d 0), as in matmul_f16_wgmma. It has landed once at most
      // stages - 3 + deep groups are pending.
      %pending_0 = arith.subi %pre, %c1 : index
      scf.index_switch %pending_0
      case 1 {
        nvvm.cp.async.wait.group 1
        scf.yield
      }
      case 2 {
        nvvm.cp.async.wait.group 2
        scf.yield
      }
      case 3 {
        nvvm.cp.async.wait.group 3
        scf.yield
      }
      default {
        nvvm.cp.async.wait.group 0
        scf.yield
      }
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      %sa2_0 = arith.addi %saddr, %wg_off : index
      %sa_i_0 = arith.index_cast %sa2_0 : index to i64
      %sb_i_0 = arith.index_cast %saddr_b : index to i64
      %sa_4_0 = arith.shrui %sa_i_0, %sh4 : i64
      %sb_4_0 = arith.shrui %sb_i_0, %sh4 : i64
      %sa_m_0 = arith.andi %sa_4_0, %mask14 : i64
      %sb_m_0 = arith.andi %sb_4_0, %mask14 : i64
      %da0_0 = arith.ori %sa_m_0, %hi : i64
      %db0_0 = arith.ori %sb_m_0, %hi : i64
      %da1_0 = arith.addi %da0_0, %i2 : i64
      %da2_0 = arith.addi %da0_0, %i4 : i64
      %da3_0 = arith.addi %da0_0, %i6 : i64
      %db1_0 = arith.addi %db0_0, %i2 : i64
      %db2_0 = arith.addi %db0_0, %i4 : i64
      %db3_0 = arith.addi %db0_0, %i6 : i64
      nvvm.wgmma.fence.aligned
      %r0_0 = nvvm.wgmma.mma_async %da0_0, %db0_0, %acc0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<zero>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      %r1_0 = nvvm.wgmma.mma_async %da1_0, %db1_0, %r0_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      %r2_0 = nvvm.wgmma.mma_async %da2_0, %db2_0, %r1_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      %r3_0 = nvvm.wgmma.mma_async %da3_0, %db3_0, %r2_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
      // bk = 256: four more k32 slices, from the second column blocks.
      %r7s_0 = scf.if %big -> (!acc) {
        %da4_0 = arith.addi %da0_0, %acb_enc : i64
        %da5_0 = arith.addi %da4_0, %i2 : i64
        %da6_0 = arith.addi %da4_0, %i4 : i64
        %da7_0 = arith.addi %da4_0, %i6 : i64
        %db4_0 = arith.addi %db0_0, %i2048 : i64
        %db5_0 = arith.addi %db4_0, %i2 : i64
        %db6_0 = arith.addi %db4_0, %i4 : i64
        %db7_0 = arith.addi %db4_0, %i6 : i64
        %r4_0 = nvvm.wgmma.mma_async %da4_0, %db4_0, %r3_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r5_0 = nvvm.wgmma.mma_async %da5_0, %db5_0, %r4_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r6_0 = nvvm.wgmma.mma_async %da6_0, %db6_0, %r5_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r7_0 = nvvm.wgmma.mma_async %da7_0, %db7_0, %r6_0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        scf.yield %r7_0 : !acc
      } else {
        scf.yield %r3_0 : !acc
      }
      nvvm.wgmma.commit.group.sync.aligned

      // Iteration kt refills a stage (as in matmul_f16_wgmma: deep = 0 the
      // stage of tile kt - 3 before waiting for tile kt - 2's wgmma,
      // deep = 1 the stage of tile kt - 2 after that wait and a second
      // barrier), then works on tile kt.
      %accf = scf.for %kt = %c1 to %ktiles step %c1 iter_args(%acc = %r7s_0) -> (!acc) {
        scf.if %deep1 {
          nvvm.wgmma.wait.group.sync.aligned 1
          gpu.barrier
        }
        // Refill with tile kt - 1 + stages - 2 + deep.
        %kprev = arith.subi %kt, %c1 : index
        %nxt = arith.addi %kprev, %pre : index
        %live = arith.cmpi ult, %nxt, %ktiles : index
        scf.if %live {
          %rs = arith.remui %nxt, %stages : index
          %ksn = arith.muli %nxt, %kstep : index
          %kg = arith.addi %kfirst, %ksn : index
          %ka = arith.muli %kg, %bk : index
          %ra_base = arith.muli %rs, %sa_size : index
          %rb_base = arith.muli %rs, %sb_size : index
          scf.for %i = %c0 to %a_iters step %c1 {
            %ci = arith.muli %i, %rpp : index
            %r = arith.addi %ci, %tr : index
            %gr = arith.addi %row0, %r : index
            %sr = arith.muli %r, %c128 : index
            %s1 = arith.addi %ra_base, %a_tso : index
            %si = arith.addi %s1, %sr : index
            %row_in = arith.cmpi ult, %gr, %m : index
            %gk = arith.addi %ka, %tcol : index
            %k_in = arith.cmpi ult, %gk, %k : index
            %in = arith.andi %row_in, %k_in : i1
            %ok = arith.ori %whole, %in : i1
            %grc = arith.select %row_in, %gr, %c0 : index
            %gro = arith.muli %grc, %k : index
            %gi = arith.addi %gro, %gk : index
            %nsrc = arith.select %ok, %c16, %c0 : index
            scf.if %whole {
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 16 {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            } else {
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 16, %nsrc {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            }
          } {tuna.unroll}
          scf.for %i = %c0 to %b_iters step %c1 {
            %ci = arith.muli %i, %rpp : index
            %r = arith.addi %ci, %tr : index
            %gr = arith.addi %col0, %r : index
            %sr = arith.muli %r, %c128 : index
            %s1 = arith.addi %rb_base, %b_tso : index
            %si = arith.addi %s1, %sr : index
            %row_in = arith.cmpi ult, %gr, %n : index
            %gk = arith.addi %ka, %tcol : index
            %k_in = arith.cmpi ult, %gk, %k : index
            %in = arith.andi %row_in, %k_in : i1
            %ok = arith.ori %whole, %in : i1
            %grc = arith.select %row_in, %gr, %c0 : index
            %gro = arith.muli %grc, %k : index
            %gi = arith.addi %gro, %gk : index
            %nsrc = arith.select %ok, %c16, %c0 : index
            scf.if %b_whole {
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 16 {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            } else {
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 16, %nsrc {bypassL1} : memref<?xi8> to memref<?xi8, #gpu.address_space<workgroup>>
            }
          } {tuna.unroll}
        }
        nvvm.cp.async.commit.group
        scf.if %deep0 {
          nvvm.wgmma.wait.group.sync.aligned 1
        }
        // Tile kt has landed once at most stages - 3 + deep groups are
        // pending.
        %pending = arith.subi %pre, %c1 : index
        scf.index_switch %pending
        case 1 {
          nvvm.cp.async.wait.group 1
          scf.yield
        }
        case 2 {
          nvvm.cp.async.wait.group 2
          scf.yield
        }
        case 3 {
          nvvm.cp.async.wait.group 3
          scf.yield
        }
        default {
          nvvm.cp.async.wait.group 0
          scf.yield
        }
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier

        // Tensor-core work on stage kt mod stages.
        %s = arith.remui %kt, %stages : index
        %sao = arith.muli %s, %sa_size : index
        %sa1 = arith.addi %saddr, %sao : index
        %sa2 = arith.addi %sa1, %wg_off : index
        %sbo = arith.muli %s, %sb_size : index
        %sb1 = arith.addi %saddr_b, %sbo : index
        %sa_i = arith.index_cast %sa2 : index to i64
        %sb_i = arith.index_cast %sb1 : index to i64
        %sa_4 = arith.shrui %sa_i, %sh4 : i64
        %sb_4 = arith.shrui %sb_i, %sh4 : i64
        %sa_m = arith.andi %sa_4, %mask14 : i64
        %sb_m = arith.andi %sb_4, %mask14 : i64
        %da0 = arith.ori %sa_m, %hi : i64
        %db0 = arith.ori %sb_m, %hi : i64
        %da1 = arith.addi %da0, %i2 : i64
        %da2 = arith.addi %da0, %i4 : i64
        %da3 = arith.addi %da0, %i6 : i64
        %db1 = arith.addi %db0, %i2 : i64
        %db2 = arith.addi %db0, %i4 : i64
        %db3 = arith.addi %db0, %i6 : i64
        nvvm.wgmma.fence.aligned
        %r0 = nvvm.wgmma.mma_async %da0, %db0, %acc, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r1 = nvvm.wgmma.mma_async %da1, %db1, %r0, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r2 = nvvm.wgmma.mma_async %da2, %db2, %r1, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r3 = nvvm.wgmma.mma_async %da3, %db3, %r2, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        %r7s = scf.if %big -> (!acc) {
          %da4 = arith.addi %da0, %acb_enc : i64
          %da5 = arith.addi %da4, %i2 : i64
          %da6 = arith.addi %da4, %i4 : i64
          %da7 = arith.addi %da4, %i6 : i64
          %db4 = arith.addi %db0, %i2048 : i64
          %db5 = arith.addi %db4, %i2 : i64
          %db6 = arith.addi %db4, %i4 : i64
          %db7 = arith.addi %db4, %i6 : i64
          %r4 = nvvm.wgmma.mma_async %da4, %db4, %r3, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          %r5 = nvvm.wgmma.mma_async %da5, %db5, %r4, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          %r6 = nvvm.wgmma.mma_async %da6, %db6, %r5, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          %r7 = nvvm.wgmma.mma_async %da7, %db7, %r6, #nvvm.shape<m = 64, n = 256, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
          scf.yield %r7 : !acc
        } else {
          scf.yield %r3 : !acc
        }
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield %r7s : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.cp.async.wait.group 0
      gpu.barrier

      // Epilogue: accumulators to shared memory (fp32, 264-float rows; as
      // matmul_f16_wgmma's), then 8 consecutive columns scaled by
      // scale_a scale_b, rounded to bf16 and stored with one 16-byte store.
      %cs = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x264xf32, #gpu.address_space<workgroup>>
      %accp0 = llvm.mlir.poison : !llvm.struct<(!acc)>
      %accp = llvm.insertvalue %accf, %accp0[0] : !llvm.struct<(!acc)>
      %accw = builtin.unrealized_conversion_cast %accp : !llvm.struct<(!acc)> to !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
      %cs64 = memref.reinterpret_cast %cs to offset: [0], sizes: [64, 256], strides: [264, 1] : memref<128x264xf32, #gpu.address_space<workgroup>> to memref<64x256xf32, strided<[264, 1]>, #gpu.address_space<workgroup>>
      nvgpu.warpgroup.mma.store %accw, %cs64 : !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>> to memref<64x256xf32, strided<[264, 1]>, #gpu.address_space<workgroup>>
      gpu.barrier
      // split > 1: the cluster's blocks meet once every tile is in shared
      // memory, then block z sums chunks [z C / split, (z + 1) C / split) of
      // the split tiles through distributed shared memory, in block order,
      // a partial last pass where split does not divide the passes
      // (matmul_f16_wgmma's reduction); the scale multiplies the sum.
      scf.if %clustered {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }
      %scale = arith.mulf %scale_a, %scale_b : f32
      %scale8 = vector.broadcast %scale : f32 to vector<8xf32>
      %out_chunks = arith.muli %bm, %c32 : index
      %out_blocks = arith.select %clustered, %split, %c1 : index
      %out_share = arith.divui %out_chunks, %out_blocks : index
      %out_round = arith.addi %out_share, %nthreads : index
      %out_round1 = arith.subi %out_round, %c1 : index
      %out_passes = arith.divui %out_round1, %nthreads : index
      %out_iters = arith.select %summing, %c0, %out_passes : index
      %out_part = arith.remui %out_share, %nthreads : index
      %out_whole = arith.cmpi eq, %out_part, %c0 : index
      %out_first0 = arith.muli %bz, %out_share : index
      %out_first = arith.select %clustered, %out_first0, %c0 : index
      %zero8 = arith.constant dense<0.0> : vector<8xf32>
      scf.for %i = %c0 to %out_iters step %c1 {
        %ci = arith.muli %i, %nthreads : index
        %ch0 = arith.addi %ci, %tid : index
        %ch_in = arith.cmpi ult, %ch0, %out_share : index
        %ch_mine = arith.ori %out_whole, %ch_in : i1
        // A thread past the block's share (a partial pass) reads the
        // share's first chunk again and stores nothing.
        %ch_own = arith.select %ch_mine, %ch0, %c0 : index
        %ch = arith.addi %out_first, %ch_own : index
        %r = arith.divui %ch, %c32 : index
        %cc = arith.remui %ch, %c32 : index
        %col = arith.muli %cc, %c8 : index
        %col4 = arith.addi %col, %c4 : index
        %v = scf.if %clustered -> (vector<8xf32>) {
          %ro = arith.muli %r, %c264 : index
          %eo = arith.addi %ro, %col : index
          %bo = arith.muli %eo, %c4 : index
          %ea = arith.addi %saddr, %bo : index
          %ea64 = arith.index_cast %ea : index to i64
          %lp = llvm.inttoptr %ea64 : i64 to !llvm.ptr<3>
          %sum = scf.for %q = %c0 to %split step %c1 iter_args(%part = %zero8) -> (vector<8xf32>) {
            %q32 = arith.index_cast %q : index to i32
            %rp = nvvm.mapa %lp, %q32 : !llvm.ptr<3> -> !llvm.ptr<7>
            %rp4 = llvm.getelementptr %rp[16] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i8
            %w0 = llvm.load %rp {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
            %w1 = llvm.load %rp4 {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
            %w = vector.shuffle %w0, %w1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
            %next = arith.addf %part, %w : vector<8xf32>
            scf.yield %next : vector<8xf32>
          } {tuna.unroll}
          scf.yield %sum : vector<8xf32>
        } else {
          %v0 = vector.load %cs[%r, %col] : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          %v1 = vector.load %cs[%r, %col4] : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          %vl = vector.shuffle %v0, %v1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
          scf.yield %vl : vector<8xf32>
        }
        %vs = arith.mulf %v, %scale8 : vector<8xf32>
        %h = arith.truncf %vs : vector<8xf32> to vector<8xbf16>
        %gr = arith.addi %row0, %r : index
        %gro = arith.muli %gr, %n : index
        %gc = arith.addi %col0, %col : index
        %gi = arith.addi %gro, %gc : index
        %row_in = arith.cmpi ult, %gr, %m : index
        %col_in = arith.cmpi ult, %gc, %n : index
        %in = arith.andi %row_in, %col_in : i1
        %ok0 = arith.ori %whole, %in : i1
        %ok = arith.andi %ok0, %ch_mine : i1
        scf.if %ok {
          vector.store %h, %c[%gi] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        }
      } {tuna.unroll}
      // No block of the cluster leaves (and frees its shared memory) while
      // another may still read its tile.
      scf.if %clustered {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }
      // split >= 16: matmul_f16_wgmma's workspace sum (its header has the
      // protocol); the last block to arrive scales the tile's sums, once,
      // before it rounds them.
      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %summing {
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier
        %rows_left = arith.subi %m, %row0 : index
        %rows_here = arith.minui %rows_left, %bm : index
        %cols_left = arith.subi %n, %col0 : index
        %cols_here = arith.minui %cols_left, %bn : index
        %sums = llvm.mlir.addressof @split_sums : !llvm.ptr<1>
        %row_mine = arith.cmpi ult, %tid, %rows_here : index
        scf.if %row_mine {
          %grow = arith.addi %row0, %tid : index
          %grow_n = arith.muli %grow, %n : index
          %row_first = arith.addi %grow_n, %col0 : index
          %row_first64 = arith.index_cast %row_first : index to i64
          %gp = llvm.getelementptr %sums[%row_first64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
          %srow = arith.muli %tid, %c264 : index
          %srow_bytes = arith.muli %srow, %c4 : index
          %srow_addr = arith.addi %saddr, %srow_bytes : index
          %srow64 = arith.index_cast %srow_addr : index to i64
          %sp = llvm.inttoptr %srow64 : i64 to !llvm.ptr<3>
          %row_bytes = arith.muli %cols_here, %c4 : index
          %row_bytes32 = arith.index_cast %row_bytes : index to i32
          nvvm.inline_ptx "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;" ro(%gp, %sp, %row_bytes32 : !llvm.ptr<1>, !llvm.ptr<3>, i32)
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        gpu.barrier
        %last_flag = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xi32, #gpu.address_space<workgroup>>
        scf.if %is_t0 {
          %tile_row = arith.muli %pm, %gx : index
          %tile = arith.addi %tile_row, %pn : index
          %tile64 = arith.index_cast %tile : index to i64
          %arrivals = llvm.mlir.addressof @split_arrivals : !llvm.ptr<1>
          %ap = llvm.getelementptr %arrivals[%tile64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
          %one32 = arith.constant 1 : i32
          %before32 = llvm.atomicrmw add %ap, %one32 monotonic : !llvm.ptr<1>, i32
          %before = arith.index_cast %before32 : i32 to index
          %others = arith.subi %split, %c1 : index
          %last = arith.cmpi eq, %before, %others : index
          scf.if %last {
            %zero32 = arith.constant 0 : i32
            llvm.store %zero32, %ap {alignment = 4 : i64} : i32, !llvm.ptr<1>
          }
          %last32 = arith.extui %last : i1 to i32
          memref.store %last32, %last_flag[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %last_seen = memref.load %last_flag[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        %zero_seen = arith.constant 0 : i32
        %finish = arith.cmpi ne, %last_seen, %zero_seen : i32
        scf.if %finish {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          // bm rows of bn / 8 chunks of 8 floats, nthreads chunks a pass.
          %row_chunks = arith.divui %bn, %c8 : index
          %tile_chunks = arith.muli %bm, %row_chunks : index
          %tile_passes = arith.divui %tile_chunks, %nthreads : index
          %zero4 = arith.constant dense<0.0> : vector<4xf32>
          scf.for %fi = %c0 to %tile_passes step %c1 {
            %fci = arith.muli %fi, %nthreads : index
            %fch = arith.addi %fci, %tid : index
            %fr = arith.divui %fch, %row_chunks : index
            %fcc = arith.remui %fch, %row_chunks : index
            %fcol = arith.muli %fcc, %c8 : index
            %fgr = arith.addi %row0, %fr : index
            %fgc = arith.addi %col0, %fcol : index
            %frow_in = arith.cmpi ult, %fgr, %m : index
            %fcol_in = arith.cmpi ult, %fgc, %n : index
            %fin = arith.andi %frow_in, %fcol_in : i1
            scf.if %fin {
              %fgro = arith.muli %fgr, %n : index
              %fgi = arith.addi %fgro, %fgc : index
              %fgi64 = arith.index_cast %fgi : index to i64
              %fp = llvm.getelementptr %sums[%fgi64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
              %fp4 = llvm.getelementptr %fp[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
              %u0 = llvm.load volatile %fp {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
              %u1 = llvm.load volatile %fp4 {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
              llvm.store %zero4, %fp {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
              llvm.store %zero4, %fp4 {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
              %u = vector.shuffle %u0, %u1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
              %us = arith.mulf %u, %scale8 : vector<8xf32>
              %uh = arith.truncf %us : vector<8xf32> to vector<8xbf16>
              vector.store %uh, %c[%fgi] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
            }
          }
        }
      }
      gpu.return
    }
  }
}
