// y = gelu_tanh(x + b): 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))),
// v = x + b, on a rows x cols row-major matrix and a bias of cols; 8 lanes
// at a time, `step` columns per iteration (cols a multiple of 16).
func.func @bias_gelu(%x: memref<?xf32>, %b: memref<?xf32>, %y: memref<?xf32>, %rows: index, %cols: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"step", [8, 16]>],
    defaults = {step = 8},
    key = [#tuna.key<arg = 3, bucket = pow2>, #tuna.key<arg = 4, bucket = pow2>]
  >} {
  %step = tuna.param "step" : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant dense<0.5> : vector<8xf32>
  %one = arith.constant dense<1.0> : vector<8xf32>
  %k = arith.constant dense<0.7978845608> : vector<8xf32>
  %c = arith.constant dense<0.044715> : vector<8xf32>
  scf.for %r = %c0 to %rows step %c1 {
    %row = arith.muli %r, %cols : index
    scf.for %j0 = %c0 to %cols step %step {
     scf.for %u = %c0 to %step step %c8 {
      %j = arith.addi %j0, %u : index
      %i = arith.addi %row, %j : index
      %xv = vector.load %x[%i] : memref<?xf32>, vector<8xf32>
      %bv = vector.load %b[%j] : memref<?xf32>, vector<8xf32>
      %v = arith.addf %xv, %bv : vector<8xf32>
      %v2 = arith.mulf %v, %v : vector<8xf32>
      %v3 = arith.mulf %v2, %v : vector<8xf32>
      %cv3 = arith.mulf %c, %v3 : vector<8xf32>
      %inner = arith.addf %v, %cv3 : vector<8xf32>
      %arg = arith.mulf %k, %inner : vector<8xf32>
      %t = math.tanh %arg : vector<8xf32>
      %onet = arith.addf %one, %t : vector<8xf32>
      %hv = arith.mulf %half, %v : vector<8xf32>
      %res = arith.mulf %hv, %onet : vector<8xf32>
      vector.store %res, %y[%i] : memref<?xf32>, vector<8xf32>
     }
    }
  }
  return
}
