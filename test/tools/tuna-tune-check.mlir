// tuna-tune --check on a kernel whose default variant is broken (it writes
// nothing): the check used to take the default's output as the reference,
// reject every correct variant, pick the broken default and exit 0. Now the
// variants that agree outvote it, and tuna-tune says so and fails.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %s --target=host -o %t/broken.tuna > /dev/null 2>&1
// RUN: not tuna-tune %t/broken.tuna --kernel copy_host --shape d0=4096 --check --no-cache 2>&1 | FileCheck %s
// CHECK:      [1/1] copy_host [d0=4096]: tuned bucket [d0=4096]: copy_host__v{{[12]}} (chunk={{4|16}})
// CHECK-NEXT:   check: 3 checked against the output 2 of 3 variants agree on, compared on the host in {{[0-9.]+}} ms; 1 rejected
// CHECK-NEXT:     rejected copy_host__v0 (chunk=1, the default): differs from the output 2 of 3 variants agree on: argument 1: {{[0-9]+}} of 4096 elements differ; worst element {{[0-9]+}}: got {{.*}}x the tolerance)
// CHECK-NEXT:   error: the default variant 'copy_host__v0' gives a wrong result; fix it or make another variant the default
// CHECK:      copy_host: default config chunk={{4|16}} wins 1 of 1 tuned shapes

// Against another bundle's kernel: scale_host of kernels-mlir/scale.mlir
// (with s = 1, a copy).
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: not tuna-tune %t/broken.tuna --kernel copy_host --shape d0=4096 --reference %t/scale.tuna:scale_host --no-cache 2>&1 | FileCheck %s --check-prefix=REF
// REF:      check: 3 checked against the reference kernel 'scale_host' of {{.*}}scale.tuna, compared on the host in {{[0-9.]+}} ms; 1 rejected
// REF-NEXT:   rejected copy_host__v0 (chunk=1, the default): differs from the reference kernel 'scale_host'
// RUN: not tuna-tune %t/broken.tuna --kernel copy_host --shape d0=4096 --reference %t/scale.tuna --no-cache 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: tuna-tune: error: {{.*}}copy_host

// Two variants, the default broken: a tie. The check cannot tell which is
// right; it keeps the default's output, and says loudly that the rejected
// variant may be the correct one.
// RUN: tuna-tune %t/broken.tuna --kernel pair_host --shape d0=4096 --check --no-cache 2>&1 | FileCheck %s --check-prefix=TIE
// TIE:      check: 2 checked against the default's output (no majority among 2 variants), compared on the host in {{[0-9.]+}} ms; 1 rejected
// TIE-NEXT:   rejected pair_host__v1 (chunk=4): differs from the default's output (no majority among 2 variants): argument 1:
// TIE-NEXT:   warning: no majority of the variants agree: the check kept the default's output and rejected those that differ, which may be the correct ones; check against a known-good kernel with --reference

// A correct kernel: every variant agrees with the default; exit 0.
// RUN: tuna-tune %t/scale.tuna --shape d0=4096 --check --no-cache | FileCheck %s --check-prefix=GOOD
// GOOD: check: 6 checked against the output 6 of 6 variants agree on (the default's), compared on the host in {{[0-9.]+}} ms; 0 rejected

module {
  // y = x, in chunks of `chunk` elements; the default (chunk = 1) is broken:
  // it writes nothing.
  func.func @copy_host(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4, 16]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 3, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %works = arith.cmpi ne, %chunk, %c1 : index
    scf.if %works {
      %rem = arith.remui %n, %chunk : index
      %main = arith.subi %n, %rem : index
      scf.for %i = %c0 to %main step %chunk {
        scf.for %j = %c0 to %chunk step %c1 {
          %k = arith.addi %i, %j : index
          %v = memref.load %x[%k] : memref<?xf32>
          %r = arith.mulf %v, %s : f32
          memref.store %r, %y[%k] : memref<?xf32>
        }
      }
      scf.for %k = %main to %n step %c1 {
        %v = memref.load %x[%k] : memref<?xf32>
        %r = arith.mulf %v, %s : f32
        memref.store %r, %y[%k] : memref<?xf32>
      }
    }
    return
  }

  // y = x with chunk = 4; the default (chunk = 1) writes nothing.
  func.func @pair_host(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 2, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %works = arith.cmpi ne, %chunk, %c1 : index
    scf.if %works {
      scf.for %k = %c0 to %n step %c1 {
        %v = memref.load %x[%k] : memref<?xf32>
        memref.store %v, %y[%k] : memref<?xf32>
      }
    }
    return
  }
}
