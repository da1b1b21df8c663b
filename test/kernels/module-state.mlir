// A kernel with module state (Object::moduleState): with state = 1 one
// thread reads the module's global @counter, waits `wait` nanoseconds of
// the global timer, writes the count plus one back and into out[0]. Two
// such launches that overlap read the same count, so the counter loses
// increments: test/gpu/CudaModuleStateTest.cpp launches it on two streams
// and expects none lost (the CUDA backend orders the launches). With
// state = 0 the counter is not used and the object has no state; @step (a
// constant) and @scratch (shared memory) are not state either.

// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.tuna | FileCheck %s --check-prefix=SUMMARY
// RUN: grep -ao '"module_state": *[a-z]*' %t.tuna | FileCheck %s --check-prefix=STATE
// RUN: tuna-opt %s --tuna-expand --tuna-lower-nvptx=chip=sm_90 | FileCheck %s --check-prefix=LLVM

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @counter(0 : i32) {addr_space = 1 : i32} : i32
    llvm.mlir.global internal constant @step(1 : i32) {addr_space = 1 : i32} : i32
    llvm.mlir.global internal @scratch() {addr_space = 3 : i32} : i32

    gpu.func @count(%out: memref<?xi32>, %n: index, %wait: i64) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"state", [0, 1]>],
        defaults = {state = 1},
        key = [#tuna.key<arg = 1, bucket = exact>],
        grid = affine_map<(n)[state] -> (1)>,
        block = affine_map<(n)[state] -> (1)>
      >} {
      %state = tuna.param "state" : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %stepp = llvm.mlir.addressof @step : !llvm.ptr<1>
      %step = llvm.load %stepp : !llvm.ptr<1> -> i32
      %scratchp = llvm.mlir.addressof @scratch : !llvm.ptr<3>
      llvm.store %step, %scratchp : i32, !llvm.ptr<3>
      %on = arith.cmpi eq, %state, %c1 : index
      %result = scf.if %on -> (i32) {
        %counterp = llvm.mlir.addressof @counter : !llvm.ptr<1>
        %before = llvm.load volatile %counterp : !llvm.ptr<1> -> i32
        %start = nvvm.read.ptx.sreg.globaltimer : i64
        %deadline = arith.addi %start, %wait : i64
        scf.while : () -> () {
          %now = nvvm.read.ptx.sreg.globaltimer : i64
          %waiting = arith.cmpi ult, %now, %deadline : i64
          scf.condition(%waiting)
        } do {
          scf.yield
        }
        %after = arith.addi %before, %step : i32
        llvm.store volatile %after, %counterp : i32, !llvm.ptr<1>
        scf.yield %after : i32
      } else {
        %again = llvm.load %scratchp : !llvm.ptr<3> -> i32
        scf.yield %again : i32
      }
      memref.store %result, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// SUMMARY: kernel count: 2 variants, default [[DEFAULT:count__v[0-9]+]]

// Objects in variant order: state = 0, then state = 1.
// STATE:      "module_state": false
// STATE-NEXT: "module_state": true
// STATE-NOT:  "module_state"

// Lowered, only the state = 1 variant still takes @counter's address.
// LLVM-LABEL: gpu.module @count__v0
// LLVM-NOT:     llvm.mlir.addressof @counter
// LLVM:       gpu.module @count__v1
// LLVM:         llvm.mlir.addressof @counter
