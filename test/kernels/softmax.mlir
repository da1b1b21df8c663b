// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/softmax.tpr=1024,rpb=1,vec=4,regs=8.sm_90.ptx
// RUN: FileCheck %s --check-prefix=STREAM --input-file=%t/softmax.tpr=1024,rpb=1,vec=4,regs=0.sm_90.ptx

// CHECK:      kernel softmax: 90 variants, default [[SOFTMAX_DEFAULT:softmax__v[0-9]+]]
// CHECK:      [[SOFTMAX_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 regs=0 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{softmax__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 regs=0 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{softmax__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 regs=8 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 90 variants

// The row in registers: eight 16-byte loads issued back to back before the
// first exp (exp2: ex2.approx once libdevice is linked), the (max, sum)
// pairs across warps, eight 16-byte stores from the registers; the chunks
// never go to local memory (the chunk loops carry llvm.loop.unroll.full).
// PTX-COUNT-8: ld.global.v4.b32
// PTX-NOT:     ld.global
// PTX:         {{ex2.approx|__nv_exp2f}}
// PTX:         bar.sync
// PTX-COUNT-8: st.global.v4.b32
// PTX-NOT: .local

// Rows too long for the registers: two passes with 16-byte accesses.
// STREAM: ld.global.v4.b32
// STREAM: {{ex2.approx|__nv_exp2f}}
// STREAM: bar.sync
// STREAM: ld.global.v4.b32
// STREAM: st.global.v4.b32
// STREAM-NOT: .local
