// RUN: tuna-compile %s --target=host -o %t.generic.tuna
// RUN: tuna-compile %s --target=host --host-cpu=x86-64-v3 -o %t.v3.tuna
// RUN: tuna-compile %s --target=host --host-cpu=x86-64-v3 -o %t.v3again.tuna
// RUN: grep -ao '"sourceHash": "[0-9a-f]*"' %t.generic.tuna > %t.generic
// RUN: grep -ao '"sourceHash": "[0-9a-f]*"' %t.v3.tuna > %t.v3
// RUN: grep -ao '"sourceHash": "[0-9a-f]*"' %t.v3again.tuna > %t.v3again
// RUN: FileCheck %s --input-file=%t.generic
// RUN: not diff %t.generic %t.v3
// RUN: diff %t.v3 %t.v3again

// Host code compiled for a given CPU is another kernel to the tuning cache
// (its key holds the source hash): the same source for generic x86-64 and
// for x86-64-v3 gets two hashes, the same CPU twice the same one.

func.func @twice(%x: memref<?xf32>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 4]>],
    defaults = {step = 1},
    key = [#tuna.key<arg = 1>]
  >} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<?xf32>
  }
  return
}

// CHECK: "sourceHash": "{{[0-9a-f]+}}"
