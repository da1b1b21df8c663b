// A host variant that crashes (here one that reads far outside its buffer,
// as a kernel given too small a buffer would) is caught: tuna-tune times
// the candidates in a tuna-worker process, records the crash as that
// candidate's failure, says so, and picks among the others. When every
// variant crashes, tuna-tune says why and exits 1: never a bare exit 139.
// The worker dies of SIGSEGV (11), or of SIGABRT (6) when built with ASan,
// which catches the fault and aborts (scripts/sanitize.sh).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %s --target=host -o %t/crash.tuna > /dev/null 2>&1
// RUN: tuna-tune %t/crash.tuna --kernel copy_host --shape d0=4096 --check --no-cache 2>&1 | FileCheck %s
// CHECK:      [1/1] copy_host [d0=4096]: tuned bucket [d0=4096]: copy_host__v{{[01]}} (chunk={{1|4}})
// CHECK:        failed: copy_host__v2 (chunk=16): {{.*}}signal {{(11|6) }}
// CHECK:      copy_host: default config

// (`not` fails on a crash: the exit status is 1, not a signal.)
// RUN: not tuna-tune %t/crash.tuna --kernel crash_host --shape d0=4096 --no-cache > %t/all.out 2>&1
// RUN: FileCheck %s --check-prefix=ALL < %t/all.out
// ALL: [1/1] crash_host [d0=4096]: error: {{.*}}every candidate failed:
// ALL: crash_host__v0, crash_host__v1: {{.*}}signal {{(11|6) }}

// In tuna-tune's own process (--no-isolate) the crash ends tuna-tune, as it
// must, but with a word on what happened and how to have it caught.
// RUN: not --crash tuna-tune %t/crash.tuna --kernel crash_host --shape d0=4096 --no-isolate --no-cache 2>&1 | FileCheck %s --check-prefix=INPROCESS
// INPROCESS: tuna-tune: error: a fatal signal (a crash) in this process, most likely a kernel variant run here that reads or writes past its buffers (--dims gives their sizes); without --no-isolate

module {
  // y = x; the variant with chunk = 16 reads 2^60 elements past x (a
  // non-canonical address: a segmentation fault).
  func.func @copy_host(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4, 16]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 2, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %far = arith.constant 1152921504606846976 : index
    %crash = arith.cmpi eq, %chunk, %c16 : index
    %off = arith.select %crash, %far, %c0 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.addi %i, %off : index
      %v = memref.load %x[%k] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
    }
    return
  }

  // Every variant reads 2^60 elements past x.
  func.func @crash_host(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"chunk", [1, 4]>],
      defaults = {chunk = 1},
      key = [#tuna.key<arg = 2, bucket = pow2>]
    >} {
    %chunk = tuna.param "chunk" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %far = arith.constant 1152921504606846976 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.addi %i, %far : index
      %k2 = arith.addi %k, %chunk : index
      %v = memref.load %x[%k2] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
    }
    return
  }
}
