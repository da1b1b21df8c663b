// RUN: tuna-compile %s --target=host -o %t.tuna --emit-dir=%t
// RUN: llvm-nm -D --undefined-only %t/host-math.host.so | FileCheck %s
// RUN: tuna-compile %s --target=host --host-cpu=x86-64-v3 -o %t.v3.tuna --emit-dir=%t.v3
// RUN: llvm-nm -D --undefined-only %t.v3/host-math.host.so | FileCheck %s

// f32 math on the host is approximated (tuna-approximate-math,
// docs/host-math.md): a tanh-GELU and the other approximated functions,
// on vectors and scalars, call nothing in libm, for the generic x86-64
// (no FMA: the polynomials' multiply-adds must not become fmaf calls) and
// for an AVX2 + FMA CPU. sin is not approximated: it stays a libm call.

// CHECK-NOT: {{ (tanhf|expf|logf|log2f|log1pf|expm1f|erff|erfcf|asinf|acosf|fmaf|floorf|roundf|ldexpf)$}}
// CHECK: U sinf
// CHECK-NOT: {{ (tanhf|expf|logf|log2f|log1pf|expm1f|erff|erfcf|asinf|acosf|fmaf|floorf|roundf|ldexpf)$}}

func.func @gelu(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"lanes", [8]>],
    defaults = {lanes = 8},
    key = [#tuna.key<arg = 2, bucket = pow2>]
  >} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant dense<0.5> : vector<8xf32>
  %one = arith.constant dense<1.0> : vector<8xf32>
  %k = arith.constant dense<0.7978845608> : vector<8xf32>
  %c = arith.constant dense<0.044715> : vector<8xf32>
  scf.for %i = %c0 to %n step %c8 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<8xf32>
    %v2 = arith.mulf %v, %v : vector<8xf32>
    %v3 = arith.mulf %v2, %v : vector<8xf32>
    %cv3 = arith.mulf %c, %v3 : vector<8xf32>
    %inner = arith.addf %v, %cv3 : vector<8xf32>
    %arg = arith.mulf %k, %inner : vector<8xf32>
    %t = math.tanh %arg : vector<8xf32>
    %onet = arith.addf %one, %t : vector<8xf32>
    %hv = arith.mulf %half, %v : vector<8xf32>
    %r = arith.mulf %hv, %onet : vector<8xf32>
    vector.store %r, %y[%i] : memref<?xf32>, vector<8xf32>
  }
  return
}

func.func @others(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"lanes", [8]>],
    defaults = {lanes = 8},
    key = [#tuna.key<arg = 2, bucket = pow2>]
  >} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c8 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<8xf32>
    %a = math.exp %v : vector<8xf32>
    %b = math.log %a : vector<8xf32>
    %c = math.log2 %b : vector<8xf32>
    %d = math.log1p %c : vector<8xf32>
    %e = math.expm1 %d : vector<8xf32>
    %f = math.erf %e : vector<8xf32>
    %g = math.erfc %f : vector<8xf32>
    %k = math.asin %g : vector<8xf32>
    %l = math.acos %k : vector<8xf32>
    vector.store %l, %y[%i] : memref<?xf32>, vector<8xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %a = math.exp %v : f32
    %b = math.tanh %a : f32
    %c = math.erf %b : f32
    %s = math.sin %c : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}
