// RUN: tuna-compile %S/../../kernels-mlir/transpose.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/transpose__v11.sm_90.ptx

// CHECK:      kernel transpose: 12 variants, default transpose__v6
// CHECK:      transpose__v11 {{ *}}tile=64 brows=16 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 12 variants

// The 64 x 65 staging square, read back after one barrier.
// PTX: .shared .align 4 .b8 {{.*}}[16640]
// PTX: ld.global.b32
// PTX: st.shared.b32
// PTX: bar.sync
// PTX: ld.shared.b32
// PTX: st.global.b32
// PTX-NOT: .local
