// C = A B for row-major matrices: A is M x K, B is K x N, C is M x N
// (overwritten), all contiguous (leading dimensions K, N, N).
//
// Reference: C[i, j] = sum_k A[i, k] B[k, j], computed in double on the CPU
// from the same (rounded) inputs.
//
// Both kernels require M, N, K to be multiples of the block tile (bm, bn,
// bk): the space's constraint states it, so the runtime only considers
// variants whose tiles divide the shape (the key is exact M, N, K). Loops
// marked `tuna.unroll` run over register tiles; tuna-unroll unrolls them
// once the parameters are constants, so that the tiles (memref.alloca) live
// in registers.
//
// matmul_f32: fp32 on the CUDA cores. A block of (bm / tm) (bn / tn)
// threads computes a bm x bn tile of C; each thread a tm x tn micro-tile.
// il = 1 interleaves the micro-tile: a thread's rows (and columns) come in
// groups of 4, bm / (tm / 4) apart, so that the 16-byte shared loads of
// neighbouring threads are adjacent. Two ways to feed shared memory (st):
//  - st = 1: one buffer. Per bk-deep step the block loads A's tile (16-byte
//    global loads) into registers and stores it transposed (bk x bm), B's
//    tile (bk x bn) as it is, waits at a barrier, then each thread reads tm
//    values of A and tn of B per k (16-byte shared loads) and does tm tn
//    FMAs, and waits at a second barrier. No load overlaps the FMAs.
//  - st >= 2: a ring of st stages, A's tile as it is (bm x bk) and B's,
//    filled by cp.async (16 bytes a copy, L1 bypass, one commit group per
//    tile, st - 1 tiles in flight, one barrier per tile), as matmul_f16
//    below. Per 4 k a thread reads 4 k-consecutive values of each of its tm
//    rows of A (one 16-byte load a row; the threads of a quarter warp read
//    the same row, a broadcast), then per k tn / 4 16-byte loads of B and
//    tm tn FMAs. Global offsets are per-thread bases plus the tile's offset.
//    Worth 1.13x over the best st = 1 variant at 4096^3 and 1.15x at 2048^3
//    on an H100 (docs/kernels.md). Rings of exactly 48 KiB (64 x 128 x 32
//    with st = 2, 64 x 128 x 16 with st = 4) failed to launch while the
//    runtime did not count the kernel's static shared byte
//    (__dynamic_shmem__0) towards the 48 KiB that need no opt-in (fixed
//    since); they were slower than the listed ones and are not listed.
// 32 configurations (bm, bn 64..256, bk 8..64, tm, tn 4..16, st 1..4);
// default 64 x 64 x 16, 4 x 4, il = 0, st = 1.
//
// matmul_f16: fp16 A and B, fp32 accumulation, fp16 C, on the tensor cores
// (mma.sync m16n8k16). wm x wn warps; warp (i, j) computes a
// (bm / wm) x (bn / wn) tile of C as 16 x 8 mma tiles. Tiles of A (bm x bk)
// and B (bk x bn) stream into a ring of `stages` shared-memory buffers
// through cp.async (16 bytes a copy, one commit group per tile, `stages - 1`
// tiles in flight); rows are padded by 8 halfs so that ldmatrix reads 8
// rows without bank conflicts. Per 16-deep step a warp loads its A
// fragments with ldmatrix.x4 and its B fragments with ldmatrix.x4.trans
// (B is row-major, k x n) into registers, then issues (bm / wm / 16)
// (bn / wn / 8) mma.sync. Knobs besides the tiles:
//  - sp = 1 spreads the copies of the next tile over the 16-deep steps,
//    between the mma.sync (as CUTLASS does); sp = 0 issues them all right
//    after the barrier. Worth 1.19x at 4096^3 on an H100 (docs/benchmarks.md).
//  - pf = 1 loads the fragments of the next step before the mma.sync of
//    this one (two register slots); ptxas schedules both alike.
//  - gm > 1 orders the blocks in groups of gm block rows (Triton's GROUP_M)
//    for L2 reuse.
// Accumulators stay in registers; each lane writes its fragment as pairs of
// halfs. 43 configurations (tiles 64..256 x 64..256 x 32..128, 4 or 8
// warps, 2..4 stages and the knobs above); default 128 x 128 x 32, 2 x 2
// warps, 2 stages, gm = 1, pf = 0, sp = 0 (38 KiB of shared memory, so that
// it survives tuna-compile's default limit of 48 KiB). Compile with
// `--max-shared-memory=232448` (sm_90's opt-in limit) to keep all 43
// variants; without it the 41 that need more than 48 KiB are dropped.

#tiles32 = affine_set<(m, n, k)[bm, bn, bk, tm, tn, il, st] : (m mod bm == 0, n mod bn == 0, k mod bk == 0)>
#tiles16 = affine_set<(m, n, k)[bm, bn, bk, wm, wn, stages, gm, pf, sp] : (m mod bm == 0, n mod bn == 0, k mod bk == 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // ------------------------------------------------------------------
    // fp32 on the CUDA cores. NVIDIA only, sm_80 and newer (`targets`):
    // st >= 2 uses cp.async.
    gpu.func @matmul_f32(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                         %m: index, %n: index, %k: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"bm">, #tuna.param<"bn">, #tuna.param<"bk">,
                  #tuna.param<"tm">, #tuna.param<"tn">, #tuna.param<"il">,
                  #tuna.param<"st">],
        configs = [{bm = 64, bn = 64, bk = 16, tm = 4, tn = 4, il = 0, st = 1},
                   {bm = 64, bn = 64, bk = 32, tm = 4, tn = 4, il = 0, st = 1},
                   {bm = 128, bn = 64, bk = 16, tm = 8, tn = 4, il = 0, st = 1},
                   {bm = 64, bn = 128, bk = 16, tm = 4, tn = 8, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 8, tm = 8, tn = 8, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 16, tm = 8, tn = 8, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 32, tm = 8, tn = 8, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 16, tm = 8, tn = 4, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 16, tm = 4, tn = 8, il = 0, st = 1},
                   {bm = 128, bn = 128, bk = 8, tm = 8, tn = 8, il = 1, st = 1},
                   {bm = 128, bn = 128, bk = 16, tm = 8, tn = 8, il = 1, st = 1},
                   {bm = 128, bn = 128, bk = 32, tm = 8, tn = 8, il = 1, st = 1},
                   {bm = 128, bn = 64, bk = 16, tm = 8, tn = 8, il = 1, st = 1},
                   {bm = 64, bn = 128, bk = 16, tm = 8, tn = 8, il = 1, st = 1},
                   {bm = 128, bn = 64, bk = 16, tm = 8, tn = 4, il = 1, st = 1},
                   {bm = 256, bn = 128, bk = 16, tm = 16, tn = 8, il = 1, st = 1},
                   {bm = 128, bn = 256, bk = 16, tm = 8, tn = 16, il = 1, st = 1},
                   {bm = 64, bn = 128, bk = 32, tm = 8, tn = 8, il = 1, st = 4},
                   {bm = 64, bn = 128, bk = 32, tm = 8, tn = 8, il = 1, st = 3},
                   {bm = 64, bn = 128, bk = 16, tm = 8, tn = 8, il = 1, st = 3},
                   {bm = 128, bn = 64, bk = 32, tm = 8, tn = 8, il = 1, st = 4},
                   {bm = 128, bn = 128, bk = 16, tm = 8, tn = 8, il = 1, st = 4},
                   {bm = 128, bn = 128, bk = 32, tm = 8, tn = 8, il = 1, st = 2},
                   {bm = 128, bn = 128, bk = 32, tm = 8, tn = 8, il = 1, st = 3},
                   {bm = 128, bn = 128, bk = 64, tm = 8, tn = 8, il = 1, st = 3},
                   {bm = 128, bn = 256, bk = 32, tm = 8, tn = 16, il = 1, st = 3},
                   {bm = 256, bn = 128, bk = 32, tm = 16, tn = 8, il = 1, st = 3},
                   {bm = 256, bn = 128, bk = 16, tm = 16, tn = 8, il = 1, st = 4},
                   {bm = 256, bn = 128, bk = 32, tm = 16, tn = 8, il = 1, st = 2},
                   {bm = 256, bn = 128, bk = 32, tm = 16, tn = 8, il = 1, st = 4},
                   {bm = 128, bn = 256, bk = 32, tm = 8, tn = 16, il = 1, st = 2},
                   {bm = 128, bn = 128, bk = 64, tm = 8, tn = 8, il = 1, st = 2}],
        defaults = {bm = 64, bn = 64, bk = 16, tm = 4, tn = 4, il = 0, st = 1},
        constraints = [#tiles32],
        key = [#tuna.key<arg = 3>, #tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(m, n, k)[bm, bn, bk, tm, tn, il, st] -> (n ceildiv bn, m ceildiv bm)>,
        block = affine_map<(m, n, k)[bm, bn, bk, tm, tn, il, st] -> ((bm floordiv tm) * (bn floordiv tn))>,
        smem = affine_map<(m, n, k)[bm, bn, bk, tm, tn, il, st] -> (st * bk * (bm + bn) * 4)>,
        targets = [#tuna.target<arch = nvptx, min = "sm_80">]
      >} {
      %bm = tuna.param "bm" : index
      %bn = tuna.param "bn" : index
      %bk = tuna.param "bk" : index
      %tm = tuna.param "tm" : index
      %tn = tuna.param "tn" : index
      %il = tuna.param "il" : index
      %st = tuna.param "st" : index
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : memref<128xf32>
      %ar = memref.alloca() : memref<16xf32>
      %br = memref.alloca() : memref<16xf32>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx_n = arith.divui %bn, %tn : index
      %ty_n = arith.divui %bm, %tm : index
      %nthreads = arith.muli %tx_n, %ty_n : index
      %tx = arith.remui %tid, %tx_n : index
      %ty = arith.divui %tid, %tx_n : index
      %row0 = arith.muli %by, %bm : index
      %col0 = arith.muli %bx, %bn : index
      %na = arith.muli %bk, %bm : index
      %nb = arith.muli %bk, %bn : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      // As is A's tile transposed (bk x bm), so that a thread's tm rows are
      // consecutive; Bs is B's tile as it is (bk x bn).
      %as = memref.view %smem[%c0][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
      %bs_off = arith.muli %na, %c4 : index
      %bs = memref.view %smem[%bs_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
      %nacc = arith.muli %tm, %tn : index
      scf.for %i = %c0 to %nacc step %c1 {
        memref.store %zero, %acc[%i] : memref<128xf32>
      } {tuna.unroll}
      %a_cpr = arith.divui %bk, %c4 : index
      %a_chunks = arith.muli %bm, %a_cpr : index
      %a_iters = arith.divui %a_chunks, %nthreads : index
      %b_cpr = arith.divui %bn, %c4 : index
      %b_chunks = arith.muli %bk, %b_cpr : index
      %b_iters = arith.divui %b_chunks, %nthreads : index
      %tm4 = arith.divui %tm, %c4 : index
      %tn4 = arith.divui %tn, %c4 : index
      // A thread's rows of the micro-tile: il = 0, tm consecutive rows from
      // ty tm; il = 1, tm / 4 groups of 4 rows, bm / (tm / 4) apart, from
      // ty 4 (so that the 16-byte shared loads of a warp are consecutive).
      // Columns alike with tx, tn, bn.
      %interleave = arith.cmpi eq, %il, %c1 : index
      %arow_c = arith.muli %ty, %tm : index
      %arow_i = arith.muli %ty, %c4 : index
      %arow = arith.select %interleave, %arow_i, %arow_c : index
      %astep_i = arith.divui %bm, %tm4 : index
      %astep = arith.select %interleave, %astep_i, %c4 : index
      %bcol_c = arith.muli %tx, %tn : index
      %bcol_i = arith.muli %tx, %c4 : index
      %bcol = arith.select %interleave, %bcol_i, %bcol_c : index
      %bstep_i = arith.divui %bn, %tn4 : index
      %bstep = arith.select %interleave, %bstep_i, %c4 : index
      // st = 1: one buffer, loaded through registers (A transposed).
      %single = arith.cmpi eq, %st, %c1 : index
      scf.if %single {
        scf.for %k0 = %c0 to %k step %bk {
          scf.for %i = %c0 to %a_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %a_cpr : index
            %cc = arith.remui %ch, %a_cpr : index
            %col = arith.muli %cc, %c4 : index
            %gr = arith.addi %row0, %r : index
            %gro = arith.muli %gr, %k : index
            %gk = arith.addi %k0, %col : index
            %gi = arith.addi %gro, %gk : index
            %v = vector.load %a[%gi] {alignment = 16} : memref<?xf32>, vector<4xf32>
            scf.for %j = %c0 to %c4 step %c1 {
              %e = vector.extract %v[%j] : f32 from vector<4xf32>
              %kr = arith.addi %col, %j : index
              %kro = arith.muli %kr, %bm : index
              %si = arith.addi %kro, %r : index
              memref.store %e, %as[%si] : memref<?xf32, #gpu.address_space<workgroup>>
            } {tuna.unroll}
          } {tuna.unroll}
          scf.for %i = %c0 to %b_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %b_cpr : index
            %cc = arith.remui %ch, %b_cpr : index
            %col = arith.muli %cc, %c4 : index
            %gr = arith.addi %k0, %r : index
            %gro = arith.muli %gr, %n : index
            %gc = arith.addi %col0, %col : index
            %gi = arith.addi %gro, %gc : index
            %v = vector.load %b[%gi] {alignment = 16} : memref<?xf32>, vector<4xf32>
            %sro = arith.muli %r, %bn : index
            %si = arith.addi %sro, %col : index
            vector.store %v, %bs[%si] {alignment = 16} : memref<?xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          } {tuna.unroll}
          gpu.barrier
          scf.for %kk = %c0 to %bk step %c1 {
            %ako = arith.muli %kk, %bm : index
            %abase = arith.addi %ako, %arow : index
            scf.for %i = %c0 to %tm4 step %c1 {
              %i4 = arith.muli %i, %c4 : index
              %ioff = arith.muli %i, %astep : index
              %si = arith.addi %abase, %ioff : index
              %v = vector.load %as[%si] {alignment = 16} : memref<?xf32, #gpu.address_space<workgroup>>, vector<4xf32>
              vector.store %v, %ar[%i4] : memref<16xf32>, vector<4xf32>
            } {tuna.unroll}
            %bko = arith.muli %kk, %bn : index
            %bbase = arith.addi %bko, %bcol : index
            scf.for %j = %c0 to %tn4 step %c1 {
              %j4 = arith.muli %j, %c4 : index
              %joff = arith.muli %j, %bstep : index
              %si = arith.addi %bbase, %joff : index
              %v = vector.load %bs[%si] {alignment = 16} : memref<?xf32, #gpu.address_space<workgroup>>, vector<4xf32>
              vector.store %v, %br[%j4] : memref<16xf32>, vector<4xf32>
            } {tuna.unroll}
            scf.for %i = %c0 to %tm step %c1 {
              %av = memref.load %ar[%i] : memref<16xf32>
              %io = arith.muli %i, %tn : index
              scf.for %j = %c0 to %tn step %c1 {
                %bv = memref.load %br[%j] : memref<16xf32>
                %x = arith.addi %io, %j : index
                %cv = memref.load %acc[%x] : memref<128xf32>
                %p = arith.mulf %av, %bv fastmath<contract> : f32
                %s = arith.addf %cv, %p fastmath<contract> : f32
                memref.store %s, %acc[%x] : memref<128xf32>
              } {tuna.unroll}
            } {tuna.unroll}
          } {tuna.unroll}
          gpu.barrier
        }
      }
      // st >= 2: a ring of st stages, A's tile as it is (bm x bk) and B's
      // (bk x bn), filled by cp.async (16 bytes a copy, one commit group per
      // tile, st - 1 tiles in flight). A thread reads 4 k-consecutive values
      // of each of its tm rows at once (16-byte shared loads), then does 4
      // rounds of tn / 4 16-byte loads of B and tm tn FMAs. Global offsets
      // are per-thread bases (hoisted out of the k loop) plus the tile's.
      %pipe = arith.cmpi uge, %st, %c2 : index
      scf.if %pipe {
        %sa_all = arith.muli %st, %na : index
        %sb_all = arith.muli %st, %nb : index
        %sa = memref.view %smem[%c0][%sa_all] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
        %sb_off = arith.muli %sa_all, %c4 : index
        %sb = memref.view %smem[%sb_off][%sb_all] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
        %ktiles = arith.divui %k, %bk : index
        %pre = arith.subi %st, %c1 : index
        %bkn = arith.muli %bk, %n : index
        %kq_n = arith.divui %bk, %c4 : index
        %a4 = memref.alloca() : memref<16xvector<4xf32>>
        scf.for %s = %c0 to %pre step %c1 {
          %live = arith.cmpi ult, %s, %ktiles : index
          scf.if %live {
            %ka = arith.muli %s, %bk : index
            %kan = arith.muli %s, %bkn : index
            %sa_base = arith.muli %s, %na : index
            %sb_base = arith.muli %s, %nb : index
            scf.for %i = %c0 to %a_iters step %c1 {
              %ci = arith.muli %i, %nthreads : index
              %ch = arith.addi %ci, %tid : index
              %r = arith.divui %ch, %a_cpr : index
              %cc = arith.remui %ch, %a_cpr : index
              %col = arith.muli %cc, %c4 : index
              %gr = arith.addi %row0, %r : index
              %gro = arith.muli %gr, %k : index
              %gbase = arith.addi %gro, %col : index
              %gi = arith.addi %gbase, %ka : index
              %sr = arith.muli %r, %bk : index
              %sr2 = arith.addi %sa_base, %sr : index
              %si = arith.addi %sr2, %col : index
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 4 {bypassL1} : memref<?xf32> to memref<?xf32, #gpu.address_space<workgroup>>
            } {tuna.unroll}
            scf.for %i = %c0 to %b_iters step %c1 {
              %ci = arith.muli %i, %nthreads : index
              %ch = arith.addi %ci, %tid : index
              %r = arith.divui %ch, %b_cpr : index
              %cc = arith.remui %ch, %b_cpr : index
              %col = arith.muli %cc, %c4 : index
              %gro = arith.muli %r, %n : index
              %gc = arith.addi %col0, %col : index
              %gbase = arith.addi %gro, %gc : index
              %gi = arith.addi %gbase, %kan : index
              %sr = arith.muli %r, %bn : index
              %sr2 = arith.addi %sb_base, %sr : index
              %si = arith.addi %sr2, %col : index
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 4 {bypassL1} : memref<?xf32> to memref<?xf32, #gpu.address_space<workgroup>>
            } {tuna.unroll}
          }
          nvvm.cp.async.commit.group
        } {tuna.unroll}
        scf.for %kt = %c0 to %ktiles step %c1 {
          // Tile kt has landed once at most st - 2 groups are pending (an st
          // over 4 would wait for all of them: correct, but no config has one).
          scf.index_switch %st
          case 3 {
            nvvm.cp.async.wait.group 1
            scf.yield
          }
          case 4 {
            nvvm.cp.async.wait.group 2
            scf.yield
          }
          default {
            nvvm.cp.async.wait.group 0
            scf.yield
          }
          gpu.barrier
          // Refill the stage that iteration kt - 1 read (everyone is past it).
          %nxt = arith.addi %kt, %pre : index
          %live = arith.cmpi ult, %nxt, %ktiles : index
          scf.if %live {
            %rs = arith.remui %nxt, %st : index
            %ka = arith.muli %nxt, %bk : index
            %kan = arith.muli %nxt, %bkn : index
            %ra_base = arith.muli %rs, %na : index
            %rb_base = arith.muli %rs, %nb : index
            scf.for %i = %c0 to %a_iters step %c1 {
              %ci = arith.muli %i, %nthreads : index
              %ch = arith.addi %ci, %tid : index
              %r = arith.divui %ch, %a_cpr : index
              %cc = arith.remui %ch, %a_cpr : index
              %col = arith.muli %cc, %c4 : index
              %gr = arith.addi %row0, %r : index
              %gro = arith.muli %gr, %k : index
              %gbase = arith.addi %gro, %col : index
              %gi = arith.addi %gbase, %ka : index
              %sr = arith.muli %r, %bk : index
              %sr2 = arith.addi %ra_base, %sr : index
              %si = arith.addi %sr2, %col : index
              %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 4 {bypassL1} : memref<?xf32> to memref<?xf32, #gpu.address_space<workgroup>>
            } {tuna.unroll}
            scf.for %i = %c0 to %b_iters step %c1 {
              %ci = arith.muli %i, %nthreads : index
              %ch = arith.addi %ci, %tid : index
              %r = arith.divui %ch, %b_cpr : index
              %cc = arith.remui %ch, %b_cpr : index
              %col = arith.muli %cc, %c4 : index
              %gro = arith.muli %r, %n : index
              %gc = arith.addi %col0, %col : index
              %gbase = arith.addi %gro, %gc : index
              %gi = arith.addi %gbase, %kan : index
              %sr = arith.muli %r, %bn : index
              %sr2 = arith.addi %rb_base, %sr : index
              %si = arith.addi %sr2, %col : index
              %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 4 {bypassL1} : memref<?xf32> to memref<?xf32, #gpu.address_space<workgroup>>
            } {tuna.unroll}
          }
          nvvm.cp.async.commit.group
          %s = arith.remui %kt, %st : index
          %sa_base = arith.muli %s, %na : index
          %sb_base = arith.muli %s, %nb : index
          scf.for %kq = %c0 to %kq_n step %c1 {
            %k4 = arith.muli %kq, %c4 : index
            scf.for %i = %c0 to %tm step %c1 {
              %ig = arith.divui %i, %c4 : index
              %ii = arith.remui %i, %c4 : index
              %igo = arith.muli %ig, %astep : index
              %r1 = arith.addi %arow, %igo : index
              %r = arith.addi %r1, %ii : index
              %ro = arith.muli %r, %bk : index
              %i1 = arith.addi %sa_base, %ro : index
              %si = arith.addi %i1, %k4 : index
              %v = vector.load %sa[%si] {alignment = 16} : memref<?xf32, #gpu.address_space<workgroup>>, vector<4xf32>
              memref.store %v, %a4[%i] : memref<16xvector<4xf32>>
            } {tuna.unroll}
            scf.for %jj = %c0 to %c4 step %c1 {
              %kr = arith.addi %k4, %jj : index
              %bko = arith.muli %kr, %bn : index
              %bb1 = arith.addi %sb_base, %bko : index
              %bbase = arith.addi %bb1, %bcol : index
              scf.for %j = %c0 to %tn4 step %c1 {
                %j4 = arith.muli %j, %c4 : index
                %joff = arith.muli %j, %bstep : index
                %si = arith.addi %bbase, %joff : index
                %v = vector.load %sb[%si] {alignment = 16} : memref<?xf32, #gpu.address_space<workgroup>>, vector<4xf32>
                vector.store %v, %br[%j4] : memref<16xf32>, vector<4xf32>
              } {tuna.unroll}
              scf.for %i = %c0 to %tm step %c1 {
                %av4 = memref.load %a4[%i] : memref<16xvector<4xf32>>
                %av = vector.extract %av4[%jj] : f32 from vector<4xf32>
                %io = arith.muli %i, %tn : index
                scf.for %j = %c0 to %tn step %c1 {
                  %bv = memref.load %br[%j] : memref<16xf32>
                  %x = arith.addi %io, %j : index
                  %cv = memref.load %acc[%x] : memref<128xf32>
                  %p = arith.mulf %av, %bv fastmath<contract> : f32
                  %sum = arith.addf %cv, %p fastmath<contract> : f32
                  memref.store %sum, %acc[%x] : memref<128xf32>
                } {tuna.unroll}
              } {tuna.unroll}
            } {tuna.unroll}
          } {tuna.unroll}
        }
        nvvm.cp.async.wait.group 0
      }
      scf.for %i = %c0 to %tm step %c1 {
        %r1 = arith.addi %row0, %arow : index
        %ig = arith.divui %i, %c4 : index
        %ii = arith.remui %i, %c4 : index
        %igo = arith.muli %ig, %astep : index
        %r2 = arith.addi %r1, %igo : index
        %r = arith.addi %r2, %ii : index
        %ro = arith.muli %r, %n : index
        %io = arith.muli %i, %tn : index
        scf.for %j = %c0 to %tn4 step %c1 {
          %j4 = arith.muli %j, %c4 : index
          %x = arith.addi %io, %j4 : index
          %v = vector.load %acc[%x] : memref<128xf32>, vector<4xf32>
          %c1_ = arith.addi %col0, %bcol : index
          %joff = arith.muli %j, %bstep : index
          %cl = arith.addi %c1_, %joff : index
          %gi = arith.addi %ro, %cl : index
          vector.store %v, %c[%gi] {alignment = 16} : memref<?xf32>, vector<4xf32>
        } {tuna.unroll}
      } {tuna.unroll}
      gpu.return
    }

    // ------------------------------------------------------------------
    // fp16 inputs, fp32 accumulation, fp16 output, on tensor cores.
    // NVIDIA only, sm_80 and newer (`targets`): mma.sync.m16n8k16,
    // ldmatrix and cp.async.
    gpu.func @matmul_f16(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf16>,
                         %m: index, %n: index, %k: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"bm">, #tuna.param<"bn">, #tuna.param<"bk">,
                  #tuna.param<"wm">, #tuna.param<"wn">, #tuna.param<"stages">,
                  #tuna.param<"gm">, #tuna.param<"pf">, #tuna.param<"sp">],
        configs = [{bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 2, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 2, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 4, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 32, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 32, wm = 2, wn = 4, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 256, bn = 128, bk = 32, wm = 4, wn = 2, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 256, bn = 128, bk = 32, wm = 4, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 256, bn = 128, bk = 64, wm = 4, wn = 2, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 64, bn = 128, bk = 32, wm = 2, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 64, bk = 32, wm = 2, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 64, bn = 64, bk = 32, wm = 2, wn = 2, stages = 4, gm = 1, pf = 0, sp = 0},
                   {bm = 64, bn = 64, bk = 64, wm = 2, wn = 2, stages = 3, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 8, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 4, gm = 8, pf = 1, sp = 0},
                   {bm = 256, bn = 128, bk = 64, wm = 4, wn = 2, stages = 3, gm = 8, pf = 0, sp = 0},
                   {bm = 256, bn = 128, bk = 64, wm = 4, wn = 2, stages = 3, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 2, stages = 3, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 4, stages = 4, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 4, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 256, bk = 32, wm = 2, wn = 4, stages = 4, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 4, stages = 4, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 4, stages = 3, gm = 8, pf = 1, sp = 0},
                   {bm = 128, bn = 256, bk = 128, wm = 2, wn = 4, stages = 2, gm = 1, pf = 0, sp = 0},
                   {bm = 256, bn = 128, bk = 128, wm = 4, wn = 2, stages = 2, gm = 1, pf = 0, sp = 0},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 4, gm = 8, pf = 1, sp = 1},
                   {bm = 256, bn = 128, bk = 64, wm = 4, wn = 2, stages = 3, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 4, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 2, stages = 3, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 2, stages = 4, gm = 8, pf = 1, sp = 1},
                   {bm = 128, bn = 256, bk = 128, wm = 2, wn = 4, stages = 2, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 4, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 8, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 64, wm = 2, wn = 4, stages = 3, gm = 1, pf = 1, sp = 1},
                   {bm = 256, bn = 128, bk = 64, wm = 4, wn = 2, stages = 4, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 32, wm = 2, wn = 4, stages = 4, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 256, bk = 32, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 1},
                   {bm = 128, bn = 128, bk = 64, wm = 2, wn = 4, stages = 3, gm = 1, pf = 0, sp = 1}],
        defaults = {bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 2, gm = 1, pf = 0, sp = 0},
        constraints = [#tiles16],
        key = [#tuna.key<arg = 3>, #tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(m, n, k)[bm, bn, bk, wm, wn, stages, gm, pf, sp] -> (n ceildiv bn, m ceildiv bm)>,
        block = affine_map<(m, n, k)[bm, bn, bk, wm, wn, stages, gm, pf, sp] -> (wm * wn * 32)>,
        smem = affine_map<(m, n, k)[bm, bn, bk, wm, wn, stages, gm, pf, sp] -> (stages * (bm * (bk + 8) + bk * (bn + 8)) * 2)>,
        targets = [#tuna.target<arch = nvptx, min = "sm_80">]
      >} {
      %bm = tuna.param "bm" : index
      %bn = tuna.param "bn" : index
      %bk = tuna.param "bk" : index
      %wm = tuna.param "wm" : index
      %wn = tuna.param "wn" : index
      %stages = tuna.param "stages" : index
      %gm = tuna.param "gm" : index
      %pf = tuna.param "pf" : index
      %sp = tuna.param "sp" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %zacc = arith.constant dense<0.0> : vector<2x2xf32>
      %zb = arith.constant dense<0.0> : vector<2x2xf16>
      %true = arith.constant true
      %acc = memref.alloca() : memref<32xvector<2x2xf32>>
      %af = memref.alloca() : memref<8xvector<4x2xf16>>
      %bf = memref.alloca() : memref<8xvector<4x2xf16>>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %wmn = arith.muli %wm, %wn : index
      %nthreads = arith.muli %wmn, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %warp_m = arith.divui %warp, %wn : index
      %warp_n = arith.remui %warp, %wn : index
      %wtm = arith.divui %bm, %wm : index
      %wtn = arith.divui %bn, %wn : index
      %mts = arith.divui %wtm, %c16 : index
      %nts = arith.divui %wtn, %c8 : index
      %nps = arith.divui %wtn, %c16 : index
      %kks = arith.divui %bk, %c16 : index
      // Grouped order (as Triton's GROUP_M): consecutive blocks cover gm
      // block rows of a block column before moving right, so that the
      // tiles of A and B they share are still in L2. gm = 1: row order.
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
      %pm0 = arith.remui %ging, %gsize : index
      %pm = arith.addi %gfirst, %pm0 : index
      %pn = arith.divui %ging, %gsize : index
      %row0 = arith.muli %pm, %bm : index
      %col0 = arith.muli %pn, %bn : index
      %lda = arith.addi %bk, %c8 : index
      %ldb = arith.addi %bn, %c8 : index
      %sa_size = arith.muli %bm, %lda : index
      %sb_size = arith.muli %bk, %ldb : index
      %na = arith.muli %stages, %sa_size : index
      %nb = arith.muli %stages, %sb_size : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sa = memref.view %smem[%c0][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %sb_off = arith.muli %na, %c2 : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %wm_off = arith.muli %warp_m, %wtm : index
      %wn_off = arith.muli %warp_n, %wtn : index

      %nacc = arith.muli %mts, %nts : index
      scf.for %i = %c0 to %nacc step %c1 {
        memref.store %zacc, %acc[%i] : memref<32xvector<2x2xf32>>
      } {tuna.unroll}

      // 16-byte cp.async chunks: A is bm x bk, B is bk x bn.
      %a_cpr = arith.divui %bk, %c8 : index
      %a_chunks = arith.muli %bm, %a_cpr : index
      %a_iters = arith.divui %a_chunks, %nthreads : index
      %b_cpr = arith.divui %bn, %c8 : index
      %b_chunks = arith.muli %bk, %b_cpr : index
      %b_iters = arith.divui %b_chunks, %nthreads : index
      %ktiles = arith.divui %k, %bk : index
      %pre = arith.subi %stages, %c1 : index
      %kks_1 = arith.subi %kks, %c1 : index
      %a_step0 = arith.addi %a_iters, %kks_1 : index
      %a_step = arith.divui %a_step0, %kks : index
      %b_step0 = arith.addi %b_iters, %kks_1 : index
      %b_step = arith.divui %b_step0, %kks : index
      %spread = arith.cmpi eq, %sp, %c1 : index
      %nospread = arith.xori %spread, %true : i1

      // Prologue: tiles 0 .. stages - 2, one cp.async group each.
      scf.for %s = %c0 to %pre step %c1 {
        %live = arith.cmpi ult, %s, %ktiles : index
        scf.if %live {
          %ka = arith.muli %s, %bk : index
          %kan = arith.muli %ka, %n : index
          %sa_base = arith.muli %s, %sa_size : index
          %sb_base = arith.muli %s, %sb_size : index
          scf.for %i = %c0 to %a_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %a_cpr : index
            %cc = arith.remui %ch, %a_cpr : index
            %col = arith.muli %cc, %c8 : index
            %gr = arith.addi %row0, %r : index
            %gro = arith.muli %gr, %k : index
            %gbase = arith.addi %gro, %col : index
            %gi = arith.addi %gbase, %ka : index
            %sr = arith.muli %r, %lda : index
            %sr2 = arith.addi %sa_base, %sr : index
            %si = arith.addi %sr2, %col : index
            %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
          } {tuna.unroll}
          scf.for %i = %c0 to %b_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %b_cpr : index
            %cc = arith.remui %ch, %b_cpr : index
            %col = arith.muli %cc, %c8 : index
            %gro = arith.muli %r, %n : index
            %gc = arith.addi %col0, %col : index
            %gbase = arith.addi %gro, %gc : index
            %gi = arith.addi %gbase, %kan : index
            %sr = arith.muli %r, %ldb : index
            %sr2 = arith.addi %sb_base, %sr : index
            %si = arith.addi %sr2, %col : index
            %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
          } {tuna.unroll}
        }
        nvvm.cp.async.commit.group
      } {tuna.unroll}

      %lrow = arith.remui %lane, %c16 : index
      %lhalf = arith.divui %lane, %c16 : index
      %lcol = arith.muli %lhalf, %c8 : index
      scf.for %kt = %c0 to %ktiles step %c1 {
        // Tile kt has landed once at most stages - 2 groups are pending.
        scf.index_switch %stages
        case 3 {
          nvvm.cp.async.wait.group 1
          scf.yield
        }
        case 4 {
          nvvm.cp.async.wait.group 2
          scf.yield
        }
        default {
          nvvm.cp.async.wait.group 0
          scf.yield
        }
        gpu.barrier
        // Refill the stage that iteration kt - 1 read (everyone is past it):
        // sp = 0 issues every copy of the tile here, sp = 1 spreads them over
        // the 16-deep steps below, between the tensor-core work (as CUTLASS
        // does). The group is committed after the steps either way.
        %nxt = arith.addi %kt, %pre : index
        %live = arith.cmpi ult, %nxt, %ktiles : index
        %rs = arith.remui %nxt, %stages : index
        %ka = arith.muli %nxt, %bk : index
        %kan = arith.muli %ka, %n : index
        %ra_base = arith.muli %rs, %sa_size : index
        %rb_base = arith.muli %rs, %sb_size : index
        %bulk = arith.andi %live, %nospread : i1
        scf.if %bulk {
          scf.for %i = %c0 to %a_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %a_cpr : index
            %cc = arith.remui %ch, %a_cpr : index
            %col = arith.muli %cc, %c8 : index
            %gr = arith.addi %row0, %r : index
            %gro = arith.muli %gr, %k : index
            %gbase = arith.addi %gro, %col : index
            %gi = arith.addi %gbase, %ka : index
            %sr = arith.muli %r, %lda : index
            %sr2 = arith.addi %ra_base, %sr : index
            %si = arith.addi %sr2, %col : index
            %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
          } {tuna.unroll}
          scf.for %i = %c0 to %b_iters step %c1 {
            %ci = arith.muli %i, %nthreads : index
            %ch = arith.addi %ci, %tid : index
            %r = arith.divui %ch, %b_cpr : index
            %cc = arith.remui %ch, %b_cpr : index
            %col = arith.muli %cc, %c8 : index
            %gro = arith.muli %r, %n : index
            %gc = arith.addi %col0, %col : index
            %gbase = arith.addi %gro, %gc : index
            %gi = arith.addi %gbase, %kan : index
            %sr = arith.muli %r, %ldb : index
            %sr2 = arith.addi %rb_base, %sr : index
            %si = arith.addi %sr2, %col : index
            %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
          } {tuna.unroll}
        }
        %trickle = arith.andi %live, %spread : i1

        // Tensor-core work on stage kt mod stages.
        %s = arith.remui %kt, %stages : index
        %sa_base = arith.muli %s, %sa_size : index
        %sb_base = arith.muli %s, %sb_size : index
        // Step kk loads the fragments of 16-deep slice kk into register slot
        // kk mod 2 and multiplies those of slice kk - 1; pf = 1 issues the
        // loads first, so that they overlap the mma.sync of the slice before.
        %kks1 = arith.addi %kks, %c1 : index
        %pfirst = arith.cmpi eq, %pf, %c1 : index
        scf.for %kk = %c0 to %kks1 step %c1 {
          %do_load = arith.cmpi ult, %kk, %kks : index
          %trickle_now = arith.andi %trickle, %do_load : i1
          scf.if %trickle_now {
            scf.for %i = %c0 to %a_step step %c1 {
              %i0 = arith.muli %kk, %a_step : index
              %i2 = arith.addi %i0, %i : index
              %in = arith.cmpi ult, %i2, %a_iters : index
              scf.if %in {
                %ci = arith.muli %i2, %nthreads : index
                %ch = arith.addi %ci, %tid : index
                %r = arith.divui %ch, %a_cpr : index
                %cc = arith.remui %ch, %a_cpr : index
                %col = arith.muli %cc, %c8 : index
                %gr = arith.addi %row0, %r : index
                %gro = arith.muli %gr, %k : index
                %gbase = arith.addi %gro, %col : index
                %gi = arith.addi %gbase, %ka : index
                %sr = arith.muli %r, %lda : index
                %sr2 = arith.addi %ra_base, %sr : index
                %si = arith.addi %sr2, %col : index
                %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } {tuna.unroll}
            scf.for %i = %c0 to %b_step step %c1 {
              %i0 = arith.muli %kk, %b_step : index
              %i2 = arith.addi %i0, %i : index
              %in = arith.cmpi ult, %i2, %b_iters : index
              scf.if %in {
                %ci = arith.muli %i2, %nthreads : index
                %ch = arith.addi %ci, %tid : index
                %r = arith.divui %ch, %b_cpr : index
                %cc = arith.remui %ch, %b_cpr : index
                %col = arith.muli %cc, %c8 : index
                %gro = arith.muli %r, %n : index
                %gc = arith.addi %col0, %col : index
                %gbase = arith.addi %gro, %gc : index
                %gi = arith.addi %gbase, %kan : index
                %sr = arith.muli %r, %ldb : index
                %sr2 = arith.addi %rb_base, %sr : index
                %si = arith.addi %sr2, %col : index
                %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } {tuna.unroll}
          }
          %do_mma = arith.cmpi uge, %kk, %c1 : index
          %k16 = arith.muli %kk, %c16 : index
          %kcol = arith.addi %k16, %lcol : index
          %krow = arith.addi %k16, %lrow : index
          %kro = arith.muli %krow, %ldb : index
          %kbase = arith.addi %sb_base, %kro : index
          %lslot = arith.remui %kk, %c2 : index
          %ls4 = arith.muli %lslot, %c4 : index
          %early = arith.andi %do_load, %pfirst : i1
          scf.if %early {
            scf.for %mt = %c0 to %mts step %c1 {
              %m16 = arith.muli %mt, %c16 : index
              %r1 = arith.addi %wm_off, %m16 : index
              %r = arith.addi %r1, %lrow : index
              %ro = arith.muli %r, %lda : index
              %i1 = arith.addi %sa_base, %ro : index
              %idx = arith.addi %i1, %kcol : index
              %f = nvgpu.ldmatrix %sa[%idx] {numTiles = 4 : i32, transpose = false} : memref<?xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
              %slot = arith.addi %ls4, %mt : index
              memref.store %f, %af[%slot] : memref<8xvector<4x2xf16>>
            } {tuna.unroll}
            scf.for %np = %c0 to %nps step %c1 {
              %n16 = arith.muli %np, %c16 : index
              %c1_ = arith.addi %wn_off, %n16 : index
              %cl = arith.addi %c1_, %lcol : index
              %idx = arith.addi %kbase, %cl : index
              %f = nvgpu.ldmatrix %sb[%idx] {numTiles = 4 : i32, transpose = true} : memref<?xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
              %slot = arith.addi %ls4, %np : index
              memref.store %f, %bf[%slot] : memref<8xvector<4x2xf16>>
            } {tuna.unroll}
          }
          scf.if %do_mma {
            %km = arith.subi %kk, %c1 : index
            %mslot = arith.remui %km, %c2 : index
            %ms4 = arith.muli %mslot, %c4 : index
            scf.for %np = %c0 to %nps step %c1 {
              %bsl = arith.addi %ms4, %np : index
              %b4 = memref.load %bf[%bsl] : memref<8xvector<4x2xf16>>
              %b0 = vector.extract %b4[0] : vector<2xf16> from vector<4x2xf16>
              %b1 = vector.extract %b4[1] : vector<2xf16> from vector<4x2xf16>
              %b2 = vector.extract %b4[2] : vector<2xf16> from vector<4x2xf16>
              %b3 = vector.extract %b4[3] : vector<2xf16> from vector<4x2xf16>
              %bl0 = vector.insert %b0, %zb[0] : vector<2xf16> into vector<2x2xf16>
              %blo = vector.insert %b1, %bl0[1] : vector<2xf16> into vector<2x2xf16>
              %bh0 = vector.insert %b2, %zb[0] : vector<2xf16> into vector<2x2xf16>
              %bhi = vector.insert %b3, %bh0[1] : vector<2xf16> into vector<2x2xf16>
              %nt0 = arith.muli %np, %c2 : index
              scf.for %mt = %c0 to %mts step %c1 {
                %asl = arith.addi %ms4, %mt : index
                %av = memref.load %af[%asl] : memref<8xvector<4x2xf16>>
                %ib = arith.muli %mt, %nts : index
                %i0 = arith.addi %ib, %nt0 : index
                %i1 = arith.addi %i0, %c1 : index
                %x0 = memref.load %acc[%i0] : memref<32xvector<2x2xf32>>
                %y0 = nvgpu.mma.sync (%av, %blo, %x0) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
                memref.store %y0, %acc[%i0] : memref<32xvector<2x2xf32>>
                %x1 = memref.load %acc[%i1] : memref<32xvector<2x2xf32>>
                %y1 = nvgpu.mma.sync (%av, %bhi, %x1) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
                memref.store %y1, %acc[%i1] : memref<32xvector<2x2xf32>>
              } {tuna.unroll}
            } {tuna.unroll}
          }
          %late = arith.cmpi ult, %kk, %kks : index
          %late_pf0 = arith.xori %pfirst, %true : i1
          %late_do = arith.andi %late, %late_pf0 : i1
          scf.if %late_do {
            scf.for %mt = %c0 to %mts step %c1 {
              %m16 = arith.muli %mt, %c16 : index
              %r1 = arith.addi %wm_off, %m16 : index
              %r = arith.addi %r1, %lrow : index
              %ro = arith.muli %r, %lda : index
              %i1 = arith.addi %sa_base, %ro : index
              %idx = arith.addi %i1, %kcol : index
              %f = nvgpu.ldmatrix %sa[%idx] {numTiles = 4 : i32, transpose = false} : memref<?xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
              %slot = arith.addi %ls4, %mt : index
              memref.store %f, %af[%slot] : memref<8xvector<4x2xf16>>
            } {tuna.unroll}
            scf.for %np = %c0 to %nps step %c1 {
              %n16 = arith.muli %np, %c16 : index
              %c1_ = arith.addi %wn_off, %n16 : index
              %cl = arith.addi %c1_, %lcol : index
              %idx = arith.addi %kbase, %cl : index
              %f = nvgpu.ldmatrix %sb[%idx] {numTiles = 4 : i32, transpose = true} : memref<?xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
              %slot = arith.addi %ls4, %np : index
              memref.store %f, %bf[%slot] : memref<8xvector<4x2xf16>>
            } {tuna.unroll}
          }
        } {tuna.unroll}
        nvvm.cp.async.commit.group
      }

      // Epilogue: the accumulator fragment of lane l holds rows l / 4 and
      // l / 4 + 8, columns 2 (l mod 4) and 2 (l mod 4) + 1 of its 16 x 8 tile.
      %g = arith.divui %lane, %c4 : index
      %q4 = arith.remui %lane, %c4 : index
      %q = arith.muli %q4, %c2 : index
      %rbase1 = arith.addi %row0, %wm_off : index
      %rbase = arith.addi %rbase1, %g : index
      %cbase1 = arith.addi %col0, %wn_off : index
      %cbase = arith.addi %cbase1, %q : index
      scf.for %mt = %c0 to %mts step %c1 {
        scf.for %nt = %c0 to %nts step %c1 {
          %ib = arith.muli %mt, %nts : index
          %i = arith.addi %ib, %nt : index
          %v = memref.load %acc[%i] : memref<32xvector<2x2xf32>>
          %m16 = arith.muli %mt, %c16 : index
          %r = arith.addi %rbase, %m16 : index
          %r8 = arith.addi %r, %c8 : index
          %n8 = arith.muli %nt, %c8 : index
          %col = arith.addi %cbase, %n8 : index
          %lo = vector.extract %v[0] : vector<2xf32> from vector<2x2xf32>
          %hi = vector.extract %v[1] : vector<2xf32> from vector<2x2xf32>
          %lo16 = arith.truncf %lo : vector<2xf32> to vector<2xf16>
          %hi16 = arith.truncf %hi : vector<2xf32> to vector<2xf16>
          %ro = arith.muli %r, %n : index
          %io = arith.addi %ro, %col : index
          vector.store %lo16, %c[%io] {alignment = 4} : memref<?xf16>, vector<2xf16>
          %ro8 = arith.muli %r8, %n : index
          %io8 = arith.addi %ro8, %col : index
          vector.store %hi16, %c[%io8] {alignment = 4} : memref<?xf16>, vector<2xf16>
        } {tuna.unroll}
      } {tuna.unroll}
      gpu.return
    }
  }
}
