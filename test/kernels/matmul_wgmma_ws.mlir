// The warp-specialized persistent wgmma matmul (kernels-mlir/matmul_wgmma_ws.mlir):
// a producer warpgroup loads the stages (TMA, or cp.async in the default),
// two consumer warpgroups run wgmma and release them through mbarriers;
// tma = 1 stores C with TMA from shared memory, the default from registers;
// mc = 2 pairs the blocks in clusters that share B's tile (TMA multicast).
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_ws.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=TMA --input-file=%t/matmul_f16_wgmma_ws.stages=4,gm=8,tma=1,mc=1,nc=1,ctas=132.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=st.global --implicit-check-not=.local \
// RUN:   --implicit-check-not=multicast --implicit-check-not=barrier.cluster --implicit-check-not=mapa
// RUN: FileCheck %s --check-prefix=PAIR --input-file=%t/matmul_f16_wgmma_ws.stages=4,gm=8,tma=1,mc=2,nc=1,ctas=132.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=st.global --implicit-check-not=.local \
// RUN:   --implicit-check-not=membar --implicit-check-not=release.cluster.shared
// RUN: FileCheck %s --check-prefix=QUAD --input-file=%t/matmul_f16_wgmma_ws.stages=4,gm=8,tma=1,mc=2,nc=2,ctas=120.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=st.global --implicit-check-not=.local \
// RUN:   --implicit-check-not=release.cluster.shared
// RUN: FileCheck %s --check-prefix=COPY --input-file=%t/matmul_f16_wgmma_ws.stages=4,gm=8,tma=0,mc=1,nc=1,ctas=132.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.bulk --implicit-check-not=setmaxnreg
// RUN: FileCheck %s --check-prefix=BUNDLE --input-file=%t.tuna

// CHECK:      kernel matmul_f16_wgmma_ws: 12 variants, default [[DEFAULT:matmul_f16_wgmma_ws__v11]]
// CHECK:      stages=4 gm=8 tma=1 mc=2 nc=1 ctas=132
// CHECK:      [[DEFAULT]] {{ *}}stages=4 gm=8 tma=0 mc=1 nc=1 ctas=132
// CHECK:      compiled nvptx:sm_90a: 12 variants

// 384 threads; thread 0 initializes four full (one arrival) and four empty
// (8 arrivals: a consumer warp each) mbarriers.
// TMA:         .maxntid 384, 1, 1
// TMA-COUNT-2: mbarrier.init.shared.b64
// TMA:         fence.mbarrier_init
// The producer: wait for a free stage, arm its full barrier with 48 KiB,
// six boxes (A's two 64-row halves, B's four atoms).
// TMA:         setmaxnreg.dec.sync.aligned.u32 40;
// TMA:         mbarrier.try_wait.parity
// TMA:         mov.b32 {{%r[0-9]+}}, 49152;
// TMA:         mbarrier.arrive.expect_tx.shared.b64
// TMA-COUNT-6: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// The consumers: k tile 0 peeled, then the loop releasing the previous
// stage.
// TMA:         setmaxnreg.inc.sync.aligned.u32 232;
// TMA:         mbarrier.try_wait.parity
// TMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// TMA:         mbarrier.try_wait.parity
// TMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// TMA:         wgmma.wait_group.sync.aligned 1;
// TMA:         mbarrier.arrive.shared.b64
// TMA:         wgmma.wait_group.sync.aligned 0;
// The epilogue: four 64-column chunks through two buffers, each stored
// with TMA by the warpgroup's first thread.
// TMA:         cp.async.bulk.wait_group.read 1;
// TMA:         bar.sync {{.*}}, 128;
// TMA:         fence.proxy.async.shared::cta;
// TMA:         bar.sync {{.*}}, 128;
// TMA:         cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// TMA:         cp.async.bulk.commit_group;
// TMA-COUNT-3: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// TMA:         cp.async.bulk.wait_group 0;

// The default: 128 producer threads, 24 cp.async copies each a stage and an
// arrival once they land, no register reallocation; the consumers fence the
// async proxy after their wait; 64 4-byte stores a thread.
// COPY-COUNT-24: cp.async.cg.shared.global
// COPY:          cp.async.mbarrier.arrive.noinc.shared.b64
// COPY:          fence.proxy.async.shared::cta;
// COPY-COUNT-4:  wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// COPY:          fence.proxy.async.shared::cta;
// COPY-COUNT-4:  wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// COPY-COUNT-64: st.global.b32

// mc = 2: clusters of two blocks; after the mbarriers' initialization the
// cluster meets; a producer loads A's box and two of B's four atoms,
// multicast to both blocks (mask 0b11); a consumer warp's lanes 0 and 1
// release the stage in blocks 0 and 1 (mapa; .cta semantics, no fence);
// the cluster meets again before its blocks leave.
// PAIR:         .maxntid 384, 1, 1
// PAIR-NEXT:    .explicitcluster
// PAIR-NEXT:    .reqnctapercluster 2, 1, 1
// PAIR-COUNT-2: mbarrier.init.shared.b64
// PAIR:         fence.mbarrier_init.release.cluster;
// PAIR:         barrier.cluster.arrive.aligned;
// PAIR:         barrier.cluster.wait.aligned;
// PAIR:         mbarrier.arrive.expect_tx.shared.b64
// PAIR:         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PAIR:         mov.b16 [[MASK:%rs[0-9]+]], 3;
// PAIR-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster {{.*}}, [[MASK]];
// PAIR:         setmaxnreg.inc.sync.aligned.u32 232;
// PAIR:         wgmma.wait_group.sync.aligned 1;
// PAIR:         mapa.shared::cluster.u64
// PAIR-NEXT:    mov.b32 {{%r[0-9]+}}, 1;
// PAIR-NEXT:    mbarrier.arrive.shared::cluster.b64 _,
// PAIR:         wgmma.wait_group.sync.aligned 0;
// PAIR:         mapa.shared::cluster.u64
// PAIR:         mbarrier.arrive.shared::cluster.b64 _,
// PAIR:         barrier.cluster.arrive;
// PAIR:         barrier.cluster.wait;

// mc = nc = 2: clusters of four; every load is a multicast (A's halves to
// the block's row, B's atoms to its column), and a consumer warp releases
// a stage to the blocks of its row and column (lanes 0 to 3, mapa).
// QUAD:         .reqnctapercluster 4, 1, 1
// QUAD:         barrier.cluster.arrive.aligned;
// QUAD:         mbarrier.arrive.expect_tx.shared.b64
// QUAD-NOT:     complete_tx::bytes [
// QUAD:         complete_tx::bytes.multicast::cluster
// QUAD-NOT:     complete_tx::bytes [
// QUAD:         setmaxnreg.inc.sync.aligned.u32 232;
// QUAD:         mapa.shared::cluster.u64
// QUAD:         mbarrier.arrive.shared::cluster.b64 _,
// QUAD:         barrier.cluster.wait;

// A's and B's tensor maps promote L2 fills to 128 bytes, a box row's
// length (256 made rows off the 128-byte lines slower: kernels-mlir/
// matmul_wgmma_ws.mlir's header); C's map stores and has none.
// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "arg": 0,
// BUNDLE-NEXT:   "l2Promotion": 128,
// BUNDLE:        "arg": 1,
// BUNDLE-NEXT:   "l2Promotion": 128,
// BUNDLE:        "arg": 2,
// BUNDLE-NEXT:   "l2Promotion": 0,
