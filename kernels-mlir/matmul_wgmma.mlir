// C = A B for row-major fp16 matrices on Hopper's warpgroup tensor cores
// (wgmma, sm_90a): A is M x K, B is K x N, C is M x N (overwritten), all
// contiguous (leading dimensions K, N, N); fp32 accumulation, fp16 output.
//
// Reference: C[i, j] = sum_k A[i, k] B[k, j], computed in double on the CPU
// from the same (rounded) inputs (bench/gpu/kernels_bench.cpp).
//
// matmul_f16_wgmma: a block of bm / 64 warpgroups (128 threads each)
// computes a bm x 256 tile of C; warpgroup w owns rows 64 w .. 64 w + 63
// and keeps its 64 x 256 fp32 accumulator in registers (128 floats a
// thread, one `wgmma.mma_async.m64n256k16` result). Per bk-deep k tile
// (bk = 64 or 128):
//  - every thread copies its share of A's tile (bm x bk) and B's tile
//    (bk x 256) with cp.async (16 bytes a copy) into a ring of `stages`
//    shared-memory buffers, in the 128-byte swizzled layouts wgmma reads:
//    A K-major, as bk / 64 column blocks of bm x 64 (row r of a block at
//    128 r bytes, its 16-byte chunk j at chunk j ^ (r mod 8)); B MN-major,
//    as four 64-column atoms 128 bk bytes apart (row k of an atom at 128 k
//    bytes, chunk j at j ^ (k mod 8)). The
//    buffers are 1024-byte aligned (the swizzle pattern repeats every 8
//    rows of 128 bytes), so the block asks for 1 KiB more than it uses.
//  - `stages - 2 + deep` tiles are in flight. At the top of iteration kt a
//    thread waits until tile kt has landed (cp.async.wait_group
//    stages - 3 + deep), makes its copies visible to the async proxy
//    (fence.proxy.async.shared::cta: wgmma reads shared memory through it)
//    and meets the others at a barrier.
//  - wgmma.fence, bk / 16 m64n256k16 wgmma (one per 16-deep slice; the
//    descriptors advance 32 bytes along A's swizzled rows, to the next
//    column block after four, and 2 KiB down B's), commit; the group stays
//    pending while the next iteration refills a stage, so that the tensor
//    cores work on tile kt while the copies of the next tiles are issued
//    and awaited.
//  - The refill, at the top of iteration kt + 1: deep = 0 copies tile
//    kt + stages - 2 into the stage of tile kt - 2 (everyone waited for its
//    wgmma of kt - 2 before the barrier of iteration kt), then waits for its
//    wgmma of kt - 1; deep = 1 first waits for that wgmma, meets the others
//    at a second barrier, and copies tile kt + stages - 1 into the stage of
//    kt - 1: one tile more in flight for one barrier more.
//  - Tile 0 is peeled: its first wgmma ignores the accumulator registers
//    (scale-d 0) instead of adding to zeros. Zeros written by moves would
//    make ptxas serialize every wgmma of the kernel (C7515: a non-wgmma
//    instruction defines accumulators while a group is pending), which cost
//    a fifth of the throughput; tuna-compile reports such ptxas warnings.
//  - A copy's global offset is a per-thread base, computed once, plus the
//    tile's offset (kt bk for A, kt bk n for B), so that the loop issues
//    its 12 copies with little arithmetic: recomputing (kt bk + r) n per
//    copy and tile left the tensor cores idle for a tenth of the time.
// Descriptors (PTX ISA, "Matrix Descriptor Format"): start address >> 4 in
// bits 0-13, leading byte offset >> 4 in 16-29, stride byte offset >> 4 in
// 32-45, swizzle mode in 62-63 (1: 128 bytes). A: stride 1024 (8 rows),
// leading 16 (unused for K-major swizzled layouts). B (transposed, layout
// `row`): leading 128 bk (next 64-column atom), stride 1024 (next 8 rows
// of k).
// Epilogue: after the last wgmma group and cp.async group have completed,
// the accumulators go to shared memory (fp32, rows padded to 264 floats,
// nvgpu.warpgroup.mma.store knows the fragment layout), then every thread
// converts 8 consecutive floats to fp16 and writes them with one 16-byte
// store.
// The N tile is 256 for every variant: the accumulator is one LLVM struct
// of 128 floats whose type cannot depend on a parameter.
// gm > 1 orders the blocks in groups of gm block rows (Triton's GROUP_M)
// for L2 reuse, as matmul_f16 does; order = 1 groups gm block columns
// instead. l1 = 1 copies with cp.async.ca (through L1) instead of .cg.
// split > 1 (split-K, for skinny M and K-heavy shapes, where M / bm times
// N / 256 tiles leave most SMs idle): `split` blocks (grid z) share a tile
// of C. Which k tiles block z takes follows how they are summed (below):
// with split >= 16 (the K-heavy shapes) every split-th one from tile z (z,
// z + split, z + 2 split, ... of the T tiles of K: at any time the blocks
// of a tile read neighbouring k tiles), with split <= 8 (the skinny ones)
// the share [z T / split, (z + 1) T / split): each order measured the
// faster for the families' picks of its kind, not for every kernel and
// shape (docs/benchmarks.md, "Split-K's k order").
// Their fp32 tiles are summed one of two ways:
//  - split <= 8: they form one thread block cluster (the space's `cluster`
//    map, 1 x 1 x split, compiled in as .reqnctapercluster, so a plain
//    launch forms it): each block leaves its fp32 tile in its shared
//    memory, the cluster meets (barrier.cluster arrive/wait,
//    release/acquire), and block z sums its bm / split rows of every
//    block's tile through distributed shared memory (mapa,
//    ld.shared::cluster), in block order, rounds and stores them; a second
//    cluster barrier keeps every block's shared memory alive until the
//    others have read it. No workspace and no atomics: the sum is
//    deterministic. split divides 16 (the epilogue's passes).
//  - split >= 16 (up to 64): no cluster (only a few clusters of 16 fit on
//    the H100's GPCs at a time, so a grid of them runs in waves).
//    The module holds a workspace: the fp32 sums of C (M x N floats, so M
//    and N are at most 1024) and an arrival count a tile, zero-initialized
//    globals (@split_sums, @split_arrivals). Each block adds its fp32 tile
//    to the sums with one bulk reduction a row (cp.reduce.async.bulk .add:
//    the L2 adds the words), waits for them (cp.async.bulk.wait_group 0),
//    and counts its arrival (membar.gl, a barrier, then thread 0's atomic
//    add); the block that arrives last reads the tile's sums (volatile
//    loads, after a membar.gl), rounds and stores them, and leaves zeros
//    and a count of 0 for the next launch. Sums added in arrival order: the
//    last bits of a split >= 16 variant's C may differ between runs. The
//    workspace belongs to the loaded module, so two launches of one such
//    variant must not run at once: the variant's object is marked as
//    having module state, and the runtime orders its launches on
//    different streams (docs/runtime-api.md, "Kernels with module state").
// Constraints: every block has a k tile (K > (split - 1) bk), split <= 64,
// and one of the two cases above.
// tma = 1 (Hopper's tensor memory accelerator, docs/tma-design.md) loads
// A's and B's tiles with TMA instead of cp.async: the space asks for two
// tensor maps (`tensor_maps`), A viewed as an M x K and B as a K x N
// row-major matrix (`shape`), with the 128-byte swizzle, which the
// variant takes as hidden parameters. A box 64 elements (128 bytes) wide
// lands in shared memory as rows of 128 bytes whose 16-byte chunk j goes to
// chunk j ^ (row mod 8) (the destination is 1024-byte aligned): the
// layout of one of A's column blocks (box 64 x bm at k, row0) or of one of
// B's atoms (box 64 x bk at col0 + 64 a, k) above, which wgmma's 128-byte
// swizzle mode reads (CUTLASS pairs the same two: SW128 GMMA layouts with
// SWIZZLE_128B maps). The protocol, in the pipeline's shape above:
//  - one mbarrier a stage, 8 bytes each after B's stages (`smem` counts
//    them: tma * stages * 8), initialized by thread 0 with an arrival
//    count of 1, fenced (fence.mbarrier_init) and met at a barrier;
//  - a stage's load (the prologue's and each refill, where cp.async
//    copies were): thread 0 does mbarrier.arrive.expect_tx with the
//    stage's bytes (A's and B's tiles: 2 bm bk + 512 bk), then issues
//    its bk / 64 + 4 boxes (cp.async.bulk.tensor, complete_tx on the
//    stage's mbarrier); the other threads issue nothing. There are no
//    cp.async groups.
//  - the wait for tile t (where cp.async.wait_group was): every thread
//    waits with mbarrier.try_wait.parity for phase t / stages mod 2 of
//    stage t mod stages (a stage's phase flips each time the ring wraps);
//    the barrier that follows stays, for the refills' sake, as above.
//    The wait's acquire makes the box's bytes visible to the thread, and
//    the bytes were written by the async proxy, which wgmma reads through
//    too: no fence.proxy.async (the PTX ISA requires one where the generic
//    proxy wrote the data, as with cp.async; CUTLASS's TMA pipelines go
//    from the mbarrier wait to wgmma without one).
//  - a stage is refilled after the same barrier as with cp.async (every
//    warpgroup's wgmma of its previous tile has completed): the async
//    proxy's reads (wgmma) are complete before its writes (TMA) are
//    issued, and every thread has seen the previous phase complete.
// TMA zero-fills the parts of a box past M, N or K (and counts them in the
// transaction bytes), so tma = 1 has no masked copies and the last k tile
// may be partial; `mask` still decides the stores (mask = 1 skips those
// past M or N) and so the shapes, as below. split > 1 works unchanged
// (block z's boxes start at its first k tile). A tensor map needs N and K
// multiples of 8 (row strides multiples of 16 bytes, which #tiles asks
// for anyway) and A and B 16-byte aligned; where they are not, the
// runtime excludes the tma = 1 variants (docs/runtime-api.md, "Tensor
// maps"). The default stays a tma = 0 variant: a default takes no map.
// Shapes: mask = 0 variants need M, N and K multiples of bm, 256 and bk;
// mask = 1 variants take any M and any N and K that are multiples of 8 (a
// 16-byte copy never straddles the end of a row): copies past M, N or K
// read nothing and zero-fill (src-size 0), stores past M or N are skipped,
// the last k tile is partial. mask = 2 variants (the 64-column twin's
// skinny space) need N and K multiples of 256 and bk and take any M: A's
// copies and the stores are masked as with mask = 1, B's copies are whole
// (at M = 16, N = K = 4096 on the H200 4% faster than mask = 1). The
// default is a mask = 1 variant, so that every shape the kernel accepts
// has one; the tuner picks mask = 0 or 2 where the shape allows. M, N,
// K >= 1 and stages + deep >= 3 (at least one tile in flight) and room for
// the epilogue's bm x 264 floats in the stages' bytes are constraints too.
// Needs sm_90a (`--target=nvptx:sm_90a`) and
// `--max-shared-memory=232448`: every variant needs more than 48 KiB of
// shared memory (the 31 configurations below 161 KiB or more). They all
// have order = 0 and l1 = 0; 23 have tma = 0, 9 of those split > 1 (bm =
// 64 for M <= 64, bm = 128 for 256 x 256 x 65536); 8 have tma = 1, the
// best cp.async ones' shapes with TMA (bm = 128, bk = 64, 3 or 4 stages:
// 5 do not fit; bm = 64 with 5 stages, and split = 4).
// kernels-mlir/wide_spaces.py writes the kernel with a space of 1,040
// (`matmul_f16_wgmma_wide`, split = 1, tma = 0, docs/kernels.md).

#tiles = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] : ((m mod bm) * (1 - mask) * (2 - mask) == 0, (n mod 256) * (mask - 1) == 0, (k mod bk) * (mask - 1) == 0, n mod 8 == 0, k mod 8 == 0, m - 1 >= 0, n - 1 >= 0, k - 1 >= 0, stages + deep - 3 >= 0)>
// split > 1: every block has at least one k tile; split <= 8 divides the
// epilogue's 16 passes of 2 bm chunks among a cluster's blocks, split >= 16
// (the term (split floordiv 16 + 3) floordiv 4 is 1 from 16 to 64, 0 below)
// sums in a workspace of M x N floats with M, N <= 1024.
#split = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] : (k - (split - 1) * bk - 1 >= 0, 64 - split >= 0, (16 mod split) * (1 - (split floordiv 16 + 3) floordiv 4) == 0, ((split floordiv 16 + 3) floordiv 4) * (1024 - m) >= 0, ((split floordiv 16 + 3) floordiv 4) * (1024 - n) >= 0)>
// The epilogue's fp32 tile (bm rows of 264 floats) reuses the stages' bytes.
#epilogue = affine_set<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] : (stages * (bm + 256) * bk * 2 - bm * 1056 >= 0)>
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // split >= 16: the blocks' sums of C (M x N fp32, M and N up to 1024)
    // and each tile's arrivals (below); both zero between launches.
    llvm.mlir.global internal @split_sums(dense<0.0> : tensor<1048576xf32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1048576 x f32>
    llvm.mlir.global internal @split_arrivals(dense<0> : tensor<4096xi32>) {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.array<4096 x i32>
    // sm_90a only (`targets`): wgmma exists nowhere else.
    gpu.func @matmul_f16_wgmma(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf16>,
                               %m: index, %n: index, %k: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"bm">, #tuna.param<"bk">, #tuna.param<"stages">, #tuna.param<"gm">,
                  #tuna.param<"deep">, #tuna.param<"mask">, #tuna.param<"order">,
                  #tuna.param<"l1">, #tuna.param<"split">, #tuna.param<"tma">],
        configs = [{bm = 128, bk = 64, stages = 4, gm = 8, deep = 0, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 1, deep = 0, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 4, deep = 0, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 16, deep = 0, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 1, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 3, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 3, gm = 1, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 128, stages = 2, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 0, mask = 1, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 1, deep = 0, mask = 1, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 2, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 4, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 8, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 4, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 8, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 8, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 16, tma = 0},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 16, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 1, mask = 0, order = 0, l1 = 0, split = 16, tma = 0},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 0, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 128, bk = 64, stages = 4, gm = 4, deep = 0, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 128, bk = 64, stages = 4, gm = 4, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 128, bk = 64, stages = 3, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 128, bk = 64, stages = 4, gm = 8, deep = 0, mask = 0, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 64, bk = 64, stages = 5, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 1, tma = 1},
                   {bm = 64, bk = 64, stages = 4, gm = 8, deep = 1, mask = 1, order = 0, l1 = 0, split = 4, tma = 1}],
        defaults = {bm = 128, bk = 64, stages = 4, gm = 8, deep = 0, mask = 1, order = 0, l1 = 0, split = 1, tma = 0},
        constraints = [#tiles, #epilogue, #split],
        key = [#tuna.key<arg = 3>, #tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (n ceildiv 256, m ceildiv bm, split)>,
        block = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (bm * 2)>,
        smem = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (stages * (bm + 256) * bk * 2 + 1024 + tma * stages * 8)>,
        cluster = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (1, 1, split - ((split floordiv 16 + 3) floordiv 4) * (split - 1))>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (64, bm)>,
                                        shape = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (m, k)>,
                                        swizzle = 128, l2_promotion = 256>,
                       #tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (64, bk)>,
                                        shape = affine_map<(m, n, k)[bm, bk, stages, gm, deep, mask, order, l1, split, tma] -> (k, n)>,
                                        swizzle = 128, l2_promotion = 256>],
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %bm = tuna.param "bm" : index
      %bk = tuna.param "bk" : index
      %stages = tuna.param "stages" : index
      %gm = tuna.param "gm" : index
      %deep = tuna.param "deep" : index
      %mask = tuna.param "mask" : index
      %order = tuna.param "order" : index
      %l1 = tuna.param "l1" : index
      %split = tuna.param "split" : index
      %tma = tuna.param "tma" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c264 = arith.constant 264 : index
      %c1024 = arith.constant 1024 : index
      %c2048 = arith.constant 2048 : index
      %c4096 = arith.constant 4096 : index
      %c8192 = arith.constant 8192 : index
      %bn = arith.constant 256 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %nthreads = arith.muli %bm, %c2 : index
      %wg = arith.divui %tid, %c128 : index
      // Grouped block order: consecutive blocks walk gm block rows of a
      // block column (order = 0), or gm block columns of a block row
      // (order = 1), then the next column (row) of the group.
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %pid0 = arith.muli %by, %gx : index
      %pid = arith.addi %pid0, %bx : index
      %by_cols = arith.cmpi eq, %order, %c1 : index
      %gfree = arith.select %by_cols, %gy, %gx : index
      %gall = arith.select %by_cols, %gx, %gy : index
      %gwidth = arith.muli %gm, %gfree : index
      %group = arith.divui %pid, %gwidth : index
      %gfirst = arith.muli %group, %gm : index
      %grest = arith.subi %gall, %gfirst : index
      %gsize = arith.minui %grest, %gm : index
      %ging = arith.remui %pid, %gwidth : index
      %pg0 = arith.remui %ging, %gsize : index
      %pg = arith.addi %gfirst, %pg0 : index
      %pf = arith.divui %ging, %gsize : index
      %pm = arith.select %by_cols, %pf, %pg : index
      %pn = arith.select %by_cols, %pg, %pf : index
      %row0 = arith.muli %pm, %bm : index
      %col0 = arith.muli %pn, %bn : index

      // Shared memory: A stages (bm x 64 halfs each), then B stages
      // (64 x 256 halfs each), from the first 1024-byte aligned address.
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sraw = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %mis = arith.remui %sraw, %c1024 : index
      %shift0 = arith.subi %c1024, %mis : index
      %shift = arith.remui %shift0, %c1024 : index
      %saddr = arith.addi %sraw, %shift : index
      %sa_size = arith.muli %bm, %bk : index
      %sb_size = arith.muli %bk, %bn : index
      %na = arith.muli %stages, %sa_size : index
      %nb = arith.muli %stages, %sb_size : index
      %sa = memref.view %smem[%shift][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %na2 = arith.muli %na, %c2 : index
      %sb_off = arith.addi %shift, %na2 : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %saddr_b = arith.addi %saddr, %na2 : index

      // 16-byte chunks: A's tile has bm x 8, B's 64 x 32.
      // 16-byte chunks of a row of A's tile, the halfs of one 64-column
      // block of it (bm x 64, 128-byte rows), of one 64-column atom of B's.
      %acpr = arith.divui %bk, %c8 : index
      %acb = arith.muli %bm, %c64 : index
      %batom = arith.muli %bk, %c64 : index
      %a_iters0 = arith.muli %bm, %bk : index
      %a_iters1 = arith.divui %a_iters0, %c8 : index
      %a_iters = arith.divui %a_iters1, %nthreads : index
      %b_chunks = arith.muli %bk, %c32 : index
      %b_iters = arith.divui %b_chunks, %nthreads : index
      // A thread copies the same 16-byte column of rows tr, tr + rpp,
      // tr + 2 rpp, ... of a tile (rpp rows a pass of the copy loop). rpp is
      // a multiple of 8 whenever the block has 256 threads, so the swizzle
      // (by row mod 8) is the thread's own and every copy's shared-memory
      // offset is the thread's plus a constant.
      %a_rpp = arith.divui %nthreads, %acpr : index
      %a_tr = arith.divui %tid, %acpr : index
      %a_tj = arith.remui %tid, %acpr : index
      %b_rpp = arith.divui %nthreads, %c32 : index
      %b_tr = arith.divui %tid, %c32 : index
      %b_tc = arith.remui %tid, %c32 : index
      // split > 1: block z takes k tiles z, z + split, z + 2 split, ...
      // of the T tiles of K where the blocks sum in the workspace (split >=
      // 16), the share [z T / split, (z + 1) T / split) where they form a
      // cluster (split <= 8).
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
      // mask = 0: the tiles divide M, N and K (constraints), every copy and
      // store is whole. mask = 1: copies past M, N or K read nothing and
      // zero-fill (src-size 0 at offset 0), stores past M or N are skipped.
      // mask = 2: the tiles divide N and K; A's copies and the stores are
      // masked as with mask = 1, B's copies are whole.
      %whole = arith.cmpi eq, %mask, %c0 : index
      %b_whole = arith.cmpi ne, %mask, %c1 : index
      // l1 = 0: cp.async.cg (the copies bypass L1), l1 = 1: cp.async.ca.
      %bypass = arith.cmpi eq, %l1, %c0 : index
      // tma = 1: no cp.async copies (the copy loops run 0 times), no
      // cp.async groups; thread 0 loads each stage with TMA instead (the
      // header comment has the protocol).
      %use_tma = arith.cmpi ne, %tma, %c0 : index
      %cpasync = arith.cmpi eq, %tma, %c0 : index
      %a_copies = arith.select %use_tma, %c0, %a_iters : index
      %b_copies = arith.select %use_tma, %c0, %b_iters : index
      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      %tma_leader = arith.andi %use_tma, %is_t0 : i1
      // Boxes a stage (A's bk / 64 column blocks, B's 4 atoms), their
      // destinations' strides in bytes (128 bm, 128 bk), the stage's bytes
      // (the transaction count its mbarrier expects: the whole boxes, also
      // where they leave the matrices), the block's first row of A.
      %a_boxes = arith.divui %bk, %c64 : index
      %b_boxes = arith.divui %bn, %c64 : index
      %tma_acb = arith.muli %bm, %c128 : index
      %tma_batom = arith.muli %bk, %c128 : index
      %tx0 = arith.addi %bm, %bn : index
      %tx1 = arith.muli %tx0, %bk : index
      %tx2 = arith.muli %tx1, %c2 : index
      %tx_bytes = arith.index_cast %tx2 : index to i32
      %row0_32 = arith.index_cast %row0 : index to i32
      // try_wait's suspend-time hint, in ns (CUTLASS's ClusterBarrier::wait
      // uses the same; the wait loops until the phase completes).
      %ticks = arith.constant 10000000 : i32
      // One mbarrier a stage (8 bytes each, the `tma * stages * 8` of
      // `smem`), after B's stages: thread 0 initializes them (one arrival
      // a phase: its arrive.expect_tx) and makes the initialization
      // visible to the async proxy (fence.mbarrier_init); the barrier
      // makes it visible to the threads that wait on them.
      %nb2 = arith.muli %nb, %c2 : index
      %bars = arith.addi %saddr_b, %nb2 : index
      scf.if %tma_leader {
        %one = arith.constant 1 : i32
        scf.for %i = %c0 to %stages step %c1 {
          %bo = arith.muli %i, %c8 : index
          %ba = arith.addi %bars, %bo : index
          %bi = arith.index_cast %ba : index to i64
          %bp = llvm.inttoptr %bi : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %bp, %one : !llvm.ptr<3>, i32
        } {tuna.unroll}
        nvvm.fence.mbarrier.init
      }
      scf.if %use_tma {
        gpu.barrier
      }

      // Prologue: tiles 0 .. stages - 3 + deep, one cp.async group each.
      scf.for %s = %c0 to %pre step %c1 {
        %live = arith.cmpi ult, %s, %ktiles : index
        scf.if %live {
          %ks = arith.muli %s, %kstep : index
          %kg = arith.addi %kfirst, %ks : index
          %ka = arith.muli %kg, %bk : index
          %kan = arith.muli %ka, %n : index
          %ra_base = arith.muli %s, %sa_size : index
          %rb_base = arith.muli %s, %sb_size : index
          scf.for %i = %c0 to %a_copies step %c1 {
            %ci = arith.muli %i, %a_rpp : index
            %r = arith.addi %ci, %a_tr : index
            %col = arith.muli %a_tj, %c8 : index
            %gr = arith.addi %row0, %r : index
            %gro = arith.muli %gr, %k : index
            %gbase = arith.addi %gro, %col : index
            %gi = arith.addi %gbase, %ka : index
            %cb = arith.divui %a_tj, %c8 : index
            %jj = arith.remui %a_tj, %c8 : index
            %r7 = arith.andi %r, %c7 : index
            %sj = arith.xori %jj, %r7 : index
            %scol = arith.muli %sj, %c8 : index
            %cbo = arith.muli %cb, %acb : index
            %sr = arith.muli %r, %c64 : index
            %sr1 = arith.addi %ra_base, %cbo : index
            %sr2 = arith.addi %sr1, %sr : index
            %si = arith.addi %sr2, %scol : index
            scf.if %whole {
              scf.if %bypass {
                %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } else {
              // Rows past M read row 0 (nothing: src-size 0); both the row
              // and its source size are the thread's own for every tile.
              %row_in = arith.cmpi ult, %gr, %m : index
              %grc = arith.select %row_in, %gr, %c0 : index
              %nrow = arith.select %row_in, %c8, %c0 : index
              %grco = arith.muli %grc, %k : index
              %gbc = arith.addi %grco, %col : index
              %gic = arith.addi %gbc, %ka : index
              %gk = arith.addi %ka, %col : index
              %k_in = arith.cmpi ult, %gk, %k : index
              %nsrc = arith.select %k_in, %nrow, %c0 : index
              scf.if %bypass {
                %t = nvgpu.device_async_copy %a[%gic], %sa[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %a[%gic], %sa[%si], 8, %nsrc : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            }
          } {tuna.unroll}
          scf.for %i = %c0 to %b_copies step %c1 {
            %ci = arith.muli %i, %b_rpp : index
            %r = arith.addi %ci, %b_tr : index
            %col = arith.muli %b_tc, %c8 : index
            %gro = arith.muli %r, %n : index
            %gc = arith.addi %col0, %col : index
            %gbase = arith.addi %gro, %gc : index
            %gi = arith.addi %gbase, %kan : index
            %atom = arith.divui %b_tc, %c8 : index
            %j = arith.remui %b_tc, %c8 : index
            %r7 = arith.andi %r, %c7 : index
            %sj = arith.xori %j, %r7 : index
            %scol = arith.muli %sj, %c8 : index
            %ao = arith.muli %atom, %batom : index
            %sr = arith.muli %r, %c64 : index
            %s1 = arith.addi %rb_base, %ao : index
            %s2 = arith.addi %s1, %sr : index
            %si = arith.addi %s2, %scol : index
            scf.if %b_whole {
              scf.if %bypass {
                %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } else {
              // Columns past N read column 0 (nothing), as rows past M above;
              // rows past K (the last tile's) read nothing either.
              %col_in = arith.cmpi ult, %gc, %n : index
              %gcc = arith.select %col_in, %gc, %c0 : index
              %ncol = arith.select %col_in, %c8, %c0 : index
              %gbc = arith.addi %gro, %gcc : index
              %gic = arith.addi %gbc, %kan : index
              %gk = arith.addi %ka, %r : index
              %k_in = arith.cmpi ult, %gk, %k : index
              %nsrc = arith.select %k_in, %ncol, %c0 : index
              scf.if %bypass {
                %t = nvgpu.device_async_copy %b[%gic], %sb[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %b[%gic], %sb[%si], 8, %nsrc : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            }
          } {tuna.unroll}
          // tma = 1: thread 0 arms the stage's mbarrier with the stage's
          // bytes and issues its boxes: bk / 64 of A (bm rows x 64 columns
          // each, into A's column blocks) and 4 of B (bk rows x 64 columns
          // each, into B's atoms), which land 128-byte swizzled.
          scf.if %tma_leader {
            %map_a_p = tuna.tensor_map 0 : !llvm.ptr
            %map_b_p = tuna.tensor_map 1 : !llvm.ptr
            %tbo_p = arith.muli %s, %c8 : index
            %tba_p = arith.addi %bars, %tbo_p : index
            %tbi_p = arith.index_cast %tba_p : index to i64
            %tbar_p = llvm.inttoptr %tbi_p : i64 to !llvm.ptr<3>
            nvvm.mbarrier.arrive.expect_tx %tbar_p, %tx_bytes : !llvm.ptr<3>, i32
            %ka32_p = arith.index_cast %ka : index to i32
            %ta0_p = arith.muli %ra_base, %c2 : index
            %ta1_p = arith.addi %saddr, %ta0_p : index
            scf.for %j = %c0 to %a_boxes step %c1 {
              %jo = arith.muli %j, %tma_acb : index
              %da = arith.addi %ta1_p, %jo : index
              %dai = arith.index_cast %da : index to i64
              %dap = llvm.inttoptr %dai : i64 to !llvm.ptr<3>
              %dst = llvm.addrspacecast %dap : !llvm.ptr<3> to !llvm.ptr<7>
              %kj = arith.muli %j, %c64 : index
              %kx = arith.addi %ka, %kj : index
              %kx32 = arith.index_cast %kx : index to i32
              nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map_a_p, %tbar_p, box[%kx32, %row0_32]
                  : !llvm.ptr<7>, !llvm.ptr
            } {tuna.unroll}
            %tb0_p = arith.muli %rb_base, %c2 : index
            %tb1_p = arith.addi %saddr_b, %tb0_p : index
            scf.for %j = %c0 to %b_boxes step %c1 {
              %jo = arith.muli %j, %tma_batom : index
              %db = arith.addi %tb1_p, %jo : index
              %dbi = arith.index_cast %db : index to i64
              %dbp = llvm.inttoptr %dbi : i64 to !llvm.ptr<3>
              %dst = llvm.addrspacecast %dbp : !llvm.ptr<3> to !llvm.ptr<7>
              %nj = arith.muli %j, %c64 : index
              %nx = arith.addi %col0, %nj : index
              %nx32 = arith.index_cast %nx : index to i32
              nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map_b_p, %tbar_p, box[%nx32, %ka32_p]
                  : !llvm.ptr<7>, !llvm.ptr
            } {tuna.unroll}
          }
        }
        scf.if %cpasync {
          nvvm.cp.async.commit.group
        }
      } {tuna.unroll}

      // Descriptor constants (swizzle 128 B; A: LBO 16, SBO 1024;
      // B: LBO 8192, SBO 1024) and this warpgroup's A offset.
      %hi_a = arith.constant 4611686293305360384 : i64
      // B's leading byte offset (the next 64-column atom) is 128 bk bytes.
      %hi_b0 = arith.constant 4611686293305294848 : i64
      %lbo_b0 = arith.muli %bk, %c8 : index
      %lbo_b1 = arith.index_cast %lbo_b0 : index to i64
      %sh16 = arith.constant 16 : i64
      %lbo_b = arith.shli %lbo_b1, %sh16 : i64
      %hi_b = arith.ori %hi_b0, %lbo_b : i64
      // The second 64-column block of A (bk = 128) is 128 bm bytes on.
      %acb_bytes0 = arith.muli %bm, %c8 : index
      %acb_enc = arith.index_cast %acb_bytes0 : index to i64
      %big = arith.cmpi eq, %bk, %c128 : index
      %mask14 = arith.constant 16383 : i64
      %wg_off = arith.muli %wg, %c8192 : index
      %a_stage_bytes = arith.muli %sa_size, %c2 : index
      %b_stage_bytes = arith.muli %sb_size, %c2 : index
      // Tile 0, peeled: its first wgmma ignores the accumulator registers
      // (scale-d 0) instead of adding to zeros written by ordinary moves;
      // ptxas serializes every wgmma of a kernel in which a non-wgmma
      // instruction writes accumulators while wgmma groups are pending
      // (C7515, "Potential Performance Loss"), and the pipeline keeps one
      // group pending across iterations.
      %acc0 = llvm.mlir.poison : !acc
      scf.if %use_tma {
        // tma = 1: tile 0 has landed once stage 0's mbarrier has
        // completed phase 0.
        %ws_0 = arith.remui %c0, %stages : index
        %wr_0 = arith.divui %c0, %stages : index
        %wp_0 = arith.andi %wr_0, %c1 : index
        %wpar_0 = arith.index_cast %wp_0 : index to i32
        %wbo_0 = arith.muli %ws_0, %c8 : index
        %wba_0 = arith.addi %bars, %wbo_0 : index
        %wbi_0 = arith.index_cast %wba_0 : index to i64
        %wbar_0 = llvm.inttoptr %wbi_0 : i64 to !llvm.ptr<3>
        nvvm.mbarrier.try_wait.parity %wbar_0, %wpar_0, %ticks : !llvm.ptr<3>, i32, i32
      } else {
        // Tile 0 has landed once at most stages - 3 + deep groups are pending.
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
        case 4 {
          nvvm.cp.async.wait.group 4
          scf.yield
        }
        case 5 {
          nvvm.cp.async.wait.group 5
          scf.yield
        }
        case 6 {
          nvvm.cp.async.wait.group 6
          scf.yield
        }
        default {
          nvvm.cp.async.wait.group 0
          scf.yield
        }
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      }
      gpu.barrier
      // Stage 0's descriptors.
      %sa2_0 = arith.addi %saddr, %wg_off : index
      %sa_i_0 = arith.index_cast %sa2_0 : index to i64
      %sb_i_0 = arith.index_cast %saddr_b : index to i64
      %sh4_0 = arith.constant 4 : i64
      %sa_4_0 = arith.shrui %sa_i_0, %sh4_0 : i64
      %sb_4_0 = arith.shrui %sb_i_0, %sh4_0 : i64
      %sa_m_0 = arith.andi %sa_4_0, %mask14 : i64
      %sb_m_0 = arith.andi %sb_4_0, %mask14 : i64
      %da0_0 = arith.ori %sa_m_0, %hi_a : i64
      %db0_0 = arith.ori %sb_m_0, %hi_b : i64
      %i2_0 = arith.constant 2 : i64
      %i4_0 = arith.constant 4 : i64
      %i6_0 = arith.constant 6 : i64
      %i128_0 = arith.constant 128 : i64
      %i256_0 = arith.constant 256 : i64
      %i384_0 = arith.constant 384 : i64
      %da1_0 = arith.addi %da0_0, %i2_0 : i64
      %da2_0 = arith.addi %da0_0, %i4_0 : i64
      %da3_0 = arith.addi %da0_0, %i6_0 : i64
      %db1_0 = arith.addi %db0_0, %i128_0 : i64
      %db2_0 = arith.addi %db0_0, %i256_0 : i64
      %db3_0 = arith.addi %db0_0, %i384_0 : i64
      nvvm.wgmma.fence.aligned
      %r0_0 = nvvm.wgmma.mma_async %da0_0, %db0_0, %acc0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
      %r1_0 = nvvm.wgmma.mma_async %da1_0, %db1_0, %r0_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
      %r2_0 = nvvm.wgmma.mma_async %da2_0, %db2_0, %r1_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
      %r3_0 = nvvm.wgmma.mma_async %da3_0, %db3_0, %r2_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
      // bk = 128: four more 16-deep slices, from A's second column block.
      %r7s_0 = scf.if %big -> (!acc) {
        %i512_0 = arith.constant 512 : i64
        %i640_0 = arith.constant 640 : i64
        %i768_0 = arith.constant 768 : i64
        %i896_0 = arith.constant 896 : i64
        %da4_0 = arith.addi %da0_0, %acb_enc : i64
        %da5_0 = arith.addi %da4_0, %i2_0 : i64
        %da6_0 = arith.addi %da4_0, %i4_0 : i64
        %da7_0 = arith.addi %da4_0, %i6_0 : i64
        %db4_0 = arith.addi %db0_0, %i512_0 : i64
        %db5_0 = arith.addi %db0_0, %i640_0 : i64
        %db6_0 = arith.addi %db0_0, %i768_0 : i64
        %db7_0 = arith.addi %db0_0, %i896_0 : i64
        %r4_0 = nvvm.wgmma.mma_async %da4_0, %db4_0, %r3_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r5_0 = nvvm.wgmma.mma_async %da5_0, %db5_0, %r4_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r6_0 = nvvm.wgmma.mma_async %da6_0, %db6_0, %r5_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r7_0 = nvvm.wgmma.mma_async %da7_0, %db7_0, %r6_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        scf.yield %r7_0 : !acc
      } else {
        scf.yield %r3_0 : !acc
      }
      nvvm.wgmma.commit.group.sync.aligned

      // Iteration kt finishes tile kt - 1's (the refill), then works on
      // tile kt.
      %accf = scf.for %kt = %c1 to %ktiles step %c1 iter_args(%acc = %r7s_0) -> (!acc) {
        // deep = 0 refills the stage of tile kt - 3, which everyone is done
        // with since the barrier of iteration kt - 1 (each warpgroup had
        // waited for its wgmma of kt - 3 before it), so the copies go out
        // while tile kt - 1's wgmma runs; then this warpgroup waits for
        // its wgmma of kt - 2. deep = 1 refills the stage of tile kt - 2:
        // it waits for that wgmma and meets the others at a second barrier
        // first, one tile more in flight for one barrier more.
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
          %kan = arith.muli %ka, %n : index
          %ra_base = arith.muli %rs, %sa_size : index
          %rb_base = arith.muli %rs, %sb_size : index
          scf.for %i = %c0 to %a_copies step %c1 {
            %ci = arith.muli %i, %a_rpp : index
            %r = arith.addi %ci, %a_tr : index
            %col = arith.muli %a_tj, %c8 : index
            %gr = arith.addi %row0, %r : index
            %gro = arith.muli %gr, %k : index
            %gbase = arith.addi %gro, %col : index
            %gi = arith.addi %gbase, %ka : index
            %cb = arith.divui %a_tj, %c8 : index
            %jj = arith.remui %a_tj, %c8 : index
            %r7 = arith.andi %r, %c7 : index
            %sj = arith.xori %jj, %r7 : index
            %scol = arith.muli %sj, %c8 : index
            %cbo = arith.muli %cb, %acb : index
            %sr = arith.muli %r, %c64 : index
            %sr1 = arith.addi %ra_base, %cbo : index
            %sr2 = arith.addi %sr1, %sr : index
            %si = arith.addi %sr2, %scol : index
            scf.if %whole {
              scf.if %bypass {
                %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %a[%gi], %sa[%si], 8 : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } else {
              // Rows past M read row 0 (nothing: src-size 0); both the row
              // and its source size are the thread's own for every tile.
              %row_in = arith.cmpi ult, %gr, %m : index
              %grc = arith.select %row_in, %gr, %c0 : index
              %nrow = arith.select %row_in, %c8, %c0 : index
              %grco = arith.muli %grc, %k : index
              %gbc = arith.addi %grco, %col : index
              %gic = arith.addi %gbc, %ka : index
              %gk = arith.addi %ka, %col : index
              %k_in = arith.cmpi ult, %gk, %k : index
              %nsrc = arith.select %k_in, %nrow, %c0 : index
              scf.if %bypass {
                %t = nvgpu.device_async_copy %a[%gic], %sa[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %a[%gic], %sa[%si], 8, %nsrc : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            }
          } {tuna.unroll}
          scf.for %i = %c0 to %b_copies step %c1 {
            %ci = arith.muli %i, %b_rpp : index
            %r = arith.addi %ci, %b_tr : index
            %col = arith.muli %b_tc, %c8 : index
            %gro = arith.muli %r, %n : index
            %gc = arith.addi %col0, %col : index
            %gbase = arith.addi %gro, %gc : index
            %gi = arith.addi %gbase, %kan : index
            %atom = arith.divui %b_tc, %c8 : index
            %j = arith.remui %b_tc, %c8 : index
            %r7 = arith.andi %r, %c7 : index
            %sj = arith.xori %j, %r7 : index
            %scol = arith.muli %sj, %c8 : index
            %ao = arith.muli %atom, %batom : index
            %sr = arith.muli %r, %c64 : index
            %s1 = arith.addi %rb_base, %ao : index
            %s2 = arith.addi %s1, %sr : index
            %si = arith.addi %s2, %scol : index
            scf.if %b_whole {
              scf.if %bypass {
                %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %b[%gi], %sb[%si], 8 : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            } else {
              // Columns past N read column 0 (nothing), as rows past M above;
              // rows past K (the last tile's) read nothing either.
              %col_in = arith.cmpi ult, %gc, %n : index
              %gcc = arith.select %col_in, %gc, %c0 : index
              %ncol = arith.select %col_in, %c8, %c0 : index
              %gbc = arith.addi %gro, %gcc : index
              %gic = arith.addi %gbc, %kan : index
              %gk = arith.addi %ka, %r : index
              %k_in = arith.cmpi ult, %gk, %k : index
              %nsrc = arith.select %k_in, %ncol, %c0 : index
              scf.if %bypass {
                %t = nvgpu.device_async_copy %b[%gic], %sb[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              } else {
                %t = nvgpu.device_async_copy %b[%gic], %sb[%si], 8, %nsrc : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
              }
            }
          } {tuna.unroll}
          // tma = 1: thread 0 arms the stage's mbarrier with the stage's
          // bytes and issues its boxes: bk / 64 of A (bm rows x 64 columns
          // each, into A's column blocks) and 4 of B (bk rows x 64 columns
          // each, into B's atoms), which land 128-byte swizzled.
          scf.if %tma_leader {
            %map_a_r = tuna.tensor_map 0 : !llvm.ptr
            %map_b_r = tuna.tensor_map 1 : !llvm.ptr
            %tbo_r = arith.muli %rs, %c8 : index
            %tba_r = arith.addi %bars, %tbo_r : index
            %tbi_r = arith.index_cast %tba_r : index to i64
            %tbar_r = llvm.inttoptr %tbi_r : i64 to !llvm.ptr<3>
            nvvm.mbarrier.arrive.expect_tx %tbar_r, %tx_bytes : !llvm.ptr<3>, i32
            %ka32_r = arith.index_cast %ka : index to i32
            %ta0_r = arith.muli %ra_base, %c2 : index
            %ta1_r = arith.addi %saddr, %ta0_r : index
            scf.for %j = %c0 to %a_boxes step %c1 {
              %jo = arith.muli %j, %tma_acb : index
              %da = arith.addi %ta1_r, %jo : index
              %dai = arith.index_cast %da : index to i64
              %dap = llvm.inttoptr %dai : i64 to !llvm.ptr<3>
              %dst = llvm.addrspacecast %dap : !llvm.ptr<3> to !llvm.ptr<7>
              %kj = arith.muli %j, %c64 : index
              %kx = arith.addi %ka, %kj : index
              %kx32 = arith.index_cast %kx : index to i32
              nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map_a_r, %tbar_r, box[%kx32, %row0_32]
                  : !llvm.ptr<7>, !llvm.ptr
            } {tuna.unroll}
            %tb0_r = arith.muli %rb_base, %c2 : index
            %tb1_r = arith.addi %saddr_b, %tb0_r : index
            scf.for %j = %c0 to %b_boxes step %c1 {
              %jo = arith.muli %j, %tma_batom : index
              %db = arith.addi %tb1_r, %jo : index
              %dbi = arith.index_cast %db : index to i64
              %dbp = llvm.inttoptr %dbi : i64 to !llvm.ptr<3>
              %dst = llvm.addrspacecast %dbp : !llvm.ptr<3> to !llvm.ptr<7>
              %nj = arith.muli %j, %c64 : index
              %nx = arith.addi %col0, %nj : index
              %nx32 = arith.index_cast %nx : index to i32
              nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map_b_r, %tbar_r, box[%nx32, %ka32_r]
                  : !llvm.ptr<7>, !llvm.ptr
            } {tuna.unroll}
          }
        }
        scf.if %cpasync {
          nvvm.cp.async.commit.group
        }
        scf.if %deep0 {
          nvvm.wgmma.wait.group.sync.aligned 1
        }
        scf.if %use_tma {
          // tma = 1: tile kt has landed once its stage's mbarrier has
          // completed phase kt / stages mod 2.
          %ws = arith.remui %kt, %stages : index
          %wr = arith.divui %kt, %stages : index
          %wp = arith.andi %wr, %c1 : index
          %wpar = arith.index_cast %wp : index to i32
          %wbo = arith.muli %ws, %c8 : index
          %wba = arith.addi %bars, %wbo : index
          %wbi = arith.index_cast %wba : index to i64
          %wbar = llvm.inttoptr %wbi : i64 to !llvm.ptr<3>
          nvvm.mbarrier.try_wait.parity %wbar, %wpar, %ticks : !llvm.ptr<3>, i32, i32
        } else {
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
          case 4 {
            nvvm.cp.async.wait.group 4
            scf.yield
          }
          case 5 {
            nvvm.cp.async.wait.group 5
            scf.yield
          }
          case 6 {
            nvvm.cp.async.wait.group 6
            scf.yield
          }
          default {
            nvvm.cp.async.wait.group 0
            scf.yield
          }
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        }
        gpu.barrier

        // Tensor-core work on stage kt mod stages.
        %s = arith.remui %kt, %stages : index
        %sao = arith.muli %s, %a_stage_bytes : index
        %sa1 = arith.addi %saddr, %sao : index
        %sa2 = arith.addi %sa1, %wg_off : index
        %sbo = arith.muli %s, %b_stage_bytes : index
        %sb1 = arith.addi %saddr_b, %sbo : index
        %sa_i = arith.index_cast %sa2 : index to i64
        %sb_i = arith.index_cast %sb1 : index to i64
        %sh4 = arith.constant 4 : i64
        %sa_4 = arith.shrui %sa_i, %sh4 : i64
        %sb_4 = arith.shrui %sb_i, %sh4 : i64
        %sa_m = arith.andi %sa_4, %mask14 : i64
        %sb_m = arith.andi %sb_4, %mask14 : i64
        %da0 = arith.ori %sa_m, %hi_a : i64
        %db0 = arith.ori %sb_m, %hi_b : i64
        %i2 = arith.constant 2 : i64
        %i4 = arith.constant 4 : i64
        %i6 = arith.constant 6 : i64
        %i128 = arith.constant 128 : i64
        %i256 = arith.constant 256 : i64
        %i384 = arith.constant 384 : i64
        %da1 = arith.addi %da0, %i2 : i64
        %da2 = arith.addi %da0, %i4 : i64
        %da3 = arith.addi %da0, %i6 : i64
        %db1 = arith.addi %db0, %i128 : i64
        %db2 = arith.addi %db0, %i256 : i64
        %db3 = arith.addi %db0, %i384 : i64
        nvvm.wgmma.fence.aligned
        %r0 = nvvm.wgmma.mma_async %da0, %db0, %acc, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r1 = nvvm.wgmma.mma_async %da1, %db1, %r0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r2 = nvvm.wgmma.mma_async %da2, %db2, %r1, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        %r3 = nvvm.wgmma.mma_async %da3, %db3, %r2, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
        // bk = 128: four more 16-deep slices, from A's second column block.
        %r7s = scf.if %big -> (!acc) {
          %i512 = arith.constant 512 : i64
          %i640 = arith.constant 640 : i64
          %i768 = arith.constant 768 : i64
          %i896 = arith.constant 896 : i64
          %da4 = arith.addi %da0, %acb_enc : i64
          %da5 = arith.addi %da4, %i2 : i64
          %da6 = arith.addi %da4, %i4 : i64
          %da7 = arith.addi %da4, %i6 : i64
          %db4 = arith.addi %db0, %i512 : i64
          %db5 = arith.addi %db0, %i640 : i64
          %db6 = arith.addi %db0, %i768 : i64
          %db7 = arith.addi %db0, %i896 : i64
          %r4 = nvvm.wgmma.mma_async %da4, %db4, %r3, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r5 = nvvm.wgmma.mma_async %da5, %db5, %r4, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r6 = nvvm.wgmma.mma_async %da6, %db6, %r5, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r7 = nvvm.wgmma.mma_async %da7, %db7, %r6, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          scf.yield %r7 : !acc
        } else {
          scf.yield %r3 : !acc
        }
        nvvm.wgmma.commit.group.sync.aligned
        scf.yield %r7s : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      scf.if %cpasync {
        nvvm.cp.async.wait.group 0
      }
      gpu.barrier

      // Epilogue: accumulators to shared memory (fp32, 264-float rows), then
      // 16-byte fp16 stores of 8 consecutive columns. The store op wants a
      // 64 x 256 destination, but its lowering puts warp w's rows at 16 w
      // from the block's thread id: warpgroup 1 writes rows 64..127 of the
      // same view, inside the 128-row buffer.
      %cs = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x264xf32, #gpu.address_space<workgroup>>
      %accp0 = llvm.mlir.poison : !llvm.struct<(!acc)>
      %accp = llvm.insertvalue %accf, %accp0[0] : !llvm.struct<(!acc)>
      %accw = builtin.unrealized_conversion_cast %accp : !llvm.struct<(!acc)> to !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
      %cs64 = memref.reinterpret_cast %cs to offset: [0], sizes: [64, 256], strides: [264, 1] : memref<128x264xf32, #gpu.address_space<workgroup>> to memref<64x256xf32, strided<[264, 1]>, #gpu.address_space<workgroup>>
      nvgpu.warpgroup.mma.store %accw, %cs64 : !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>> to memref<64x256xf32, strided<[264, 1]>, #gpu.address_space<workgroup>>
      gpu.barrier
      // split > 1: the cluster's blocks meet once every tile is in shared
      // memory (the cluster barrier orders the stores before the reads),
      // then block z sums chunks [z C / split, (z + 1) C / split) of the C
      // chunks of 8 columns (rows [z bm / split, (z + 1) bm / split)) of
      // the split tiles, reading the others' shared memory (mapa), in
      // block order, nthreads chunks a pass: where split does not divide
      // the passes (the narrower tiles' kernels, split up to 8), a block's
      // last pass is partial.
      scf.if %clustered {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }
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
        %h = arith.truncf %v : vector<8xf32> to vector<8xf16>
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
          vector.store %h, %c[%gi] {alignment = 16} : memref<?xf16>, vector<8xf16>
        }
      } {tuna.unroll}
      // No block of the cluster leaves (and frees its shared memory) while
      // another may still read its tile.
      scf.if %clustered {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }
      // split >= 16 (the header has the protocol): one bulk reduce-add a
      // row of the block's fp32 tile into @split_sums, the block's arrival
      // counted once every row's addition has completed, and the last block
      // to arrive rounds and stores the tile and leaves zeros.
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
              %uh = arith.truncf %u : vector<8xf32> to vector<8xf16>
              vector.store %uh, %c[%fgi] {alignment = 16} : memref<?xf16>, vector<8xf16>
            }
          }
        }
      }
      gpu.return
    }
  }
}
