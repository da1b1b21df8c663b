// RUN: tuna-compile %S/../../kernels-mlir/layernorm.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layernorm.tpr=1024,rpb=1,vec=4,regs=4,gb=0,mb=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=BATCHED --input-file=%t/layernorm.tpr=1024,rpb=1,vec=4,regs=4,gb=1,mb=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=TWO-BLOCKS --input-file=%t/layernorm.tpr=1024,rpb=1,vec=4,regs=4,gb=0,mb=2.sm_90.ptx
// RUN: FileCheck %s --check-prefix=THREE-BLOCKS --input-file=%t/layernorm.tpr=512,rpb=1,vec=4,regs=4,gb=1,mb=3.sm_90.ptx
// RUN: FileCheck %s --check-prefix=STREAM --input-file=%t/layernorm.tpr=1024,rpb=1,vec=4,regs=0,gb=0,mb=1.sm_90.ptx

// CHECK:      kernel layernorm: 158 variants, default [[LAYERNORM_DEFAULT:layernorm__v[0-9]+]]
// CHECK:      [[LAYERNORM_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 regs=0 gb=0 mb=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{layernorm__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 regs=0 gb=0 mb=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{layernorm__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 regs=4 gb=0 mb=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{layernorm__v[0-9]+}} {{ *}}tpr=1024 rpb=1 vec=4 regs=4 gb=0 mb=2 {{ *}}nvptx:sm_90: ptx
// CHECK-NOT:  mb=3
// CHECK:      compiled nvptx:sm_90: 158 variants

// The row in registers: the shift x[r, 0], then four 16-byte loads issued
// back to back, the sums across warps, one reciprocal square root, and
// y written from the registers (gamma and beta read 16 bytes at a time);
// the chunks never go to local memory.
// PTX-NOT:     .minnctapersm
// PTX:         ld.global.b32
// PTX-COUNT-4: ld.global.v4.b32
// PTX:         bar.sync
// PTX:         {{rsqrt.approx.f32|__nv_rsqrtf}}
// PTX:         ld.global.v4.b32
// PTX:         ld.global.v4.b32
// PTX:         st.global.v4.b32
// PTX-NOT: .local

// mb > 1 asks ptxas for that many blocks an SM; mb = 1 asks nothing (the
// PTX-NOT at the top of the PTX checks).
// TWO-BLOCKS:       .maxntid 1024, 1, 1
// TWO-BLOCKS-NEXT:  .minnctapersm 2
// THREE-BLOCKS:     .maxntid 512, 1, 1
// THREE-BLOCKS-NEXT: .minnctapersm 3

// gb = 1: pass 2 loads gamma and beta of all four chunks before its first
// store, with no branch between the chunks.
// BATCHED:          ld.global.b32
// BATCHED-COUNT-4:  ld.global.v4.b32
// BATCHED:          bar.sync
// BATCHED:          {{rsqrt.approx.f32|__nv_rsqrtf}}
// BATCHED-COUNT-8:  ld.global.v4.b32
// BATCHED-NOT:      {{bra|ld.global}}
// BATCHED-COUNT-4:  st.global.v4.b32
// BATCHED-NOT: .local

// Rows too long for the registers: 16-byte accesses in both passes.
// STREAM: ld.global.v4.b32
// STREAM: bar.sync
// STREAM: {{rsqrt.approx.f32|__nv_rsqrtf}}
// STREAM: st.global.v4.b32
// STREAM-NOT: .local
