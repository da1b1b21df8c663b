// REQUIRES: ptxas
// ptxas accepts every variant of the TF32 wgmma matmul for sm_90a: no
// serialized wgmma (C7515), no spill.
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_tf32.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna 2>&1 | FileCheck %s --implicit-check-not=warning

// CHECK:     kernel matmul_tf32_wgmma: 12 variants
// CHECK-NOT: spill {{[1-9]}}
// CHECK:     compiled nvptx:sm_90a: 12 variants
