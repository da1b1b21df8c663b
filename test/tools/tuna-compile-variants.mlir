// tuna-compile --variants: every configuration of a 10,000-configuration
// space is planned and listed in the bundle; only the listed variants and
// the default are instantiated and compiled. The runtime sees the others as
// not compiled.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../Transforms/Inputs/large-space-host.mlir --target=host --variants=0,7-9 -o %t/large.tuna --emit-variants=%t/large.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t/large.mlir
// RUN: env TUNA_CACHE_DIR=%t/cache tuna-tune %t/large.tuna --shape d0=4096 --no-cache | FileCheck %s --check-prefix=TUNE

// CHECK:      kernel large: 10000 variants (5 compiled), default large__v255
// CHECK-NEXT:   large__v0    a=0 b=0 c=0 d=1    host: elf-so
// CHECK-NEXT:   large__v7    a=0 b=0 c=0 d=8    host: elf-so
// CHECK-NEXT:   large__v8    a=0 b=0 c=0 d=9    host: elf-so
// CHECK-NEXT:   large__v9    a=0 b=0 c=0 d=10   host: elf-so
// CHECK-NEXT:   large__v255  a=0 b=2 c=5 d=6    host: elf-so
// CHECK-NEXT: compiled host: 5 variants in
// CHECK-NEXT: wrote {{.*}}large.tuna: 1 kernel, 10000 variants, 1 objects,

// IR-COUNT-5: func.func @large__v
// IR-NOT:     func.func @large
// IR:         tuna.dispatch @large
// IR-NOT:     tuna.planned_kernel

// TUNE: [1/1] large [d0=4096]: tuned bucket [d0=4096]: large__v{{0|7|8|9|255}} (

// Bad input: an id past the table, and an item that is no id.
// RUN: not tuna-compile %S/../Transforms/Inputs/large-space-host.mlir --target=host --variants=3,10000 -o %t/bad.tuna 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: error: --variants: kernel 'large' has 10000 planned variants (ids 0-9999); there is no variant 10000
// RUN: not tuna-compile %S/../Transforms/Inputs/large-space-host.mlir --target=host --variants=5-2 -o %t/bad.tuna 2>&1 | FileCheck %s --check-prefix=ITEM
// ITEM: tuna-compile: error: --variants: '5-2' is not a variant id or a range N-M of them, for every kernel or as KERNEL:ID
// RUN: not ls %t/bad.tuna

// KERNEL:ID lists ids of one kernel; the module's other kernels compile
// only their default. A kernel the module lacks is an error naming those it
// has.
// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host --variants=softmax_host:1-2 -o %t/one.tuna 2>&1 | FileCheck %s --check-prefix=ONE
// ONE:      kernel softmax_host: 9 variants (3 compiled), default softmax_host__v4
// ONE-NEXT:   softmax_host__v1
// ONE-NEXT:   softmax_host__v2
// ONE-NEXT:   softmax_host__v4
// ONE-NEXT: compiled host: 3 variants
// RUN: not tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host --variants=nope:1 -o %t/bad.tuna 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: tuna-compile: error: --variants: no kernel 'nope' (the kernels: softmax, softmax_host)
// RUN: not tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host --variants=softmax:100 -o %t/bad.tuna 2>&1 | FileCheck %s --check-prefix=PASTONE
// PASTONE: error: --variants: kernel 'softmax' has 90 planned variants (ids 0-89); there is no variant 100
// RUN: not tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host --variants=:1 -o %t/bad.tuna 2>&1 | FileCheck %s --check-prefix=NONAME
// NONAME: tuna-compile: error: --variants: ':1' is not a variant id or a range N-M of them, for every kernel or as KERNEL:ID
