// REQUIRES: rocm-bitcode
// RUN: tuna-compile %s --target=amdgcn:gfx942 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=ASM --input-file=%t/scale.block=64.gfx942.s
// RUN: od -A n -t x1 -N 4 %t/scale.block=64.gfx942.hsaco | FileCheck %s --check-prefix=ELF
// RUN: not tuna-compile %s --target=amdgcn:gfx942 --rocm-bitcode=%t/none -o %t.bad.tuna 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOBITCODE

// ROCDL to AMDGCN assembly, assembled and linked into an HSA code object with
// ld.lld; registers come from the code object's metadata.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 256]>],
        defaults = {block = 256},
        key = [#tuna.key<arg = 3>],
        grid = affine_map<(n)[block] -> (n ceildiv block)>,
        block = affine_map<(n)[block] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %block : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %v, %s : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// CHECK:      kernel scale: 2 variants, default [[DEFAULT:scale__v[0-9]+]]
// CHECK-NEXT: {{scale__v[0-9]+}} block=64   amdgcn:gfx942: hsaco {{[0-9]+}} B amdgcn-asm {{[0-9]+}} B regs {{[0-9]+}} spill 0 B
// CHECK-NEXT: [[DEFAULT]] block=256  amdgcn:gfx942: hsaco {{[0-9]+}} B amdgcn-asm {{[0-9]+}} B regs {{[0-9]+}} spill 0 B
// CHECK-NEXT: compiled amdgcn:gfx942: 2 variants in

// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ASM: {{^}}scale__v{{[0-9]+}}:
// ASM: s_endpgm

// ELF: 7f 45 4c 46

// NOBITCODE: error: ROCm device bitcode (ockl.bc, ocml.bc, ...) not found in '{{.*}}none': install rocm-device-libs, or pass --rocm-bitcode=DIR
