// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=nvptx:sm_90 --no-ptxas \
// RUN:   -o %t.tuna --emit-variants=%t.variants.mlir --emit-dir=%t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE --input-file=%t.err
// RUN: FileCheck %s --check-prefix=VARIANTS --input-file=%t.variants.mlir
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=VEC4 --input-file=%t/scale.block=256,vec=4.sm_90.ptx
// RUN: FileCheck %s --check-prefix=VEC2 --input-file=%t/scale.block=256,vec=2.sm_90.ptx
// RUN: FileCheck %s --check-prefix=VEC1 --input-file=%t/scale.block=256,vec=1.sm_90.ptx
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=nvptx:sm_90,host -j 1 \
// RUN:   --max-threads-per-block=256 --no-ptxas -o %t.both.tuna | FileCheck %s --check-prefix=BOTH

// The kernel library's scale: 5 x 3 GPU variants, 6 host variants.

// CHECK:      kernel scale: 15 variants, default {{scale__v[0-9]+}}
// CHECK-NEXT: {{scale__v[0-9]+}} block=64 vec=1    nvptx:sm_90: ptx {{[0-9]+}} B{{$}}
// CHECK-COUNT-13: nvptx:sm_90: ptx
// CHECK-NEXT: {{scale__v[0-9]+}} block=1024 vec=4  nvptx:sm_90: ptx {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled nvptx:sm_90: 15 variants in {{[0-9.]+}} s
// CHECK-NEXT: wrote {{.*}}.tuna: 1 kernel, 15 variants, 15 objects, {{[0-9]+}} B in {{[0-9.]+}} s

// NOTE: note: kernel 'scale_host' is a host kernel and no requested target compiles it: left out

// VARIANTS: gpu.module @scale__v0
// VARIANTS: tuna.dispatch @scale
// VARIANTS: tuna.dispatch @scale_host

// FILES:      scale.block=1024,vec=1.sm_90.ptx
// FILES-NEXT: scale.block=1024,vec=2.sm_90.ptx
// FILES-NOT:  cubin

// The body is written once with vector<[1]xf32> marked tuna.aligned: each
// width gets one access of its size, aligned to it (ld.global.v4 rather
// than four ld.global.b32 for vec = 4), and the scalar loop of the tail.
// VEC4:     ld.global.v4.b32
// VEC4-NOT: ld.global.v
// VEC4:     st.global.v4.b32
// VEC4-NOT: st.global.v
// VEC4:     ld.global.b32
// VEC4:     st.global.b32
// VEC2:     ld.global.v2.b32
// VEC2:     st.global.v2.b32
// VEC1-NOT: .v2
// VEC1-NOT: .v4

// --max-threads-per-block reaches tuna-expand: 3 x 3 GPU variants remain.
// BOTH:     kernel scale: 9 variants
// BOTH:     kernel scale_host: 6 variants, default {{scale_host__v[0-9]+}}
// BOTH:     {{scale_host__v[0-9]+}} chunk=256  host: elf-so
// BOTH:     compiled nvptx:sm_90: 9 variants in
// BOTH:     compiled host: 6 variants in
// BOTH:     wrote {{.*}}: 2 kernels, 15 variants, 10 objects
