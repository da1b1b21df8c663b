// Layer normalization over the rows of a row-major rows x cols float matrix.
//
// Reference: y[r, c] = (x[r, c] - mean_r) / sqrt(var_r + eps) * gamma[c]
// + beta[c], with mean_r = sum_c x[r, c] / cols and var_r = sum_c
// (x[r, c] - mean_r)^2 / cols (biased, as torch.nn.LayerNorm), computed in
// double on the CPU.
//
// Each row is handled by a group of `tpr` threads (a multiple of 32);
// a block holds `rpb` such groups (`tpr * rpb` threads, rows / rpb blocks).
// Pass 1 sums d = x - k and d * d with k = x[r, 0] (a shift that keeps the
// float variance accurate when the mean is large against the spread); the
// sums of a warp segment (the warp, or fewer lanes on wave64, see the
// kernel) meet through butterfly shuffles, those of several segments
// through workgroup memory and one more round. Pass 2 writes y. Rows of at
// most 4 tpr regs floats (regs > 0, vec = 4, cols a multiple of 4, buffers
// aligned) are read once and kept in registers between the passes: each
// thread issues its `regs` 16-byte loads back to back (chunk j at column
// 4 (t + j tpr)); other rows are read again in pass 2, mostly from the
// cache. Pass 2 of a row in registers reads gamma and beta one chunk at a
// time (gb = 0: one trip to the L2 a chunk, after the previous chunk's
// store) or all of a thread's chunks before the first store (gb = 1: one
// trip, more registers (52 against 39 at tpr = 512, regs = 4), fewer
// blocks an SM where the registers bound them). Accesses are `vec` wide (16 bytes for vec = 4) when cols is a
// multiple of vec and every buffer is aligned; otherwise one float at a
// time.
// Blocks of 512 or 1024 threads holding rows in registers may ask ptxas
// for mb = 3 or 2 blocks an SM (`min_blocks`: at most 40 or 32 registers
// a thread, spilling where it must).
// tpr 32..1024 x rpb 1..8 with tpr * rpb <= 1024, x (vec 1, regs 0 |
// vec 4, regs 0|1 | vec 4, regs 2|4, gb 0|1, mb 1 | 3 for 512 threads |
// 2 for 1024): 158 variants; default tpr = 128, rpb = 1, vec = 1,
// regs = 0, gb = 0, mb = 1. (regs = 8 compiles
// without local memory, 52 to 63 registers, and is not in the space:
// tuned with it on the H200, 2026-11-28, the rows were no faster;
// docs/benchmarks.md, "Memory-bound kernels and matmul".)
//
// Host (`layernorm_host`, same arguments): rows one after the other, the
// same two passes and formulas (shift k = x[r, 0], sums of d and d * d,
// mean = k + E[d], var = max(E[d^2] - E[d]^2, 0), biased), each pass with
// `unroll` independent vectors of `vec` floats and the rest of the row
// `vec` at a time, the last chunk masked; pass 2 reads x again (in cache
// for rows that fit). Multiplies and adds may fuse where the CPU has FMA
// (fastmath<contract>; math.fma would be a libm call on a CPU without it).
// vec 4|8|16 x unroll 1|2|4: 9 variants; default vec = 8, unroll = 2.
// The body is written once for every width: `vscale = "vec"` makes every
// `vector<[1]xf32>` a `vector<{vec}xf32>` in each variant.

#fits = affine_set<(rows, cols)[tpr, rpb, vec, regs, gb, mb] : (1024 - tpr * rpb >= 0)>
// Rows held in registers need 16-byte chunks: regs = 0 when vec = 1.
#regs_need_vec = affine_set<(rows, cols)[tpr, rpb, vec, regs, gb, mb] : (8 * vec - 8 - 3 * regs >= 0)>
// Batching gamma and beta (gb = 1) needs two or more register chunks.
#gb_needs_chunks = affine_set<(rows, cols)[tpr, rpb, vec, regs, gb, mb] : (regs - 2 * gb >= 0)>
// More blocks an SM (mb > 1) are asked where they bound the registers
// (1536 or 2048 threads an SM: at most 40 or 32 registers a thread) of
// blocks that hold rows in registers (regs >= 2).
#mb_bounds_registers = affine_set<(rows, cols)[tpr, rpb, vec, regs, gb, mb] : ((tpr * rpb * mb - 1536) * (mb - 1) >= 0, 2048 - tpr * rpb * mb >= 0, (regs - 2) * (mb - 1) >= 0)>
// The loops over a thread's register chunks (constant trips once the
// parameters are substituted) are marked `tuna.unroll`: the tuna-unroll pass
// copies their bodies, so that the chunks' indices are constants and stay in
// registers.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @layernorm(%x: memref<?xf32>, %gamma: memref<?xf32>, %beta: memref<?xf32>,
                        %y: memref<?xf32>, %eps: f32, %rows: index, %cols: index)
        workgroup(%p1: memref<32xf32, #gpu.address_space<workgroup>>,
                  %p2: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tpr", [32, 64, 128, 256, 512, 1024]>,
                  #tuna.param<"rpb", [1, 2, 4, 8]>,
                  #tuna.param<"vec", [1, 4]>,
                  #tuna.param<"regs", [0, 1, 2, 4]>,
                  #tuna.param<"gb", [0, 1]>,
                  #tuna.param<"mb", [1, 2, 3]>],
        defaults = {tpr = 128, rpb = 1, vec = 1, regs = 0, gb = 0, mb = 1},
        constraints = [#fits, #regs_need_vec, #gb_needs_chunks, #mb_bounds_registers],
        key = [#tuna.key<arg = 5, bucket = pow2>, #tuna.key<arg = 6, bucket = pow2>],
        grid = affine_map<(rows, cols)[tpr, rpb, vec, regs, gb, mb] -> (rows ceildiv rpb)>,
        block = affine_map<(rows, cols)[tpr, rpb, vec, regs, gb, mb] -> (tpr * rpb)>,
        min_blocks = affine_map<(rows, cols)[tpr, rpb, vec, regs, gb, mb] -> (mb)>
      >} {
      %tpr = tuna.param "tpr" : index
      %rpb = tuna.param "rpb" : index
      %vec = tuna.param "vec" : index
      %regs = tuna.param "regs" : index
      %gb = tuna.param "gb" : index
      // In the entry block: an alloca after the first scf.if lands in a later
      // block once lowered, a dynamic stack allocation AMDGPU cannot select.
      %buf = memref.alloca() : memref<8xvector<4xf32>>
      %gbuf = memref.alloca() : memref<8xvector<4xf32>>
      %bbuf = memref.alloca() : memref<8xvector<4xf32>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %zero4 = arith.constant dense<0.0> : vector<4xf32>
      // The lanes that reduce together with shuffles: a segment of the warp
      // (a constant per target: 32 on NVIDIA, 64 on gfx90a and gfx942, 32 on
      // gfx1100) whose threads all work on one row: the whole warp, or the
      // largest power of two dividing tpr where that is smaller (tpr = 32
      // or 96 on wave64). A row's segments meet through workgroup memory.
      %warp_size = gpu.subgroup_size : index
      %tpr_neg = arith.subi %c0, %tpr : index
      %tpr_pow2 = arith.andi %tpr, %tpr_neg : index
      %seg = arith.minui %tpr_pow2, %warp_size : index
      %seg_width = arith.index_cast %seg : index to i32
      %seg_log2 = math.cttz %seg_width : i32
      %seg_steps = arith.index_cast %seg_log2 : i32 to index
      %one = arith.constant 1 : i32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %group = arith.divui %tid, %tpr : index
      %t = arith.remui %tid, %tpr : index
      %first_row = arith.muli %bid, %rpb : index
      %row = arith.addi %first_row, %group : index
      %valid = arith.cmpi ult, %row, %rows : index
      %len = arith.select %valid, %cols, %c0 : index
      %base = arith.muli %row, %cols : index
      %px = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %pg = memref.extract_aligned_pointer_as_index %gamma : memref<?xf32> -> index
      %pb = memref.extract_aligned_pointer_as_index %beta : memref<?xf32> -> index
      %py = memref.extract_aligned_pointer_as_index %y : memref<?xf32> -> index
      %pxg = arith.ori %px, %pg : index
      %pby = arith.ori %pb, %py : index
      %pall = arith.ori %pxg, %pby : index
      %vec_bytes = arith.muli %vec, %c4 : index
      %pmis = arith.remui %pall, %vec_bytes : index
      %cmis = arith.remui %cols, %vec : index
      %mis = arith.ori %pmis, %cmis : index
      %aligned = arith.cmpi eq, %mis, %c0 : index
      %is4 = arith.cmpi eq, %vec, %c4 : index
      %wide = arith.andi %aligned, %is4 : i1
      %nonempty = arith.cmpi ugt, %len, %c0 : index
      %shift = scf.if %nonempty -> f32 {
        %v = memref.load %x[%base] : memref<?xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }

      // The row in registers: `regs` 16-byte chunks per thread cover it.
      // Chunk j of this thread is x[row, 4 (t + j tpr) ..]; chunks past the
      // row's end (and the rows past the last) load a clamped in-bounds
      // chunk and are masked, so that every load is unconditional and a
      // thread issues all of them before it waits for the first.
      %cap = arith.muli %tpr, %c4 : index
      %cap2 = arith.muli %cap, %regs : index
      %short = arith.cmpi ule, %cols, %cap2 : index
      %fitsr = arith.andi %short, %nonempty : i1
      %inreg = arith.andi %wide, %fitsr : i1
      %lastrow = arith.subi %rows, %c1 : index
      %lrow = arith.minui %row, %lastrow : index
      %lbase = arith.muli %lrow, %cols : index
      %lastk = arith.subi %cols, %c4 : index

      // Pass 1: this thread's sum of d and of d * d, d = x - shift.
      %s1, %s2 = scf.if %inreg -> (f32, f32) {
        %kv = vector.broadcast %shift : f32 to vector<4xf32>
        %r:2 = scf.for %j = %c0 to %regs step %c1 iter_args(%a1 = %zero4, %a2 = %zero4) -> (vector<4xf32>, vector<4xf32>) {
          %jt = arith.muli %j, %tpr : index
          %q = arith.addi %t, %jt : index
          %k = arith.muli %q, %c4 : index
          %kc = arith.minui %k, %lastk : index
          %i = arith.addi %lbase, %kc : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          memref.store %v, %buf[%j] : memref<8xvector<4xf32>>
          %in = arith.cmpi ult, %k, %len : index
          %d0 = arith.subf %v, %kv : vector<4xf32>
          %d = arith.select %in, %d0, %zero4 : vector<4xf32>
          %n1 = arith.addf %a1, %d : vector<4xf32>
          %n2 = math.fma %d, %d, %a2 : vector<4xf32>
          scf.yield %n1, %n2 : vector<4xf32>, vector<4xf32>
        } {tuna.unroll}
        %r1 = vector.reduction <add>, %r#0 : vector<4xf32> into f32
        %r2 = vector.reduction <add>, %r#1 : vector<4xf32> into f32
        scf.yield %r1, %r2 : f32, f32
      } else {
      %u1, %u2 = scf.if %wide -> (f32, f32) {
        %start = arith.muli %t, %c4 : index
        %step = arith.muli %tpr, %c4 : index
        %kv = vector.broadcast %shift : f32 to vector<4xf32>
        %r:2 = scf.for %k = %start to %len step %step iter_args(%a1 = %zero4, %a2 = %zero4) -> (vector<4xf32>, vector<4xf32>) {
          %i = arith.addi %base, %k : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %d = arith.subf %v, %kv : vector<4xf32>
          %n1 = arith.addf %a1, %d : vector<4xf32>
          %n2 = math.fma %d, %d, %a2 : vector<4xf32>
          scf.yield %n1, %n2 : vector<4xf32>, vector<4xf32>
        }
        %r1 = vector.reduction <add>, %r#0 : vector<4xf32> into f32
        %r2 = vector.reduction <add>, %r#1 : vector<4xf32> into f32
        scf.yield %r1, %r2 : f32, f32
      } else {
        %r:2 = scf.for %k = %t to %len step %tpr iter_args(%a1 = %zero, %a2 = %zero) -> (f32, f32) {
          %i = arith.addi %base, %k : index
          %v = memref.load %x[%i] : memref<?xf32>
          %d = arith.subf %v, %shift : f32
          %n1 = arith.addf %a1, %d : f32
          %n2 = math.fma %d, %d, %a2 : f32
          scf.yield %n1, %n2 : f32, f32
        }
        scf.yield %r#0, %r#1 : f32, f32
      }
      scf.yield %u1, %u2 : f32, f32
      }

      // Sum both over the segment.
      %w1, %w2 = scf.for %it = %c0 to %seg_steps step %c1 iter_args(%a1 = %s1, %a2 = %s2) -> (f32, f32) {
        %si = arith.index_cast %it : index to i32
        %off = arith.shli %one, %si : i32
        %o1, %ok1 = gpu.shuffle xor %a1, %off, %seg_width : f32
        %o2, %ok2 = gpu.shuffle xor %a2, %off, %seg_width : f32
        %n1 = arith.addf %a1, %o1 : f32
        %n2 = arith.addf %a2, %o2 : f32
        scf.yield %n1, %n2 : f32, f32
      }
      // Rows that span several segments (folds away for tpr <= seg).
      %multi = arith.cmpi ugt, %tpr, %seg : index
      %t1, %t2 = scf.if %multi -> (f32, f32) {
        %segment = arith.divui %tid, %seg : index
        %lane = arith.remui %tid, %seg : index
        %leader = arith.cmpi eq, %lane, %c0 : index
        scf.if %leader {
          memref.store %w1, %p1[%segment] : memref<32xf32, #gpu.address_space<workgroup>>
          memref.store %w2, %p2[%segment] : memref<32xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %spr = arith.divui %tpr, %seg : index
        %first = arith.muli %group, %spr : index
        %mine = arith.cmpi ult, %lane, %spr : index
        %q1, %q2 = scf.if %mine -> (f32, f32) {
          %j = arith.addi %first, %lane : index
          %a = memref.load %p1[%j] : memref<32xf32, #gpu.address_space<workgroup>>
          %b = memref.load %p2[%j] : memref<32xf32, #gpu.address_space<workgroup>>
          scf.yield %a, %b : f32, f32
        } else {
          scf.yield %zero, %zero : f32, f32
        }
        %r:2 = scf.for %it = %c0 to %seg_steps step %c1 iter_args(%a1 = %q1, %a2 = %q2) -> (f32, f32) {
          %si = arith.index_cast %it : index to i32
          %off = arith.shli %one, %si : i32
          %o1, %ok1 = gpu.shuffle xor %a1, %off, %seg_width : f32
          %o2, %ok2 = gpu.shuffle xor %a2, %off, %seg_width : f32
          %n1 = arith.addf %a1, %o1 : f32
          %n2 = arith.addf %a2, %o2 : f32
          scf.yield %n1, %n2 : f32, f32
        }
        scf.yield %r#0, %r#1 : f32, f32
      } else {
        scf.yield %w1, %w2 : f32, f32
      }

      // mean = shift + E[d], var = E[d^2] - E[d]^2.
      %ci = arith.index_cast %cols : index to i64
      %cf = arith.uitofp %ci : i64 to f32
      %md = arith.divf %t1, %cf : f32
      %msq = arith.divf %t2, %cf : f32
      %md2 = arith.mulf %md, %md : f32
      %var0 = arith.subf %msq, %md2 : f32
      %var = arith.maximumf %var0, %zero : f32
      %mean = arith.addf %shift, %md : f32
      %ve = arith.addf %var, %eps : f32
      %rstd = math.rsqrt %ve : f32

      // Pass 2: y = (x - mean) * rstd * gamma + beta.
      scf.if %inreg {
        %mv = vector.broadcast %mean : f32 to vector<4xf32>
        %rv = vector.broadcast %rstd : f32 to vector<4xf32>
        %batched = arith.cmpi ne, %gb, %c0 : index
        scf.if %batched {
          // gb = 1: every chunk's gamma and beta loaded before the first
          // use, and no branch between the chunks: a chunk past the row's
          // end takes the last chunk's place (as its load in pass 1 did)
          // and writes the same values there as that chunk's thread.
          scf.for %j = %c0 to %regs step %c1 {
            %jt = arith.muli %j, %tpr : index
            %q = arith.addi %t, %jt : index
            %k = arith.muli %q, %c4 : index
            %kc = arith.minui %k, %lastk : index
            %g = vector.load %gamma[%kc] {alignment = 16} : memref<?xf32>, vector<4xf32>
            %b = vector.load %beta[%kc] {alignment = 16} : memref<?xf32>, vector<4xf32>
            memref.store %g, %gbuf[%j] : memref<8xvector<4xf32>>
            memref.store %b, %bbuf[%j] : memref<8xvector<4xf32>>
          } {tuna.unroll}
          scf.for %j = %c0 to %regs step %c1 {
            %jt = arith.muli %j, %tpr : index
            %q = arith.addi %t, %jt : index
            %k = arith.muli %q, %c4 : index
            %kc = arith.minui %k, %lastk : index
            %v = memref.load %buf[%j] : memref<8xvector<4xf32>>
            %g = memref.load %gbuf[%j] : memref<8xvector<4xf32>>
            %b = memref.load %bbuf[%j] : memref<8xvector<4xf32>>
            %d = arith.subf %v, %mv : vector<4xf32>
            %n = arith.mulf %d, %rv : vector<4xf32>
            %o = math.fma %n, %g, %b : vector<4xf32>
            %i = arith.addi %base, %kc : index
            vector.store %o, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          } {tuna.unroll}
        } else {
          scf.for %j = %c0 to %regs step %c1 {
            %jt = arith.muli %j, %tpr : index
            %q = arith.addi %t, %jt : index
            %k = arith.muli %q, %c4 : index
            %in = arith.cmpi ult, %k, %len : index
            scf.if %in {
              %v = memref.load %buf[%j] : memref<8xvector<4xf32>>
              %g = vector.load %gamma[%k] {alignment = 16} : memref<?xf32>, vector<4xf32>
              %b = vector.load %beta[%k] {alignment = 16} : memref<?xf32>, vector<4xf32>
              %d = arith.subf %v, %mv : vector<4xf32>
              %n = arith.mulf %d, %rv : vector<4xf32>
              %o = math.fma %n, %g, %b : vector<4xf32>
              %i = arith.addi %base, %k : index
              vector.store %o, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
            }
          } {tuna.unroll}
        }
      } else {
      scf.if %wide {
        %start = arith.muli %t, %c4 : index
        %step = arith.muli %tpr, %c4 : index
        %mv = vector.broadcast %mean : f32 to vector<4xf32>
        %rv = vector.broadcast %rstd : f32 to vector<4xf32>
        scf.for %k = %start to %len step %step {
          %i = arith.addi %base, %k : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %g = vector.load %gamma[%k] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %b = vector.load %beta[%k] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %d = arith.subf %v, %mv : vector<4xf32>
          %n = arith.mulf %d, %rv : vector<4xf32>
          %o = math.fma %n, %g, %b : vector<4xf32>
          vector.store %o, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
        }
      } else {
        scf.for %k = %t to %len step %tpr {
          %i = arith.addi %base, %k : index
          %v = memref.load %x[%i] : memref<?xf32>
          %g = memref.load %gamma[%k] : memref<?xf32>
          %b = memref.load %beta[%k] : memref<?xf32>
          %d = arith.subf %v, %mean : f32
          %n = arith.mulf %d, %rstd : f32
          %o = math.fma %n, %g, %b : f32
          memref.store %o, %y[%i] : memref<?xf32>
        }
      }
      }
      gpu.return
    }
  }

  // The host version (see the header): rows one after the other, two passes
  // over each with `unroll` independent `vec`-float vectors (two sums of
  // each in pass 1); the last cols mod (vec unroll) floats go `vec` at a
  // time, the last chunk masked. mul and add may fuse where the CPU has FMA.
  func.func @layernorm_host(%x: memref<?xf32>, %gamma: memref<?xf32>, %beta: memref<?xf32>,
                            %y: memref<?xf32>, %eps: f32, %rows: index, %cols: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"vec", [4, 8, 16]>, #tuna.param<"unroll", [1, 2, 4]>],
      defaults = {vec = 8, unroll = 2},
      key = [#tuna.key<arg = 5, bucket = pow2>, #tuna.key<arg = 6, bucket = pow2>],
      vscale = "vec"
    >} {
    %vec = tuna.param "vec" : index
    %unroll = tuna.param "unroll" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zerof = arith.constant 0.0 : f32
    %step = arith.muli %vec, %unroll : index
    %rem = arith.remui %cols, %step : index
    %main = arith.subi %cols, %rem : index
    %ci = arith.index_cast %cols : index to i64
    %cf = arith.uitofp %ci : i64 to f32
    %nonempty = arith.cmpi ugt, %cols, %c0 : index
    // The sums of d and d * d, in the entry block (an alloca in the loop
    // would grow the stack); tuna.unroll makes every index into them a
    // constant, so LLVM keeps them in registers.
    %accd = memref.alloca() : memref<4xvector<[1]xf32>>
    %accq = memref.alloca() : memref<4xvector<[1]xf32>>
    scf.for %row = %c0 to %rows step %c1 {
      %base = arith.muli %row, %cols : index
      %shift = scf.if %nonempty -> f32 {
        %v = memref.load %x[%base] : memref<?xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zerof : f32
      }
      // Pass 1: the sums of d = x - shift and of d * d.
      %zero = arith.constant dense<0.0> : vector<[1]xf32>
      %kv = vector.broadcast %shift : f32 to vector<[1]xf32>
      scf.for %j = %c0 to %unroll step %c1 {
        memref.store %zero, %accd[%j] : memref<4xvector<[1]xf32>>
        memref.store %zero, %accq[%j] : memref<4xvector<[1]xf32>>
      } {tuna.unroll}
      scf.for %k = %c0 to %main step %step {
        %at = arith.addi %base, %k : index
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %i = arith.addi %at, %o : index
          %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
          %d = arith.subf %v, %kv : vector<[1]xf32>
          %a1 = memref.load %accd[%j] : memref<4xvector<[1]xf32>>
          %a2 = memref.load %accq[%j] : memref<4xvector<[1]xf32>>
          %n1 = arith.addf %a1, %d : vector<[1]xf32>
          %dd = arith.mulf %d, %d fastmath<contract> : vector<[1]xf32>
          %n2 = arith.addf %dd, %a2 fastmath<contract> : vector<[1]xf32>
          memref.store %n1, %accd[%j] : memref<4xvector<[1]xf32>>
          memref.store %n2, %accq[%j] : memref<4xvector<[1]xf32>>
        } {tuna.unroll}
      }
      // Masked-off lanes read the shift: d = 0 there.
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %v = vector.maskedload %x[%i], %mask, %kv : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %d = arith.subf %v, %kv : vector<[1]xf32>
        %a1 = memref.load %accd[%c0] : memref<4xvector<[1]xf32>>
        %a2 = memref.load %accq[%c0] : memref<4xvector<[1]xf32>>
        %n1 = arith.addf %a1, %d : vector<[1]xf32>
        %dd = arith.mulf %d, %d fastmath<contract> : vector<[1]xf32>
        %n2 = arith.addf %dd, %a2 fastmath<contract> : vector<[1]xf32>
        memref.store %n1, %accd[%c0] : memref<4xvector<[1]xf32>>
        memref.store %n2, %accq[%c0] : memref<4xvector<[1]xf32>>
      }
      %t:2 = scf.for %j = %c0 to %unroll step %c1 iter_args(%s1 = %zero, %s2 = %zero) -> (vector<[1]xf32>, vector<[1]xf32>) {
        %a1 = memref.load %accd[%j] : memref<4xvector<[1]xf32>>
        %a2 = memref.load %accq[%j] : memref<4xvector<[1]xf32>>
        %n1 = arith.addf %s1, %a1 : vector<[1]xf32>
        %n2 = arith.addf %s2, %a2 : vector<[1]xf32>
        scf.yield %n1, %n2 : vector<[1]xf32>, vector<[1]xf32>
      } {tuna.unroll}
      %t1 = vector.reduction <add>, %t#0 : vector<[1]xf32> into f32
      %t2 = vector.reduction <add>, %t#1 : vector<[1]xf32> into f32
      // mean = shift + E[d], var = E[d^2] - E[d]^2, as the GPU version.
      %md = arith.divf %t1, %cf : f32
      %msq = arith.divf %t2, %cf : f32
      %md2 = arith.mulf %md, %md : f32
      %var0 = arith.subf %msq, %md2 : f32
      %var = arith.maximumf %var0, %zerof : f32
      %mean = arith.addf %shift, %md : f32
      %ve = arith.addf %var, %eps : f32
      %rstd = math.rsqrt %ve : f32
      // Pass 2: y = (x - mean) rstd gamma + beta.
      %mv = vector.broadcast %mean : f32 to vector<[1]xf32>
      %rv = vector.broadcast %rstd : f32 to vector<[1]xf32>
      scf.for %k = %c0 to %main step %step {
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %c = arith.addi %k, %o : index
          %i = arith.addi %base, %c : index
          %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
          %g = vector.load %gamma[%c] : memref<?xf32>, vector<[1]xf32>
          %b = vector.load %beta[%c] : memref<?xf32>, vector<[1]xf32>
          %d = arith.subf %v, %mv : vector<[1]xf32>
          %n = arith.mulf %d, %rv : vector<[1]xf32>
          %ng = arith.mulf %n, %g fastmath<contract> : vector<[1]xf32>
          %r = arith.addf %ng, %b fastmath<contract> : vector<[1]xf32>
          vector.store %r, %y[%i] : memref<?xf32>, vector<[1]xf32>
        } {tuna.unroll}
      }
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %v = vector.maskedload %x[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %g = vector.maskedload %gamma[%k], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %b = vector.maskedload %beta[%k], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %d = arith.subf %v, %mv : vector<[1]xf32>
        %n = arith.mulf %d, %rv : vector<[1]xf32>
        %ng = arith.mulf %n, %g fastmath<contract> : vector<[1]xf32>
        %r = arith.addf %ng, %b fastmath<contract> : vector<[1]xf32>
        vector.maskedstore %y[%i], %mask, %r : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32>
      }
    }
    return
  }
}
