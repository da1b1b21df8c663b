// The fp16 wgmma matmul's family (kernels-mlir/wgmma_types.py
// matmul_f16_wgmma_tiles): its four kernels in one module, each with its
// own aliases, and one table over their 100 variants whose parameter
// `kernel` says whose (0: 256 columns, 1: 128, 2: 64, 3: 192).
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_f16_wgmma_tiles -o %t.mlir
// RUN: FileCheck %s --check-prefix=SRC --input-file=%t.mlir
// RUN: tuna-opt %t.mlir --tuna-expand="max-shared-memory=232448" | FileCheck %s

// SRC: !acc_matmul_f16_wgmma = !llvm.struct<({{(f32, ){127}f32}})>
// SRC: !acc_matmul_f16_wgmma_n128 = !llvm.struct<({{(f32, ){63}f32}})>
// SRC: !acc_matmul_f16_wgmma_n64 = !llvm.struct<({{(f32, ){31}f32}})>
// SRC: !acc_matmul_f16_wgmma_n192 = !llvm.struct<({{(f32, ){95}f32}})>
// SRC: tuna.family @matmul_f16_wgmma_tiles kernels ["matmul_f16_wgmma", "matmul_f16_wgmma_n128", "matmul_f16_wgmma_n64", "matmul_f16_wgmma_n192"]

// CHECK:           tuna.dispatch @matmul_f16_wgmma_tiles attributes {{{.*}}params = ["kernel", "bm", "bk", "stages", "gm", "deep", "mask", "order", "l1", "split", "tma"]
// CHECK-COUNT-31:    tuna.variant @matmul_f16_wgmma__v{{[0-9]+}}::@matmul_f16_wgmma__v{{[0-9]+}} config {{{.*}}kernel = 0
// CHECK-COUNT-30:    tuna.variant @matmul_f16_wgmma_n128__v{{[0-9]+}}::@matmul_f16_wgmma_n128__v{{[0-9]+}} config {{{.*}}kernel = 1
// CHECK-COUNT-30:    tuna.variant @matmul_f16_wgmma_n64__v{{[0-9]+}}::@matmul_f16_wgmma_n64__v{{[0-9]+}} config {{{.*}}kernel = 2
// CHECK-COUNT-9:     tuna.variant @matmul_f16_wgmma_n192__v{{[0-9]+}}::@matmul_f16_wgmma_n192__v{{[0-9]+}} config {{{.*}}kernel = 3
// CHECK-NOT:       kernel =
// CHECK:           tuna.dispatch @matmul_f16_wgmma attributes
