// A kernel body written once for every vector width (the space's `vscale`
// parameter fixes every scalable vector type per variant), end to end:
// expanded, compiled for nvptx and the host (eagerly, and lazily through
// --variants, which instantiates planned variants), then tuned on the host
// with every variant's output checked.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t/gpu.tuna --emit-dir=%t/gpu 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gpu/twice.block=128,vec=4.sm_90.ptx
// RUN: tuna-compile %s --target=host -o %t/host.tuna 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: tuna-tune %t/host.tuna --shape d0=4099 --check --no-cache | FileCheck %s --check-prefix=TUNE
// RUN: tuna-compile %s --target=host --variants=2 -o %t/lazy.tuna --emit-variants=%t/lazy.mlir | FileCheck %s --check-prefix=LAZY
// RUN: FileCheck %s --check-prefix=LAZY-IR --input-file=%t/lazy.mlir

// On the GPU, 2 x 3 variants: each thread doubles `vec` contiguous floats with one
// vector<{vec}xf32> access when they are all in range. Without an
// `alignment` (a constant, which cannot follow vec) NVPTX splits the vector
// into 4-byte accesses: vec = 4 reads the 4 floats at +0, +4, +8, +12.
// GPU:      kernel twice: 6 variants
// GPU:      twice__v2 {{ *}}block=128 vec=4 {{ *}}nvptx:sm_90: ptx
// GPU:      compiled nvptx:sm_90: 6 variants
// PTX:      .entry twice__v2(
// PTX-DAG:  ld.global.b32 {{.*}}+12];
// PTX-DAG:  ld.global.b32 {{.*}}+8];
// PTX-DAG:  ld.global.b32 {{.*}}+4];
// PTX-DAG:  st.global.b32 {{.*}}+12],

// HOST:      kernel twice_host: 3 variants
// HOST:      twice_host__v2 {{ *}}vec=16 {{ *}}host: elf-so
// HOST:      compiled host: 3 variants

// TUNE:      twice_host [d0=4099]: tuned
// TUNE:      check: 3 checked against the output 3 of 3 variants agree on (the default's), compared on the host in {{[0-9.]+}} ms; 0 rejected

// LAZY:      kernel twice_host: 3 variants (2 compiled)
// LAZY-IR:     func.func @twice_host__v0(
// LAZY-IR:       vector.maskedload {{.*}} into vector<4xf32>
// LAZY-IR:     func.func @twice_host__v2(
// LAZY-IR:       vector.maskedload {{.*}} into vector<16xf32>
// LAZY-IR-NOT: vector<[

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @twice(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 256]>, #tuna.param<"vec", [1, 2, 4]>],
        defaults = {block = 128, vec = 1},
        key = [#tuna.key<arg = 2, bucket = pow2>],
        grid = affine_map<(n)[block, vec] -> (n ceildiv (block * vec))>,
        block = affine_map<(n)[block, vec] -> (block)>,
        vscale = "vec"
      >} {
      %block = tuna.param "block" : index
      %vec = vector.vscale
      %c1 = arith.constant 1 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %first = arith.muli %bid, %block : index
      %thread = arith.addi %first, %tid : index
      %i = arith.muli %thread, %vec : index
      %end = arith.addi %i, %vec : index
      %in_range = arith.cmpi ule, %end, %n : index
      scf.if %in_range {
        %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
        %d = arith.addf %v, %v : vector<[1]xf32>
        vector.store %d, %y[%i] : memref<?xf32>, vector<[1]xf32>
      } else {
        %stop = arith.minui %end, %n : index
        scf.for %k = %i to %stop step %c1 {
          %v = memref.load %x[%k] : memref<?xf32>
          %d = arith.addf %v, %v : f32
          memref.store %d, %y[%k] : memref<?xf32>
        }
      }
      gpu.return
    }
  }

  // Host: `vec` floats at a time, the last chunk through a masked load.
  func.func @twice_host(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {
    tuna.space = #tuna.space<
      params = [#tuna.param<"vec", [4, 8, 16]>],
      defaults = {vec = 4},
      key = [#tuna.key<arg = 2, bucket = pow2>],
      vscale = "vec"
    >} {
    %c0 = arith.constant 0 : index
    %vec = vector.vscale
    %zero = arith.constant dense<0.0> : vector<[1]xf32>
    scf.for %i = %c0 to %n step %vec {
      %left = arith.subi %n, %i : index
      %mask = vector.create_mask %left : vector<[1]xi1>
      %v = vector.maskedload %x[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
      %d = arith.addf %v, %v : vector<[1]xf32>
      vector.maskedstore %y[%i], %mask, %d : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32>
    }
    return
  }
}
