// REQUIRES: rocm-bitcode
// RUN: tuna-compile %S/../../kernels-mlir/reduce.mlir \
// RUN:   --target=amdgcn:gfx90a,amdgcn:gfx942,amdgcn:gfx1100 \
// RUN:   -o %t.tuna --emit-dir=%t | FileCheck %s
// RUN: FileCheck %s --check-prefixes=ASM,WAVE64 --input-file="%t/row_sum.tpr=1024,rpb=1,vec=4.gfx90a.s"
// RUN: FileCheck %s --check-prefixes=ASM,WAVE64,GFX942 --input-file="%t/row_sum.tpr=1024,rpb=1,vec=4.gfx942.s"
// RUN: FileCheck %s --check-prefixes=ASM,WAVE32 --input-file="%t/row_sum.tpr=1024,rpb=1,vec=4.gfx1100.s"

// The row sum's butterflies are gpu.shuffle xor of width 32: on a wave64
// device (gfx90a, gfx942) ROCDL lowers them to ds_bpermute within each
// 32-lane half of the wavefront, so a 64-lane wavefront holds two of the
// kernel's 32-thread groups and the sums across groups go through LDS as on
// NVIDIA; on gfx1100 (wave32) a group is the wavefront.

// CHECK: compiled amdgcn:gfx90a: 36 variants
// CHECK: compiled amdgcn:gfx942: 36 variants
// CHECK: compiled amdgcn:gfx1100: 36 variants

// The lane's 32-lane segment: its end is (lane + 32) & 0x60.
// GFX942:      v_and_b32_e32 [[LANE:v[0-9]+]], 63, v0
// GFX942-NEXT: v_add_u32_e32 [[END:v[0-9]+]], 32, [[LANE]]
// GFX942-NEXT: v_and_b32_e32 {{v[0-9]+}}, 0x60, [[END]]

// Five butterfly steps within the group, the barrier, five across groups.
// ASM-COUNT-5: ds_bpermute_b32
// ASM:         s_barrier
// ASM-COUNT-5: ds_bpermute_b32
// WAVE64:      .wavefront_size: 64
// WAVE32:      .amdhsa_wavefront_size32 1
// WAVE32:      .wavefront_size: 32
