// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/row_sum.tpr=1024,rpb=1,vec=4.sm_90.ptx

// CHECK:      kernel row_sum: 36 variants, default [[ROW_SUM_DEFAULT:row_sum__v[0-9]+]]
// CHECK:      [[ROW_SUM_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{row_sum__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 36 variants

// 16-byte loads, a butterfly over the warp, partial sums across warps.
// PTX: .shared
// PTX: ld.global.v4.b32
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX-NOT: .local
