// The fp16 wgmma matmul's family (kernels-mlir/wgmma_types.py
// matmul_f16_wgmma_tiles): its six kernels in one module, each with its
// own aliases, and one table over their 139 variants whose parameter
// `kernel` says whose (0: 256 columns, 1: 128, 2: 64, 3: 192, 4: the
// warp-specialized persistent kernel, 5: the same with 192 columns), its
// parameters the union of the kernels' (-1 where a kernel has none of
// that name).
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_f16_wgmma_tiles -o %t.mlir
// RUN: FileCheck %s --check-prefix=SRC --input-file=%t.mlir
// RUN: tuna-opt %t.mlir --tuna-expand="max-shared-memory=232448" | FileCheck %s

// SRC: !acc_matmul_f16_wgmma = !llvm.struct<({{(f32, ){127}f32}})>
// SRC: !acc_matmul_f16_wgmma_n128 = !llvm.struct<({{(f32, ){63}f32}})>
// SRC: !acc_matmul_f16_wgmma_n64 = !llvm.struct<({{(f32, ){31}f32}})>
// SRC: !acc_matmul_f16_wgmma_n192 = !llvm.struct<({{(f32, ){95}f32}})>
// SRC: !acc_matmul_f16_wgmma_ws = !llvm.struct<({{(f32, ){127}f32}})>
// SRC: !acc_matmul_f16_wgmma_ws_n192 = !llvm.struct<({{(f32, ){95}f32}})>
// The kernels' split >= 16 workspace, once in the module (the kernels
// derived from matmul_wgmma.mlir all read the same two globals).
// SRC:     gpu.module @kernels {
// SRC-NEXT:  llvm.mlir.global internal @split_sums(
// SRC-NEXT:  llvm.mlir.global internal @split_arrivals(
// SRC-NOT:   llvm.mlir.global
// SRC: tuna.family @matmul_f16_wgmma_tiles kernels ["matmul_f16_wgmma", "matmul_f16_wgmma_n128", "matmul_f16_wgmma_n64", "matmul_f16_wgmma_n192", "matmul_f16_wgmma_ws", "matmul_f16_wgmma_ws_n192"]

// CHECK:           tuna.dispatch @matmul_f16_wgmma_tiles attributes {{{.*}}params = ["kernel", "bm", "bk", "stages", "gm", "deep", "mask", "order", "l1", "split", "tma", "mc", "nc", "ctas"]
// CHECK-COUNT-31:    tuna.variant @matmul_f16_wgmma__v{{[0-9]+}}::@matmul_f16_wgmma__v{{[0-9]+}} config {{{.*}}kernel = 0
// CHECK-COUNT-30:    tuna.variant @matmul_f16_wgmma_n128__v{{[0-9]+}}::@matmul_f16_wgmma_n128__v{{[0-9]+}} config {{{.*}}kernel = 1
// CHECK-COUNT-45:    tuna.variant @matmul_f16_wgmma_n64__v{{[0-9]+}}::@matmul_f16_wgmma_n64__v{{[0-9]+}} config {{{.*}}kernel = 2
// CHECK-COUNT-9:     tuna.variant @matmul_f16_wgmma_n192__v{{[0-9]+}}::@matmul_f16_wgmma_n192__v{{[0-9]+}} config {{{.*}}kernel = 3
// CHECK:             tuna.variant @matmul_f16_wgmma_ws__v0::@matmul_f16_wgmma_ws__v0 config {bk = -1 : i64, bm = -1 : i64, ctas = 132 : i64, deep = -1 : i64, gm = 8 : i64, kernel = 4 : i64, l1 = -1 : i64, mask = -1 : i64, mc = 1 : i64, nc = 1 : i64, order = -1 : i64, split = -1 : i64, stages = 4 : i64, tma = 1 : i64}
// CHECK-COUNT-11:    tuna.variant @matmul_f16_wgmma_ws__v{{[0-9]+}}::@matmul_f16_wgmma_ws__v{{[0-9]+}} config {{{.*}}kernel = 4
// CHECK-COUNT-12:    tuna.variant @matmul_f16_wgmma_ws_n192__v{{[0-9]+}}::@matmul_f16_wgmma_ws_n192__v{{[0-9]+}} config {{{.*}}kernel = 5
// CHECK-NOT:       kernel =
// CHECK:           tuna.dispatch @matmul_f16_wgmma attributes
