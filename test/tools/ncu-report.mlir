// bench/gpu/ncu_report.py summarizes one kernel from three pages of an
// Nsight Compute report (bench/gpu/profile_variant.sh): trimmed pages of
// a real report in Inputs/ncu. Stall reasons and instructions come
// sorted; lines that are not CSV rows are skipped; a page without its
// table is an error.
// RUN: %python %S/../../bench/gpu/ncu_report.py %S/Inputs/ncu/details.csv \
// RUN:   %S/Inputs/ncu/raw.csv %S/Inputs/ncu/source.csv | FileCheck %s
// RUN: not %python %S/../../bench/gpu/ncu_report.py %S/Inputs/ncu/details.csv \
// RUN:   %S/Inputs/ncu/raw.csv %S/Inputs/ncu/details.csv 2>&1 | FileCheck %s --check-prefix=NOSASS
// RUN: not %python %S/../../bench/gpu/ncu_report.py %S/Inputs/ncu/details.csv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=USAGE

// CHECK:      KERNEL matmul_e4m3_wgmma_ws_n192__v5
// CHECK-NEXT:   duration 29,920 ns at 1.791 GHz: 53,931 cycles elapsed, 44,837.17 SM active
// CHECK-NEXT:   throughput: compute (SM) 55.59%, L1/TEX 45.73%, L2 61.25%, DRAM 14.39%
// CHECK-NEXT:   L2 to SMs: 251.8 MB received, 5,355,339 sectors read from the L2
// CHECK-NEXT:   launch: grid 132, block 384, cluster 2, 168 registers, 197,696 B dynamic shared memory
// CHECK-NEXT:   warp cycles per issued instruction 19.18; stalls per issue: long_scoreboard 8.89, barrier 5.58, gmma 0.01
// CHECK-NEXT:   hottest instructions (share of the stall samples):
// CHECK-NEXT:     63.6%  @!P0 BRA 0x7f674f7b9200 {{ *}}long_sb 1260
// CHECK-NEXT:     33.9%  UCGABAR_WAIT {{ *}}barrier 677
// CHECK-NEXT:      2.5%  NOP {{ *}}wait 30
// CHECK-NEXT:      0.0%  NOP
// CHECK-EMPTY:

// NOSASS: ncu_report.py: no SASS table in {{.*}}details.csv
// USAGE: python3 bench/gpu/ncu_report.py DETAILS.csv RAW.csv SOURCE.csv

// A page exported with ncu's scaled units is refused, not misread.
// RUN: not %python %S/../../bench/gpu/ncu_report.py %S/Inputs/ncu/details-scaled.csv \
// RUN:   %S/Inputs/ncu/raw.csv %S/Inputs/ncu/source.csv 2>&1 | FileCheck %s --check-prefix=UNITS
// UNITS: ncu_report.py: {{.*}}details-scaled.csv gives the SM frequency in Ghz; export it with --print-units base

// With the DRAM counters profile_pick.sh asks for (raw-dram.csv: raw.csv
// with the two columns added), the bytes read and written.
// RUN: %python %S/../../bench/gpu/ncu_report.py %S/Inputs/ncu/details.csv \
// RUN:   %S/Inputs/ncu/raw-dram.csv %S/Inputs/ncu/source.csv | FileCheck %s --check-prefix=DRAM
// DRAM:      L2 to SMs: 251.8 MB received, 5,355,339 sectors read from the L2
// DRAM-NEXT: DRAM: 134.2 MB read, 134.7 MB written
// DRAM-NEXT: launch: grid 132
