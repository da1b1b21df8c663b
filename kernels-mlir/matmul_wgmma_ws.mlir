// C = A B for row-major fp16 matrices on Hopper's warpgroup tensor cores
// (wgmma, sm_90a), warp-specialized and persistent: A is M x K, B is K x N,
// C is M x N (overwritten), all contiguous; fp32 accumulation, fp16 output.
// The same product as matmul_f16_wgmma (kernels-mlir/matmul_wgmma.mlir,
// whose header describes the shared-memory layouts and descriptors this
// kernel reuses), organized the way CUTLASS's and cuBLAS's Hopper kernels
// are: no block-wide barrier in the main loop, and the loads of the next
// tile of C overlap the current tile's epilogue.
//
// A block of three warpgroups (384 threads) stays resident on an SM and
// walks the 128 x 256 tiles of C t = block, block + ctas, ... (ctas
// blocks; `ctas` = the H100's 132 SMs where one block fits per SM; any
// value is correct), in gm-grouped order (Triton's GROUP_M):
//  - warpgroup 2, the producer, gives back registers (with TMA:
//    setmaxnreg 40) and fills a ring of `stages` shared-memory stages with
//    the k tiles (bk = 64) of its tiles in order: per k tile, it waits
//    until the stage is free (the stage's `empty` mbarrier), loads A's
//    128 x 64 and B's 64 x 256 tile into it and signals the stage's `full`
//    mbarrier. With
//    tma = 1 one thread issues six TMA boxes (A: two 64 x 64 halves, B:
//    four 64 x 64 atoms) after mbarrier.arrive.expect_tx of the stage's 48 KiB;
//    the box parts past M, N or K are zero-filled, so any M and any N and K
//    that are multiples of 8 run unmasked. A's and B's maps promote L2
//    fills to 128 bytes, a box row: with 256, rows off the 128-byte lines
//    ran slower (e4m3 1000 x 3008 x 5008 and 4000 x 4016 x 3984 7-10%,
//    fp16 4000 x 4008 x 3992 1.5%; docs/benchmarks.md). With tma = 0 (the
//    default: it takes no tensor map, so it runs where TMA cannot describe
//    a buffer) all 128 threads copy 16-byte chunks with cp.async
//    (zero-filling those past M, N or K) and arrive on `full` once their
//    copies have landed (cp.async.mbarrier.arrive.noinc).
//  - warpgroups 0 and 1, the consumers, take them (with TMA: setmaxnreg
//    232) and each computes 64 rows of the tile (a 64 x 256 fp32 accumulator,
//    128 floats a thread): per k tile they wait for `full`, issue four
//    m64n256k16 wgmma and commit, then wait for the previous k tile's group
//    and release that tile's stage (lane 0 of each of the 8 consumer warps
//    arrives on `empty`; the warp-wide wait has seen the whole warp's
//    reads). The first k tile of a tile of C ignores the accumulator
//    registers (scale-d 0; see matmul_wgmma.mlir on ptxas's C7515).
//    tma = 0: cp.async writes through the generic proxy, so a consumer
//    fences the async proxy (which wgmma reads through) after its wait.
//  - Epilogue: with tma = 1, per 64-column chunk of its 64 x 256, a
//    consumer warpgroup writes its fp16 pairs to one of two 8 KiB buffers
//    (128-byte swizzled rows), fences the async proxy, meets at its own
//    named barrier, and its first thread stores the chunk with TMA (a third
//    tensor map, C's; TMA clips the box at M and N) as a bulk async group;
//    before a buffer is rewritten that thread waits until at most one group
//    still reads shared memory (none before a tile's first chunk: the
//    previous tile's last chunk may have used the same buffer). The stores
//    complete while the consumers go
//    on with their next tile. With tma = 0 each thread stores its fp16
//    pairs to C (4 bytes each, rows past M and columns past N skipped).
//    Meanwhile the producer already loads the block's next tile into the
//    stages the consumers released.
//  - Clusters (mc x nc > 1, with tma = 1; tma = 0 forms them but each
//    block loads its whole stage): mc nc consecutive blocks (the space's
//    `cluster` map) walk tiles of mc 128 x nc 256 in the same order, block
//    r = rm + mc rn computing the tile's 128 x 256 part (rm, rn). Blocks of
//    a column share B's k tile (block rm loads atoms j = rm mod mc), blocks
//    of a row A's (block rn loads 64-row halves h = rn mod nc), with TMA
//    multicast into the same stage of each sharer, signalling each one's
//    `full`, whose expect_tx stays the whole 48 KiB. A stage is free once
//    the consumers of every block it was loaded into have read it: lane
//    r of every consumer warp arrives on block r's `empty` when block r
//    shares its row or column (mapa; .cta semantics: a
//    .cluster-scoped release costs a MEMBAR.GPU an arrival and made the
//    kernel 1.5x slower), 8 (mc + nc - 1) arrivals a phase. The cluster
//    meets after the mbarriers' initialization and before its blocks
//    leave. A block loads 32 KiB a k tile with mc = 2 (24 with 2 x 2)
//    instead of 48, which makes shapes whose rows are off the 128-byte
//    lines (each box row two lines) 1.3-1.4x faster; aligned squares run
//    as fast as without clusters or slower. Clusters of 4 need `ctas` at
//    most 4 x the clusters that fit at once (30 on the H100: with 124 or
//    132 blocks 4096^3 ran 1.5-1.8x slower than with 120). A cluster's last block row
//    or column may lie past M or N: its loads read zeros, its stores are
//    clipped.
// Phases: the i-th k tile the block handles (counted across its tiles of
// C) uses stage i mod stages in round i / stages; `full` completes its
// phase r mod 2 when round r's data has landed, `empty` when round r's
// data has been read, and the producer's wait for round r > 0 is the
// completion of `empty`'s phase (r - 1) mod 2; the parity (r mod 2) xor 1
// of a fresh mbarrier counts as completed, so round 0 does not wait.
// Shared memory, from the first 1024-byte aligned address: `stages` A
// tiles (16 KiB each, 128-byte swizzled rows), `stages` B tiles (32 KiB
// each, four 64-column atoms), the epilogue's four 8 KiB buffers (two a
// consumer warpgroup), the full and the empty mbarriers: 230464 bytes with
// 4 stages, the most that fits in 227 KiB.
// Shapes: any M, N and K multiples of 8 (16-byte rows for TMA and
// cp.async), M, N, K >= 1; `ctas` a multiple of mc nc (it is the grid). Needs
// sm_90a and --max-shared-memory=232448.

#shapes = affine_set<(m, n, k)[stages, gm, tma, mc, nc, ctas] : (n mod 8 == 0, k mod 8 == 0, m - 1 >= 0, n - 1 >= 0, k - 1 >= 0)>
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @matmul_f16_wgmma_ws(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf16>,
                                  %m: index, %n: index, %k: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"stages">, #tuna.param<"gm">, #tuna.param<"tma">, #tuna.param<"mc">,
                  #tuna.param<"nc">, #tuna.param<"ctas">],
        configs = [{stages = 4, gm = 8, tma = 1, mc = 1, nc = 1, ctas = 132},
                   {stages = 4, gm = 16, tma = 1, mc = 1, nc = 1, ctas = 132},
                   {stages = 4, gm = 4, tma = 1, mc = 1, nc = 1, ctas = 132},
                   {stages = 4, gm = 1, tma = 1, mc = 1, nc = 1, ctas = 132},
                   {stages = 3, gm = 8, tma = 1, mc = 1, nc = 1, ctas = 132},
                   {stages = 4, gm = 8, tma = 1, mc = 2, nc = 1, ctas = 132},
                   {stages = 4, gm = 4, tma = 1, mc = 2, nc = 1, ctas = 132},
                   {stages = 3, gm = 8, tma = 1, mc = 2, nc = 1, ctas = 132},
                   {stages = 4, gm = 8, tma = 1, mc = 1, nc = 2, ctas = 132},
                   {stages = 4, gm = 8, tma = 1, mc = 2, nc = 2, ctas = 120},
                   {stages = 4, gm = 4, tma = 1, mc = 2, nc = 2, ctas = 120},
                   {stages = 4, gm = 8, tma = 0, mc = 1, nc = 1, ctas = 132}],
        defaults = {stages = 4, gm = 8, tma = 0, mc = 1, nc = 1, ctas = 132},
        constraints = [#shapes],
        key = [#tuna.key<arg = 3>, #tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (ctas)>,
        block = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (384)>,
        cluster = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (mc * nc)>,
        smem = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (stages * 49168 + 33792)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (64, 64)>,
                                        shape = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (m, k)>,
                                        swizzle = 128, l2_promotion = 128>,
                       #tuna.tensor_map<arg = 1, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (64, 64)>,
                                        shape = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (k, n)>,
                                        swizzle = 128, l2_promotion = 128>,
                       #tuna.tensor_map<arg = 2, box = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (64, 64)>,
                                        shape = affine_map<(m, n, k)[stages, gm, tma, mc, nc, ctas] -> (m, n)>,
                                        swizzle = 128>],
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %stages = tuna.param "stages" : index
      %gm = tuna.param "gm" : index
      %tma = tuna.param "tma" : index
      %mc = tuna.param "mc" : index
      %nc = tuna.param "nc" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c1024 = arith.constant 1024 : index
      %c4096 = arith.constant 4096 : index
      %c8192 = arith.constant 8192 : index
      %c16384 = arith.constant 16384 : index
      %c32768 = arith.constant 32768 : index
      // The tile's width and what follows from it: B's stage (halfs,
      // bytes), a stage's transaction bytes (A's 16 KiB and B's), B's
      // 64-column atoms, 16-byte chunks of a row of B and copies of them a
      // producer thread, the epilogue's 8-column groups of a row.
      %bn = arith.constant 256 : index
      %b_stage = arith.constant 16384 : index
      %b_stage_bytes = arith.constant 32768 : index
      %tx = arith.constant 49152 : i32
      %b_atoms = arith.constant 4 : index
      %b_row_chunks = arith.constant 32 : index
      %b_copies = arith.constant 16 : index
      %col_groups = arith.constant 32 : index
      %one64 = arith.constant 1 : i64
      // The consumers' accumulator goes through this buffer in the
      // epilogue, read an element at a time (LLVM's SROA keeps it in
      // registers once the indices are constants).
      %accbuf = llvm.alloca %one64 x !acc : (i64) -> !llvm.ptr
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %ctas = gpu.grid_dim x
      %wg = arith.divui %tid, %c128 : index
      // The block's cluster (mc nc consecutive blocks), its rank there and
      // its place (rm, rn) in the cluster's mc x nc tiles of C. The blocks
      // of a column (rn) share B's k tile, those of a row (rm) A's: the
      // multicast masks of the blocks rn mc .. rn mc + mc - 1 and of the
      // blocks rm + q mc, q < nc ((2^(mc nc) - 1) / (2^mc - 1) is the
      // bits 0, mc, 2 mc, ...).
      %csize = arith.muli %mc, %nc : index
      %cid = arith.divui %bid, %csize : index
      %rank = arith.remui %bid, %csize : index
      %rm = arith.remui %rank, %mc : index
      %rn = arith.divui %rank, %mc : index
      %nclusters = arith.divui %ctas, %csize : index
      %multicast = arith.cmpi ugt, %csize, %c1 : index
      %share_b = arith.cmpi ugt, %mc, %c1 : index
      %share_a = arith.cmpi ugt, %nc, %c1 : index
      %one16 = arith.constant 1 : i16
      %mc16 = arith.index_cast %mc : index to i16
      %cs16 = arith.index_cast %csize : index to i16
      %rm16 = arith.index_cast %rm : index to i16
      %rn16 = arith.index_cast %rn : index to i16
      %mc_bits = arith.shli %one16, %mc16 : i16
      %col_bits = arith.subi %mc_bits, %one16 : i16
      %rn_shift = arith.muli %rn16, %mc16 : i16
      %mask_b = arith.shli %col_bits, %rn_shift : i16
      %cs_bits = arith.shli %one16, %cs16 : i16
      %all_bits = arith.subi %cs_bits, %one16 : i16
      %row_bits = arith.divui %all_bits, %col_bits : i16
      %mask_a = arith.shli %row_bits, %rm16 : i16
      %ntn0 = arith.ceildivui %n, %bn : index
      %ntn = arith.ceildivui %ntn0, %nc : index
      %ntm0 = arith.ceildivui %m, %c128 : index
      %ntm = arith.ceildivui %ntm0, %mc : index
      %ntiles = arith.muli %ntn, %ntm : index
      %ktiles = arith.ceildivui %k, %c64 : index
      %gwidth = arith.muli %gm, %ntn : index
      %use_tma = arith.cmpi ne, %tma, %c0 : index
      %cpasync = arith.cmpi eq, %tma, %c0 : index

      // Shared memory: A's stages, B's stages, the full and the empty
      // mbarriers, from the first 1024-byte aligned address.
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sraw = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %mis = arith.remui %sraw, %c1024 : index
      %shift0 = arith.subi %c1024, %mis : index
      %shift = arith.remui %shift0, %c1024 : index
      %saddr = arith.addi %sraw, %shift : index
      %na = arith.muli %stages, %c8192 : index
      %nb = arith.muli %stages, %b_stage : index
      %sa = memref.view %smem[%shift][%na] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %na2 = arith.muli %na, %c2 : index
      %sb_off = arith.addi %shift, %na2 : index
      %sb = memref.view %smem[%sb_off][%nb] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf16, #gpu.address_space<workgroup>>
      %saddr_b = arith.addi %saddr, %na2 : index
      %nb2 = arith.muli %nb, %c2 : index
      %ebufs = arith.addi %saddr_b, %nb2 : index
      %full = arith.addi %ebufs, %c32768 : index
      %bars_len = arith.muli %stages, %c8 : index
      %empty = arith.addi %full, %bars_len : index
      %ticks = arith.constant 10000000 : i32

      // Thread 0 initializes the mbarriers: `full` expects one arrival a
      // phase with TMA (the producer's expect_tx) and 128 without (every
      // producer thread's cp.async arrival), `empty` 8 mc (every consumer
      // warp of the cluster's blocks); the fence makes them visible to the
      // async proxy and the cluster, the barrier to the other threads (with
      // mc > 1, the cluster barrier to the other blocks, before their TMA
      // loads and arrivals reach this block's mbarriers).
      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is_t0 {
        %one = arith.constant 1 : i32
        %c128_32 = arith.constant 128 : i32
        %full_count = arith.select %use_tma, %one, %c128_32 : i32
        %sharers0 = arith.addi %mc, %nc : index
        %sharers = arith.subi %sharers0, %c1 : index
        %warps = arith.muli %sharers, %c8 : index
        %empty_count = arith.index_cast %warps : index to i32
        scf.for %s = %c0 to %stages step %c1 {
          %o = arith.muli %s, %c8 : index
          %fa = arith.addi %full, %o : index
          %fi = arith.index_cast %fa : index to i64
          %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %fp, %full_count : !llvm.ptr<3>, i32
          %ea = arith.addi %empty, %o : index
          %ei = arith.index_cast %ea : index to i64
          %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %ep, %empty_count : !llvm.ptr<3>, i32
        } {tuna.unroll}
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      scf.if %multicast {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }

      %is_producer = arith.cmpi eq, %wg, %c2 : index
      scf.if %is_producer {
        // With TMA the producer gives back the registers it does not need
        // to the consumers: 128 x 40 + 256 x 232 of the block's 65536. The
        // cp.async producer's address arithmetic needs them (all threads
        // keep the 168 of the launch; the consumers spill 56 bytes).
        scf.if %use_tma {
          nvvm.setmaxregister decrease 40
        }
        %ptid = arith.subi %tid, %c256 : index
        %is_leader = arith.cmpi eq, %ptid, %c0 : index
        %loads = arith.ori %cpasync, %is_leader : i1
        // A thread's cp.async chunks (tma = 0): A's column chunk ptid mod 8
        // of rows ptid / 8 + 16 i (the swizzle, by row mod 8, is the
        // thread's own), B's chunks ptid + 128 i of the tile's.
        %a_j = arith.remui %ptid, %c8 : index
        %a_r = arith.divui %ptid, %c8 : index
        %a_r7 = arith.andi %a_r, %c7 : index
        %a_sj = arith.xori %a_j, %a_r7 : index
        %a_scol = arith.muli %a_sj, %c8 : index
        %a_srow = arith.muli %a_r, %c64 : index
        %a_soff = arith.addi %a_srow, %a_scol : index
        %a_col = arith.muli %a_j, %c8 : index
        scf.if %loads {
          %done = scf.for %t = %cid to %ntiles step %nclusters iter_args(%it0 = %c0) -> (index) {
            %group = arith.divui %t, %gwidth : index
            %gfirst = arith.muli %group, %gm : index
            %grest = arith.subi %ntm, %gfirst : index
            %gsize = arith.minui %grest, %gm : index
            %ging = arith.remui %t, %gwidth : index
            %pm0 = arith.remui %ging, %gsize : index
            %pmc = arith.addi %gfirst, %pm0 : index
            %pmc_r = arith.muli %pmc, %mc : index
            %pm = arith.addi %pmc_r, %rm : index
            %pnc = arith.divui %ging, %gsize : index
            %pnc_r = arith.muli %pnc, %nc : index
            %pn = arith.addi %pnc_r, %rn : index
            %row0 = arith.muli %pm, %c128 : index
            %col0 = arith.muli %pn, %bn : index
            %it_end = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%it = %it0) -> (index) {
              %s = arith.remui %it, %stages : index
              %round = arith.divui %it, %stages : index
              %rpar = arith.andi %round, %c1 : index
              %epar = arith.xori %rpar, %c1 : index
              %epar32 = arith.index_cast %epar : index to i32
              %bo = arith.muli %s, %c8 : index
              %ea = arith.addi %empty, %bo : index
              %ei = arith.index_cast %ea : index to i64
              %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
              nvvm.mbarrier.try_wait.parity %ep, %epar32, %ticks : !llvm.ptr<3>, i32, i32
              %fa = arith.addi %full, %bo : index
              %fi = arith.index_cast %fa : index to i64
              %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
              %ka = arith.muli %kt, %c64 : index
              %sa_base = arith.muli %s, %c8192 : index
              %sb_base = arith.muli %s, %b_stage : index
              scf.if %use_tma {
                %map_a = tuna.tensor_map 0 : !llvm.ptr
                %map_b = tuna.tensor_map 1 : !llvm.ptr
                nvvm.mbarrier.arrive.expect_tx %fp, %tx : !llvm.ptr<3>, i32
                %ka32 = arith.index_cast %ka : index to i32
                %sa_bytes = arith.muli %sa_base, %c2 : index
                %da = arith.addi %saddr, %sa_bytes : index
                // A's tile as two 64-row halves (8 KiB each); with nc > 1
                // block rn loads halves h = rn mod nc into its row's blocks.
                scf.for %h = %c0 to %c2 step %c1 {
                  %hr = arith.remui %h, %nc : index
                  %mine_a = arith.cmpi eq, %hr, %rn : index
                  scf.if %mine_a {
                    %ho = arith.muli %h, %c8192 : index
                    %dah = arith.addi %da, %ho : index
                    %dai = arith.index_cast %dah : index to i64
                    %dap = llvm.inttoptr %dai : i64 to !llvm.ptr<3>
                    %dsta = llvm.addrspacecast %dap : !llvm.ptr<3> to !llvm.ptr<7>
                    %hrow = arith.muli %h, %c64 : index
                    %arow = arith.addi %row0, %hrow : index
                    %arow32 = arith.index_cast %arow : index to i32
                    scf.if %share_a {
                      nvvm.cp.async.bulk.tensor.shared.cluster.global %dsta, %map_a, %fp, box[%ka32, %arow32] multicast_mask = %mask_a
                          : !llvm.ptr<7>, !llvm.ptr
                    } else {
                      nvvm.cp.async.bulk.tensor.shared.cluster.global %dsta, %map_a, %fp, box[%ka32, %arow32]
                          : !llvm.ptr<7>, !llvm.ptr
                    }
                  }
                } {tuna.unroll}
                %sb_bytes = arith.muli %sb_base, %c2 : index
                %db0 = arith.addi %saddr_b, %sb_bytes : index
                // With mc > 1 the blocks of a cluster column share B's
                // tile: block rm loads atoms j = rm mod mc into every block
                // of its column (the same offsets, each block's `full`).
                scf.for %j = %c0 to %b_atoms step %c1 {
                  %jr = arith.remui %j, %mc : index
                  %mine = arith.cmpi eq, %jr, %rm : index
                  scf.if %mine {
                    %jo = arith.muli %j, %c8192 : index
                    %db = arith.addi %db0, %jo : index
                    %dbi = arith.index_cast %db : index to i64
                    %dbp = llvm.inttoptr %dbi : i64 to !llvm.ptr<3>
                    %dstb = llvm.addrspacecast %dbp : !llvm.ptr<3> to !llvm.ptr<7>
                    %nj = arith.muli %j, %c64 : index
                    %nx = arith.addi %col0, %nj : index
                    %nx32 = arith.index_cast %nx : index to i32
                    scf.if %share_b {
                      nvvm.cp.async.bulk.tensor.shared.cluster.global %dstb, %map_b, %fp, box[%nx32, %ka32] multicast_mask = %mask_b
                          : !llvm.ptr<7>, !llvm.ptr
                    } else {
                      nvvm.cp.async.bulk.tensor.shared.cluster.global %dstb, %map_b, %fp, box[%nx32, %ka32]
                          : !llvm.ptr<7>, !llvm.ptr
                    }
                  }
                } {tuna.unroll}
              } else {
                // Chunks past M, N or K read nothing (src-size 0, from
                // offset 0) and zero-fill.
                %gk = arith.addi %ka, %a_col : index
                %ak_in = arith.cmpi ult, %gk, %k : index
                scf.for %i = %c0 to %c8 step %c1 {
                  %ri = arith.muli %i, %c16 : index
                  %r = arith.addi %a_r, %ri : index
                  %gr = arith.addi %row0, %r : index
                  %row_in = arith.cmpi ult, %gr, %m : index
                  %in = arith.andi %row_in, %ak_in : i1
                  %gro = arith.muli %gr, %k : index
                  %gi0 = arith.addi %gro, %gk : index
                  %gi = arith.select %in, %gi0, %c0 : index
                  %nsrc = arith.select %in, %c8, %c0 : index
                  %so0 = arith.muli %ri, %c64 : index
                  %so1 = arith.addi %sa_base, %so0 : index
                  %si = arith.addi %so1, %a_soff : index
                  %tok = nvgpu.device_async_copy %a[%gi], %sa[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
                } {tuna.unroll}
                scf.for %i = %c0 to %b_copies step %c1 {
                  %ci = arith.muli %i, %c128 : index
                  %chunk = arith.addi %ci, %ptid : index
                  %r = arith.divui %chunk, %b_row_chunks : index
                  %cc = arith.remui %chunk, %b_row_chunks : index
                  %col = arith.muli %cc, %c8 : index
                  %gc = arith.addi %col0, %col : index
                  %col_in = arith.cmpi ult, %gc, %n : index
                  %gkr = arith.addi %ka, %r : index
                  %k_in = arith.cmpi ult, %gkr, %k : index
                  %in = arith.andi %col_in, %k_in : i1
                  %gro = arith.muli %gkr, %n : index
                  %gi0 = arith.addi %gro, %gc : index
                  %gi = arith.select %in, %gi0, %c0 : index
                  %nsrc = arith.select %in, %c8, %c0 : index
                  %atom = arith.divui %cc, %c8 : index
                  %j = arith.remui %cc, %c8 : index
                  %r7 = arith.andi %r, %c7 : index
                  %sj = arith.xori %j, %r7 : index
                  %scol = arith.muli %sj, %c8 : index
                  %ao = arith.muli %atom, %c4096 : index
                  %srow = arith.muli %r, %c64 : index
                  %so1 = arith.addi %sb_base, %ao : index
                  %so2 = arith.addi %so1, %srow : index
                  %si = arith.addi %so2, %scol : index
                  %tok = nvgpu.device_async_copy %b[%gi], %sb[%si], 8, %nsrc {bypassL1} : memref<?xf16> to memref<?xf16, #gpu.address_space<workgroup>>
                } {tuna.unroll}
                nvvm.cp.async.mbarrier.arrive %fp {noinc = true} : !llvm.ptr<3>
              }
              %it_next = arith.addi %it, %c1 : index
              scf.yield %it_next : index
            }
            scf.yield %it_end : index
          }
        }
      } else {
        scf.if %use_tma {
          nvvm.setmaxregister increase 232
        }
        // Descriptor constants (matmul_wgmma.mlir: swizzle 128 B; A: LBO
        // 16, SBO 1024; B: LBO 128 bk = 8192, SBO 1024), this warpgroup's
        // 64 rows of A's tile, and the epilogue's rows and columns: thread
        // t of a warpgroup holds rows 16 (t / 32) + (t mod 32) / 4 (+ 8)
        // and, for every 8-column group j, columns 8 j + 2 (t mod 4) and
        // the next (accumulator elements 4 j .. 4 j + 3).
        %hi_a = arith.constant 4611686293305360384 : i64
        %hi_b = arith.constant 4611686293338849280 : i64
        %mask14 = arith.constant 16383 : i64
        %sh4 = arith.constant 4 : i64
        %i2 = arith.constant 2 : i64
        %i4 = arith.constant 4 : i64
        %i6 = arith.constant 6 : i64
        %i128 = arith.constant 128 : i64
        %i256 = arith.constant 256 : i64
        %i384 = arith.constant 384 : i64
        %wg_off = arith.muli %wg, %c8192 : index
        %wt = arith.remui %tid, %c128 : index
        %warp = arith.divui %wt, %c32 : index
        %lane = arith.remui %wt, %c32 : index
        %q = arith.divui %lane, %c4 : index
        %p = arith.remui %lane, %c4 : index
        %wrow0 = arith.muli %wg, %c64 : index
        %wrow1 = arith.muli %warp, %c16 : index
        %wrow2 = arith.addi %wrow0, %wrow1 : index
        %trow = arith.addi %wrow2, %q : index
        %tcol = arith.muli %p, %c2 : index
        // A stage goes back to the cluster's producers a warp at a time:
        // lane r of every consumer warp arrives on block r's `empty` if
        // block r loads into this block (its row or its column; the
        // warp's wgmma.wait_group is warp-wide, so its reads are done).
        %lane_rm = arith.remui %lane, %mc : index
        %lane_rn = arith.divui %lane, %mc : index
        %same_rm = arith.cmpi eq, %lane_rm, %rm : index
        %same_rn = arith.cmpi eq, %lane_rn, %rn : index
        %sharer = arith.ori %same_rm, %same_rn : i1
        %in_cluster = arith.cmpi ult, %lane, %csize : index
        %releases = arith.andi %in_cluster, %sharer : i1
        %lane32 = arith.index_cast %lane : index to i32
        // tma = 1's epilogue: this warpgroup's two 8 KiB buffers, its
        // named barrier (1 + wg; 0 is the block's), its first thread, and a
        // thread's byte offsets in a buffer: row 16 (t / 32) + (t mod 32) / 4
        // at 128 bytes a row, its pair 4 (t mod 4) bytes into a 16-byte chunk
        // (row + 8 is 1024 bytes on).
        %wg_eoff = arith.muli %wg, %c16384 : index
        %wg_ebuf = arith.addi %ebufs, %wg_eoff : index
        %wg_bar0 = arith.addi %wg, %c1 : index
        %wg_bar = arith.index_cast %wg_bar0 : index to i32
        %c128_32 = arith.constant 128 : i32
        %wg_leader = arith.cmpi eq, %wt, %c0 : index
        %e_row = arith.subi %trow, %wrow0 : index
        %e_rowoff = arith.muli %e_row, %c128 : index
        %e_pairoff = arith.muli %p, %c4 : index
        %acc_in = llvm.mlir.poison : !acc
        %done:2 = scf.for %t = %cid to %ntiles step %nclusters iter_args(%it0 = %c0, %acc_prev = %acc_in) -> (index, !acc) {
          %group = arith.divui %t, %gwidth : index
          %gfirst = arith.muli %group, %gm : index
          %grest = arith.subi %ntm, %gfirst : index
          %gsize = arith.minui %grest, %gm : index
          %ging = arith.remui %t, %gwidth : index
          %pm0 = arith.remui %ging, %gsize : index
          %pmc = arith.addi %gfirst, %pm0 : index
          %pmc_r = arith.muli %pmc, %mc : index
          %pm = arith.addi %pmc_r, %rm : index
          %pnc = arith.divui %ging, %gsize : index
          %pnc_r = arith.muli %pnc, %nc : index
          %pn = arith.addi %pnc_r, %rn : index
          %row0 = arith.muli %pm, %c128 : index
          %col0 = arith.muli %pn, %bn : index
          // K tile 0: wait for it, then four wgmma that ignore the
          // accumulator registers' old contents (scale-d 0 on the first).
          %s_0 = arith.remui %it0, %stages : index
          %round_0 = arith.divui %it0, %stages : index
          %fpar_0 = arith.andi %round_0, %c1 : index
          %fpar32_0 = arith.index_cast %fpar_0 : index to i32
          %bo_0 = arith.muli %s_0, %c8 : index
          %fa_0 = arith.addi %full, %bo_0 : index
          %fi_0 = arith.index_cast %fa_0 : index to i64
          %fp_0 = llvm.inttoptr %fi_0 : i64 to !llvm.ptr<3>
          nvvm.mbarrier.try_wait.parity %fp_0, %fpar32_0, %ticks : !llvm.ptr<3>, i32, i32
          scf.if %cpasync {
            nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
          }
          %sao_0 = arith.muli %s_0, %c16384 : index
          %sa1_0 = arith.addi %saddr, %sao_0 : index
          %sa2_0 = arith.addi %sa1_0, %wg_off : index
          %sbo_0 = arith.muli %s_0, %b_stage_bytes : index
          %sb1_0 = arith.addi %saddr_b, %sbo_0 : index
          %sa_i_0 = arith.index_cast %sa2_0 : index to i64
          %sb_i_0 = arith.index_cast %sb1_0 : index to i64
          %sa_4_0 = arith.shrui %sa_i_0, %sh4 : i64
          %sb_4_0 = arith.shrui %sb_i_0, %sh4 : i64
          %sa_m_0 = arith.andi %sa_4_0, %mask14 : i64
          %sb_m_0 = arith.andi %sb_4_0, %mask14 : i64
          %da0_0 = arith.ori %sa_m_0, %hi_a : i64
          %db0_0 = arith.ori %sb_m_0, %hi_b : i64
          %da1_0 = arith.addi %da0_0, %i2 : i64
          %da2_0 = arith.addi %da0_0, %i4 : i64
          %da3_0 = arith.addi %da0_0, %i6 : i64
          %db1_0 = arith.addi %db0_0, %i128 : i64
          %db2_0 = arith.addi %db0_0, %i256 : i64
          %db3_0 = arith.addi %db0_0, %i384 : i64
          nvvm.wgmma.fence.aligned
          %r0_0 = nvvm.wgmma.mma_async %da0_0, %db0_0, %acc_prev, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r1_0 = nvvm.wgmma.mma_async %da1_0, %db1_0, %r0_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r2_0 = nvvm.wgmma.mma_async %da2_0, %db2_0, %r1_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          %r3_0 = nvvm.wgmma.mma_async %da3_0, %db3_0, %r2_0, #nvvm.shape<m = 64, n = 256, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>, <wrapped>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !acc -> !acc
          nvvm.wgmma.commit.group.sync.aligned
          // K tiles 1 ..: the group of k tile kt - 1 completes while k tile
          // kt's runs; then kt - 1's stage goes back to the producer.
          %accf = scf.for %kt = %c1 to %ktiles step %c1 iter_args(%acc = %r3_0) -> (!acc) {
            %it = arith.addi %it0, %kt : index
            %s = arith.remui %it, %stages : index
            %round = arith.divui %it, %stages : index
            %fpar = arith.andi %round, %c1 : index
            %fpar32 = arith.index_cast %fpar : index to i32
            %bo = arith.muli %s, %c8 : index
            %fa = arith.addi %full, %bo : index
            %fi = arith.index_cast %fa : index to i64
            %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
            nvvm.mbarrier.try_wait.parity %fp, %fpar32, %ticks : !llvm.ptr<3>, i32, i32
            scf.if %cpasync {
              nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
            }
            %sao = arith.muli %s, %c16384 : index
            %sa1 = arith.addi %saddr, %sao : index
            %sa2 = arith.addi %sa1, %wg_off : index
            %sbo = arith.muli %s, %b_stage_bytes : index
            %sb1 = arith.addi %saddr_b, %sbo : index
            %sa_i = arith.index_cast %sa2 : index to i64
            %sb_i = arith.index_cast %sb1 : index to i64
            %sa_4 = arith.shrui %sa_i, %sh4 : i64
            %sb_4 = arith.shrui %sb_i, %sh4 : i64
            %sa_m = arith.andi %sa_4, %mask14 : i64
            %sb_m = arith.andi %sb_4, %mask14 : i64
            %da0 = arith.ori %sa_m, %hi_a : i64
            %db0 = arith.ori %sb_m, %hi_b : i64
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
            nvvm.wgmma.commit.group.sync.aligned
            nvvm.wgmma.wait.group.sync.aligned 1
            %itp = arith.subi %it, %c1 : index
            %sp = arith.remui %itp, %stages : index
            %ebo = arith.muli %sp, %c8 : index
            %ea = arith.addi %empty, %ebo : index
            %ei = arith.index_cast %ea : index to i64
            %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
            scf.if %releases {
              scf.if %multicast {
                %epc = nvvm.mapa %ep, %lane32 : !llvm.ptr<3> -> !llvm.ptr<7>
                nvvm.mbarrier.arrive %epc : !llvm.ptr<7>
              } else {
                %st = nvvm.mbarrier.arrive %ep : !llvm.ptr<3> -> i64
              }
            }
            scf.yield %r3 : !acc
          }
          nvvm.wgmma.wait.group.sync.aligned 0
          %it_end = arith.addi %it0, %ktiles : index
          %itl = arith.subi %it_end, %c1 : index
          %sl = arith.remui %itl, %stages : index
          %lbo = arith.muli %sl, %c8 : index
          %la = arith.addi %empty, %lbo : index
          %li = arith.index_cast %la : index to i64
          %lp = llvm.inttoptr %li : i64 to !llvm.ptr<3>
          scf.if %releases {
            scf.if %multicast {
              %lpc = nvvm.mapa %lp, %lane32 : !llvm.ptr<3> -> !llvm.ptr<7>
              nvvm.mbarrier.arrive %lpc : !llvm.ptr<7>
            } else {
              %lst = nvvm.mbarrier.arrive %lp : !llvm.ptr<3> -> i64
            }
          }
          llvm.store %accf, %accbuf : !acc, !llvm.ptr
          scf.if %use_tma {
            // tma = 1: per 64-column chunk c of the warpgroup's 64 x 256,
            // the threads write their fp16 pairs to an 8 KiB buffer
            // (128-byte swizzled rows, conflict-free), fence the async
            // proxy, meet at the warpgroup's barrier, and its first thread
            // stores the chunk with TMA (clipped at M and N) and commits
            // it as a bulk group. Two buffers alternate: before a buffer
            // is rewritten, that thread waits until at most one group (the
            // other buffer's) still reads shared memory.
            %col0_32 = arith.index_cast %col0 : index to i32
            %erow0 = arith.addi %row0, %wrow0 : index
            %erow0_32 = arith.index_cast %erow0 : index to i32
            // Every tile's chunks alternate buffers from buffer 0: with an
            // odd number of chunks (128 x 192 tiles) the previous tile's
            // last store read buffer 0 too.
            scf.if %wg_leader {
              nvvm.cp.async.bulk.wait_group 0 {read}
            }
            scf.for %ch = %c0 to %b_atoms step %c1 {
              %eb = arith.remui %ch, %c2 : index
              %ebo = arith.muli %eb, %c8192 : index
              %ebuf = arith.addi %wg_ebuf, %ebo : index
              scf.if %wg_leader {
                nvvm.cp.async.bulk.wait_group 1 {read}
              }
              nvvm.barrier id = %wg_bar number_of_threads = %c128_32
              scf.for %jj = %c0 to %c8 step %c1 {
                %ch8 = arith.muli %ch, %c8 : index
                %j = arith.addi %ch8, %jj : index
                %e0 = arith.muli %j, %c4 : index
                %e0i = arith.index_cast %e0 : index to i64
                %p0 = llvm.getelementptr %accbuf[%e0i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
                %v = llvm.load %p0 : !llvm.ptr -> vector<4xf32>
                %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
                %h_a = vector.shuffle %h, %h [0, 1] : vector<4xf16>, vector<4xf16>
                %h_b = vector.shuffle %h, %h [2, 3] : vector<4xf16>, vector<4xf16>
                %sw = arith.xori %jj, %q : index
                %swo = arith.muli %sw, %c16 : index
                %o1 = arith.addi %ebuf, %e_rowoff : index
                %o2 = arith.addi %o1, %swo : index
                %ea = arith.addi %o2, %e_pairoff : index
                %eb8 = arith.addi %ea, %c1024 : index
                %eai = arith.index_cast %ea : index to i64
                %ebi = arith.index_cast %eb8 : index to i64
                %eap = llvm.inttoptr %eai : i64 to !llvm.ptr<3>
                %ebp = llvm.inttoptr %ebi : i64 to !llvm.ptr<3>
                llvm.store %h_a, %eap {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
                llvm.store %h_b, %ebp {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
              } {tuna.unroll}
              nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
              nvvm.barrier id = %wg_bar number_of_threads = %c128_32
              scf.if %wg_leader {
                %map_c = tuna.tensor_map 2 : !llvm.ptr
                %chc = arith.muli %ch, %c64 : index
                %chc32 = arith.index_cast %chc : index to i32
                %ecol = arith.addi %col0_32, %chc32 : i32
                %ebi = arith.index_cast %ebuf : index to i64
                %ebp = llvm.inttoptr %ebi : i64 to !llvm.ptr<3>
                nvvm.cp.async.bulk.tensor.global.shared.cta %map_c, %ebp, box[%ecol, %erow0_32] : !llvm.ptr, !llvm.ptr<3>
                nvvm.cp.async.bulk.commit.group
              }
            } {tuna.unroll}
          } else {
            // tma = 0: fp16 pairs from registers to C, 4 bytes a store,
            // rows past M and columns past N skipped.
            %gr_a = arith.addi %row0, %trow : index
            %gr_b = arith.addi %gr_a, %c8 : index
            %in_a = arith.cmpi ult, %gr_a, %m : index
            %in_b = arith.cmpi ult, %gr_b, %m : index
            %go_a = arith.muli %gr_a, %n : index
            %go_b = arith.muli %gr_b, %n : index
            %gc0 = arith.addi %col0, %tcol : index
            scf.for %j = %c0 to %col_groups step %c1 {
              %jc = arith.muli %j, %c8 : index
              %gc = arith.addi %gc0, %jc : index
              %col_in = arith.cmpi ult, %gc, %n : index
              %e0 = arith.muli %j, %c4 : index
              %e0i = arith.index_cast %e0 : index to i64
              %p0 = llvm.getelementptr %accbuf[%e0i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
              %v = llvm.load %p0 : !llvm.ptr -> vector<4xf32>
              %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
              %h_a = vector.shuffle %h, %h [0, 1] : vector<4xf16>, vector<4xf16>
              %h_b = vector.shuffle %h, %h [2, 3] : vector<4xf16>, vector<4xf16>
              %ok_a = arith.andi %in_a, %col_in : i1
              %ok_b = arith.andi %in_b, %col_in : i1
              scf.if %ok_a {
                %gi = arith.addi %go_a, %gc : index
                vector.store %h_a, %c[%gi] {alignment = 4} : memref<?xf16>, vector<2xf16>
              }
              scf.if %ok_b {
                %gi = arith.addi %go_b, %gc : index
                vector.store %h_b, %c[%gi] {alignment = 4} : memref<?xf16>, vector<2xf16>
              }
            } {tuna.unroll}
          }
          scf.yield %it_end, %accf : index, !acc
        }
        // tma = 1: the last chunks' stores have read their buffers before
        // the block leaves and its shared memory goes.
        %tma_leader = arith.andi %use_tma, %wg_leader : i1
        scf.if %tma_leader {
          nvvm.cp.async.bulk.wait_group 0
        }
      }
      // mc > 1: no block leaves (and frees the shared memory its peers
      // load into and arrive on) before the cluster's last k tile is done.
      scf.if %multicast {
        nvvm.cluster.arrive
        nvvm.cluster.wait
      }
      gpu.return
    }
  }
}
