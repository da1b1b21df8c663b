// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host -o %t.tuna \
// RUN:   --emit-dir=%t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE --input-file=%t.err
// RUN: llvm-nm -D --defined-only %t/softmax.host.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-nm -D --undefined-only %t/softmax.host.so | count 0
// RUN: tuna-opt %S/../../kernels-mlir/softmax.mlir --tuna-expand --tuna-unroll --canonicalize \
// RUN:   -o %t.unrolled.mlir
// The dispatch table, printed after the functions, names the variant of a
// configuration: it goes first, then the functions.
// RUN: grep "tuna.variant @softmax_host" %t.unrolled.mlir > %t.table
// RUN: cat %t.table %t.unrolled.mlir | FileCheck %s --check-prefix=UNROLLED
// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=nvptx:sm_90,host --no-ptxas \
// RUN:   -o %t.both.tuna | FileCheck %s --check-prefix=BOTH

// softmax_host: vec 4/8/16 x unroll 1/2/4 = 9 host variants in one shared
// library. exp is vector arithmetic: the library imports nothing (math.exp2
// would import exp2f and call it once per float).

// CHECK:      kernel softmax_host: 9 variants, default [[SOFTMAX_HOST_DEFAULT:softmax_host__v[0-9]+]]
// CHECK-NEXT: {{softmax_host__v[0-9]+}} vec=4 unroll=1   host: elf-so {{[0-9]+}} B{{$}}
// CHECK-COUNT-7: host: elf-so
// CHECK-NEXT: {{softmax_host__v[0-9]+}} vec=16 unroll=4  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled host: 9 variants in {{[0-9.]+}} s
// CHECK-NEXT: wrote {{.*}}.tuna: 1 kernel, 9 variants, 1 objects

// NOTE: note: kernel 'softmax' is a GPU kernel and no requested target compiles it: left out

// SYMBOLS-COUNT-9: T softmax_host__v{{[0-9]+}}__packed
// SYMBOLS-NOT: T

// vec=8 unroll=2: three passes (max, exp and sum, scale), each two 8-float
// vectors per step of 16, the rest 8 at a time, masked.
// UNROLLED:       tuna.variant @[[VARIANT:softmax_host__v[0-9]+]] config {unroll = 2 : i64, vec = 8 : i64}
// UNROLLED:       func.func @[[VARIANT]](
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED-COUNT-2:   arith.maximumf {{.*}} : vector<8xf32>
// UNROLLED:         scf.for {{.*}} step %c8 {
// UNROLLED:           vector.maskedload
// UNROLLED:         vector.reduction <maximumf>, {{.*}} : vector<8xf32> into f32
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED-COUNT-2:   arith.shli {{.*}} : vector<8xi32>
// UNROLLED:         scf.for {{.*}} step %c8 {
// UNROLLED:           arith.shli {{.*}} : vector<8xi32>
// UNROLLED:           vector.maskedstore
// UNROLLED:         vector.reduction <add>, {{.*}} : vector<8xf32> into f32
// UNROLLED:         arith.divf
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED-COUNT-2:   arith.mulf {{.*}} : vector<8xf32>
// UNROLLED:         scf.for {{.*}} step %c8 {
// UNROLLED:           vector.maskedstore
// UNROLLED-NOT:     scf.index_switch
// UNROLLED:         return

// The GPU variants are as without the host kernel.
// BOTH:     kernel softmax: 90 variants, default [[SOFTMAX_DEFAULT:softmax__v[0-9]+]]
// BOTH:     [[SOFTMAX_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 regs=0 {{ *}}nvptx:sm_90: ptx
// BOTH:     kernel softmax_host: 9 variants, default [[SOFTMAX_HOST_DEFAULT:softmax_host__v[0-9]+]]
// BOTH:     [[SOFTMAX_HOST_DEFAULT]] {{ *}}vec=8 unroll=2 {{ *}}host: elf-so
// BOTH:     compiled nvptx:sm_90: 90 variants in
// BOTH:     compiled host: 9 variants in
// BOTH:     wrote {{.*}}: 2 kernels, 99 variants, 91 objects
