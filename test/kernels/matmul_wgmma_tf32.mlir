// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_tf32.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_tf32_wgmma.bm=128,bk=32,stages=4,gm=8,deep=0,mask=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BK64 --input-file=%t/matmul_tf32_wgmma.bm=128,bk=64,stages=2,gm=8,deep=1,mask=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MASK --input-file=%t/matmul_tf32_wgmma.bm=64,bk=32,stages=4,gm=8,deep=1,mask=1.sm_90a.ptx
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma_tf32.mlir --target=nvptx:sm_90,amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   --max-shared-memory=232448 -o %t.other.tuna 2>&1 | FileCheck %s --check-prefix=OTHER
// wgmma is sm_90a's alone (`targets`): for sm_90 or an AMD GPU, a clear
// error naming the kernel, not a failure in LLVM's translation.
// OTHER: error: nothing to put in the bundle: no kernel has variants for the requested targets (nvptx:sm_90, amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100); kernel 'matmul_tf32_wgmma' supports only nvptx (sm_90a), not nvptx:sm_90, amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100

// CHECK: kernel matmul_tf32_wgmma: 12 variants, default [[DEFAULT:matmul_tf32_wgmma__v[0-9]+]]
// CHECK: {{matmul_tf32_wgmma__v[0-9]+}} {{ *}}bm=64 bk=64 stages=2 gm=8 deep=1 mask=0
// CHECK: [[DEFAULT]] {{ *}}bm=128 bk=32 stages=4 gm=8 deep=0 mask=1
// CHECK: compiled nvptx:sm_90a: 12 variants

// TF32 wgmma: k = 8 (32 bytes of K, as e4m3's k32), fp32 accumulators,
// both operands K-major (no transpose immediates after the scales:
// `p, 1, 1;`), both descriptors K-major (leading byte offset 16, stride
// 1024, swizzle 128 B), the k8 slices 32 bytes (+2) apart. A 128-byte
// tile row (32 floats) is eight 16-byte cp.async copies; the next k tile
// is 128 bytes on in global memory. The tile-0 wgmma ignores the
// accumulators (scale-d p = 0). The epilogue stores the fp32 accumulators
// unrounded, 16 bytes at a time: no conversion anywhere.
// PTX:         .target sm_90a
// PTX-NOT:     {{cvt[.a-z0-9]*f32}}
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX:         cp.async.commit_group
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}+128], 16;
// PTX:         cp.async.wait_group {{[[:space:]]*}}1
// PTX:         fence.proxy.async.shared::cta
// PTX:         bar.sync
// PTX:         or.b64 {{.*}}, 4611686293305360384;
// PTX:         or.b64 {{.*}}, 4611686293305360384;
// PTX:         add.s64 {{.*}}, 4611686293305360386;
// PTX:         wgmma.fence.sync.aligned
// PTX:         setp.ne.b32 p, 0, 0;
// PTX-NEXT:    wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{.*}}, p, 1,  1;
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{.*}}, p, 1,  1;
// PTX:         wgmma.commit_group.sync.aligned
// PTX:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// PTX:         wgmma.fence.sync.aligned
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// PTX:         wgmma.commit_group.sync.aligned
// PTX:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// PTX-NOT:     {{cvt[.a-z0-9]*f32}}
// PTX:         st.global.v4.b32
// PTX-NOT:     .local
// PTX-NOT:     {{cvt[.a-z0-9]*f32}}

// bk = 64 floats: eight k8 slices a tile; B's second column block is
// 32 KiB on (+2048 in the descriptor), A's 16 KiB (+1024).
// BK64:         wgmma.fence.sync.aligned
// BK64-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// BK64:         add.s64 {{.*}}, 4611686293305361408;
// BK64:         add.s64 {{.*}}, 4611686293305362432;
// BK64-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// BK64:         wgmma.commit_group.sync.aligned
// BK64-NOT:     .local

// mask = 1: every copy says how many bytes it reads (16, or 0 past M, N or
// K), stores past M or N are skipped.
// MASK:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// MASK:     wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// MASK:     @%p{{[0-9]+}} bra
// MASK:     st.global.v4.b32
// MASK-NOT: .local
