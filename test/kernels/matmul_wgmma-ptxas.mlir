// REQUIRES: ptxas
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna 2>&1 | FileCheck %s --implicit-check-not=warning

// ptxas keeps every variant's wgmma asynchronous: no "Potential Performance
// Loss" warning (C7515, wgmma serialized), no spills.
// CHECK:     kernel matmul_f16_wgmma: 31 variants
// CHECK-NOT: spill {{[1-9]}}
// CHECK:     compiled nvptx:sm_90a: 31 variants

// The 128-column twin (kernels-mlir/wgmma_types.py): every variant
// asynchronous, no spill.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_f16_wgmma_n128 -o %t.n128.mlir
// RUN: tuna-compile %t.n128.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.n128.tuna 2>&1 | FileCheck %s --check-prefix=N128 --implicit-check-not=warning
// N128:     kernel matmul_f16_wgmma_n128: 30 variants
// N128-NOT: spill {{[1-9]}}
// N128:     compiled nvptx:sm_90a: 30 variants

// The 64-column twin (kernels-mlir/wgmma_types.py): every variant
// asynchronous, no spill.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_f16_wgmma_n64 -o %t.n64.mlir
// RUN: tuna-compile %t.n64.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.n64.tuna 2>&1 | FileCheck %s --check-prefix=N64 --implicit-check-not=warning
// N64:     kernel matmul_f16_wgmma_n64: 45 variants
// N64-NOT: spill {{[1-9]}}
// N64:     compiled nvptx:sm_90a: 45 variants

// The 192-column twin: every variant asynchronous, no spill.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_f16_wgmma_n192 -o %t.n192.mlir
// RUN: tuna-compile %t.n192.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.n192.tuna 2>&1 | FileCheck %s --check-prefix=N192 --implicit-check-not=warning
// N192:     kernel matmul_f16_wgmma_n192: 9 variants
// N192-NOT: spill {{[1-9]}}
// N192:     compiled nvptx:sm_90a: 9 variants

// The warp-specialized persistent kernel: every variant asynchronous, the
// TMA ones without spills; the cp.async default (168 registers, no
// setmaxnreg) spills 56 bytes in its consumers.
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_ws.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.ws.tuna 2>&1 | FileCheck %s --check-prefix=WS --implicit-check-not=warning
// WS:     kernel matmul_f16_wgmma_ws: 12 variants
// WS-COUNT-11: tma=1 mc={{[12]}} nc={{[12]}} ctas={{[0-9]+}} {{.*}} spill 0 B
// WS:     tma=0 mc=1 nc=1 ctas=132 {{.*}} spill 56 B
// WS:     compiled nvptx:sm_90a: 12 variants

// The e4m3 warp-specialized kernel: the same.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_ws -o %t.wsfp8.mlir
// RUN: tuna-compile %t.wsfp8.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.wsfp8.tuna 2>&1 | FileCheck %s --check-prefix=WSFP8 --implicit-check-not=warning
// WSFP8:     kernel matmul_e4m3_wgmma_ws: 12 variants
// WSFP8-COUNT-11: tma=1 mc={{[12]}} nc={{[12]}} ctas={{[0-9]+}} {{.*}} spill 0 B
// WSFP8:     tma=0 mc=1 nc=1 ctas=132 {{.*}} spill 80 B
// WSFP8:     compiled nvptx:sm_90a: 12 variants
