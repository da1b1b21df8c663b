// C = A * B for row-major f32 matrices on the host CPU, cache-blocked.
//
// A is M x K, B is K x N, C is M x N (overwritten). The loop nest walks
// tm x tn tiles of C and tk-deep slabs of A and B; the innermost loop runs
// along a row of B and C, which LLVM vectorizes. The tile sizes decide how
// well the slabs stay in cache: 3 x 3 x 2 = 18 variants. Any positive tile
// sizes work (the loops clamp them): kernels-mlir/wide_spaces.py writes
// `matmul_host_wide` with 1,100.

module {
  func.func @matmul_host(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"tm", [8, 32, 64]>, #tuna.param<"tn", [64, 128, 256]>,
                #tuna.param<"tk", [32, 128]>],
      defaults = {tm = 8, tn = 64, tk = 32},
      key = [#tuna.key<arg = 0, dim = 0, bucket = pow2>,
             #tuna.key<arg = 1, dim = 1, bucket = pow2>,
             #tuna.key<arg = 0, dim = 1, bucket = pow2>]
    >} {
    %tm = tuna.param "tm" : index
    %tn = tuna.param "tn" : index
    %tk = tuna.param "tk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %n = memref.dim %b, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        memref.store %zero, %c[%i, %j] : memref<?x?xf32>
      }
    }
    scf.for %i0 = %c0 to %m step %tm {
      %i1 = arith.addi %i0, %tm : index
      %ie = arith.minui %i1, %m : index
      scf.for %j0 = %c0 to %n step %tn {
        %j1 = arith.addi %j0, %tn : index
        %je = arith.minui %j1, %n : index
        scf.for %k0 = %c0 to %k step %tk {
          %k1 = arith.addi %k0, %tk : index
          %ke = arith.minui %k1, %k : index
          scf.for %i = %i0 to %ie step %c1 {
            scf.for %kk = %k0 to %ke step %c1 {
              %av = memref.load %a[%i, %kk] : memref<?x?xf32>
              scf.for %j = %j0 to %je step %c1 {
                %bv = memref.load %b[%kk, %j] : memref<?x?xf32>
                %cv = memref.load %c[%i, %j] : memref<?x?xf32>
                %p = arith.mulf %av, %bv : f32
                %s = arith.addf %cv, %p : f32
                memref.store %s, %c[%i, %j] : memref<?x?xf32>
              }
            }
          }
        }
      }
    }
    return
  }
}
