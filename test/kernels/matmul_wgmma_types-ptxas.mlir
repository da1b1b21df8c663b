// REQUIRES: ptxas
// ptxas accepts every variant of the bf16 (256-, 128- and 64-column tiles) and
// e4m3 (256- and 64-column tiles, and 64-column tiles with promoted
// accumulation) wgmma matmuls for sm_90a: no serialized wgmma (C7515), no
// spill.
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_bf16_wgmma -o %t.bf16.mlir
// RUN: tuna-compile %t.bf16.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.bf16.tuna 2>&1 | FileCheck %s --check-prefix=BF16 --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_bf16_wgmma_n128 -o %t.bf16n128.mlir
// RUN: tuna-compile %t.bf16n128.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.bf16n128.tuna 2>&1 | FileCheck %s --check-prefix=BF16N128 --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_bf16_wgmma_n64 -o %t.bf16n64.mlir
// RUN: tuna-compile %t.bf16n64.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.bf16n64.tuna 2>&1 | FileCheck %s --check-prefix=BF16N64 --implicit-check-not=warning
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.fp8.tuna 2>&1 | FileCheck %s --check-prefix=FP8 --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_f16out -o %t.f16out.mlir
// RUN: tuna-compile %t.f16out.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.f16out.tuna 2>&1 | FileCheck %s --check-prefix=F16OUT --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_n64 -o %t.fp8n64.mlir
// RUN: tuna-compile %t.fp8n64.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.fp8n64.tuna 2>&1 | FileCheck %s --check-prefix=FP8N64 --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_n64_f16out -o %t.fp8n64f16.mlir
// RUN: tuna-compile %t.fp8n64f16.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.fp8n64f16.tuna 2>&1 | FileCheck %s --check-prefix=FP8N64F16 --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_n64_exact -o %t.exact.mlir
// RUN: tuna-compile %t.exact.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.exact.tuna 2>&1 | FileCheck %s --check-prefix=EXACT --implicit-check-not=warning
// RUN: %python %S/../../kernels-mlir/wgmma_types.py matmul_e4m3_wgmma_n64_exact_f16out -o %t.exactf16.mlir
// RUN: tuna-compile %t.exactf16.mlir --target=nvptx:sm_90a --ptxas=%ptxas \
// RUN:   --max-shared-memory=232448 -o %t.exactf16.tuna 2>&1 | FileCheck %s --check-prefix=EXACTF16 --implicit-check-not=warning

// BF16:     kernel matmul_bf16_wgmma: 31 variants
// BF16-NOT: spill {{[1-9]}}
// BF16:     compiled nvptx:sm_90a: 31 variants

// The bf16 kernel with 128-column tiles: every variant, no spill.
// BF16N128:     kernel matmul_bf16_wgmma_n128: 30 variants
// BF16N128-NOT: spill {{[1-9]}}
// BF16N128:     compiled nvptx:sm_90a: 30 variants

// The bf16 kernel with 64-column tiles: every variant, no spill.
// BF16N64:     kernel matmul_bf16_wgmma_n64: 45 variants
// BF16N64-NOT: spill {{[1-9]}}
// BF16N64:     compiled nvptx:sm_90a: 45 variants

// The e4m3 kernel's split-K variants (clusters of 2, 4, 8 and 16) are kept
// and compiled too.
// FP8:     kernel matmul_e4m3_wgmma: 19 variants
// FP8-NOT: spill {{[1-9]}}
// FP8:     bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=2 {{.*}} spill 0 B
// FP8-NOT: spill {{[1-9]}}
// FP8:     bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=8 {{.*}} spill 0 B
// FP8-NOT: spill {{[1-9]}}
// FP8:     bm=128 bk=128 stages=4 gm=8 deep=1 mask=0 split=8 {{.*}} spill 0 B
// FP8-NOT: spill {{[1-9]}}
// FP8:     bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=16 {{.*}} spill 0 B
// FP8-NOT: spill {{[1-9]}}
// FP8:     compiled nvptx:sm_90a: 19 variants

// The e4m3 kernel with an fp16 C: every variant, no spill.
// F16OUT:     kernel matmul_e4m3_wgmma_f16out: 19 variants
// F16OUT-NOT: spill {{[1-9]}}
// F16OUT:     compiled nvptx:sm_90a: 19 variants

// The e4m3 kernel with 64-column tiles: every variant (up to 8 stages of
// bk = 128 and 6 of bk = 256, split 1, 2, 4), no spill.
// FP8N64:     kernel matmul_e4m3_wgmma_n64: 50 variants
// FP8N64-NOT: spill {{[1-9]}}
// FP8N64:     bm=64 bk=128 stages=8 gm=8 deep=1 mask=1 split=4 {{.*}} spill 0 B
// FP8N64-NOT: spill {{[1-9]}}
// FP8N64:     bm=64 bk=256 stages=6 gm=8 deep=1 mask=1 split=4 {{.*}} spill 0 B
// FP8N64-NOT: spill {{[1-9]}}
// FP8N64:     compiled nvptx:sm_90a: 50 variants

// The 64-column e4m3 kernel with an fp16 C: every variant, no spill.
// FP8N64F16:     kernel matmul_e4m3_wgmma_n64_f16out: 50 variants
// FP8N64F16-NOT: spill {{[1-9]}}
// FP8N64F16:     compiled nvptx:sm_90a: 50 variants

// The 64-column e4m3 kernel with promoted accumulation (its second fp32
// sum, the accumulator added to it after every k tile, each tile's first
// wgmma with scale-d 0): every variant, no C7515 (no move writes an
// accumulator while a group is pending), no spill.
// EXACT:     kernel matmul_e4m3_wgmma_n64_exact: 50 variants
// EXACT-NOT: spill {{[1-9]}}
// EXACT:     bm=64 bk=256 stages=6 gm=8 deep=1 mask=1 split=1 {{.*}} spill 0 B
// EXACT-NOT: spill {{[1-9]}}
// EXACT:     compiled nvptx:sm_90a: 50 variants

// Its fp16 C twin: every variant, no spill.
// EXACTF16:     kernel matmul_e4m3_wgmma_n64_exact_f16out: 50 variants
// EXACTF16-NOT: spill {{[1-9]}}
// EXACTF16:     compiled nvptx:sm_90a: 50 variants
