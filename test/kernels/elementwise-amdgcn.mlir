// REQUIRES: rocm-bitcode
// The kernels that assume no warp size (scale, axpy, color_normalize,
// transpose) compile for gfx90a and gfx942 (wave64) and gfx1100 (wave32):
// every variant of the first three, the default, the smallest and the
// widest of transpose. Per target, the widest variant keeps its 16-byte
// accesses, spills nothing, and its code object states the target's
// wavefront size (reduce-amdgcn.mlir, softmax-amdgcn.mlir and
// layernorm-amdgcn.mlir check the kernels whose butterflies adapt to it).
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   -o %t.scale.tuna --emit-dir=%t | FileCheck %s --check-prefix=SCALE
// RUN: tuna-compile %S/../../kernels-mlir/axpy.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   -o %t.axpy.tuna --emit-dir=%t | FileCheck %s --check-prefix=AXPY
// RUN: tuna-compile %S/../../kernels-mlir/color_normalize.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   -o %t.color.tuna --emit-dir=%t | FileCheck %s --check-prefix=COLOR
// RUN: tuna-compile %S/../../kernels-mlir/transpose.mlir --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   --variants=0,41 -o %t.transpose.tuna --emit-dir=%t | FileCheck %s --check-prefix=TRANSPOSE
// RUN: FileCheck %s --check-prefixes=SCALE-S,W64 --input-file="%t/scale.block=1024,vec=4.gfx90a.s"
// RUN: FileCheck %s --check-prefixes=SCALE-S,W64 --input-file="%t/scale.block=1024,vec=4.gfx942.s"
// RUN: FileCheck %s --check-prefixes=SCALE-S,W32 --input-file="%t/scale.block=1024,vec=4.gfx1100.s"
// RUN: FileCheck %s --check-prefixes=AXPY-S,W64 --input-file="%t/axpy.block=1024,vec=4.gfx90a.s"
// RUN: FileCheck %s --check-prefixes=AXPY-S,W64 --input-file="%t/axpy.block=1024,vec=4.gfx942.s"
// RUN: FileCheck %s --check-prefixes=AXPY-S,W32 --input-file="%t/axpy.block=1024,vec=4.gfx1100.s"
// RUN: FileCheck %s --check-prefixes=COLOR-S,W64 --input-file="%t/color_normalize.block=1024,vec=4.gfx90a.s"
// RUN: FileCheck %s --check-prefixes=COLOR-S,W64 --input-file="%t/color_normalize.block=1024,vec=4.gfx942.s"
// RUN: FileCheck %s --check-prefixes=COLOR-S,W32 --input-file="%t/color_normalize.block=1024,vec=4.gfx1100.s"
// RUN: FileCheck %s --check-prefixes=TRANSPOSE-S,W64 --input-file="%t/transpose.tile=64,brows=16,vec=4,diag=1.gfx90a.s"
// RUN: FileCheck %s --check-prefixes=TRANSPOSE-S,W64 --input-file="%t/transpose.tile=64,brows=16,vec=4,diag=1.gfx942.s"
// RUN: FileCheck %s --check-prefixes=TRANSPOSE-S,W32 --input-file="%t/transpose.tile=64,brows=16,vec=4,diag=1.gfx1100.s"

// SCALE: compiled amdgcn:gfx90a: 15 variants
// SCALE: compiled amdgcn:gfx942: 15 variants
// SCALE: compiled amdgcn:gfx1100: 15 variants
// AXPY: compiled amdgcn:gfx90a: 15 variants
// AXPY: compiled amdgcn:gfx942: 15 variants
// AXPY: compiled amdgcn:gfx1100: 15 variants
// COLOR: compiled amdgcn:gfx90a: 10 variants
// COLOR: compiled amdgcn:gfx942: 10 variants
// COLOR: compiled amdgcn:gfx1100: 10 variants
// TRANSPOSE: compiled amdgcn:gfx90a: 3 variants
// TRANSPOSE: compiled amdgcn:gfx942: 3 variants
// TRANSPOSE: compiled amdgcn:gfx1100: 3 variants

// 16-byte loads and stores (global_load_dwordx4 on gfx9, global_load_b128
// on gfx11): one each for scale, x and y then y for axpy, three planes each
// way for color_normalize, 4 rows of 16 floats each way for transpose
// (through its 64 x 65 staging square and one barrier).
// SCALE-S:         {{global_load_dwordx4|global_load_b128}}
// SCALE-S:         {{global_store_dwordx4|global_store_b128}}
// AXPY-S-COUNT-2:  {{global_load_dwordx4|global_load_b128}}
// AXPY-S:          {{global_store_dwordx4|global_store_b128}}
// COLOR-S-COUNT-3: {{global_load_dwordx4|global_load_b128}}
// COLOR-S-COUNT-3: {{global_store_dwordx4|global_store_b128}}
// TRANSPOSE-S-COUNT-4: {{global_load_dwordx4|global_load_b128}}
// TRANSPOSE-S:     s_barrier
// TRANSPOSE-S-COUNT-4: {{global_store_dwordx4|global_store_b128}}
// TRANSPOSE-S:     .group_segment_fixed_size: 16640

// No scratch, no spills; the wavefront of the target.
// W64:     .private_segment_fixed_size: 0
// W32:     .private_segment_fixed_size: 0
// W64:     .vgpr_spill_count: 0
// W32:     .vgpr_spill_count: 0
// W64:     .wavefront_size: 64
// W32:     .wavefront_size: 32
