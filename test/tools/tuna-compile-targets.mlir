// The targets a kernel supports (`targets` in its space): tuna-compile
// compiles a kernel for the requested targets it supports, notes the ones
// it skips, and fails when no kernel is left (docs/tuna-compile.md).
// RUN: split-file %s %t
// RUN: tuna-compile %t/three.mlir --target=nvptx:sm_90a --no-ptxas -o %t/a.tuna 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: tuna-compile %t/three.mlir --target=nvptx:sm_90 --no-ptxas -o %t/b.tuna 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tuna-compile %t/three.mlir --target=nvptx:sm_75 --no-ptxas -o %t/c.tuna 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: tuna-compile %t/three.mlir --target=nvptx:sm_90a,nvptx:sm_80 --no-ptxas -o %t/d.tuna 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not tuna-compile %t/nvidia.mlir --target=amdgcn:gfx942,amdgcn:gfx1100 -o %t/e.tuna 2>&1 | FileCheck %s --check-prefix=AMD

// SM90A-NOT:  supports only
// SM90A:      kernel wgmma_only: 2 variants
// SM90A:      kernel ampere: 2 variants
// SM90A:      kernel anywhere: 2 variants
// SM90A:      compiled nvptx:sm_90a: 6 variants

// SM90:       note: kernel 'wgmma_only' supports only nvptx (sm_90a), not nvptx:sm_90: left out
// SM90-NOT:   kernel wgmma_only:
// SM90:       kernel ampere: 2 variants
// SM90:       kernel anywhere: 2 variants
// SM90:       compiled nvptx:sm_90: 4 variants

// SM75:       note: kernel 'wgmma_only' supports only nvptx (sm_90a), not nvptx:sm_75: left out
// SM75-NEXT:  note: kernel 'ampere' supports only nvptx (sm_80 and newer), not nvptx:sm_75: left out
// SM75:       compiled nvptx:sm_75: 2 variants

// BOTH:       note: kernel 'wgmma_only' supports only nvptx (sm_90a), not nvptx:sm_80: compiled for the other targets only
// BOTH:       compiled nvptx:sm_90a: 6 variants
// BOTH:       compiled nvptx:sm_80: 4 variants

// AMD:        error: nothing to put in the bundle: no kernel has variants for the requested targets (amdgcn:gfx942, amdgcn:gfx1100); kernel 'wgmma_only' supports only nvptx (sm_90a), not amdgcn:gfx942, amdgcn:gfx1100; kernel 'ampere' supports only nvptx (sm_80 and newer) and amdgcn (gfx90a), not amdgcn:gfx942, amdgcn:gfx1100
// AMD:        note: amdgcn:gfx942: nothing to compile: no GPU kernel in the input supports it
// AMD:        note: kernel 'wgmma_only' supports only nvptx (sm_90a), not amdgcn:gfx942, amdgcn:gfx1100: left out
// AMD-NEXT:   note: kernel 'ampere' supports only nvptx (sm_80 and newer) and amdgcn (gfx90a), not amdgcn:gfx942, amdgcn:gfx1100: left out

//--- three.mlir
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @wgmma_only(%x: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>], defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %x[%tid] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @ampere(%x: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>], defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        targets = [#tuna.target<arch = nvptx, min = "sm_80">]
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %x[%tid] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @c {
    gpu.func @anywhere(%x: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>], defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %x[%tid] : memref<?xf32>
      gpu.return
    }
  }
}

//--- nvidia.mlir
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @wgmma_only(%x: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>], defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %x[%tid] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @ampere(%x: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>], defaults = {block = 64},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        targets = [#tuna.target<arch = nvptx, min = "sm_80">, #tuna.target<arch = amdgcn, chips = ["gfx90a"]>]
      >} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %x[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
