// RUN: tuna-compile %S/../../kernels-mlir/color_normalize.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/color_normalize.block=1024,vec=4.sm_90.ptx

// CHECK:      kernel color_normalize: 10 variants, default [[COLOR_NORMALIZE_DEFAULT:color_normalize__v[0-9]+]]
// CHECK:      [[COLOR_NORMALIZE_DEFAULT]] {{ *}}block=256 vec=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{color_normalize__v[0-9]+}} {{ *}}block=1024 vec=4 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 10 variants

// Three 16-byte plane reads and three 16-byte plane writes per thread.
// PTX-COUNT-3: ld.global.v4.b32
// PTX-COUNT-3: st.global.v4.b32
// PTX-NOT: .local
