// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_e4m3_wgmma.bm=128,bk=128,stages=4,gm=8,deep=0,mask=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BK256 --input-file=%t/matmul_e4m3_wgmma.bm=128,bk=256,stages=2,gm=8,deep=1,mask=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MASK --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1.sm_90a.ptx
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   --max-shared-memory=232448 -o %t.amd.tuna 2>&1 | FileCheck %s --check-prefix=AMD
// AMD: error: nothing to put in the bundle: no kernel has variants for the requested targets (amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100); kernel 'matmul_e4m3_wgmma' supports only nvptx (sm_90a), not amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100

// CHECK: kernel matmul_e4m3_wgmma: 10 variants, default [[DEFAULT:matmul_e4m3_wgmma__v[0-9]+]]
// CHECK: {{matmul_e4m3_wgmma__v[0-9]+}} {{ *}}bm=64 bk=256 stages=2 gm=8 deep=1 mask=0
// CHECK: [[DEFAULT]] {{ *}}bm=128 bk=128 stages=4 gm=8 deep=0 mask=1
// CHECK: compiled nvptx:sm_90a: 10 variants

// 8-bit wgmma: k = 32, both operands K-major (no transpose immediates after
// the scales: `p, 1, 1;`), the descriptors of A and B both K-major
// (leading byte offset 16, stride 1024, swizzle 128 B). A 128-byte tile
// row is eight 16-byte cp.async copies. The tile-0 wgmma ignores the
// accumulators (scale-d p = 0). The epilogue multiplies by
// scale_a scale_b, rounds to bf16 and stores 16 bytes at a time.
// PTX:         .target sm_90a
// PTX-NOT:     mov.b32
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX:         cp.async.commit_group
// PTX:         cp.async.wait_group {{[[:space:]]*}}1
// PTX:         fence.proxy.async.shared::cta
// PTX:         bar.sync
// PTX:         or.b64 {{.*}}, 4611686293305360384;
// PTX:         or.b64 {{.*}}, 4611686293305360384;
// PTX:         wgmma.fence.sync.aligned
// PTX:         setp.ne.b32 p, 0, 0;
// PTX-NEXT:    wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{.*}}, p, 1,  1;
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{.*}}, p, 1,  1;
// PTX:         wgmma.commit_group.sync.aligned
// PTX:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// PTX:         wgmma.fence.sync.aligned
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// PTX:         wgmma.commit_group.sync.aligned
// PTX:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// PTX:         mul.rn.f32
// PTX:         cvt.rn.bf16x2.f32
// PTX:         st.global.v4.b32
// PTX-NOT:     .local

// bk = 256: eight k32 slices a tile; B's second column block is 32 KiB on
// (+2048 in the descriptor), A's 16 KiB (+1024); both folded into the
// descriptors' constant bits.
// BK256:         wgmma.fence.sync.aligned
// BK256-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// BK256:         add.s64 {{.*}}, 4611686293305361408;
// BK256:         add.s64 {{.*}}, 4611686293305362432;
// BK256-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// BK256:         wgmma.commit_group.sync.aligned
// BK256-NOT:     .local

// mask = 1: every copy says how many bytes it reads (16, or 0 past M, N or
// K), stores past M or N are skipped.
// MASK:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// MASK:     wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// MASK:     @%p{{[0-9]+}} bra
// MASK:     st.global.v4.b32
// MASK-NOT: .local
