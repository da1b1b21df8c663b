// RUN: tuna-opt %s --tuna-approximate-math --split-input-file | FileCheck %s
// RUN: tuna-opt %s --tuna-approximate-math=ops=exp --split-input-file | FileCheck %s --check-prefix=ONLY-EXP
// RUN: not tuna-opt %s --tuna-approximate-math=ops=sinh 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: tuna-approximate-math: no approximation of 'math.sinh' (known: acos, asin, atan, atan2, cbrt, cos, erf, erfc, exp, expm1, log, log1p, log2, sin, tanh)

// f32 vectors and scalars become arithmetic (and math.absf, math.copysign:
// bit operations); the polynomials' multiply-adds may be contracted (fused
// on a CPU with FMA), never a math.fma, and their floor is a conversion to
// i32 and back, never a math.floor.
// CHECK-LABEL: func.func @f32
// CHECK-NOT: math.{{exp|tanh|log|erf|fma|floor}}
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK-NOT: math.{{exp|tanh|log|erf|fma|floor}}
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NOT: math.{{exp|tanh|log|erf|fma|floor}}
// CHECK: return
// ONLY-EXP-LABEL: func.func @f32
// ONLY-EXP-NOT: math.exp
// ONLY-EXP: math.tanh %{{.*}} : vector<8xf32>
// ONLY-EXP-NOT: math.exp
// ONLY-EXP: math.tanh %{{.*}} : f32
// ONLY-EXP-NOT: math.exp
func.func @f32(%v: vector<8xf32>, %s: f32) -> (vector<8xf32>, f32) {
  %e = math.exp %v : vector<8xf32>
  %t = math.tanh %e : vector<8xf32>
  %l = math.log %t : vector<8xf32>
  %r = math.erf %l : vector<8xf32>
  %a = math.log1p %r : vector<8xf32>
  %se = math.exp %s : f32
  %st = math.tanh %se : f32
  return %a, %st : vector<8xf32>, f32
}

// -----

// f16 is computed in f32; f64 and the functions not in the set stay.
// CHECK-LABEL: func.func @other_types
// CHECK: arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK-NOT: math.tanh %{{.*}} : vector<4x
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f32
func.func @other_types(%h: vector<4xf16>, %d: f64, %s: f32) -> (vector<4xf16>, f64, f32) {
  %th = math.tanh %h : vector<4xf16>
  %td = math.tanh %d : f64
  %ss = math.sin %s : f32
  return %th, %td, %ss : vector<4xf16>, f64, f32
}

// -----

// A math.fma the kernel wrote stays fused.
// CHECK-LABEL: func.func @written_fma
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @written_fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %r = math.fma %a, %b, %c : f32
  return %r : f32
}
