// The e4m3 warp-specialized persistent wgmma matmul
// (kernels-mlir/matmul_wgmma_ws_fp8.mlir): matmul_f16_wgmma_ws's schedule
// with matmul_e4m3_wgmma's K-major A and B, k32 wgmma and scales.
// RUN: tuna-compile %S/../../kernels-mlir/matmul_wgmma_ws_fp8.mlir --target=nvptx:sm_90a --no-ptxas \
// RUN:   --max-shared-memory=232448 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=TMA --input-file=%t/matmul_e4m3_wgmma_ws.stages=4,gm=8,tma=1,ctas=132.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.cg --implicit-check-not=st.global --implicit-check-not=.local
// RUN: FileCheck %s --check-prefix=COPY --input-file=%t/matmul_e4m3_wgmma_ws.stages=4,gm=8,tma=0,ctas=132.sm_90a.ptx \
// RUN:   --implicit-check-not=cp.async.bulk --implicit-check-not=setmaxnreg

// CHECK:      kernel matmul_e4m3_wgmma_ws: 6 variants, default [[DEFAULT:matmul_e4m3_wgmma_ws__v5]]
// CHECK:      [[DEFAULT]] {{ *}}stages=4 gm=8 tma=0 ctas=132
// CHECK:      compiled nvptx:sm_90a: 6 variants

// The producer loads a stage (48 KiB) with two boxes: A's 128 x 128 bytes
// and B's 128 x 256 (one K-major column block).
// TMA:         setmaxnreg.dec.sync.aligned.u32 40;
// TMA:         mov.b32 {{%r[0-9]+}}, 49152;
// TMA:         mbarrier.arrive.expect_tx.shared.b64
// TMA-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// TMA-NOT:     cp.async.bulk.tensor.2d.shared::cluster.global
// TMA:         setmaxnreg.inc.sync.aligned.u32 232;
// TMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// TMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// TMA:         mbarrier.arrive.shared.b64
// The epilogue scales, rounds to bf16 and stores four chunks with TMA.
// TMA:         mul.rn.f32
// TMA:         cvt.rn.bf16x2.f32
// TMA-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// TMA:         cp.async.bulk.wait_group 0;

// The default: 8 + 16 cp.async copies a producer thread and stage, 64
// scaled bf16 pairs stored a consumer thread.
// COPY-COUNT-24: cp.async.cg.shared.global
// COPY:          cp.async.mbarrier.arrive.noinc.shared.b64
// COPY-COUNT-4:  wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// COPY-COUNT-4:  wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// COPY-COUNT-64: st.global.b32
