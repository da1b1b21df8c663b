// A family tuned end to end on the host: tuna-compile writes its table
// beside its kernels' own, and one tuning of the family times every
// variant of both kernels and picks among them. `slow` sums each element
// 64 times over, so a variant of `fast` wins.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %s --target=host -o %t/family.tuna | FileCheck %s --check-prefix=COMPILE
// RUN: tuna-tune %t/family.tuna --kernel scale_any --shape d0=65536 --arg a2=2.0 --check --no-cache | FileCheck %s
// RUN: tuna-tune %t/family.tuna --kernel slow --shape d0=65536 --arg a2=2.0 --no-cache | FileCheck %s --check-prefix=ALONE

// COMPILE:      kernel scale_any: 3 variants, default slow__v0
// COMPILE-NEXT:   slow__v0  kernel=0 unroll=1  host: elf-so
// COMPILE-NEXT:   slow__v1  kernel=0 unroll=2  host: elf-so
// COMPILE-NEXT:   fast__v0  kernel=1 unroll=1  host: elf-so
// COMPILE:      compiled host: 3 variants
// COMPILE-NEXT: wrote {{.*}}family.tuna: 3 kernels, 6 variants, 1 objects

// CHECK:      [1/1] scale_any [d0=65536]: tuned bucket [d0=65536]: fast__v0 (kernel=1, unroll=1) {{.*}} faster than the default slow__v0
// CHECK-NEXT:   check: 3 checked against the output 3 of 3 variants agree on (the default's), {{.*}}; 0 rejected

// ALONE: [1/1] slow [d0=65536]: tuned bucket [d0=65536]: slow__v{{[01]}} (unroll={{[12]}})

func.func @slow(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"unroll", [1, 2]>], defaults = {unroll = 1},
    key = [#tuna.key<arg = 3>]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %sixtyfourth = arith.constant 0.015625 : f32
  %unroll = tuna.param "unroll" : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %sum = scf.for %r = %c0 to %c64 step %unroll iter_args(%s = %zero) -> f32 {
      %p = arith.mulf %a, %v : f32
      %t = arith.addf %s, %p : f32
      scf.yield %t : f32
    }
    %u = arith.constant 1.0 : f32
    %mean0 = arith.mulf %sum, %sixtyfourth : f32
    %scale = arith.index_cast %unroll : index to i32
    %scalef = arith.sitofp %scale : i32 to f32
    %mean = arith.mulf %mean0, %scalef : f32
    memref.store %mean, %y[%i] : memref<?xf32>
  }
  return
}

func.func @fast(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"unroll", [1]>], defaults = {unroll = 1},
    key = [#tuna.key<arg = 3>]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %p = arith.mulf %a, %v : f32
    memref.store %p, %y[%i] : memref<?xf32>
  }
  return
}

tuna.family @scale_any kernels ["slow", "fast"]
