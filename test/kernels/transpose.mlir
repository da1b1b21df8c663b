// RUN: tuna-compile %S/../../kernels-mlir/transpose.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/transpose.tile=64,brows=16,vec=4,diag=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=EDGE --input-file=%t/transpose.tile=64,brows=16,vec=4,diag=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=SCALAR --input-file=%t/transpose.tile=64,brows=16,vec=1,diag=0.sm_90.ptx

// CHECK:      kernel transpose: 42 variants, default [[TRANSPOSE_DEFAULT:transpose__v[0-9]+]]
// CHECK:      [[TRANSPOSE_DEFAULT]] {{ *}}tile=32 brows=8 vec=1 diag=0 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{transpose__v[0-9]+}} {{ *}}tile=64 brows=16 vec=1 diag=0 {{ *}}nvptx:sm_90: ptx
// CHECK:      {{transpose__v[0-9]+}} {{ *}}tile=64 brows=16 vec=4 diag=1 {{ *}}nvptx:sm_90: ptx
// CHECK:      compiled nvptx:sm_90: 42 variants

// The 64 x 65 staging square; the diagonal block order reads the grid size;
// inside the matrix, 4 unguarded 16-byte loads per thread (64 rows, 16 per
// step) into the square, one barrier, 4 16-byte stores of gathered columns.
// PTX: .shared .align 4 .b8 {{.*}}[16640]
// PTX: nctaid.y
// PTX-COUNT-4: ld.global.v4.b32
// PTX: st.shared.b32
// PTX: bar.sync
// PTX: ld.shared.b32
// PTX: st.global.v4.b32
// PTX-NOT: .local

// An edge square of a matrix whose rows and cols are multiples of 4 moves
// 16 bytes at a time too: 4 unconditional loads of clamped chunks, and 4
// stores each under its chunk's guard (no float-at-a-time path for it).
// EDGE-COUNT-4: ld.global.v4.b32
// EDGE:         min.u64
// EDGE-COUNT-4: ld.global.v4.b32
// EDGE-NOT:     ld.global.v4.b32
// EDGE:         bar.sync
// EDGE-COUNT-4: st.global.v4.b32
// EDGE:         @%p{{[0-9]+}} bra
// EDGE:         st.global.v4.b32
// EDGE-COUNT-3: st.global.v4.b32
// EDGE-NOT:     st.global.v4.b32

// vec = 1: one float per thread and row of the square.
// SCALAR: ld.global.b32
// SCALAR: st.shared.b32
// SCALAR: bar.sync
// SCALAR: ld.shared.b32
// SCALAR: st.global.b32
// SCALAR-NOT: .local
