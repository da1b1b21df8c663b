// REQUIRES: ptxas
// RUN: tuna-compile %s --target=nvptx:sm_90 --ptxas=%ptxas -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: od -A n -t x1 -N 4 %t/stage.block=128.sm_90.cubin | FileCheck %s --check-prefix=ELF
// RUN: not tuna-compile %s --target=nvptx:sm_90 --ptxas=%t/missing-ptxas -o %t.bad.tuna 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPTXAS

// ptxas turns each variant's PTX into a cubin; its resource report (registers,
// shared memory, stack frame, spills) lands in the manifest and the summary.
// The variants are in the summary in order, with the cubin first.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @stage(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 256]>],
        defaults = {block = 128},
        grid = affine_map<()[block] -> (1)>,
        block = affine_map<()[block] -> (block)>
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%tid] : memref<?xf32>
      gpu.return
    }
  }
}

// CHECK:      kernel stage: 2 variants, default [[DEFAULT:stage__v[0-9]+]]
// CHECK-NEXT: [[DEFAULT]] block=128  nvptx:sm_90: cubin {{[0-9]+}} B ptx {{[0-9]+}} B regs {{[1-9][0-9]*}} spill 0 B
// CHECK-NEXT: {{stage__v[0-9]+}} block=256  nvptx:sm_90: cubin {{[0-9]+}} B ptx {{[0-9]+}} B regs {{[1-9][0-9]*}} spill 0 B
// CHECK-NEXT: compiled nvptx:sm_90: 2 variants in
// CHECK-NEXT: wrote {{.*}}: 1 kernel, 2 variants, 4 objects

// ELF: 7f 45 4c 46

// NOPTXAS: error: ptxas '{{.*}}missing-ptxas' does not exist or is not executable
