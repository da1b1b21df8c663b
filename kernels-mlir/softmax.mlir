// Row softmax of a row-major rows x cols float matrix.
//
// Reference: y[r, c] = exp(x[r, c] - m_r) / sum_k exp(x[r, k] - m_r) with
// m_r = max_k x[r, k], computed in double on the CPU.
//
// Each row is handled by a group of `tpr` threads (a multiple of 32);
// a block holds `rpb` such groups (`tpr * rpb` threads, rows / rpb blocks).
// Rows of at most 4 tpr regs floats (regs > 0, vec = 4, cols a multiple of
// 4, buffers aligned) are read once and kept in registers: each thread
// issues its `regs` 16-byte loads back to back (chunk j at column
// 4 (t + j tpr)), takes their maximum m, keeps e = exp(x - m) and their sum
// s, and after the row's (max, sum) are known writes y = e exp(m - max) /
// sum from the registers: one read and one write of the row in device
// memory. Other rows take two passes:
//  1. online max and sum: each thread keeps (m, s) with s = sum exp(x - m)
//     over its elements, rescaling s when m grows (once per `vec`-wide
//     chunk);
//  2. y = exp(x - m) * (1 / s); the second read of the row mostly hits the
//     cache.
// Either way the (m, s) pairs of a warp segment (the warp, or fewer lanes
// on wave64, see below) meet through butterfly shuffles, those of several
// segments through workgroup memory and one more round.
// exp(d) is computed as exp2(d log2(e)) (one ex2.approx.f32).
// Accesses are `vec` wide (16 bytes for vec = 4) when cols is a multiple of
// vec and both buffers are aligned; otherwise one float at a time.
// tpr 32..1024 x rpb 1..8 with tpr * rpb <= 1024, x (vec 1, regs 0 |
// vec 4, regs 0|2|4|8): 90 variants; default tpr = 128, rpb = 1, vec = 1,
// regs = 0. Any multiple of 32 works for tpr, any rpb, regs up to 8:
// kernels-mlir/wide_spaces.py writes `softmax_wide`, 1,030 of them.
//
// Host (`softmax_host`, same arguments): rows one after the other, three
// passes over each, every pass with `unroll` independent vectors of `vec`
// floats and the rest of the row `vec` at a time, the last chunk masked:
//  1. m = max_k x[r, k];
//  2. e = exp(x - m), written to y, and s = sum e (exp once per element);
//  3. y = e * (1 / s), from y (in cache for rows that fit).
// exp(d) is exp2(d log2(e)) as on the GPU, in vector arithmetic (a degree-7
// polynomial and the exponent's bits, written out in pass 2): with
// math.exp2 the host code would call libm's exp2f once per float.
// vec 4|8|16 x unroll 1|2|4: 9 variants; default vec = 8, unroll = 2. The
// body is written once for every width: `vscale = "vec"` makes every
// `vector<[1]xf32>` a `vector<{vec}xf32>` in each variant.

#fits = affine_set<(rows, cols)[tpr, rpb, vec, regs] : (1024 - tpr * rpb >= 0)>
// The loops over a thread's register chunks (constant trips once the
// parameters are substituted) are marked `tuna.unroll`: the tuna-unroll pass
// copies their bodies, so that the chunks' indices are constants and stay in
// registers.
// Rows held in registers need 16-byte chunks: regs = 0 when vec = 1.
#regs_need_vec = affine_set<(rows, cols)[tpr, rpb, vec, regs] : (8 * vec - 8 - 3 * regs >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @softmax(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index)
        workgroup(%pm: memref<32xf32, #gpu.address_space<workgroup>>,
                  %ps: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tpr", [32, 64, 128, 256, 512, 1024]>,
                  #tuna.param<"rpb", [1, 2, 4, 8]>,
                  #tuna.param<"vec", [1, 4]>,
                  #tuna.param<"regs", [0, 2, 4, 8]>],
        defaults = {tpr = 128, rpb = 1, vec = 1, regs = 0},
        constraints = [#fits, #regs_need_vec],
        key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(rows, cols)[tpr, rpb, vec, regs] -> (rows ceildiv rpb)>,
        block = affine_map<(rows, cols)[tpr, rpb, vec, regs] -> (tpr * rpb)>
      >} {
      %tpr = tuna.param "tpr" : index
      %rpb = tuna.param "rpb" : index
      %vec = tuna.param "vec" : index
      %regs = tuna.param "regs" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %onef = arith.constant 1.0 : f32
      // exp(d) = exp2(d log2(e)): one ex2.approx, as Triton does.
      %log2e = arith.constant 1.44269504 : f32
      %log2e4 = arith.constant dense<1.44269504> : vector<4xf32>
      // The running maximum starts finite, so that exp(m - m') of two empty
      // partial results is 1, not NaN.
      %lowest = arith.constant -3.0e+38 : f32
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
      %py = memref.extract_aligned_pointer_as_index %y : memref<?xf32> -> index
      %pxy = arith.ori %px, %py : index
      %vec_bytes = arith.muli %vec, %c4 : index
      %pmis = arith.remui %pxy, %vec_bytes : index
      %cmis = arith.remui %cols, %vec : index
      %mis = arith.ori %pmis, %cmis : index
      %aligned = arith.cmpi eq, %mis, %c0 : index
      %is4 = arith.cmpi eq, %vec, %c4 : index
      %wide = arith.andi %aligned, %is4 : i1

      // The row in registers: `regs` 16-byte chunks per thread cover it.
      %cap = arith.muli %tpr, %c4 : index
      %cap2 = arith.muli %cap, %regs : index
      %short = arith.cmpi ule, %cols, %cap2 : index
      %some = arith.cmpi ugt, %cols, %c0 : index
      %fitsr = arith.andi %short, %some : i1
      %inreg = arith.andi %wide, %fitsr : i1
      // Chunk j of this thread is x[row, 4 (t + j tpr) ..]; chunks past the
      // row's end (and the rows past the last) load a clamped in-bounds
      // chunk and are masked, so that every load is unconditional and a
      // thread issues all of them before it waits for the first.
      %buf = memref.alloca() : memref<8xvector<4xf32>>
      %lastrow = arith.subi %rows, %c1 : index
      %lrow = arith.minui %row, %lastrow : index
      %lbase = arith.muli %lrow, %cols : index
      %lastk = arith.subi %cols, %c4 : index
      %lowv = vector.broadcast %lowest : f32 to vector<4xf32>
      %zerov = vector.broadcast %zero : f32 to vector<4xf32>

      // Pass 1: this thread's (max, sum of exp(x - max)).
      %m, %s = scf.if %inreg -> (f32, f32) {
        // Load every chunk, then the maximum.
        %lm = scf.for %j = %c0 to %regs step %c1 iter_args(%am = %lowest) -> (f32) {
          %jt = arith.muli %j, %tpr : index
          %q = arith.addi %t, %jt : index
          %k = arith.muli %q, %c4 : index
          %kc = arith.minui %k, %lastk : index
          %i = arith.addi %lbase, %kc : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %in = arith.cmpi ult, %k, %len : index
          %vm = arith.select %in, %v, %lowv : vector<4xf32>
          memref.store %vm, %buf[%j] : memref<8xvector<4xf32>>
          %cm = vector.reduction <maximumf>, %vm : vector<4xf32> into f32
          %nm = arith.maximumf %am, %cm : f32
          scf.yield %nm : f32
        } {tuna.unroll}
        // e = exp(x - m) stays in the registers for pass 2.
        %lmv = vector.broadcast %lm : f32 to vector<4xf32>
        %acc = scf.for %j = %c0 to %regs step %c1 iter_args(%as = %zerov) -> (vector<4xf32>) {
          %jt = arith.muli %j, %tpr : index
          %q = arith.addi %t, %jt : index
          %k = arith.muli %q, %c4 : index
          %in = arith.cmpi ult, %k, %len : index
          %v = memref.load %buf[%j] : memref<8xvector<4xf32>>
          %d = arith.subf %v, %lmv : vector<4xf32>
          %el = arith.mulf %d, %log2e4 : vector<4xf32>
          %e = math.exp2 %el : vector<4xf32>
          %em = arith.select %in, %e, %zerov : vector<4xf32>
          memref.store %em, %buf[%j] : memref<8xvector<4xf32>>
          %ns = arith.addf %as, %em : vector<4xf32>
          scf.yield %ns : vector<4xf32>
        } {tuna.unroll}
        %ls = vector.reduction <add>, %acc : vector<4xf32> into f32
        scf.yield %lm, %ls : f32, f32
      } else {
      %m2, %s2 = scf.if %wide -> (f32, f32) {
        %start = arith.muli %t, %c4 : index
        %step = arith.muli %tpr, %c4 : index
        %r:2 = scf.for %k = %start to %len step %step iter_args(%am = %lowest, %as = %zero) -> (f32, f32) {
          %i = arith.addi %base, %k : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %cm = vector.reduction <maximumf>, %v : vector<4xf32> into f32
          %nm = arith.maximumf %am, %cm : f32
          %d = arith.subf %am, %nm : f32
          %scalel = arith.mulf %d, %log2e : f32
          %scale = math.exp2 %scalel : f32
          %kept = arith.mulf %as, %scale : f32
          %nmv = vector.broadcast %nm : f32 to vector<4xf32>
          %dv = arith.subf %v, %nmv : vector<4xf32>
          %evl = arith.mulf %dv, %log2e4 : vector<4xf32>
          %ev = math.exp2 %evl : vector<4xf32>
          %ns = vector.reduction <add>, %ev, %kept : vector<4xf32> into f32
          scf.yield %nm, %ns : f32, f32
        }
        scf.yield %r#0, %r#1 : f32, f32
      } else {
        %r:2 = scf.for %k = %t to %len step %tpr iter_args(%am = %lowest, %as = %zero) -> (f32, f32) {
          %i = arith.addi %base, %k : index
          %v = memref.load %x[%i] : memref<?xf32>
          %nm = arith.maximumf %am, %v : f32
          %d = arith.subf %am, %nm : f32
          %scalel = arith.mulf %d, %log2e : f32
          %scale = math.exp2 %scalel : f32
          %kept = arith.mulf %as, %scale : f32
          %dv = arith.subf %v, %nm : f32
          %evl = arith.mulf %dv, %log2e : f32
          %ev = math.exp2 %evl : f32
          %ns = arith.addf %kept, %ev : f32
          scf.yield %nm, %ns : f32, f32
        }
        scf.yield %r#0, %r#1 : f32, f32
      }
      scf.yield %m2, %s2 : f32, f32
      }

      // Combine the (max, sum) pairs of a segment.
      %wm, %ws = scf.for %it = %c0 to %seg_steps step %c1 iter_args(%am = %m, %as = %s) -> (f32, f32) {
        %si = arith.index_cast %it : index to i32
        %off = arith.shli %one, %si : i32
        %om, %ok1 = gpu.shuffle xor %am, %off, %seg_width : f32
        %os, %ok2 = gpu.shuffle xor %as, %off, %seg_width : f32
        %nm = arith.maximumf %am, %om : f32
        %d1 = arith.subf %am, %nm : f32
        %e1l = arith.mulf %d1, %log2e : f32
        %e1 = math.exp2 %e1l : f32
        %d2 = arith.subf %om, %nm : f32
        %e2l = arith.mulf %d2, %log2e : f32
        %e2 = math.exp2 %e2l : f32
        %a1 = arith.mulf %as, %e1 : f32
        %a2 = arith.mulf %os, %e2 : f32
        %ns = arith.addf %a1, %a2 : f32
        scf.yield %nm, %ns : f32, f32
      }
      // Rows that span several segments (folds away for tpr <= seg).
      %multi = arith.cmpi ugt, %tpr, %seg : index
      %rm, %rs = scf.if %multi -> (f32, f32) {
        %segment = arith.divui %tid, %seg : index
        %lane = arith.remui %tid, %seg : index
        %leader = arith.cmpi eq, %lane, %c0 : index
        scf.if %leader {
          memref.store %wm, %pm[%segment] : memref<32xf32, #gpu.address_space<workgroup>>
          memref.store %ws, %ps[%segment] : memref<32xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %spr = arith.divui %tpr, %seg : index
        %first = arith.muli %group, %spr : index
        %mine = arith.cmpi ult, %lane, %spr : index
        %pmv, %psv = scf.if %mine -> (f32, f32) {
          %j = arith.addi %first, %lane : index
          %a = memref.load %pm[%j] : memref<32xf32, #gpu.address_space<workgroup>>
          %b = memref.load %ps[%j] : memref<32xf32, #gpu.address_space<workgroup>>
          scf.yield %a, %b : f32, f32
        } else {
          scf.yield %lowest, %zero : f32, f32
        }
        %r:2 = scf.for %it = %c0 to %seg_steps step %c1 iter_args(%am = %pmv, %as = %psv) -> (f32, f32) {
          %si = arith.index_cast %it : index to i32
          %off = arith.shli %one, %si : i32
          %om, %ok1 = gpu.shuffle xor %am, %off, %seg_width : f32
          %os, %ok2 = gpu.shuffle xor %as, %off, %seg_width : f32
          %nm = arith.maximumf %am, %om : f32
          %d1 = arith.subf %am, %nm : f32
          %e1l = arith.mulf %d1, %log2e : f32
          %e1 = math.exp2 %e1l : f32
          %d2 = arith.subf %om, %nm : f32
          %e2l = arith.mulf %d2, %log2e : f32
          %e2 = math.exp2 %e2l : f32
          %a1 = arith.mulf %as, %e1 : f32
          %a2 = arith.mulf %os, %e2 : f32
          %ns = arith.addf %a1, %a2 : f32
          scf.yield %nm, %ns : f32, f32
        }
        scf.yield %r#0, %r#1 : f32, f32
      } else {
        scf.yield %wm, %ws : f32, f32
      }

      // Pass 2: y = exp(x - max) / sum.
      %inv = arith.divf %onef, %rs : f32
      scf.if %inreg {
        // y = e * exp(m - max) / sum, from the registers.
        %dm = arith.subf %m, %rm : f32
        %eml = arith.mulf %dm, %log2e : f32
        %em = math.exp2 %eml : f32
        %f = arith.mulf %em, %inv : f32
        %fv = vector.broadcast %f : f32 to vector<4xf32>
        scf.for %j = %c0 to %regs step %c1 {
          %jt = arith.muli %j, %tpr : index
          %q = arith.addi %t, %jt : index
          %k = arith.muli %q, %c4 : index
          %in = arith.cmpi ult, %k, %len : index
          scf.if %in {
            %e = memref.load %buf[%j] : memref<8xvector<4xf32>>
            %o = arith.mulf %e, %fv : vector<4xf32>
            %i = arith.addi %base, %k : index
            vector.store %o, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          }
        } {tuna.unroll}
      } else {
      scf.if %wide {
        %start = arith.muli %t, %c4 : index
        %step = arith.muli %tpr, %c4 : index
        %mv = vector.broadcast %rm : f32 to vector<4xf32>
        %iv = vector.broadcast %inv : f32 to vector<4xf32>
        scf.for %k = %start to %len step %step {
          %i = arith.addi %base, %k : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %d = arith.subf %v, %mv : vector<4xf32>
          %el = arith.mulf %d, %log2e4 : vector<4xf32>
          %e = math.exp2 %el : vector<4xf32>
          %o = arith.mulf %e, %iv : vector<4xf32>
          vector.store %o, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
        }
      } else {
        scf.for %k = %t to %len step %tpr {
          %i = arith.addi %base, %k : index
          %v = memref.load %x[%i] : memref<?xf32>
          %d = arith.subf %v, %rm : f32
          %el = arith.mulf %d, %log2e : f32
          %e = math.exp2 %el : f32
          %o = arith.mulf %e, %inv : f32
          memref.store %o, %y[%i] : memref<?xf32>
        }
      }
      }
      gpu.return
    }
  }

  // The host version (see the header): rows one after the other, three
  // passes over each with `unroll` independent `vec`-float vectors.
  func.func @softmax_host(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"vec", [4, 8, 16]>, #tuna.param<"unroll", [1, 2, 4]>],
      defaults = {vec = 8, unroll = 2},
      key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
      vscale = "vec"
    >} {
    %vec = tuna.param "vec" : index
    %unroll = tuna.param "unroll" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %onef = arith.constant 1.0 : f32
    %step = arith.muli %vec, %unroll : index
    %rem = arith.remui %cols, %step : index
    %main = arith.subi %cols, %rem : index
    // The running maxima, then sums, in the entry block (an alloca in the
    // loop would grow the stack); tuna.unroll makes every index into them
    // a constant, so LLVM keeps them in registers.
    %acc = memref.alloca() : memref<4xvector<[1]xf32>>
    // exp(d) in pass 2 (written out at its two uses, with these constants):
    // exp(d) = 2^t, t = d log2(e) (as the GPU version), for d <= 0, in
    // vector arithmetic that LLVM keeps vectorized (math.exp2 becomes one
    // libm call per float on the host). t = n + f with |f| <= 1/2:
    // k = t + 1.5 2^23 rounds t to the integer n (k - 1.5 2^23 = n exactly,
    // and k's bits are those of 1.5 2^23 plus n); 2^f is its Taylor
    // polynomial of degree 7 (truncation error below 1e-8 relative), 2^n the
    // float whose bits are (bits(k) + 127) << 23 = (n + 127) << 23 (mod
    // 2^32). t is clamped to -127 first, whose 2^n has the bits 0: exp(d) = 0
    // for d below about -87.7, as the GPU's ex2.approx.ftz flushes results
    // below 2^-126. NaN stays NaN.
    %ex_log2e = arith.constant dense<1.44269504> : vector<[1]xf32>
    %ex_lo = arith.constant dense<-127.0> : vector<[1]xf32>
    %ex_magic = arith.constant dense<12582912.0> : vector<[1]xf32>
    %ex_c0 = arith.constant dense<1.0> : vector<[1]xf32>
    %ex_c1 = arith.constant dense<0.693147182> : vector<[1]xf32>
    %ex_c2 = arith.constant dense<0.240226507> : vector<[1]xf32>
    %ex_c3 = arith.constant dense<0.0555041087> : vector<[1]xf32>
    %ex_c4 = arith.constant dense<0.00961812911> : vector<[1]xf32>
    %ex_c5 = arith.constant dense<0.00133335581> : vector<[1]xf32>
    %ex_c6 = arith.constant dense<1.54035304e-04> : vector<[1]xf32>
    %ex_c7 = arith.constant dense<1.52527338e-05> : vector<[1]xf32>
    %ex_bias = arith.constant dense<127> : vector<[1]xi32>
    %ex_c23 = arith.constant dense<23> : vector<[1]xi32>
    scf.for %row = %c0 to %rows step %c1 {
      %base = arith.muli %row, %cols : index
      %lowv = arith.constant dense<-3.0e+38> : vector<[1]xf32>
      %zero = arith.constant dense<0.0> : vector<[1]xf32>
      // Pass 1: the maximum.
      scf.for %j = %c0 to %unroll step %c1 {
        memref.store %lowv, %acc[%j] : memref<4xvector<[1]xf32>>
      } {tuna.unroll}
      scf.for %k = %c0 to %main step %step {
        %at = arith.addi %base, %k : index
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %i = arith.addi %at, %o : index
          %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
          %am = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
          %nm = arith.maximumf %am, %v : vector<[1]xf32>
          memref.store %nm, %acc[%j] : memref<4xvector<[1]xf32>>
        } {tuna.unroll}
      }
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %v = vector.maskedload %x[%i], %mask, %lowv : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %am = memref.load %acc[%c0] : memref<4xvector<[1]xf32>>
        %nm = arith.maximumf %am, %v : vector<[1]xf32>
        memref.store %nm, %acc[%c0] : memref<4xvector<[1]xf32>>
      }
      %mv = scf.for %j = %c0 to %unroll step %c1 iter_args(%s = %lowv) -> vector<[1]xf32> {
        %am = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
        %nm = arith.maximumf %s, %am : vector<[1]xf32>
        scf.yield %nm : vector<[1]xf32>
      } {tuna.unroll}
      %m = vector.reduction <maximumf>, %mv : vector<[1]xf32> into f32
      %mb = vector.broadcast %m : f32 to vector<[1]xf32>
      // Pass 2: e = exp(x - m), written to y, and its sum.
      scf.for %j = %c0 to %unroll step %c1 {
        memref.store %zero, %acc[%j] : memref<4xvector<[1]xf32>>
      } {tuna.unroll}
      scf.for %k = %c0 to %main step %step {
        %at = arith.addi %base, %k : index
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %i = arith.addi %at, %o : index
          %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
          %d = arith.subf %v, %mb : vector<[1]xf32>
          %ex_t0 = arith.mulf %d, %ex_log2e : vector<[1]xf32>
          %ex_low = arith.cmpf olt, %ex_t0, %ex_lo : vector<[1]xf32>
          %ex_t = arith.select %ex_low, %ex_lo, %ex_t0 : vector<[1]xi1>, vector<[1]xf32>
          %ex_k = arith.addf %ex_t, %ex_magic : vector<[1]xf32>
          %ex_n = arith.subf %ex_k, %ex_magic : vector<[1]xf32>
          %ex_f = arith.subf %ex_t, %ex_n : vector<[1]xf32>
          %ex_m6 = arith.mulf %ex_c7, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p6 = arith.addf %ex_m6, %ex_c6 fastmath<contract> : vector<[1]xf32>
          %ex_m5 = arith.mulf %ex_p6, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p5 = arith.addf %ex_m5, %ex_c5 fastmath<contract> : vector<[1]xf32>
          %ex_m4 = arith.mulf %ex_p5, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p4 = arith.addf %ex_m4, %ex_c4 fastmath<contract> : vector<[1]xf32>
          %ex_m3 = arith.mulf %ex_p4, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p3 = arith.addf %ex_m3, %ex_c3 fastmath<contract> : vector<[1]xf32>
          %ex_m2 = arith.mulf %ex_p3, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p2 = arith.addf %ex_m2, %ex_c2 fastmath<contract> : vector<[1]xf32>
          %ex_m1 = arith.mulf %ex_p2, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p1 = arith.addf %ex_m1, %ex_c1 fastmath<contract> : vector<[1]xf32>
          %ex_m0 = arith.mulf %ex_p1, %ex_f fastmath<contract> : vector<[1]xf32>
          %ex_p0 = arith.addf %ex_m0, %ex_c0 fastmath<contract> : vector<[1]xf32>
          %ex_kb = arith.bitcast %ex_k : vector<[1]xf32> to vector<[1]xi32>
          %ex_eb = arith.addi %ex_kb, %ex_bias : vector<[1]xi32>
          %ex_sb = arith.shli %ex_eb, %ex_c23 : vector<[1]xi32>
          %ex_s = arith.bitcast %ex_sb : vector<[1]xi32> to vector<[1]xf32>
          %e = arith.mulf %ex_p0, %ex_s : vector<[1]xf32>
          vector.store %e, %y[%i] : memref<?xf32>, vector<[1]xf32>
          %as = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
          %ns = arith.addf %as, %e : vector<[1]xf32>
          memref.store %ns, %acc[%j] : memref<4xvector<[1]xf32>>
        } {tuna.unroll}
      }
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %v = vector.maskedload %x[%i], %mask, %mb : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %d = arith.subf %v, %mb : vector<[1]xf32>
        %ex_t0 = arith.mulf %d, %ex_log2e : vector<[1]xf32>
        %ex_low = arith.cmpf olt, %ex_t0, %ex_lo : vector<[1]xf32>
        %ex_t = arith.select %ex_low, %ex_lo, %ex_t0 : vector<[1]xi1>, vector<[1]xf32>
        %ex_k = arith.addf %ex_t, %ex_magic : vector<[1]xf32>
        %ex_n = arith.subf %ex_k, %ex_magic : vector<[1]xf32>
        %ex_f = arith.subf %ex_t, %ex_n : vector<[1]xf32>
        %ex_m6 = arith.mulf %ex_c7, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p6 = arith.addf %ex_m6, %ex_c6 fastmath<contract> : vector<[1]xf32>
        %ex_m5 = arith.mulf %ex_p6, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p5 = arith.addf %ex_m5, %ex_c5 fastmath<contract> : vector<[1]xf32>
        %ex_m4 = arith.mulf %ex_p5, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p4 = arith.addf %ex_m4, %ex_c4 fastmath<contract> : vector<[1]xf32>
        %ex_m3 = arith.mulf %ex_p4, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p3 = arith.addf %ex_m3, %ex_c3 fastmath<contract> : vector<[1]xf32>
        %ex_m2 = arith.mulf %ex_p3, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p2 = arith.addf %ex_m2, %ex_c2 fastmath<contract> : vector<[1]xf32>
        %ex_m1 = arith.mulf %ex_p2, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p1 = arith.addf %ex_m1, %ex_c1 fastmath<contract> : vector<[1]xf32>
        %ex_m0 = arith.mulf %ex_p1, %ex_f fastmath<contract> : vector<[1]xf32>
        %ex_p0 = arith.addf %ex_m0, %ex_c0 fastmath<contract> : vector<[1]xf32>
        %ex_kb = arith.bitcast %ex_k : vector<[1]xf32> to vector<[1]xi32>
        %ex_eb = arith.addi %ex_kb, %ex_bias : vector<[1]xi32>
        %ex_sb = arith.shli %ex_eb, %ex_c23 : vector<[1]xi32>
        %ex_s = arith.bitcast %ex_sb : vector<[1]xi32> to vector<[1]xf32>
        %e0 = arith.mulf %ex_p0, %ex_s : vector<[1]xf32>
        %e = arith.select %mask, %e0, %zero : vector<[1]xi1>, vector<[1]xf32>
        vector.maskedstore %y[%i], %mask, %e : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32>
        %as = memref.load %acc[%c0] : memref<4xvector<[1]xf32>>
        %ns = arith.addf %as, %e : vector<[1]xf32>
        memref.store %ns, %acc[%c0] : memref<4xvector<[1]xf32>>
      }
      %sv = scf.for %j = %c0 to %unroll step %c1 iter_args(%s = %zero) -> vector<[1]xf32> {
        %as = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
        %ns = arith.addf %s, %as : vector<[1]xf32>
        scf.yield %ns : vector<[1]xf32>
      } {tuna.unroll}
      %sum = vector.reduction <add>, %sv : vector<[1]xf32> into f32
      // Pass 3: y = e (1 / sum).
      %inv = arith.divf %onef, %sum : f32
      %iv = vector.broadcast %inv : f32 to vector<[1]xf32>
      scf.for %k = %c0 to %main step %step {
        %at = arith.addi %base, %k : index
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %i = arith.addi %at, %o : index
          %e = vector.load %y[%i] : memref<?xf32>, vector<[1]xf32>
          %r = arith.mulf %e, %iv : vector<[1]xf32>
          vector.store %r, %y[%i] : memref<?xf32>, vector<[1]xf32>
        } {tuna.unroll}
      }
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %e = vector.maskedload %y[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %r = arith.mulf %e, %iv : vector<[1]xf32>
        vector.maskedstore %y[%i], %mask, %r : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32>
      }
    }
    return
  }
}
