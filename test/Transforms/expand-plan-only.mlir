// RUN: tuna-opt %s --tuna-expand=plan-only --split-input-file | FileCheck %s
// RUN: tuna-opt %S/Inputs/large-space-host.mlir --tuna-expand=plan-only | FileCheck %s --check-prefix=LARGE
// RUN: tuna-opt %S/Inputs/large-space-host.mlir --tuna-expand=plan-only | grep -c "tuna.variant @large__v" | FileCheck %s --check-prefix=COUNT
// RUN: tuna-opt %S/Inputs/large-space-gpu.mlir --tuna-expand=plan-only | grep -c "tuna.variant @large_gpu__v" | FileCheck %s --check-prefix=COUNT
// RUN: not tuna-opt %S/Inputs/large-space-host.mlir --tuna-expand="plan-only max-variants=9999" 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: tuna-opt %S/Inputs/large-space-host.mlir --tuna-expand=plan-only | not tuna-opt --tuna-expand 2>&1 | FileCheck %s --check-prefix=AGAIN

// plan-only: the table lists every configuration that survives planning,
// under the name its variant will have; no variant is instantiated, nothing
// is deduplicated, and the kernel stays (renamed: the table takes the name).

#small = affine_set<(n)[step, same] : (4 - step >= 0)>
#divides = affine_set<(n)[step, same] : (n mod step == 0)>

func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 2, 4, 8]>, #tuna.param<"same", [0, 1]>],
    defaults = {step = 2, same = 0},
    constraints = [#small, #divides],
    key = [#tuna.key<arg = 2>]>} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %y[%i] : memref<?xf32>
  }
  return
}

// CHECK-NOT:   func.func @axpy__v
// CHECK-LABEL: func.func @axpy__planned(
// CHECK-SAME:    tuna.space = #tuna.space
// CHECK:         tuna.param "step"
// CHECK-NOT:   func.func @axpy__v
// CHECK:       tuna.dispatch @axpy attributes {default_variant = 2 : i64, {{.*}}params = ["step", "same"]{{.*}}tuna.planned_kernel = @axpy__planned
// CHECK-NEXT:    tuna.variant @axpy__v0 config {same = 0 : i64, step = 1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @axpy__v1 config {same = 1 : i64, step = 1 : i64}{{$}}
// CHECK-NEXT:    tuna.variant @axpy__v2 config {same = 0 : i64, step = 2 : i64} where [#[[EVEN:.*]]]
// CHECK-NEXT:    tuna.variant @axpy__v3 config {same = 1 : i64, step = 2 : i64} where [#[[EVEN]]]
// CHECK-NEXT:    tuna.variant @axpy__v4 config {same = 0 : i64, step = 4 : i64} where [#[[FOUR:.*]]]
// CHECK-NEXT:    tuna.variant @axpy__v5 config {same = 1 : i64, step = 4 : i64} where [#[[FOUR]]]
// CHECK-NEXT:  }
// CHECK-NOT:   func.func @axpy__v

// -----

// A GPU kernel stays in its gpu.module under its own name; each entry
// names the gpu.module its variant will have. Block 2048 is over the limit.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 2048]>], defaults = {block = 64},
        key = [#tuna.key<arg = 1, bucket = pow2>],
        grid = affine_map<(n)[block] -> (n ceildiv block)>,
        block = affine_map<(n)[block] -> (block)>>} {
      %block = tuna.param "block" : index
      gpu.return
    }
  }
}

// CHECK:       gpu.module @kernels
// CHECK-NEXT:    gpu.func @scale(
// CHECK-NOT:   gpu.module @scale__v
// CHECK:       tuna.dispatch @scale attributes {{.*}}tuna.planned_kernel = @kernels::@scale
// CHECK-NEXT:    tuna.variant @scale__v0::@scale__v0 config {block = 64 : i64} grid #{{.*}} block #{{.*}}
// CHECK-NEXT:    tuna.variant @scale__v1::@scale__v1 config {block = 128 : i64} grid #{{.*}} block #{{.*}}
// CHECK-NEXT:  }

// LARGE:       func.func @large__planned(
// LARGE:       tuna.dispatch @large attributes {default_variant = 255 : i64
// LARGE-NEXT:    tuna.variant @large__v0 config {a = 0 : i64, b = 0 : i64, c = 0 : i64, d = 1 : i64}
// LARGE:         tuna.variant @large__v9999 config {a = 9 : i64, b = 9 : i64, c = 9 : i64, d = 10 : i64}
// LARGE-NEXT:  }

// COUNT: 10000

// LIMIT: error: kernel 'large' has 10000 configurations, over the limit of 9999 (max-variants)

// A planned kernel keeps its space but is not expanded a second time.
// AGAIN: error: kernel 'large__planned' is planned by the dispatch table 'large': instantiate its variants (instantiatePlannedVariants) instead of expanding it again
