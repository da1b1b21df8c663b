// RUN: tuna-compile %S/../../kernels-mlir/layernorm.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layernorm__v35.sm_90.ptx

// CHECK:      kernel layernorm: 36 variants, default layernorm__v16
// CHECK:      layernorm__v35 {{ *}}tpr=1024 rpb=1 vec=4 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 36 variants

// 16-byte accesses in both passes, one reciprocal square root per row.
// PTX: ld.global.v4.b32
// PTX: bar.sync
// PTX: {{rsqrt.approx.f32|__nv_rsqrtf}}
// PTX: st.global.v4.b32
// PTX-NOT: .local
