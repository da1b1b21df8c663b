// RUN: tuna-compile %s --target=host -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: llvm-nm -D %t/host.host.so | FileCheck %s --check-prefix=SYMBOLS

// Host variants: one shared library, one exported `<variant>__packed(void **)`
// entry per variant; libm calls (f64 math: f32 math is approximated,
// host-math.mlir) stay undefined for dlopen.

func.func @softplus(%x: memref<?xf64>, %y: memref<?xf64>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 4]>],
    defaults = {step = 1},
    key = [#tuna.key<arg = 0, dim = 0, bucket = bins, bins = [1024, 65536]>]
  >} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f64
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %x[%i] : memref<?xf64>
    %e = math.exp %v : f64
    %p = arith.addf %e, %one : f64
    %l = math.log %p : f64
    memref.store %l, %y[%i] : memref<?xf64>
  }
  return
}

// CHECK:      kernel softplus: 2 variants, default [[DEFAULT:softplus__v[0-9]+]]
// CHECK-NEXT: [[DEFAULT]] step=1  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: {{softplus__v[0-9]+}} step=4  host: elf-so {{[0-9]+}} B{{$}}
// CHECK-NEXT: compiled host: 2 variants in

// SYMBOLS-DAG: U exp{{$}}
// SYMBOLS-DAG: U log{{$}}
// SYMBOLS-DAG: T softplus__v0__packed
// SYMBOLS-DAG: T softplus__v1__packed
// SYMBOLS-NOT: T softplus__v0{{$}}
