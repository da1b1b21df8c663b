// RUN: tuna-compile %S/../../kernels-mlir/axpy.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/axpy.block=1024,vec=4.sm_90.ptx

// CHECK:      kernel axpy: 15 variants, default [[AXPY_DEFAULT:axpy__v[0-9]+]]
// CHECK:      [[AXPY_DEFAULT]] {{ *}}block=256 vec=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{axpy__v[0-9]+}} {{ *}}block=1024 vec=4 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 15 variants

// The widest variant reads x and y and writes y with 16-byte accesses.
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: {{fma.rn.f32|__nv_fmaf}}
// PTX: st.global.v4.b32
// PTX-NOT: .local
