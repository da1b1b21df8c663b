// RUN: tuna-compile %S/../../kernels-mlir/layernorm.mlir --target=host -o %t.tuna \
// RUN:   --emit-dir=%t 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE --input-file=%t.err
// RUN: llvm-nm -D --defined-only %t/layernorm.host.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-nm -D --undefined-only %t/layernorm.host.so | count 0
// RUN: tuna-opt %S/../../kernels-mlir/layernorm.mlir --tuna-expand --tuna-unroll --canonicalize \
// RUN:   -o %t.unrolled.mlir
// The dispatch table, printed after the functions, names the variant of a
// configuration: it goes first, then the functions.
// RUN: grep "tuna.variant @layernorm_host" %t.unrolled.mlir > %t.table
// RUN: cat %t.table %t.unrolled.mlir | FileCheck %s --check-prefix=UNROLLED
// RUN: tuna-compile %S/../../kernels-mlir/layernorm.mlir --target=nvptx:sm_90,host --no-ptxas \
// RUN:   -o %t.both.tuna | FileCheck %s --check-prefix=BOTH

// layernorm_host: vec 4/8/16 x unroll 1/2/4 = 9 host variants in one shared
// library that imports nothing.

// CHECK:      kernel layernorm_host: 9 variants, default [[LAYERNORM_HOST_DEFAULT:layernorm_host__v[0-9]+]]
// CHECK-NEXT: {{layernorm_host__v[0-9]+}} vec=4 unroll=1   host: elf-so {{[0-9]+}} B{{$}}
// CHECK-COUNT-7: host: elf-so
// CHECK-NEXT: {{layernorm_host__v[0-9]+}} vec=16 unroll=4  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled host: 9 variants in {{[0-9.]+}} s
// CHECK-NEXT: wrote {{.*}}.tuna: 1 kernel, 9 variants, 1 objects

// NOTE: note: kernel 'layernorm' is a GPU kernel and no requested target compiles it: left out

// SYMBOLS-COUNT-9: T layernorm_host__v{{[0-9]+}}__packed
// SYMBOLS-NOT: T

// vec=16 unroll=4: pass 1 keeps four pairs of 16-float sums (d and d * d,
// mul and add free to fuse), pass 2 writes four vectors a step; the rest
// 16 at a time, masked.
// UNROLLED:       tuna.variant @[[VARIANT:layernorm_host__v[0-9]+]] config {unroll = 4 : i64, vec = 16 : i64}
// UNROLLED:       func.func @[[VARIANT]](
// UNROLLED:         scf.for {{.*}} step %c64 {
// UNROLLED-COUNT-4:   arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED:           vector.maskedload
// UNROLLED-COUNT-2: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// UNROLLED:         math.rsqrt
// UNROLLED:         scf.for {{.*}} step %c64 {
// UNROLLED-COUNT-4:   vector.store {{.*}} vector<16xf32>
// UNROLLED:         scf.for {{.*}} step %c16 {
// UNROLLED-COUNT-3:   vector.maskedload
// UNROLLED:           vector.maskedstore
// UNROLLED-NOT:     scf.index_switch
// UNROLLED:         return

// The GPU variants are as without the host kernel.
// BOTH:     kernel layernorm: 158 variants, default [[LAYERNORM_DEFAULT:layernorm__v[0-9]+]]
// BOTH:     [[LAYERNORM_DEFAULT]] {{ *}}tpr=128 rpb=1 vec=1 regs=0 gb=0 mb=1 {{ *}}nvptx:sm_90: ptx
// BOTH:     kernel layernorm_host: 9 variants, default [[LAYERNORM_HOST_DEFAULT:layernorm_host__v[0-9]+]]
// BOTH:     [[LAYERNORM_HOST_DEFAULT]] {{ *}}vec=8 unroll=2 {{ *}}host: elf-so
// BOTH:     compiled nvptx:sm_90: 158 variants in
// BOTH:     compiled host: 9 variants in
// BOTH:     wrote {{.*}}: 2 kernels, 167 variants, 159 objects
