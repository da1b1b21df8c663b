// RUN: not tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna \
// RUN:   --emit-dir=%t 2>&1 | FileCheck %s

// --emit-dir names a variant's files by its configuration. A hand-written
// dispatch table may give two variants one configuration; their files would
// overwrite each other, so that is an error.

// CHECK: error: variant #0 of kernel 'k' and variant #1 of kernel 'k' have one configuration: --emit-dir cannot name both 'k.b=64.sm_90.ptx'

module attributes {gpu.container_module} {
  gpu.module @k__v0 {
    gpu.func @k(%x: memref<?xf32>, %n: index) kernel { gpu.return }
  }
  gpu.module @k__v1 {
    gpu.func @k(%x: memref<?xf32>, %n: index) kernel { gpu.return }
  }
  tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?xf32>, index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
    tuna.variant @k__v0::@k config {b = 64 : i64} grid affine_map<() -> (1)> block affine_map<() -> (64)>
    tuna.variant @k__v1::@k config {b = 64 : i64} grid affine_map<() -> (1)> block affine_map<() -> (64)>
  }
}
