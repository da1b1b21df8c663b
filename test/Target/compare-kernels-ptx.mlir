// The PTX of the check's comparison kernels that the runtime embeds is what
// Tuna's pipeline makes of runtime/lib/cuda/CompareKernels.mlir today (if
// not: `cmake --build build --target update-compare-kernels-ptx`), and it
// has every kernel runtime/lib/DeviceCompare.cpp looks up, for sm_75.

// RUN: %python %S/../../scripts/compare-kernels-ptx.py --check tuna-opt
// RUN: FileCheck %s --input-file=%S/../../runtime/lib/cuda/CompareKernels.ptx
// RUN: FileCheck %s --check-prefix=ROUNDING \
// RUN:   --input-file=%S/../../runtime/lib/cuda/CompareKernels.ptx

// CHECK: .version 8.0
// CHECK: .target sm_75
// CHECK-DAG: .entry compare_f16(
// CHECK-DAG: .entry compare_bf16(
// CHECK-DAG: .entry compare_f32(
// CHECK-DAG: .entry compare_f64(
// CHECK-DAG: .entry compare_i8(
// CHECK-DAG: .entry compare_i16(
// CHECK-DAG: .entry compare_i32(
// CHECK-DAG: .entry compare_i64(
// CHECK-DAG: .entry scale_f16(
// CHECK-DAG: .entry scale_bf16(
// CHECK-DAG: .entry scale_f32(
// CHECK-DAG: .entry scale_f64(
// CHECK-DAG: .entry summarize(
// The rule rounds twice, as the host's does: no fused multiply-add, and no
// call into libdevice.
// CHECK-DAG: mul.rn.f64
// CHECK-DAG: add.rn.f64
// CHECK-DAG: div.rn.f64
// ROUNDING-NOT: fma.rn.f64
// ROUNDING-NOT: __nv_
