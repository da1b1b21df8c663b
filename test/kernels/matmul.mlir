// RUN: tuna-compile %S/../../kernels-mlir/matmul.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=F32 --input-file=%t/matmul_f32.bm=128,bn=128,bk=16,tm=8,tn=8,il=0,st=1.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PIPE --input-file=%t/matmul_f32.bm=128,bn=128,bk=32,tm=8,tn=8,il=1,st=3.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PIPE-ST --input-file=%t/matmul_f32.bm=128,bn=128,bk=32,tm=8,tn=8,il=1,st=3.sm_90.ptx
// RUN: FileCheck %s --check-prefix=F16 --input-file=%t/matmul_f16.bm=128,bn=128,bk=32,wm=2,wn=2,stages=3,gm=1,pf=0,sp=0.sm_90.ptx
// RUN: FileCheck %s --check-prefix=SP --input-file=%t/matmul_f16.bm=128,bn=256,bk=64,wm=2,wn=4,stages=3,gm=1,pf=0,sp=1.sm_90.ptx
// Under the default 48 KiB limit only the 2-stage 128 x 128 x 32 configs fit.
// RUN: tuna-compile %S/../../kernels-mlir/matmul.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.small.tuna | FileCheck %s --check-prefix=SMALL

// CHECK:      kernel matmul_f32: 32 variants, default [[MATMUL_F32_DEFAULT:matmul_f32__v[0-9]+]]
// CHECK:      [[MATMUL_F32_DEFAULT]] {{ *}}bm=64 bn=64 bk=16 tm=4 tn=4 il=0 st=1
// CHECK:      {{matmul_f32__v[0-9]+}} {{ *}}bm=128 bn=128 bk=16 tm=8 tn=8 il=0 st=1
// CHECK:      {{matmul_f32__v[0-9]+}} {{ *}}bm=128 bn=128 bk=32 tm=8 tn=8 il=1 st=3
// CHECK:      kernel matmul_f16: 43 variants, default [[MATMUL_F16_DEFAULT:matmul_f16__v[0-9]+]]
// CHECK:      {{matmul_f16__v[0-9]+}} {{ *}}bm=128 bn=128 bk=32 wm=2 wn=2 stages=3 gm=1 pf=0 sp=0
// CHECK:      [[MATMUL_F16_DEFAULT]] {{ *}}bm=128 bn=128 bk=32 wm=2 wn=2 stages=2 gm=1 pf=0 sp=0
// CHECK:      {{matmul_f16__v[0-9]+}} {{ *}}bm=128 bn=256 bk=64 wm=2 wn=4 stages=3 gm=1 pf=0 sp=1
// CHECK:      compiled nvptx:sm_90: 75 variants

// SMALL: kernel matmul_f16: 2 variants, default [[MATMUL_F16_DEFAULT:matmul_f16__v[0-9]+]]
// SMALL-NEXT: [[MATMUL_F16_DEFAULT]] {{ *}}bm=128 bn=128 bk=32 wm=2 wn=2 stages=2 gm=1 pf=0 sp=0

// fp32: 16-byte global and shared accesses, the 8 x 8 micro-tile fully
// unrolled over bk = 16 (1024 FMAs), register tiles not in local memory.
// F32:     ld.global.v4.b32
// F32:     bar.sync
// F32:     ld.shared.v4.b32
// F32-COUNT-1024: fma.rn.f32
// F32:     st.global.v4.b32
// F32-NOT: .local

// fp32, st = 3: a cp.async ring (tiles 0 and 1 in the prologue, one group
// each; wait until 1 group is pending), 16-byte shared loads, the 8 x 8
// micro-tile unrolled over bk = 32 (2048 FMAs), the refill after the
// barrier. LLVM rotates the k loop, so the FMAs come before the wait and the
// barrier in the PTX. Nothing goes through registers into shared memory.
// PIPE:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PIPE:     cp.async.commit_group
// PIPE:     cp.async.commit_group
// PIPE:     ld.shared.v4.b32
// PIPE-COUNT-2048: fma.rn.f32
// PIPE:     cp.async.wait_group {{[[:space:]]*}}1
// PIPE-NEXT: bar.sync
// PIPE:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PIPE:     st.global.v4.b32
// PIPE-NOT: .local
// PIPE-ST-NOT: st.shared

// fp16: cp.async ring (3 stages: wait until 1 group is pending), ldmatrix
// of A and (transposed) of B, 2 x 32 mma.sync per 32-deep tile, the
// accumulators in registers. LLVM rotates the k loop, so the tensor-core
// work comes before the wait and the barrier in the PTX.
// F16:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// F16:     cp.async.commit_group
// F16:     ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16:     ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// F16-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16:     cp.async.wait_group {{[[:space:]]*}}1
// F16:     bar.sync
// F16:     st.global.b32
// F16-NOT: .local

// sp = 1: the copies of the next tile sit between the mma.sync of the
// 16-deep steps (4 steps: 3 copies of 16 bytes each per thread and step).
// SP:          mma.sync.aligned.m16n8k16
// SP:          cp.async.cg.shared.global
// SP-COUNT-32: mma.sync.aligned.m16n8k16
// SP:          cp.async.cg.shared.global
// SP-NOT:      .local

// Both kernels are NVIDIA-only and say so: compiling them for an AMD GPU is
// a clear error naming each kernel (docs/tuna-compile.md), before anything
// is lowered.
// RUN: not tuna-compile %S/../../kernels-mlir/matmul.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   -o %t.amd.tuna 2>&1 | FileCheck %s --check-prefix=AMD
// AMD: error: nothing to put in the bundle: no kernel has variants for the requested targets (amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100); kernel 'matmul_f32' supports only nvptx (sm_80 and newer), not amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100; kernel 'matmul_f16' supports only nvptx (sm_80 and newer), not amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100
