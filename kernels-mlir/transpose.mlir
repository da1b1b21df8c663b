// Transpose of a row-major rows x cols float matrix: y[c, r] = x[r, c].
//
// Reference: y[c * rows + r] == x[r * cols + c] exactly, for all r < rows,
// c < cols.
//
// A block moves one `tile` x `tile` square through workgroup memory: each
// of its `tile * brows / vec` threads owns `vec` consecutive columns of a row
// of the square; the block reads `brows` rows of the square at a time (each
// warp reads consecutive floats of rows of x), waits at a barrier, then
// writes `brows` rows of the transposed square (consecutive floats of rows of
// y). With vec = 4, rows and cols multiples of 4 and both buffers aligned
// to 16 bytes, a square inside the matrix is read and written with one
// unguarded 16-byte access per thread and row (all of a thread's loads
// issued before its first store to the staging square; the 4 floats of a
// column of the square are gathered one at a time for the write). Edge
// squares of such a matrix move 16 bytes at a time as well (a chunk is
// wholly inside or outside: one outside loads a clamped chunk inside, so
// that the loads stay unconditional, and is not written out); other
// shapes move one float at a time, guarded. Rows of the
// staging buffer are padded to tile + 1 floats, so that reading a column
// spreads over the banks. The grid is (cols / tile, rows / tile) blocks;
// with diag = 1 block b of the launch order (b = bx + gx by) takes the
// square ((b / gy + b mod gy) mod gx, b mod gy) instead of (bx, by): the
// blocks in flight together then cover a diagonal band of squares rather
// than a band of rows of x, so that their writes do not all fall in the
// same few columns of y (with power-of-two strides, the same few memory
// channels).
// tile 16|32|64 x brows 2..16 with brows <= tile x vec 1|4 with
// tile brows >= 32 vec (a warp at least) x diag 0|1: 42 variants; default
// tile = 32, brows = 8, vec = 1, diag = 0.

#fits = affine_set<(rows, cols)[tile, brows, vec, diag] : (tile - brows >= 0)>
// A block of at least one warp.
#warp = affine_set<(rows, cols)[tile, brows, vec, diag] : (tile * brows - 32 * vec >= 0)>
// The loops over a thread's rows and floats (constant trips once the
// parameters are substituted) are marked `tuna.unroll`: the tuna-unroll pass
// copies their bodies, so that the chunks' indices are constants and stay in
// registers.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @transpose(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index)
        workgroup(%stage: memref<4160xf32, #gpu.address_space<workgroup>>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tile", [16, 32, 64]>, #tuna.param<"brows", [2, 4, 8, 16]>,
                  #tuna.param<"vec", [1, 4]>, #tuna.param<"diag", [0, 1]>],
        defaults = {tile = 32, brows = 8, vec = 1, diag = 0},
        constraints = [#fits, #warp],
        key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(rows, cols)[tile, brows, vec, diag] -> (cols ceildiv tile, rows ceildiv tile)>,
        block = affine_map<(rows, cols)[tile, brows, vec, diag] -> ((tile * brows) floordiv vec)>
      >} {
      %tile = tuna.param "tile" : index
      %brows = tuna.param "brows" : index
      %vec = tuna.param "vec" : index
      %diag = tuna.param "diag" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c15 = arith.constant 15 : index
      %stride = arith.addi %tile, %c1 : index
      %bx0 = gpu.block_id x
      %by0 = gpu.block_id y
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %is_diag = arith.cmpi ne, %diag, %c0 : index
      %bx, %by = scf.if %is_diag -> (index, index) {
        %byg = arith.muli %by0, %gx : index
        %lin = arith.addi %bx0, %byg : index
        %q = arith.divui %lin, %gy : index
        %r = arith.remui %lin, %gy : index
        %qr = arith.addi %q, %r : index
        %c = arith.remui %qr, %gx : index
        scf.yield %c, %r : index, index
      } else {
        scf.yield %bx0, %by0 : index, index
      }
      %tid = gpu.thread_id x
      %tpr = arith.divui %tile, %vec : index
      %tx = arith.remui %tid, %tpr : index
      %ty = arith.divui %tid, %tpr : index
      %lx = arith.muli %tx, %vec : index
      %col0 = arith.muli %bx, %tile : index
      %row0 = arith.muli %by, %tile : index
      // 16-byte accesses: vec = 4, rows and cols multiples of 4, both
      // buffers aligned.
      %px = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %py = memref.extract_aligned_pointer_as_index %y : memref<?xf32> -> index
      %pxy = arith.ori %px, %py : index
      %pmis = arith.andi %pxy, %c15 : index
      %rc = arith.ori %rows, %cols : index
      %smis = arith.andi %rc, %c3 : index
      %mis = arith.ori %pmis, %smis : index
      %aligned = arith.cmpi eq, %mis, %c0 : index
      %is4 = arith.cmpi eq, %vec, %c4 : index
      %wide = arith.andi %aligned, %is4 : i1

      // A square inside the matrix needs no guards: every load of a thread
      // can be issued before the first store to the staging square.
      %row1 = arith.addi %row0, %tile : index
      %col1 = arith.addi %col0, %tile : index
      %rows_in = arith.cmpi ule, %row1, %rows : index
      %cols_in = arith.cmpi ule, %col1, %cols : index
      %interior = arith.andi %rows_in, %cols_in : i1
      %fast4 = arith.andi %interior, %wide : i1
      %true = arith.constant true
      %edge = arith.xori %interior, %true : i1
      %edge4 = arith.andi %edge, %wide : i1
      %lastrow = arith.subi %rows, %c1 : index
      %lastc = arith.subi %cols, %c4 : index

      // Read: x[row0 + ty + j, col0 + lx + i] -> stage[ty + j, lx + i].
      %c = arith.addi %col0, %lx : index
      scf.if %fast4 {
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %r = arith.addi %row0, %ly : index
          %rcols = arith.muli %r, %cols : index
          %i = arith.addi %rcols, %c : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %sr = arith.muli %ly, %stride : index
          %s = arith.addi %sr, %lx : index
          vector.store %v, %stage[%s] : memref<4160xf32, #gpu.address_space<workgroup>>, vector<4xf32>
        } {tuna.unroll}
      } else {
      scf.if %edge4 {
        // An edge square, 16 bytes at a time: a chunk is wholly inside or
        // wholly outside (rows, cols and the chunk's column are multiples
        // of 4); one outside loads a clamped chunk inside instead, so that
        // every load is unconditional, and its staging place is never
        // written out.
        %cc = arith.minui %c, %lastc : index
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %r = arith.addi %row0, %ly : index
          %rclamp = arith.minui %r, %lastrow : index
          %rcols = arith.muli %rclamp, %cols : index
          %i = arith.addi %rcols, %cc : index
          %v = vector.load %x[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          %sr = arith.muli %ly, %stride : index
          %s = arith.addi %sr, %lx : index
          vector.store %v, %stage[%s] : memref<4160xf32, #gpu.address_space<workgroup>>, vector<4xf32>
        } {tuna.unroll}
      } else {
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %r = arith.addi %row0, %ly : index
          %r_in = arith.cmpi ult, %r, %rows : index
          %rcols = arith.muli %r, %cols : index
          %sr = arith.muli %ly, %stride : index
          %s = arith.addi %sr, %lx : index
          scf.for %e = %c0 to %vec step %c1 {
            %ce = arith.addi %c, %e : index
            %c_in = arith.cmpi ult, %ce, %cols : index
            %in = arith.andi %r_in, %c_in : i1
            scf.if %in {
              %i = arith.addi %rcols, %ce : index
              %v = memref.load %x[%i] : memref<?xf32>
              %se = arith.addi %s, %e : index
              memref.store %v, %stage[%se] : memref<4160xf32, #gpu.address_space<workgroup>>
            }
          } {tuna.unroll}
        } {tuna.unroll}
      }
      }
      gpu.barrier
      // Write: stage[lx + i, ty + j] -> y[col0 + ty + j, row0 + lx + i].
      %or = arith.addi %row0, %lx : index
      %sx = arith.muli %lx, %stride : index
      scf.if %fast4 {
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %oc = arith.addi %col0, %ly : index
          %ocrows = arith.muli %oc, %rows : index
          %s0 = arith.addi %sx, %ly : index
          %s1 = arith.addi %s0, %stride : index
          %s2 = arith.addi %s1, %stride : index
          %s3 = arith.addi %s2, %stride : index
          %v0 = memref.load %stage[%s0] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v1 = memref.load %stage[%s1] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v2 = memref.load %stage[%s2] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v3 = memref.load %stage[%s3] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v = vector.from_elements %v0, %v1, %v2, %v3 : vector<4xf32>
          %i = arith.addi %ocrows, %or : index
          vector.store %v, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
        } {tuna.unroll}
      } else {
      scf.if %edge4 {
        // 16 bytes at a time, the chunks inside only.
        %or_in = arith.cmpi ult, %or, %rows : index
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %oc = arith.addi %col0, %ly : index
          %oc_in = arith.cmpi ult, %oc, %cols : index
          %in = arith.andi %oc_in, %or_in : i1
          %s0 = arith.addi %sx, %ly : index
          %s1 = arith.addi %s0, %stride : index
          %s2 = arith.addi %s1, %stride : index
          %s3 = arith.addi %s2, %stride : index
          %v0 = memref.load %stage[%s0] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v1 = memref.load %stage[%s1] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v2 = memref.load %stage[%s2] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v3 = memref.load %stage[%s3] : memref<4160xf32, #gpu.address_space<workgroup>>
          %v = vector.from_elements %v0, %v1, %v2, %v3 : vector<4xf32>
          scf.if %in {
            %ocrows = arith.muli %oc, %rows : index
            %i = arith.addi %ocrows, %or : index
            vector.store %v, %y[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
          }
        } {tuna.unroll}
      } else {
        scf.for %j = %c0 to %tile step %brows {
          %ly = arith.addi %ty, %j : index
          %oc = arith.addi %col0, %ly : index
          %oc_in = arith.cmpi ult, %oc, %cols : index
          %ocrows = arith.muli %oc, %rows : index
          scf.for %e = %c0 to %vec step %c1 {
            %ore = arith.addi %or, %e : index
            %or_in = arith.cmpi ult, %ore, %rows : index
            %in = arith.andi %oc_in, %or_in : i1
            scf.if %in {
              %se = arith.muli %e, %stride : index
              %sxe = arith.addi %sx, %se : index
              %s = arith.addi %sxe, %ly : index
              %v = memref.load %stage[%s] : memref<4160xf32, #gpu.address_space<workgroup>>
              %i = arith.addi %ocrows, %ore : index
              memref.store %v, %y[%i] : memref<?xf32>
            }
          } {tuna.unroll}
        } {tuna.unroll}
      }
      }
      gpu.return
    }
  }
}
