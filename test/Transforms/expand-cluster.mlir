// RUN: tuna-opt %s -split-input-file --tuna-expand="report-dropped" -verify-diagnostics | FileCheck %s
// RUN: tuna-opt %s -split-input-file --tuna-expand=plan-only | FileCheck %s --check-prefix=PLAN

// The space's `cluster` map becomes each variant's known cluster size (the
// PTX's .reqnctapercluster) where it has more than one block; a cluster of
// one block leaves the kernel as it was; up to 16 blocks are kept (over the
// portable 8, the runtime allows the function its non-portable cluster when
// it loads it), more than 16 (sm_90's limit) drop the configuration. The
// dispatch table keeps the constant map, so that a variant instantiated
// later from the table gets it too.

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+1 {{kernel 'splitk': dropped configuration {s = 32}: its cluster has 32 blocks, over sm_90's limit of 16}}
    gpu.func @splitk(%n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"s", [1, 4, 16, 32]>], defaults = {s = 1},
        key = [#tuna.key<arg = 0>],
        grid = affine_map<(n)[s] -> (n ceildiv 64, 1, s)>,
        block = affine_map<(n)[s] -> (128)>,
        cluster = affine_map<(n)[s] -> (1, 1, s)>>} {
      %s = tuna.param "s" : index
      gpu.return
    }
  }
}
// CHECK-LABEL: gpu.module @splitk__v0
// CHECK:       gpu.func @splitk__v0
// CHECK-NOT:   known_cluster_size
// CHECK-SAME:  known_block_size = array<i32: 128, 1, 1>
// CHECK-LABEL: gpu.module @splitk__v1
// CHECK:       gpu.func @splitk__v1
// CHECK-SAME:  known_cluster_size = array<i32: 1, 1, 4>
// CHECK-LABEL: gpu.module @splitk__v2
// CHECK:       gpu.func @splitk__v2
// CHECK-SAME:  known_cluster_size = array<i32: 1, 1, 16>
// CHECK:       tuna.dispatch @splitk
// CHECK-NEXT:  tuna.variant @splitk__v0::@splitk__v0 config {s = 1 : i64} {{.*}} cluster #{{.*}}
// CHECK-NEXT:  tuna.variant @splitk__v1::@splitk__v1 config {s = 4 : i64} {{.*}} cluster #{{.*}}
// CHECK-NEXT:  tuna.variant @splitk__v2::@splitk__v2 config {s = 16 : i64} {{.*}} cluster #{{.*}}
// CHECK-NOT:   tuna.variant

// PLAN: tuna.variant @splitk__v1::@splitk__v1 config {s = 4 : i64} grid {{.*}} cluster #{{.*}}

// -----

// Key values taken as symbols (the grid multiplies them): the cluster takes
// the same inputs as every launch map and reads only the parameter.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @flat(%rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"s", [2]>], defaults = {s = 2},
        key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>],
        grid = affine_map<()[rows, cols, s] -> ((rows * cols) ceildiv 64, 1, s)>,
        block = affine_map<()[rows, cols, s] -> (128)>,
        cluster = affine_map<()[rows, cols, s] -> (1, 1, s)>>} {
      gpu.return
    }
  }
}
// CHECK-LABEL: gpu.module @flat__v0
// CHECK:       gpu.func @flat__v0
// CHECK-SAME:  known_cluster_size = array<i32: 1, 1, 2>
// CHECK:       tuna.variant @flat__v0::@flat__v0 config {s = 2 : i64} grid #{{.*}} block #{{.*}} cluster #{{.*}}
