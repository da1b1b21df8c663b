// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t.tuna

// Key values that a launch map or constraint multiplies are its symbols,
// after its dimensions (here rows is a dimension, cols a symbol); the
// manifest numbers them d0, d1 in key order all the same.

#even = affine_set<(rows)[cols, block] : ((rows * cols) mod 2 == 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @flat(%x: memref<?xf32>, %rows: index, %cols: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128]>],
        defaults = {block = 128},
        constraints = [#even],
        key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>],
        grid = affine_map<(rows)[cols, block] -> ((rows * cols) ceildiv block)>,
        block = affine_map<(rows)[cols, block] -> (block)>,
        smem = affine_map<(rows)[cols, block] -> (cols * 4 + rows)>
      >} {
      gpu.return
    }
  }
}

// SUMMARY: kernel flat: 1 variants, default flat__v0

// CHECK:      "grid": [
// CHECK-NEXT:   [
// CHECK-NEXT:    "d0",
// CHECK-NEXT:    "d1",
// CHECK-NEXT:    "*",
// CHECK-NEXT:    128,
// CHECK-NEXT:    "ceildiv"
// CHECK-NEXT:   ],
// CHECK:      "sharedMemBytes": [
// CHECK-NEXT:   "d0",
// CHECK-NEXT:   "d1",
// CHECK-NEXT:   4,
// CHECK-NEXT:   "*",
// CHECK-NEXT:   "+"
// CHECK-NEXT:  ],
// CHECK-NEXT: "constraints": [
// CHECK-NEXT:  {
// CHECK-NEXT:   "expr": [
// CHECK-NEXT:    "d0",
// CHECK-NEXT:    "d1",
// CHECK-NEXT:    "*",
// CHECK-NEXT:    2,
// CHECK-NEXT:    "mod"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "kind": "eq"
