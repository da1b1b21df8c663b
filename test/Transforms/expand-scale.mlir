// RUN: tuna-opt %s --tuna-expand | FileCheck %s

// A 5 x 3 space of a GPU kernel: 15 variants, each in a gpu.module of its
// own, parameters substituted and launch maps specialized.

#fits = affine_set<(n)[block, vec] : (4096 - block * vec >= 0)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128, 256, 512, 1024]>, #tuna.param<"vec", [1, 2, 4]>],
        defaults = {block = 256, vec = 1},
        constraints = [#fits],
        key = [#tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(n)[block, vec] -> (n ceildiv (block * vec))>,
        block = affine_map<(n)[block, vec] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %vec = tuna.param "vec" : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %chunk = arith.muli %block, %vec : index
      %base = arith.muli %bid, %chunk : index
      scf.for %j = %c0 to %vec step %c1 {
        %off = arith.muli %j, %block : index
        %i0 = arith.addi %base, %off : index
        %i = arith.addi %i0, %tid : index
        %in = arith.cmpi ult, %i, %n : index
        scf.if %in {
          %v = memref.load %x[%i] : memref<?xf32>
          %r = arith.mulf %v, %s : f32
          memref.store %r, %y[%i] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}

// CHECK-DAG: #[[GRID64:.+]] = affine_map<(d0) -> (d0 ceildiv 64)>
// CHECK-DAG: #[[BLOCK64:.+]] = affine_map<(d0) -> (64)>
// CHECK-DAG: #[[GRID4096:.+]] = affine_map<(d0) -> (d0 ceildiv 4096)>
// CHECK-DAG: #[[BLOCK1024:.+]] = affine_map<(d0) -> (1024)>

// The original module had no other kernel: it is gone.
// CHECK-NOT: gpu.module @kernels

// CHECK-LABEL: gpu.module @scale__v0
// CHECK:         gpu.func @scale__v0(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: f32, %{{.*}}: index) kernel
// CHECK-SAME:      known_block_size = array<i32: 64, 1, 1>
// CHECK-NOT:       tuna.param
// CHECK:           arith.muli %{{.*}}, %c64
// CHECK:         gpu.return

// Loops with one trip are folded away.
// CHECK-LABEL: gpu.module @scale__v12
// CHECK-NOT:     scf.for
// CHECK:         gpu.return

// CHECK-LABEL: gpu.module @scale__v14
// CHECK:         known_block_size = array<i32: 1024, 1, 1>
// CHECK:         %[[C4:.+]] = arith.constant 4 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C4]]

// CHECK-NOT: gpu.module @scale__v15

// CHECK:      tuna.dispatch @scale attributes {
// CHECK-SAME:   default_variant = 6 : i64
// CHECK-SAME:   function_type = (memref<?xf32>, memref<?xf32>, f32, index) -> ()
// CHECK-SAME:   key = [#tuna.key<arg = 3, bucket = pow2>]
// CHECK-SAME:   params = ["block", "vec"]
// CHECK-SAME:   source_hash = "{{[0-9a-f]+}}"
// CHECK-SAME:   written_args = array<i64: 1>
// CHECK-NEXT:   tuna.variant @scale__v0::@scale__v0 config {block = 64 : i64, vec = 1 : i64} grid #[[GRID64]] block #[[BLOCK64]]
// CHECK-COUNT-13: tuna.variant
// CHECK-NEXT:   tuna.variant @scale__v14::@scale__v14 config {block = 1024 : i64, vec = 4 : i64} grid #[[GRID4096]] block #[[BLOCK1024]]
// CHECK-NEXT: }
