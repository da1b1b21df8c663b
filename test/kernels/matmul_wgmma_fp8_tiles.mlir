// The e4m3 wgmma matmul's family (kernels-mlir/wgmma_types.py
// matmul_e4m3_wgmma_tiles): the 256- and 64-column kernels and the
// warp-specialized ones (`wgmma_types.py matmul_e4m3_wgmma_ws`, with 128 x
// 256 tiles, and `matmul_e4m3_wgmma_ws_n192`, 128 x 192), whose parameters
// differ: the family's are `kernel` and their union, -1 where a kernel has
// none of that name; 93 variants.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_tiles -o %t.mlir
// RUN: FileCheck %s --check-prefix=SRC --input-file=%t.mlir
// RUN: tuna-opt %t.mlir --tuna-expand="max-shared-memory=232448" | FileCheck %s

// The split >= 16 workspace of matmul_wgmma_fp8.mlir's kernels, once.
// SRC:     gpu.module @kernels {
// SRC-NEXT:  llvm.mlir.global internal @split_sums(
// SRC-NEXT:  llvm.mlir.global internal @split_arrivals(
// SRC-NOT:   llvm.mlir.global
// SRC: tuna.family @matmul_e4m3_wgmma_tiles kernels ["matmul_e4m3_wgmma", "matmul_e4m3_wgmma_n64", "matmul_e4m3_wgmma_ws", "matmul_e4m3_wgmma_ws_n192"]

// CHECK:           tuna.dispatch @matmul_e4m3_wgmma_tiles attributes {{{.*}}params = ["kernel", "bm", "bk", "stages", "gm", "deep", "mask", "split", "tma", "mc", "nc", "ctas"]
// CHECK-COUNT-19:    tuna.variant @matmul_e4m3_wgmma__v{{[0-9]+}}::@matmul_e4m3_wgmma__v{{[0-9]+}} config {{{.*}}ctas = -1 : i64{{.*}}kernel = 0 {{.*}}tma = -1
// CHECK-COUNT-50:    tuna.variant @matmul_e4m3_wgmma_n64__v{{[0-9]+}}::@matmul_e4m3_wgmma_n64__v{{[0-9]+}} config {{{.*}}kernel = 1
// CHECK:             tuna.variant @matmul_e4m3_wgmma_ws__v0::@matmul_e4m3_wgmma_ws__v0 config {bk = -1 : i64, bm = -1 : i64, ctas = 132 : i64, deep = -1 : i64, gm = 8 : i64, kernel = 2 : i64, mask = -1 : i64, mc = 1 : i64, nc = 1 : i64, split = -1 : i64, stages = 4 : i64, tma = 1 : i64}
// CHECK-COUNT-11:    tuna.variant @matmul_e4m3_wgmma_ws__v{{[0-9]+}}::@matmul_e4m3_wgmma_ws__v{{[0-9]+}} config {{{.*}}kernel = 2
// CHECK-COUNT-12:    tuna.variant @matmul_e4m3_wgmma_ws_n192__v{{[0-9]+}}::@matmul_e4m3_wgmma_ws_n192__v{{[0-9]+}} config {{{.*}}kernel = 3
// CHECK-NOT:       kernel =
// CHECK:           tuna.dispatch @matmul_e4m3_wgmma attributes
