// RUN: tuna-opt %S/../../kernels-mlir/scale.mlir --tuna-expand \
// RUN:   --tuna-lower-nvptx=chip=sm_90a | FileCheck %s --check-prefix=NVPTX
// RUN: tuna-opt %S/../../kernels-mlir/scale.mlir --tuna-expand \
// RUN:   --tuna-lower-amdgcn | FileCheck %s --check-prefix=AMDGCN
// RUN: tuna-opt %S/../../kernels-mlir/scale.mlir --tuna-expand \
// RUN:   --tuna-lower-host | FileCheck %s --check-prefix=HOST
// RUN: tuna-opt %S/../../kernels-mlir/scale.mlir --tuna-expand --tuna-lower-nvptx \
// RUN:   --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE
// RUN: tuna-opt %S/../../kernels-mlir/scale.mlir --tuna-expand --tuna-lower-nvptx=chip=sm_80 \
// RUN:   --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=SM80 \
// RUN:   --implicit-check-not=tuna-grid-dependency
// RUN: not tuna-opt %S/../../kernels-mlir/scale.mlir \
// RUN:   --tuna-lower-nvptx=chip=sm_70 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not tuna-opt %S/../../kernels-mlir/scale.mlir \
// RUN:   --tuna-lower-amdgcn=chip=sm_90 2>&1 | FileCheck %s --check-prefix=BADAMD

// The registered pipelines lower the expanded variants of every target; a
// chip the target does not know is an error, not a crash.

// NVPTX: gpu.module @scale__v0 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// NVPTX: llvm.func @scale__v0({{.*}}nvvm.kernel
// NVPTX: nvvm.griddepcontrol wait
// NVPTX-NOT: gpu.func

// AMDGCN: gpu.module @scale__v0 [#rocdl.target<O = 3, chip = "gfx942">]
// AMDGCN: llvm.func @scale__v0({{.*}}rocdl.kernel

// HOST: llvm.func @scale_host__v0(
// HOST-NOT: func.func @scale_host__v0

// PIPELINE:      nvvm-attach-target{O=3 chip=sm_90 {{.*}}features=+ptx80
// PIPELINE-NEXT:   gpu.module(
// PIPELINE-NEXT:     tuna-resolve-subgroup-size,
// PIPELINE-NEXT:     tuna-unroll,
// PIPELINE-NEXT:     canonicalize{
// PIPELINE-NEXT:     expand-strided-metadata,
// PIPELINE-NEXT:     lower-affine,
// PIPELINE-NEXT:     tuna-grid-dependency,
// PIPELINE-NEXT:     tuna-tensor-map-args,
// PIPELINE-NEXT:     convert-nvgpu-to-nvvm,
// PIPELINE-NEXT:     convert-scf-to-cf{
// PIPELINE-NEXT:     convert-gpu-to-nvvm{
// PIPELINE-NEXT:     tuna-tensor-map-args,
// PIPELINE-NEXT:     convert-nvvm-to-llvm,
// PIPELINE-NEXT:     reconcile-unrealized-casts
// PIPELINE-NEXT:   )

// Before sm_90 kernels have no grid dependency control.
// SM80:      nvvm-attach-target{O=3 chip=sm_80
// SM80:      lower-affine,
// SM80-NEXT: tuna-tensor-map-args,

// BADCHIP: unknown target 'nvptx:sm_70': an NVIDIA chip is written sm_XY, XY >= 75
// BADAMD: unknown target 'amdgcn:sm_90': an AMD chip is written gfxNNN
