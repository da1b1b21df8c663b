// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=0,mask=0,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=S3 --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=3,gm=8,deep=1,mask=0,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=DEEP --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=1,mask=0,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BM64 --input-file=%t/matmul_f16_wgmma.bm=64,bk=64,stages=4,gm=8,deep=1,mask=0,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BK128 --input-file=%t/matmul_f16_wgmma.bm=128,bk=128,stages=2,gm=8,deep=1,mask=0,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MASK --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=0,mask=1,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/matmul_f16_wgmma.bm=64,bk=64,stages=4,gm=8,deep=1,mask=1,order=0,l1=0,split=8,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT16 --input-file=%t/matmul_f16_wgmma.bm=64,bk=64,stages=4,gm=8,deep=1,mask=1,order=0,l1=0,split=16,tma=0.sm_90a.ptx
// The kernel declares tensor maps (tma = 1), so it cannot be planned
// without building its variants (--variants, the JIT's lazy mode): which
// maps a variant takes is known once it is folded. A split variant
// instantiated later from a planned table is checked on the kernel's
// 128-column twin (matmul_wgmma_n128.mlir, tma = 0 only, no maps) and on
// matmul_e4m3_wgmma (matmul_wgmma_fp8.mlir).
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 --variants=16 -o %t.lazy.tuna 2>&1 | FileCheck %s --check-prefix=LAZY
// LAZY: error: kernel 'matmul_f16_wgmma' has tensor maps, whose hidden parameters are known only once its variants are built: expand it without plan-only
// Every variant needs more than the default 48 KiB of shared memory.
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   -o %t.small.tuna 2>&1 | FileCheck %s --check-prefix=SMALL

// CHECK:      kernel matmul_f16_wgmma: 31 variants, default [[MATMUL_F16_WGMMA_DEFAULT:matmul_f16_wgmma__v[0-9]+]]
// CHECK:      {{matmul_f16_wgmma__v[0-9]+}} {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=0
// CHECK:      {{matmul_f16_wgmma__v[0-9]+}} {{ *}}bm=128 bk=64 stages=4 gm=8 deep=1 mask=0
// CHECK:      {{matmul_f16_wgmma__v[0-9]+}} {{ *}}bm=128 bk=64 stages=3 gm=8 deep=1 mask=0
// CHECK:      {{matmul_f16_wgmma__v[0-9]+}} {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=0
// CHECK:      {{matmul_f16_wgmma__v[0-9]+}} {{ *}}bm=128 bk=128 stages=2 gm=8 deep=1 mask=0
// CHECK:      [[MATMUL_F16_WGMMA_DEFAULT]] {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=1
// CHECK:      {{matmul_f16_wgmma__v16}} {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=1 order=0 l1=0 split=8
// CHECK:      {{matmul_f16_wgmma__v20}} {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=1 order=0 l1=0 split=16
// CHECK:      {{matmul_f16_wgmma__v21}} {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=0 order=0 l1=0 split=16
// CHECK:      {{matmul_f16_wgmma__v22}} {{ *}}bm=128 bk=64 stages=4 gm=8 deep=1 mask=0 order=0 l1=0 split=16
// The TMA variants come after the cp.async ones (test/kernels/matmul_wgmma-tma.mlir).
// CHECK:      {{matmul_f16_wgmma__v23}} {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=1 order=0 l1=0 split=1 tma=1
// CHECK:      {{matmul_f16_wgmma__v30}} {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=1 order=0 l1=0 split=4 tma=1
// CHECK:      compiled nvptx:sm_90a: 31 variants

// SMALL: kernel 'matmul_f16_wgmma': every configuration breaks a constraint or a limit

// 128 x 256 tile, 4 stages, deep = 0 (2 tiles in flight): the copies land
// (wait_group 1), are fenced for the async proxy, then one wgmma group of
// four m64n256k16 (B transposed: the last immediate is 1) per 64-deep tile;
// the refill goes out before the wait for the previous group, and without a
// second barrier; all 128 accumulators stay in registers. Tile 0 is
// peeled: its first wgmma ignores the accumulators (scale-d: p = 0), so that
// no other instruction writes them (ptxas would serialize every wgmma:
// C7515).
// PTX:     .target sm_90a
// PTX-NOT: .reqnctapercluster
// PTX-NOT: mov.b32
// PTX:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// PTX:     cp.async.commit_group
// PTX:     cp.async.wait_group {{[[:space:]]*}}1
// PTX:     fence.proxy.async.shared::cta
// PTX:     bar.sync
// PTX:     wgmma.fence.sync.aligned
// PTX:     setp.ne.b32 p, 0, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1,  1, 0,  1;
// PTX-COUNT-3: setp.ne.b32 p, 1, 0;
// PTX:     wgmma.commit_group.sync.aligned
// PTX-NOT: bar.sync
// PTX-NOT: wgmma.wait_group
// PTX:     cp.async.commit_group
// PTX-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// PTX-NEXT: cp.async.wait_group {{[[:space:]]*}}1
// PTX-NEXT: fence.proxy.async.shared::cta
// PTX-NEXT: bar.sync
// PTX:     wgmma.fence.sync.aligned
// PTX-COUNT-4: setp.ne.b32 p, 1, 0;
// PTX:     wgmma.commit_group.sync.aligned
// PTX:     wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// PTX:     st.shared.v2.b32
// PTX:     ld.shared.v4.b32
// PTX:     st.global.v4.b32
// PTX-NOT: .local
// PTX-NOT: barrier.cluster

// deep = 1: 3 tiles in flight (wait until 2 groups are pending); a second
// barrier after the wgmma wait, then the refill.
// DEEP:      cp.async.wait_group {{[[:space:]]*}}2
// DEEP:      fence.proxy.async.shared::cta
// DEEP:      bar.sync
// DEEP-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16
// DEEP:      wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// DEEP-NEXT: bar.sync
// DEEP:      cp.async.cg.shared.global
// DEEP-NOT:  .local

// 3 stages, deep = 1 (the shape of Triton's pipeline): tile kt + 1 may
// still be in flight at the top of iteration kt; two barriers.
// S3:      cp.async.wait_group {{[[:space:]]*}}1
// S3:      fence.proxy.async.shared::cta
// S3:      bar.sync
// S3:      wgmma.mma_async.sync.aligned.m64n256k16
// S3:      wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// S3-NEXT: bar.sync

// One warpgroup (bm = 64): its 128 accumulators stay out of local memory.
// BM64:     wgmma.mma_async.sync.aligned.m64n256k16
// BM64-NOT: .local

// bk = 128, 2 stages, deep = 1: one 128-deep tile in flight, eight wgmma
// per group; B's leading byte offset is 16 KiB (1024 << 16 in the
// descriptor), A's second column block 16 KiB on (+1024 in the address).
// BK128:         cp.async.wait_group {{[[:space:]]*}}0
// BK128:         or.b64 {{.*}}, 4611686293372403712;
// BK128-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16
// BK128:         add.s64 {{.*}}, 4611686293305361408;
// BK128-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16
// BK128:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}1
// BK128-NOT:     .local

// mask = 1 (any M, N and K multiple of 8): the number of k tiles rounds up;
// every copy says how many bytes it reads (16 or 0: zero-filled past M, N
// or K), and a store past M or N is skipped. mask = 0 variants copy without
// a source size (PTX above).
// MASK:      cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// MASK:      wgmma.mma_async.sync.aligned.m64n256k16
// MASK:      wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// MASK:      @%p{{[0-9]+}} bra
// MASK:      st.global.v4.b32
// MASK-NOT:  .local

// split = 8: a cluster of the 8 blocks (grid z) that share a tile of C; each
// takes an eighth of the k tiles, leaves its fp32 tile in its shared memory,
// and after a cluster barrier sums its 8 rows of the tile from the 8 blocks'
// shared memory (mapa, ld.shared::cluster), then meets the others once more
// before it exits.
// SPLIT-NOT:     split_sums
// SPLIT:         .explicitcluster
// SPLIT-NEXT:    .reqnctapercluster 1, 1, 8
// SPLIT:         mov.u32 {{.*}}, %ctaid.z;
// Block z takes its contiguous share of the k tiles: the prologue's second
// stage of A starts one k tile (128 bytes of a row) after the first.
// SPLIT:         cp.async.cg.shared.global [%rd{{[0-9]+}}+8192], [%rd{{[0-9]+}}+128], 16,
// SPLIT:         wgmma.mma_async.sync.aligned.m64n256k16
// SPLIT:         wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// SPLIT:         barrier.cluster.arrive.aligned;
// SPLIT-NEXT:    barrier.cluster.wait.aligned;
// SPLIT-COUNT-8: mapa.shared::cluster.u64
// SPLIT:         st.global.v4.b32
// SPLIT:         barrier.cluster.arrive.aligned;
// SPLIT-NEXT:    barrier.cluster.wait.aligned;
// SPLIT-NOT:     .local

// split = 16: no cluster. The kernel's module holds the fp32 sums and the
// arrival counts (zero-initialized globals); each block adds its fp32 tile
// to the sums, one bulk reduction a row, waits for them to complete, and
// counts its arrival at the tile; the last block to arrive reads the sums
// (volatile: from the L2), zeroes them, and stores the rounded tile.
// Block z takes k tiles z, z + 16, ...: the prologue's second stage of A
// (8 KiB on in shared memory) comes from 16 k tiles (2048 bytes) after the
// first, not from the next tile (128 bytes).
// SPLIT16:          .global .align 16 .b8 split_sums[4194304];
// SPLIT16:          .global .align 4 .b8 split_arrivals[16384];
// SPLIT16-NOT:      .reqnctapercluster
// SPLIT16:          cp.async.cg.shared.global [%rd{{[0-9]+}}+8192], [%rd{{[0-9]+}}+2048], 16,
// SPLIT16:          wgmma.wait_group.sync.aligned {{[[:space:]]*}}0
// SPLIT16-NOT:      barrier.cluster
// SPLIT16:          fence.proxy.async.shared::cta;
// SPLIT16:          cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], %r{{[0-9]+}};
// SPLIT16:          cp.async.bulk.commit_group;
// SPLIT16-NEXT:     cp.async.bulk.wait_group {{[[:space:]]*}}0;
// SPLIT16-NEXT:     fence.proxy.async.global;
// SPLIT16:          membar.gl;
// SPLIT16:          atom.global.add.u32 {{.*}}, 1;
// SPLIT16:          st.global.b32 [%rd{{[0-9]+}}], 0;
// SPLIT16:          membar.gl;
// SPLIT16:          ld.volatile.global.v4.b32
// SPLIT16-NEXT:     ld.volatile.global.v4.b32
// SPLIT16-NEXT:     st.global.v4.b32 [%rd{{[0-9]+}}], {0f00000000, 0f00000000, 0f00000000, 0f00000000};
// SPLIT16-NEXT:     st.global.v4.b32 [%rd{{[0-9]+}}+16], {0f00000000, 0f00000000, 0f00000000, 0f00000000};
// SPLIT16:          cvt.rn.f16x2.f32
// SPLIT16:          st.global.v4.b32
// SPLIT16-NOT:      barrier.cluster
// SPLIT16-NOT:      .local

// wgmma exists on sm_90a only, and the kernel says so: sm_90 (no `a`) and
// AMD GPUs are clear errors naming it.
// RUN: not tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90,amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 --max-shared-memory=232448 \
// RUN:   -o %t.other.tuna 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: nothing to put in the bundle: no kernel has variants for the requested targets (nvptx:sm_90, amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100); kernel 'matmul_f16_wgmma' supports only nvptx (sm_90a), not nvptx:sm_90, amdgcn:gfx90a, amdgcn:gfx942, amdgcn:gfx1100
