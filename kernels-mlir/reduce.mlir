// Row sum of a row-major rows x cols float matrix: y[r] = sum_c x[r, c].
//
// Reference: y[r] = sum_{c < cols} x[r * cols + c], computed in double on the
// CPU; this kernel accumulates in float (per-thread partial sums, then a
// tree across threads), so expect a relative error near 1e-6.
//
// Each row is reduced by a group of `tpr` threads; a block holds `rpb` such
// groups, so `tpr * rpb` threads and a grid of rows / rpb blocks. A thread
// sums elements t*vec, t*vec + tpr*vec, ... of its row with `vec`-wide loads
// (16 bytes for vec = 4, when cols is a multiple of vec and x is aligned;
// otherwise one float at a time), then the threads of a warp segment that
// work on one row sum with butterfly shuffles, and when a row spans several
// segments their partial sums meet in workgroup memory and one more round
// of shuffles. The warp is `gpu.subgroup_size`, a constant per target (32
// on NVIDIA, 64 on gfx90a/gfx942, 32 on gfx1100); the segment is the warp,
// or the largest power of two dividing tpr where that is smaller (on
// wave64, tpr = 32 puts two rows in a wavefront).
// tpr 32..1024 x rpb 1..8 x vec 1|4 with tpr * rpb <= 1024: 36 variants;
// default tpr = 128, rpb = 1, vec = 1. The vector loop is written once
// for both widths (`vscale = "vec"` and `tuna.aligned`, docs/attributes.md,
// "Vector widths").
//
// Host (`row_sum_host`, same arguments): rows one after the other; a row is
// summed into `unroll` independent accumulators of `vec` floats (vector
// loads of 16, 32 or 64 bytes, unaligned allowed), the rest of the row
// (cols mod vec unroll floats) `vec` at a time, the last chunk through a
// masked load; then the accumulators are added and reduced.
// vec 4|8|16 x unroll 1|2|4: 9 variants; default vec = 8, unroll = 2.

#fits = affine_set<(rows, cols)[tpr, rpb, vec] : (1024 - tpr * rpb >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row_sum(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index)
        workgroup(%partial: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tpr", [32, 64, 128, 256, 512, 1024]>,
                  #tuna.param<"rpb", [1, 2, 4, 8]>,
                  #tuna.param<"vec", [1, 4]>],
        defaults = {tpr = 128, rpb = 1, vec = 1},
        constraints = [#fits],
        key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(rows, cols)[tpr, rpb, vec] -> (rows ceildiv rpb)>,
        block = affine_map<(rows, cols)[tpr, rpb, vec] -> (tpr * rpb)>,
        vscale = "vec"
      >} {
      %tpr = tuna.param "tpr" : index
      %rpb = tuna.param "rpb" : index
      %vec = tuna.param "vec" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %group = arith.divui %tid, %tpr : index
      %t = arith.remui %tid, %tpr : index
      %first_row = arith.muli %bid, %rpb : index
      %row = arith.addi %first_row, %group : index
      // Threads of a row past the end run no iterations but still take part
      // in the barrier below.
      %valid = arith.cmpi ult, %row, %rows : index
      %len = arith.select %valid, %cols, %c0 : index
      %base = arith.muli %row, %cols : index
      %px = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %vec_bytes = arith.muli %vec, %c4 : index
      %pmis = arith.remui %px, %vec_bytes : index
      %cmis = arith.remui %cols, %vec : index
      %mis = arith.ori %pmis, %cmis : index
      %aligned = arith.cmpi eq, %mis, %c0 : index
      %sum = scf.if %aligned -> f32 {
        // One body for every width: vector<[1]xf32> is vector<vecxf32> in
        // each variant, and tuna.aligned gives its loads the alignment of
        // that size (16 bytes for vec = 4; the branch's condition makes it
        // true).
        %start = arith.muli %t, %vec : index
        %step = arith.muli %tpr, %vec : index
        %init = arith.constant dense<0.0> : vector<[1]xf32>
        %acc = scf.for %k = %start to %len step %step iter_args(%a = %init) -> vector<[1]xf32> {
          %i = arith.addi %base, %k : index
          %v = vector.load %x[%i] {tuna.aligned} : memref<?xf32>, vector<[1]xf32>
          %n = arith.addf %a, %v : vector<[1]xf32>
          scf.yield %n : vector<[1]xf32>
        }
        %r = vector.reduction <add>, %acc : vector<[1]xf32> into f32
        scf.yield %r : f32
      } else {
        %r = scf.for %k = %t to %len step %tpr iter_args(%a = %zero) -> f32 {
          %i = arith.addi %base, %k : index
          %v = memref.load %x[%i] : memref<?xf32>
          %n = arith.addf %a, %v : f32
          scf.yield %n : f32
        }
        scf.yield %r : f32
      }
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
      // Butterfly over the segment: every lane ends with the segment's sum.
      %seg_sum = scf.for %s = %c0 to %seg_steps step %c1 iter_args(%a = %sum) -> f32 {
        %si = arith.index_cast %s : index to i32
        %off = arith.shli %one, %si : i32
        %o, %ok = gpu.shuffle xor %a, %off, %seg_width : f32
        %n = arith.addf %a, %o : f32
        scf.yield %n : f32
      }
      // A row that spans several segments (tpr and the segment are constants
      // in each variant on each target, so this folds away for tpr <= seg).
      %multi = arith.cmpi ugt, %tpr, %seg : index
      %total = scf.if %multi -> f32 {
        %segment = arith.divui %tid, %seg : index
        %lane = arith.remui %tid, %seg : index
        %leader = arith.cmpi eq, %lane, %c0 : index
        scf.if %leader {
          memref.store %seg_sum, %partial[%segment] : memref<32xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %spr = arith.divui %tpr, %seg : index
        %first = arith.muli %group, %spr : index
        %mine = arith.cmpi ult, %lane, %spr : index
        %p = scf.if %mine -> f32 {
          %j = arith.addi %first, %lane : index
          %v = memref.load %partial[%j] : memref<32xf32, #gpu.address_space<workgroup>>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        %r = scf.for %s = %c0 to %seg_steps step %c1 iter_args(%a = %p) -> f32 {
          %si = arith.index_cast %s : index to i32
          %off = arith.shli %one, %si : i32
          %o, %ok = gpu.shuffle xor %a, %off, %seg_width : f32
          %n = arith.addf %a, %o : f32
          scf.yield %n : f32
        }
        scf.yield %r : f32
      } else {
        scf.yield %seg_sum : f32
      }
      %head = arith.cmpi eq, %t, %c0 : index
      %write = arith.andi %head, %valid : i1
      scf.if %write {
        memref.store %total, %y[%row] : memref<?xf32>
      }
      gpu.return
    }
  }

  // The host version: one row after the other, `unroll` independent
  // accumulators of `vec` floats each (vector.load, so the vector width is
  // the parameter's, not LLVM's choice); the last cols mod (vec unroll)
  // floats go `vec` at a time, the last chunk through a masked load.
  // The body is written once for every width: `vscale = "vec"` makes every
  // `vector<[1]xf32>` a `vector<{vec}xf32>` in each variant.
  func.func @row_sum_host(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index) attributes {
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
    %step = arith.muli %vec, %unroll : index
    %rem = arith.remui %cols, %step : index
    %main = arith.subi %cols, %rem : index
    // The accumulators, in the entry block (an alloca in the loop would
    // grow the stack); tuna.unroll makes every index a constant, so LLVM
    // keeps them in registers.
    %acc = memref.alloca() : memref<4xvector<[1]xf32>>
    scf.for %row = %c0 to %rows step %c1 {
      %base = arith.muli %row, %cols : index
      %zero = arith.constant dense<0.0> : vector<[1]xf32>
      scf.for %j = %c0 to %unroll step %c1 {
        memref.store %zero, %acc[%j] : memref<4xvector<[1]xf32>>
      } {tuna.unroll}
      scf.for %k = %c0 to %main step %step {
        %at = arith.addi %base, %k : index
        scf.for %j = %c0 to %unroll step %c1 {
          %o = arith.muli %j, %vec : index
          %i = arith.addi %at, %o : index
          %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
          %a = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
          %n = arith.addf %a, %v : vector<[1]xf32>
          memref.store %n, %acc[%j] : memref<4xvector<[1]xf32>>
        } {tuna.unroll}
      }
      scf.for %k = %main to %cols step %vec {
        %left = arith.subi %cols, %k : index
        %mask = vector.create_mask %left : vector<[1]xi1>
        %i = arith.addi %base, %k : index
        %v = vector.maskedload %x[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
        %a = memref.load %acc[%c0] : memref<4xvector<[1]xf32>>
        %n = arith.addf %a, %v : vector<[1]xf32>
        memref.store %n, %acc[%c0] : memref<4xvector<[1]xf32>>
      }
      %t = scf.for %j = %c0 to %unroll step %c1 iter_args(%s = %zero) -> vector<[1]xf32> {
        %a = memref.load %acc[%j] : memref<4xvector<[1]xf32>>
        %n = arith.addf %s, %a : vector<[1]xf32>
        scf.yield %n : vector<[1]xf32>
      } {tuna.unroll}
      %sum = vector.reduction <add>, %t : vector<[1]xf32> into f32
      memref.store %sum, %y[%row] : memref<?xf32>
    }
    return
  }
}
