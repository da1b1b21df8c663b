// REQUIRES: rocm-bitcode
// layernorm adapts to the wavefront: its butterflies span a warp segment,
// `gpu.subgroup_size` (64 on gfx90a and gfx942, 32 on gfx1100) or the
// row's tpr threads when fewer. Three row widths on each target, from the
// GPU kernel alone (--variants numbers every kernel's table; the host
// kernel's is shorter): tpr = 32 (id 0), 64 (id 28) and 1024 (id 147);
// and tpr = 64 with two chunks in registers and gamma and beta batched
// (id 32) compiles too, as does tpr = 1024 asking for two blocks an SM
// (id 155: the `min_blocks` attribute is NVVM's, which AMDGPU ignores).
// RUN: awk '/^  func.func/{exit} {print} END{print "}"}' %S/../../kernels-mlir/layernorm.mlir > %t.mlir
// RUN: tuna-compile %t.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   --variants=0,28,32,147,155 -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefix=W64-ROW64 --input-file="%t/layernorm.tpr=64,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx90a.s"
// RUN: FileCheck %s --check-prefix=W64-ROW64-XOR --input-file="%t/layernorm.tpr=64,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx90a.s"
// RUN: FileCheck %s --check-prefix=ROW32 --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx90a.s"
// RUN: FileCheck %s --check-prefix=ROW32-XOR --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx90a.s"
// RUN: FileCheck %s --check-prefix=W64-ROW1024 --input-file="%t/layernorm.tpr=1024,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx90a.s"
// RUN: FileCheck %s --check-prefix=W64-ROW64 --input-file="%t/layernorm.tpr=64,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx942.s"
// RUN: FileCheck %s --check-prefix=W64-ROW64-XOR --input-file="%t/layernorm.tpr=64,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx942.s"
// RUN: FileCheck %s --check-prefix=ROW32 --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx942.s"
// RUN: FileCheck %s --check-prefix=ROW32-XOR --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx942.s"
// RUN: FileCheck %s --check-prefix=W64-ROW1024 --input-file="%t/layernorm.tpr=1024,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx942.s"
// RUN: FileCheck %s --check-prefix=W32-ROW64 --input-file="%t/layernorm.tpr=64,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx1100.s"
// RUN: FileCheck %s --check-prefix=ROW32 --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx1100.s"
// RUN: FileCheck %s --check-prefix=ROW32-XOR --input-file="%t/layernorm.tpr=32,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx1100.s"
// RUN: FileCheck %s --check-prefix=W32-ROW1024 --input-file="%t/layernorm.tpr=1024,rpb=1,vec=1,regs=0,gb=0,mb=1.gfx1100.s"
// CHECK: compiled amdgcn:gfx90a: 6 variants
// CHECK: compiled amdgcn:gfx942: 6 variants
// CHECK: compiled amdgcn:gfx1100: 6 variants

// Two shuffles per butterfly step (the sums of d and d * d).
// A row of 64 threads on wave64: one wavefront, six steps; the last one
// exchanges lane ^ 32 (byte address ^ 0x80) across the wavefront's halves;
// no workgroup memory.
// W64-ROW64-COUNT-12: ds_bpermute_b32
// W64-ROW64-NOT:      ds_bpermute_b32
// W64-ROW64-NOT:      s_barrier
// W64-ROW64:          .wavefront_size: 64
// W64-ROW64-XOR:      v_xor_b32_e32 {{v[0-9]+}}, 0x80,

// On wave32 the same row is two wavefronts: five steps each, then their
// results meet in workgroup memory and five more steps.
// W32-ROW64-COUNT-10: ds_bpermute_b32
// W32-ROW64:          s_barrier
// W32-ROW64-COUNT-10: ds_bpermute_b32
// W32-ROW64-NOT:      ds_bpermute_b32
// W32-ROW64:          .amdhsa_wavefront_size32 1
// W32-ROW64:          .wavefront_size: 32

// A row of 32 threads: five steps within 32 lanes on every target (two
// rows share a wave64); nothing crosses a 32-lane half.
// ROW32-COUNT-10: ds_bpermute_b32
// ROW32-NOT:      ds_bpermute_b32
// ROW32-NOT:      s_barrier
// ROW32-XOR-NOT:  v_xor_b32_e32 {{v[0-9]+}}, 0x80,

// A row of 1024 threads: a full-width butterfly (6 steps on wave64, 5 on
// wave32), the segments' results through workgroup memory, the same again.
// W64-ROW1024-COUNT-12: ds_bpermute_b32
// W64-ROW1024:          s_barrier
// W64-ROW1024-COUNT-12: ds_bpermute_b32
// W64-ROW1024-NOT:      ds_bpermute_b32
// W32-ROW1024-COUNT-10: ds_bpermute_b32
// W32-ROW1024:          s_barrier
// W32-ROW1024-COUNT-10: ds_bpermute_b32
// W32-ROW1024-NOT:      ds_bpermute_b32
