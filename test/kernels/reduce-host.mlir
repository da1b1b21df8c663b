// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir --target=host -o %t.tuna \
// RUN:   --emit-dir=%t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE --input-file=%t.err
// RUN: llvm-nm -D --defined-only %t/reduce.host.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-nm -D --undefined-only %t/reduce.host.so | count 0
// RUN: tuna-opt %S/../../kernels-mlir/reduce.mlir --tuna-expand --tuna-unroll --canonicalize \
// RUN:   -o %t.unrolled.mlir
// The dispatch table, printed after the functions, names the variant of a
// configuration: it goes first, then the functions.
// RUN: grep "tuna.variant @row_sum_host" %t.unrolled.mlir > %t.table
// RUN: cat %t.table %t.unrolled.mlir | FileCheck %s --check-prefix=UNROLLED
// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir --target=nvptx:sm_90,host --no-ptxas \
// RUN:   -o %t.both.tuna | FileCheck %s --check-prefix=BOTH

// row_sum_host: vec 4/8/16 x unroll 1/2/4 = 9 host variants in one shared
// library that imports nothing; the GPU kernel is left out with a note.

// CHECK:      kernel row_sum_host: 9 variants, default [[ROW_SUM_HOST_DEFAULT:row_sum_host__v[0-9]+]]
// CHECK-NEXT: {{row_sum_host__v[0-9]+}} vec=4 unroll=1   host: elf-so {{[0-9]+}} B{{$}}
// CHECK-COUNT-7: host: elf-so
// CHECK-NEXT: {{row_sum_host__v[0-9]+}} vec=16 unroll=4  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled host: 9 variants in {{[0-9.]+}} s
// CHECK-NEXT: wrote {{.*}}.tuna: 1 kernel, 9 variants, 1 objects

// NOTE: note: kernel 'row_sum' is a GPU kernel and no requested target compiles it: left out

// SYMBOLS-COUNT-9: T row_sum_host__v{{[0-9]+}}__packed
// SYMBOLS-NOT: T

// vec=16 unroll=4: four 16-float loads into four accumulators per step of
// 64, every index into them a constant; the rest 16 at a time, masked.
// UNROLLED:       tuna.variant @[[VARIANT:row_sum_host__v[0-9]+]] config {unroll = 4 : i64, vec = 16 : i64}
// UNROLLED:       func.func @[[VARIANT]](
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
// BOTH:     kernel row_sum: 36 variants, default [[ROW_SUM_DEFAULT:row_sum__v[0-9]+]]
// BOTH:     [[ROW_SUM_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 {{ *}}nvptx:sm_90: ptx
// BOTH:     kernel row_sum_host: 9 variants, default [[ROW_SUM_HOST_DEFAULT:row_sum_host__v[0-9]+]]
// BOTH:     [[ROW_SUM_HOST_DEFAULT]] {{ *}}vec=8 unroll=2 {{ *}}host: elf-so
// BOTH:     compiled nvptx:sm_90: 36 variants in
// BOTH:     compiled host: 9 variants in
// BOTH:     wrote {{.*}}: 2 kernels, 45 variants, 37 objects
