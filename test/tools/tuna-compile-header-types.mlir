// RUN: tuna-compile %s --target=host -o %t.tuna --header %t.h > /dev/null 2>&1
// RUN: FileCheck %s < %t.h

// Every scalar type of the kernel ABI has its C++ parameter type.
// CHECK: // Kernels: types (2 variants).
// CHECK: inline void types(const ::tuna::Device &device, ::tuna::StreamHandle stream, const ::tuna::MemRefView &arg0, bool arg1, int8_t arg2, int16_t arg3, int32_t arg4, int64_t arg5, int64_t arg6, ::tuna::Half arg7, ::tuna::BFloat16 arg8, float arg9, double arg10) {
// CHECK: inline void types(::tuna::StreamHandle stream, const ::tuna::MemRefView &arg0, bool arg1, int8_t arg2, int16_t arg3, int32_t arg4, int64_t arg5, int64_t arg6, ::tuna::Half arg7, ::tuna::BFloat16 arg8, float arg9, double arg10) {
// CHECK-NEXT: static ::tuna::TunedKernel &kernel =
// CHECK-NEXT: module(::tuna::Device::host()).kernel("types");
func.func @types(%a: memref<?x?xf16>, %b: i1, %c: i8, %d: i16, %e: i32, %f: i64, %g: index, %h: f16, %i: bf16, %j: f32, %k: f64) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"p", [1, 2]>],
    defaults = {p = 1},
    key = [#tuna.key<arg = 6>]
  >} {
  %p = tuna.param "p" : index
  %c0 = arith.constant 0 : index
  memref.store %h, %a[%c0, %p] : memref<?x?xf16>
  return
}
