// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir --target=host -o %t.tuna \
// RUN:   --emit-dir=%t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE --input-file=%t.err
// RUN: llvm-nm -D --defined-only %t/reduce.host.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-nm -D --undefined-only %t/reduce.host.so | count 0
// RUN: tuna-opt %S/../../kernels-mlir/reduce.mlir --tuna-expand --tuna-unroll --canonicalize \
// RUN:   | FileCheck %s --check-prefix=UNROLLED
// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir --target=nvptx:sm_90,host --no-ptxas \
// RUN:   -o %t.both.tuna | FileCheck %s --check-prefix=BOTH

// row_sum_host: vec 4/8/16 x unroll 1/2/4 = 9 host variants in one shared
// library that imports nothing; the GPU kernel is left out with a note.

// CHECK:      kernel row_sum_host: 9 variants, default row_sum_host__v4
// CHECK-NEXT:   row_sum_host__v0  vec=4 unroll=1   host: elf-so {{[0-9]+}} B{{$}}
// CHECK-COUNT-7: host: elf-so
// CHECK-NEXT:   row_sum_host__v8  vec=16 unroll=4  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled host: 9 variants in {{[0-9.]+}} s
// CHECK-NEXT: wrote {{.*}}.tuna: 1 kernel, 9 variants, 1 objects

// NOTE: note: kernel 'row_sum' is a GPU kernel and no requested target compiles it: left out

// SYMBOLS-COUNT-9: T row_sum_host__v{{[0-8]}}__packed
// SYMBOLS-NOT: T

// vec=16 unroll=4: four 16-float loads into four accumulators per step of
// 64, every index into them a constant; the rest 16 at a time, masked.
// UNROLLED-LABEL: func.func @row_sum_host__v8(
// UNROLLED:         memref.alloca() : memref<4xvector<16xf32>>
// UNROLLED:         scf.for {{.*}} step %c64 {
// UNROLLED-COUNT-4:   vector.load {{.*}} vector<16xf32>
// UNROLLED-NOT:       vector.load
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED:           vector.create_mask {{.*}} : vector<16xi1>
// UNROLLED:           vector.maskedload
// UNROLLED:         vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// UNROLLED-NOT:     scf.index_switch
// UNROLLED:         return

// The GPU variants are as without the host kernel.
// BOTH:     kernel row_sum: 36 variants, default row_sum__v16
// BOTH:     kernel row_sum_host: 9 variants, default row_sum_host__v4
// BOTH:     compiled nvptx:sm_90: 36 variants in
// BOTH:     compiled host: 9 variants in
// BOTH:     wrote {{.*}}: 2 kernels, 45 variants, 37 objects
