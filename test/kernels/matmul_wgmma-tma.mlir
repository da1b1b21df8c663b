// matmul_f16_wgmma's tma = 1 variants (kernels-mlir/matmul_wgmma.mlir):
// thread 0 loads each stage's A and B tiles with TMA (cp.async.bulk.tensor
// through the two tensor maps the variant takes as grid-constant
// parameters, completion on the stage's mbarrier), every thread waits on
// the stage's mbarrier (try_wait.parity), and no cp.async, cp.async group
// or proxy fence is left. The bundle describes the maps: A as an M x K and
// B as a K x N row-major view of the flat buffers (`shape` over the key
// d0, d1, d2 = m, n, k), boxes 64 x bm and 64 x bk, the 128-byte swizzle.

// RUN: rm -rf %t
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=0,mask=1,order=0,l1=0,split=1,tma=1.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=cp.async.ca --implicit-check-not=cp.async.commit_group \
// RUN:   --implicit-check-not=cp.async.wait_group --implicit-check-not=fence.proxy.async --implicit-check-not=.local
// RUN: FileCheck %s --check-prefix=DEEP --input-file=%t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=1,mask=1,order=0,l1=0,split=1,tma=1.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/matmul_f16_wgmma.bm=64,bk=64,stages=4,gm=8,deep=1,mask=1,order=0,l1=0,split=4,tma=1.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=cp.async.wait_group
// RUN: FileCheck %s --check-prefix=BUNDLE --input-file=%t.tuna
// RUN: od -An -tu4 -j8 -N4 %t.tuna | FileCheck %s --check-prefix=VERSION
// ptxas keeps the TMA variants' wgmma asynchronous (no C7515 warning) and
// spills nothing (matmul_wgmma-ptxas.mlir compiles every variant).
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/matmul_f16_wgmma.bm=128,bk=64,stages=4,gm=8,deep=0,mask=1,order=0,l1=0,split=1,tma=1.sm_90a.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=warning %}

// The default takes no map (tma = 0); the tma = 1 variants follow the
// cp.async ones.
// CHECK: kernel matmul_f16_wgmma: 31 variants, default [[DEFAULT:matmul_f16_wgmma__v[0-9]+]]
// CHECK: [[DEFAULT]] {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=1 order=0 l1=0 split=1 tma=0
// CHECK: matmul_f16_wgmma__v23 {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=1 order=0 l1=0 split=1 tma=1
// CHECK: matmul_f16_wgmma__v30 {{ *}}bm=64 bk=64 stages=4 gm=8 deep=1 mask=1 order=0 l1=0 split=4 tma=1
// CHECK: compiled nvptx:sm_90a: 31 variants

// bm = 128, bk = 64, 4 stages, deep = 0: the maps are parameters 18 (A)
// and 19 (B), after the 18 of the kernel's own arguments, used in place
// (cvta.param: no copy to local memory).
// PTX:      .entry matmul_f16_wgmma__v23(
// PTX:      .param .align 64 .b8 matmul_f16_wgmma__v23_param_18[128],
// PTX-NEXT: .param .align 64 .b8 matmul_f16_wgmma__v23_param_19[128]
// PTX:      mov.b64 [[PB:%rd[0-9]+]], matmul_f16_wgmma__v23_param_19;
// PTX-NEXT: cvta.param.u64 [[MAPB:%rd[0-9]+]], [[PB]];
// PTX-NEXT: mov.b64 [[PA:%rd[0-9]+]], matmul_f16_wgmma__v23_param_18;
// PTX-NEXT: cvta.param.u64 [[MAPA:%rd[0-9]+]], [[PA]];
// One mbarrier a stage, initialized by one thread (arrival count 1),
// fenced, then a barrier for every thread.
// PTX-COUNT-4: mbarrier.init.shared.b64
// PTX-NEXT: fence.mbarrier_init.release.cluster;
// PTX:      bar.sync 0;
// The prologue: 2 tiles in flight (stages - 2 + deep), each armed with its
// 49,152 bytes (128 x 64 of A, 64 x 256 of B, 2 bytes each), then one box
// of A (bk / 64) and four of B (one a 64-column atom).
// PTX:      mov.b32 [[TX:%r[0-9]+]], 49152;
// PTX-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%rd[0-9]+}}], [[TX]];
// PTX:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], {{\[}}[[MAPA]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], {{\[}}[[MAPB]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX:      mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%rd[0-9]+}}+196616], {{%r[0-9]+}};
// PTX:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}{{\[}}[[MAPA]],
// PTX-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}{{\[}}[[MAPB]],
// Tile 0: phase 0 of stage 0's mbarrier (a try_wait loop, CUTLASS's
// suspend-time hint), the barrier, the peeled tile's wgmma.
// PTX:      mbarrier.try_wait.parity.shared.b64 P1, [{{%r[0-9]+}}], 0, 10000000;
// PTX-NEXT: @P1 bra.uni DONE;
// PTX:      bar.sync 0;
// PTX:      wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX:      wgmma.commit_group.sync.aligned;
// The loop: this warpgroup's wgmma of tile kt - 2 completes, tile kt's
// stage's phase (kt / 4 mod 2, a register) completes, the barrier, wgmma;
// the refill (thread 0, before the wait: deep = 0) arms the stage and
// issues its five boxes.
// PTX:      wgmma.wait_group.sync.aligned 1;
// PTX:      mbarrier.try_wait.parity.shared.b64 P1, [{{%r[0-9]+}}], {{%r[0-9]+}}, 10000000;
// PTX:      bar.sync 0;
// PTX:      wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX:      wgmma.commit_group.sync.aligned;
// PTX:      mbarrier.arrive.expect_tx.shared.b64
// PTX:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}{{\[}}[[MAPA]],
// PTX-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}{{\[}}[[MAPB]],
// The epilogue (masked stores: mask = 1).
// PTX:      wgmma.wait_group.sync.aligned 0;
// PTX-NEXT: bar.sync 0;
// PTX:      st.global.v4.b32

// deep = 1: 3 tiles in flight; the refill waits for the previous wgmma and
// a second barrier, as with cp.async.
// DEEP:      mbarrier.init.shared.b64
// DEEP:      mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%rd[0-9]+}}+196624], {{%r[0-9]+}};
// DEEP:      mbarrier.try_wait.parity.shared.b64 P1, [{{%r[0-9]+}}], 0, 10000000;
// DEEP:      mbarrier.try_wait.parity.shared.b64 P1, [{{%r[0-9]+}}], {{%r[0-9]+}}, 10000000;
// DEEP:      wgmma.commit_group.sync.aligned;
// DEEP:      wgmma.wait_group.sync.aligned 1;
// DEEP-NEXT: bar.sync 0;
// DEEP:      mbarrier.arrive.expect_tx.shared.b64
// DEEP-COUNT-5: cp.async.bulk.tensor.2d

// split = 4 with TMA: a cluster of 4, each block's boxes from its own k
// tiles, the sum through distributed shared memory as with cp.async.
// SPLIT:         .reqnctapercluster 1, 1, 4
// SPLIT:         mbarrier.init.shared.b64
// SPLIT:         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SPLIT:         mbarrier.try_wait.parity.shared.b64
// SPLIT:         barrier.cluster.arrive.aligned;
// SPLIT-COUNT-4: mapa.shared::cluster.u64

// PTXAS: Compiling entry function 'matmul_f16_wgmma__v23' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The bundle has tensor maps: format version 2.
// VERSION: {{^ *2$}}
// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "arg": 0,
// BUNDLE-NEXT:   "l2Promotion": 256,
// BUNDLE-NEXT:   "oobFill": "zero",
// BUNDLE-NEXT:   "shape": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d0"
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d2"
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ]
// BUNDLE-NEXT:  },
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "arg": 1,
// BUNDLE-NEXT:   "l2Promotion": 256,
// BUNDLE-NEXT:   "oobFill": "zero",
// BUNDLE-NEXT:   "shape": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d2"
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     "d1"
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ]
// BUNDLE-NEXT:  }
// BUNDLE-NEXT: ],
// No tma = 0 variant takes a map.
// BUNDLE:      "name": "matmul_f16_wgmma__v0",
// BUNDLE-NOT:  "tensorMaps"
// BUNDLE:      "name": "matmul_f16_wgmma__v23",
// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "map": 0,
// BUNDLE-NEXT:   "box": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     64
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     128
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ],
// BUNDLE-NEXT:   "swizzle": 128
// BUNDLE-NEXT:  },
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "map": 1,
// BUNDLE-NEXT:   "box": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     64
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     64
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ],
// BUNDLE-NEXT:   "swizzle": 128
// BUNDLE-NEXT:  }
// BUNDLE-NEXT: ],
// bm = 64: A's box is 64 x 64.
// BUNDLE:      "name": "matmul_f16_wgmma__v29",
// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "map": 0,
// BUNDLE-NEXT:   "box": [
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     64
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    [
// BUNDLE-NEXT:     64
// BUNDLE-NEXT:    ]
// BUNDLE-NEXT:   ],
