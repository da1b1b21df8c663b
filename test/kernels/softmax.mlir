// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/softmax__v35.sm_90.ptx

// CHECK:      kernel softmax: 36 variants, default softmax__v16
// CHECK:      softmax__v35 {{ *}}tpr=1024 rpb=1 vec=4 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 36 variants

// 16-byte accesses in both passes, no local memory
// (exp is ex2.approx once libdevice is linked, which needs the CUDA toolkit).
// PTX: ld.global.v4.b32
// PTX: {{ex2.approx|__nv_expf}}
// PTX: bar.sync
// PTX: st.global.v4.b32
// PTX-NOT: .local
