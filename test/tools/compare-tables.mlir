// bench/gpu/compare.py --tables-from: the tables of an earlier run's COMPARE
// lines (a run that its time bound stopped before it printed them), with no
// CUDA, torch or bundles. One memory-bound and one matmul record of an H200
// run (2026-11-28); other lines are ignored.
// RUN: rm -rf %t && split-file %s %t
// RUN: %python %S/../../bench/gpu/compare.py --tables-from %t/run.log | FileCheck %s
// RUN: not %python %S/../../bench/gpu/compare.py 2>&1 | FileCheck %s --check-prefix=USAGE
// With --markdown: docs/benchmarks.md's summary tables, only the columns
// and rows the records fill.
// RUN: %python %S/../../bench/gpu/compare.py --tables-from %t/run.log --markdown \
// RUN:   | FileCheck %s --check-prefix=MD --match-full-lines
// RUN: not %python %S/../../bench/gpu/compare.py --markdown 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MD-USAGE

// CHECK:      tables:
// CHECK:      kernel shape L2 tuna default triton cublas tun/cub tun/trt spread ok
// CHECK-NEXT: matmul_f16_wgmma_tiles M=256,N=256,K=65536 warm 351.1 14.7 28.2 347.8 1.01 12.44 1.0% yes
// CHECK-NEXT: matmul_f16_wgmma_tiles M=256,N=256,K=65536 cold 261.1 14.6 27.4 276.7 0.94 9.54 5.0% yes
// CHECK:      scale n=16777216 warm 4050 2600 3866 3819 3871 104.6% 1.05 0.5% yes
// CHECK-NEXT: scale n=16777216 cold 3635 2409 3654 3638 3676 98.9% 0.99 4.8% yes
// CHECK:      tuna matmul_f16_wgmma_n128__v29: kernel=1,
// CHECK:      2 cases from {{.*}}run.log, 0 wrong

// USAGE: error: --bundles is required

// MD:      | M x N x K | fp16 | fp16 / Triton |
// MD-NEXT: | --- | --- | --- |
// MD-NEXT: | 256 x 256 x 65536 | 1.01 / 0.94 | 12.44 / 9.54 |
// MD-EMPTY:
// MD-NEXT: | kernel | shape | warm | cold |
// MD-NEXT: | --- | --- | --- | --- |
// MD-NEXT: | scale | n=16777216 | 104.6% | 98.9% |
// MD-NOT:  {{.}}

// MD-USAGE: error: --markdown needs --tables-from

//--- run.log
device: NVIDIA H200
COMPARE {"kernel": "scale", "shape": "n=16777216", "unit": "GB/s", "pick": "scale__v8: block=256, vec=4", "default": "scale__v6: block=256, vec=1", "tolerance": 1e-05, "ok": 1, "err": {"tuna": 2.5067957348022865e-08, "default": 2.5067957348022865e-08, "triton": 2.5067957348022865e-08, "torch": 2.5067957348022865e-08}, "first_call_ms": {"tuna": 13.3, "default": 0.3, "triton": 2112.0, "torch": 0.3, "copy": 0.1}, "warm": {"tuna": {"rate": 4050.0, "median_us": 33.14, "min_us": 33.01, "spread_pct": 0.5}, "default": {"rate": 2600.0, "median_us": 51.63, "min_us": 51.56, "spread_pct": 0.2}, "triton": {"rate": 3866.0, "median_us": 34.72, "min_us": 34.52, "spread_pct": 0.5}, "torch": {"rate": 3819.0, "median_us": 35.15, "min_us": 35.01, "spread_pct": 0.5}, "copy": {"rate": 3871.0, "median_us": 34.68, "min_us": 34.52, "spread_pct": 0.5}}, "cold": {"tuna": {"rate": 3635.0, "median_us": 36.93, "min_us": 35.52, "spread_pct": 4.8}, "default": {"rate": 2409.0, "median_us": 55.71, "min_us": 54.46, "spread_pct": 3.3}, "triton": {"rate": 3654.0, "median_us": 36.74, "min_us": 35.62, "spread_pct": 4.4}, "torch": {"rate": 3638.0, "median_us": 36.9, "min_us": 35.68, "spread_pct": 4.4}, "copy": {"rate": 3676.0, "median_us": 36.51, "min_us": 35.49, "spread_pct": 4.0}}}
matmul_x M=1,N=1,K=1: FAILED: RuntimeError: not counted here
COMPARE {"kernel": "matmul_f16_wgmma_tiles", "shape": "M=256,N=256,K=65536", "unit": "TFLOP/s", "pick": "matmul_f16_wgmma_n128__v29: kernel=1, bm=64, bk=64, stages=8, gm=8, deep=1, mask=1, order=0, l1=0, split=16, tma=1, mc=-1, nc=-1, ctas=-1", "default": "matmul_f16_wgmma__v10: kernel=0, bm=128, bk=64, stages=4, gm=8, deep=0, mask=1, order=0, l1=0, split=1, tma=0, mc=-1, nc=-1, ctas=-1", "tolerance": 0.002, "ok": 1, "err": {"tuna": 0.00020670572300791643, "default": 0.0002202087337856899, "triton": 0.0002202087337856899, "cublas": 0.00020670787122709504}, "first_call_ms": {"tuna": 191.7, "default": 1.1, "triton": 1751.1, "cublas": 3.0}, "warm": {"tuna": {"rate": 351.1, "median_us": 24.47, "min_us": 24.37, "spread_pct": 0.5}, "default": {"rate": 14.72, "median_us": 583.68, "min_us": 583.48, "spread_pct": 0.4}, "triton": {"rate": 28.23, "median_us": 304.28, "min_us": 303.94, "spread_pct": 0.1}, "cublas": {"rate": 347.8, "median_us": 24.7, "min_us": 24.51, "spread_pct": 1.0}}, "cold": {"tuna": {"rate": 261.1, "median_us": 32.9, "min_us": 31.9, "spread_pct": 5.0}, "default": {"rate": 14.59, "median_us": 588.67, "min_us": 587.3, "spread_pct": 0.3}, "triton": {"rate": 27.37, "median_us": 313.89, "min_us": 311.78, "spread_pct": 0.5}, "cublas": {"rate": 276.7, "median_us": 31.04, "min_us": 29.98, "spread_pct": 4.5}}}
