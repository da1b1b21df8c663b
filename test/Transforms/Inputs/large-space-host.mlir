// A synthetic host kernel with a space of 10 x 10 x 10 x 10 = 10,000
// configurations, for planning at scale (tuna-expand plan-only,
// tuna-compile --variants, tuna_jit's lazy mode) and its measurements
// (docs/large-spaces.md). y = 2 * x over n floats, cut into tiles of
// a * 1000 + b * 100 + c * 10 + d elements: every configuration is another
// variant, and all compute the same result.

func.func @large(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"a", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]>,
              #tuna.param<"b", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]>,
              #tuna.param<"c", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]>,
              #tuna.param<"d", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]>],
    defaults = {a = 0, b = 2, c = 5, d = 6},
    key = [#tuna.key<arg = 2, bucket = pow2>]>} {
  %a = tuna.param "a" : index
  %b = tuna.param "b" : index
  %c = tuna.param "c" : index
  %d = tuna.param "d" : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %c1000 = arith.constant 1000 : index
  %two = arith.constant 2.0 : f32
  %ta = arith.muli %a, %c1000 : index
  %tb = arith.muli %b, %c100 : index
  %tc = arith.muli %c, %c10 : index
  %tab = arith.addi %ta, %tb : index
  %tcd = arith.addi %tc, %d : index
  %tile = arith.addi %tab, %tcd : index
  scf.for %i = %c0 to %n step %tile {
    %next = arith.addi %i, %tile : index
    %end = arith.minui %next, %n : index
    scf.for %j = %i to %end step %c1 {
      %v = memref.load %x[%j] : memref<?xf32>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %y[%j] : memref<?xf32>
    }
  }
  return
}
