// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_e4m3_wgmma.bm=128,bk=128,stages=4,gm=8,deep=0,mask=0,split=1.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BK256 --input-file=%t/matmul_e4m3_wgmma.bm=128,bk=256,stages=2,gm=8,deep=1,mask=0,split=1.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MASK --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1,split=1.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1,split=8.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/matmul_e4m3_wgmma.bm=128,bk=128,stages=4,gm=8,deep=1,mask=0,split=8.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT4 --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=0,split=4.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT16 --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1,split=16.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=KORDER16 --input-file=%t/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1,split=16.sm_90a.ptx
// A split variant instantiated later from the planned table (as the JIT and
// --variants do) is compiled with its cluster too.
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 --variants=12 -o %t.lazy.tuna --emit-dir=%t.lazy > /dev/null
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t.lazy/matmul_e4m3_wgmma.bm=64,bk=128,stages=4,gm=8,deep=1,mask=1,split=8.sm_90a.ptx
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma_fp8.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   --max-shared-memory=232448 -o %t.amd.tuna 2>&1 | FileCheck %s --check-prefix=AMD
// AMD: error: nothing to put in the bundle: no kernel has variants for the requested targets (amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100); kernel 'matmul_e4m3_wgmma' supports only nvptx (sm_90a), not amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100

// The 10 split = 1 configurations, then the 9 split-K ones.
// CHECK: kernel matmul_e4m3_wgmma: 19 variants, default [[DEFAULT:matmul_e4m3_wgmma__v[0-9]+]]
// CHECK: {{matmul_e4m3_wgmma__v[0-9]+}} {{ *}}bm=64 bk=256 stages=2 gm=8 deep=1 mask=0 split=1
// CHECK: [[DEFAULT]] {{ *}}bm=128 bk=128 stages=4 gm=8 deep=0 mask=1 split=1
// CHECK: {{matmul_e4m3_wgmma__v10}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=2
// CHECK: {{matmul_e4m3_wgmma__v11}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=4
// CHECK: {{matmul_e4m3_wgmma__v12}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=8
// CHECK: {{matmul_e4m3_wgmma__v13}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=0 split=4
// CHECK: {{matmul_e4m3_wgmma__v14}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=0 split=8
// CHECK: {{matmul_e4m3_wgmma__v15}} {{ *}}bm=128 bk=128 stages=4 gm=8 deep=1 mask=0 split=8
// CHECK: {{matmul_e4m3_wgmma__v16}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=1 split=16
// CHECK: {{matmul_e4m3_wgmma__v17}} {{ *}}bm=64 bk=128 stages=4 gm=8 deep=1 mask=0 split=16
// CHECK: {{matmul_e4m3_wgmma__v18}} {{ *}}bm=128 bk=128 stages=4 gm=8 deep=1 mask=0 split=16
// CHECK: compiled nvptx:sm_90a: 19 variants

// 8-bit wgmma: k = 32, both operands K-major (no transpose immediates after
// the scales: `p, 1, 1;`), the descriptors of A and B both K-major
// (leading byte offset 16, stride 1024, swizzle 128 B). A 128-byte tile
// row is eight 16-byte cp.async copies. The tile-0 wgmma ignores the
// accumulators (scale-d p = 0). The epilogue multiplies by
// scale_a scale_b, rounds to bf16 and stores 16 bytes at a time.
// PTX:         .target sm_90a
// PTX-NOT:     .reqnctapercluster
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
// PTX-NOT:     barrier.cluster

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

// split = 8: a cluster of the 8 blocks (grid z) that share a tile of C, as
// in matmul_f16_wgmma; after a cluster barrier each block sums its rows of
// the 8 blocks' fp32 tiles (mapa, ld.shared::cluster, in block order), and
// only then multiplies by scale_a scale_b (once: no multiply between the
// first and the last block's tile), rounds to bf16 and stores; a second
// cluster barrier before it exits.
// SPLIT:         .explicitcluster
// SPLIT-NEXT:    .reqnctapercluster 1, 1, 8
// SPLIT:         mov.u32 {{.*}}, %ctaid.z;
// SPLIT:         wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// SPLIT:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// SPLIT:         barrier.cluster.arrive.aligned;
// SPLIT-NEXT:    barrier.cluster.wait.aligned;
// SPLIT:         mapa.shared::cluster.u64 {{.*}}, 0;
// SPLIT-NEXT:    ld.shared::cluster.v4.b32
// SPLIT-NEXT:    ld.shared::cluster.v4.b32
// SPLIT-NOT:     mul.rn.f32
// SPLIT-COUNT-7: mapa.shared::cluster.u64
// SPLIT-NOT:     mul.rn.f32
// SPLIT:         add.rn.f32
// SPLIT-COUNT-8: mul.rn.f32
// SPLIT-NOT:     mul.rn.f32
// SPLIT:         cvt.rn.bf16x2.f32
// SPLIT-NOT:     mul.rn.f32
// SPLIT:         st.global.v4.b32
// SPLIT:         barrier.cluster.arrive.aligned;
// SPLIT-NEXT:    barrier.cluster.wait.aligned;
// SPLIT-NOT:     .local

// split = 4 (mask = 0, M = 64): a cluster of 4; each 8-column chunk sums
// the 4 blocks' tiles before its rounding.
// SPLIT4:      .reqnctapercluster 1, 1, 4
// Block z takes its contiguous share of the k tiles: the prologue's second
// stage of A starts one k tile (128 bytes of a row) after the first.
// SPLIT4:      cp.async.cg.shared.global [%rd{{[0-9]+}}+8192], [%rd{{[0-9]+}}+128], 16;
// SPLIT4:      barrier.cluster.arrive.aligned;
// SPLIT4-NEXT: barrier.cluster.wait.aligned;
// SPLIT4:      mapa.shared::cluster.u64 {{.*}}, 0;
// SPLIT4:      mapa.shared::cluster.u64 {{.*}}, 1;
// SPLIT4:      mapa.shared::cluster.u64 {{.*}}, 2;
// SPLIT4:      mapa.shared::cluster.u64 {{.*}}, 3;
// SPLIT4-NOT:  mapa.shared::cluster
// SPLIT4:      cvt.rn.bf16x2.f32
// SPLIT4:      st.global.v4.b32
// SPLIT4:      barrier.cluster.arrive.aligned;
// SPLIT4-NEXT: barrier.cluster.wait.aligned;
// SPLIT4-NOT:  .local

// Block z takes k tiles z, z + 16, ...: the prologue's second stage starts
// 16 k tiles (2048 bytes of a row) after the first, not 128 bytes on.
// KORDER16:         add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 2048;

// split = 16: no cluster; the blocks add their unscaled fp32 tiles in the
// workspace, and the last to arrive scales the whole sum, once, rounds and
// stores it.
// SPLIT16:          .global .align 16 .b8 split_sums[4194304];
// SPLIT16-NOT:      .reqnctapercluster
// SPLIT16-NOT:      barrier.cluster
// SPLIT16-NOT:      mul.rn.f32
// SPLIT16:          cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// SPLIT16-NOT:      mul.rn.f32
// SPLIT16:          atom.global.add.u32
// SPLIT16:          ld.volatile.global.v4.b32
// SPLIT16-NEXT:     ld.volatile.global.v4.b32
// SPLIT16-COUNT-8:  mul.rn.f32
// SPLIT16:          cvt.rn.bf16x2.f32
// SPLIT16:          st.global.v4.b32
// SPLIT16-NOT:      barrier.cluster
// SPLIT16-NOT:      .local
