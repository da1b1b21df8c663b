// REQUIRES: ptxas
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna 2>&1 | FileCheck %s --implicit-check-not=warning

// ptxas keeps every variant's wgmma asynchronous: no "Potential Performance
// Loss" warning (C7515, wgmma serialized), no spills.
// CHECK:     kernel matmul_f16_wgmma: 23 variants
// CHECK-NOT: spill {{[1-9]}}
// CHECK:     compiled nvptx:sm_90a: 23 variants
