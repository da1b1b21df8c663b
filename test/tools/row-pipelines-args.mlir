// bench/gpu/row_pipelines.sh checks its argument before it builds or runs
// anything: a row count that is not a number gives the usage.
// RUN: not bash %S/../../bench/gpu/row_pipelines.sh 4k 2>&1 | FileCheck %s

// CHECK: What bounds a row kernel at 128 MiB a side: bench/gpu/row_pipelines.cu
// CHECK: bash bench/gpu/row_pipelines.sh [ROWS]   (default 4096)
