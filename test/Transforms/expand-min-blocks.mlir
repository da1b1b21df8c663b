// RUN: tuna-opt %s --tuna-expand | FileCheck %s
// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna --emit-dir=%t | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=PTX2 --input-file=%t/k.t=2.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX1 --input-file=%t/k.t=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t.tuna

// The space's `min_blocks` map becomes each variant's nvvm.minctasm (the
// PTX's .minnctapersm: ptxas then fits that many blocks an SM) where it
// asks for more than one block; one block leaves the kernel as it was. The
// dispatch table keeps the constant map, so that a variant instantiated
// later from the table gets it too; the bundle's manifest records it
// (`minBlocks`, where it is not 1), so that the tuner's static pruning
// times the variant even if ptxas spilled to fit the blocks.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"t", [1, 2]>], defaults = {t = 1},
        key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[t] -> (n ceildiv 1024)>,
        block = affine_map<(n)[t] -> (1024)>,
        min_blocks = affine_map<(n)[t] -> (t)>>} {
      %t = tuna.param "t" : index
      %i = gpu.thread_id x
      %f = arith.index_cast %t : index to i32
      %v = arith.sitofp %f : i32 to f32
      memref.store %v, %x[%i] : memref<?xf32>
      gpu.return
    }
  }
}
// CHECK-LABEL: gpu.module @k__v0
// CHECK:       gpu.func @k__v0
// CHECK-NOT:   nvvm.minctasm
// CHECK-SAME:  known_block_size = array<i32: 1024, 1, 1>
// CHECK-LABEL: gpu.module @k__v1
// CHECK:       gpu.func @k__v1
// CHECK-SAME:  nvvm.minctasm = 2 : i32
// CHECK:       tuna.dispatch @k
// CHECK-NEXT:  tuna.variant @k__v0::@k__v0 config {t = 1 : i64} {{.*}} min_blocks #{{.*}}
// CHECK-NEXT:  tuna.variant @k__v1::@k__v1 config {t = 2 : i64} {{.*}} min_blocks #{{.*}}

// COMPILE: compiled nvptx:sm_90: 2 variants

// PTX2: .maxntid 1024, 1, 1
// PTX2: .minnctapersm 2
// PTX1-NOT: .minnctapersm

// MANIFEST:     "name": "k__v0",
// MANIFEST-NOT: "minBlocks"
// MANIFEST:     "name": "k__v1",
// MANIFEST:     "minBlocks": 2,
