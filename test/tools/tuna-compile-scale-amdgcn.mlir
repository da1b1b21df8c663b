// REQUIRES: rocm-bitcode
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=amdgcn:gfx942 -o %t.tuna --header %t.h | FileCheck %s
// RUN: FileCheck %s --check-prefix=HEADER < %t.h

// A launcher without a device runs AMD code on HIP device 0.
// HEADER:      inline void scale(::tuna::StreamHandle stream,
// HEADER-NEXT:   static ::tuna::TunedKernel &kernel =
// HEADER-NEXT:       module(::tuna::Device::hip(0)).kernel("scale");

// CHECK:      kernel scale: 15 variants, default {{scale__v[0-9]+}}
// CHECK-NEXT: {{scale__v[0-9]+}} block=64 vec=1    amdgcn:gfx942: hsaco {{[0-9]+}} B amdgcn-asm {{[0-9]+}} B regs {{[0-9]+}} spill 0 B
// CHECK-COUNT-14: amdgcn:gfx942: hsaco
// CHECK-NEXT: compiled amdgcn:gfx942: 15 variants in
// CHECK-NEXT: wrote {{.*}}: 1 kernel, 15 variants, 30 objects
