// Transpose of a row-major rows x cols float matrix: y[c, r] = x[r, c].
//
// Reference: y[c * rows + r] == x[r * cols + c] exactly, for all r < rows,
// c < cols.
//
// A block moves one `tile` x `tile` square through workgroup memory: its
// `tile * brows` threads read `brows` rows of the square at a time (each warp
// reads consecutive floats of a row of x), wait at a barrier, then write
// `brows` rows of the transposed square (consecutive floats of a row of y).
// Rows of the staging buffer are padded to tile + 1 floats, so that reading
// a column hits 32 different banks. The grid is (cols / tile, rows / tile)
// blocks; edges are guarded. tile 16|32|64 x brows 2..16 with
// brows <= tile: 12 variants; default tile = 32, brows = 8.

#fits = affine_set<(rows, cols)[tile, brows] : (tile - brows >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @transpose(%x: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index)
        workgroup(%stage: memref<4160xf32, #gpu.address_space<workgroup>>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"tile", [16, 32, 64]>, #tuna.param<"brows", [2, 4, 8, 16]>],
        defaults = {tile = 32, brows = 8},
        constraints = [#fits],
        key = [#tuna.key<arg = 2, bucket = pow2>, #tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(rows, cols)[tile, brows] -> (cols ceildiv tile, rows ceildiv tile)>,
        block = affine_map<(rows, cols)[tile, brows] -> (tile * brows)>
      >} {
      %tile = tuna.param "tile" : index
      %brows = tuna.param "brows" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %stride = arith.addi %tile, %c1 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %tx = arith.remui %tid, %tile : index
      %ty = arith.divui %tid, %tile : index
      %col0 = arith.muli %bx, %tile : index
      %row0 = arith.muli %by, %tile : index
      // Read: x[row0 + ty + j, col0 + tx] -> stage[ty + j, tx].
      %c = arith.addi %col0, %tx : index
      %c_in = arith.cmpi ult, %c, %cols : index
      scf.for %j = %c0 to %tile step %brows {
        %ly = arith.addi %ty, %j : index
        %r = arith.addi %row0, %ly : index
        %r_in = arith.cmpi ult, %r, %rows : index
        %in = arith.andi %r_in, %c_in : i1
        scf.if %in {
          %rc = arith.muli %r, %cols : index
          %i = arith.addi %rc, %c : index
          %v = memref.load %x[%i] : memref<?xf32>
          %sr = arith.muli %ly, %stride : index
          %s = arith.addi %sr, %tx : index
          memref.store %v, %stage[%s] : memref<4160xf32, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      // Write: stage[tx, ty + j] -> y[col0 + ty + j, row0 + tx].
      %or = arith.addi %row0, %tx : index
      %or_in = arith.cmpi ult, %or, %rows : index
      %sc = arith.muli %tx, %stride : index
      scf.for %j = %c0 to %tile step %brows {
        %ly = arith.addi %ty, %j : index
        %oc = arith.addi %col0, %ly : index
        %oc_in = arith.cmpi ult, %oc, %cols : index
        %in = arith.andi %oc_in, %or_in : i1
        scf.if %in {
          %s = arith.addi %sc, %ly : index
          %v = memref.load %stage[%s] : memref<4160xf32, #gpu.address_space<workgroup>>
          %ocr = arith.muli %oc, %rows : index
          %i = arith.addi %ocr, %or : index
          memref.store %v, %y[%i] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
