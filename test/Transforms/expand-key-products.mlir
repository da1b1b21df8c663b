// RUN: tuna-opt %s -split-input-file --tuna-expand="report-dropped" -verify-diagnostics | FileCheck %s

// Key values taken as symbols, so that the launch maps and constraints can
// multiply them: a flat rows x cols grid has no 65535 limit on rows, as
// (cols ceildiv block, rows) had on grid.y. Expansion substitutes the
// parameters and keeps the key values as they were written (symbols here),
// and a term that only the parameters decide is still checked per
// configuration.

// CHECK-DAG: #[[GRID64:.+]] = affine_map<()[s0, s1] -> ((s0 * s1) ceildiv 64)>
// CHECK-DAG: #[[GRID192:.+]] = affine_map<()[s0, s1] -> ((s0 * s1) ceildiv 192)>
// CHECK-DAG: #[[BLOCK128:.+]] = affine_map<(d0)[s0] -> (128)>
// CHECK-DAG: #[[SMEM128:.+]] = affine_map<(d0)[s0] -> (d0 * 512)>
// CHECK-DAG: #[[EVEN:.+]] = affine_set<(d0)[s0] : ((d0 * s0) mod 2 == 0)>
#even = affine_set<(rows)[cols, block, vec] : ((rows * cols) mod vec == 0)>

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+1 {{kernel 'flat': dropped configuration {block = 64, vec = 1}: its 'grid' map overflows int64 or divides by a value that is not positive}}
    gpu.func @flat(%x: memref<?xf32>, %rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block">, #tuna.param<"vec">],
        configs = [{block = 64, vec = 1}, {block = 128, vec = 1}, {block = 256, vec = 2}],
        defaults = {block = 128, vec = 1},
        constraints = [#even],
        key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>],
        grid = affine_map<()[rows, cols, block, vec] -> ((rows * cols) ceildiv (block - 64))>,
        block = affine_map<(rows)[cols, block, vec] -> (block)>,
        smem = affine_map<(rows)[cols, block, vec] -> (rows * block * 4)>>} {
      gpu.return
    }
  }
}

// CHECK: tuna.dispatch @flat
// CHECK-NEXT: tuna.variant @flat__v0::@flat__v0 config {block = 128 : i64, vec = 1 : i64} grid #[[GRID64]] block #[[BLOCK128]] smem #[[SMEM128]]{{$}}
// CHECK-NEXT: tuna.variant @flat__v1::@flat__v1 config {block = 256 : i64, vec = 2 : i64} grid #[[GRID192]] block #{{.*}} smem #{{.*}} where [#[[EVEN]]]
// CHECK-NEXT: }
