// RUN: tuna-opt %s -split-input-file --tuna-expand -verify-diagnostics

// Scalable vector types (and vector.vscale) take their width from a
// kernel's `vscale` parameter; see expand-vscale.mlir.

func.func @k(%x: memref<?xf32>, %i: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 4]>], defaults = {vec = 1}>} {
  // expected-error @+1 {{kernel 'k' uses the scalable vector type 'vector<[1]xf32>' but its space names no 'vscale' parameter to fix the width}}
  %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
  return
}

// -----

func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 4]>], defaults = {vec = 1}>} {
  // expected-error @+1 {{kernel 'k' uses 'vector.vscale' but its space names no 'vscale' parameter to fix the width}}
  %vscale = vector.vscale
  return
}

// -----

// A workgroup buffer is a block argument of the kernel.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{kernel 'k' uses the scalable vector type 'memref<4xvector<[1]xf32>, #gpu.address_space<workgroup>>' but its space names no 'vscale' parameter to fix the width}}
    gpu.func @k() workgroup(%buf: memref<4xvector<[1]xf32>, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [32]>], defaults = {b = 32}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (b)>>} {
      gpu.return
    }
  }
}

// -----

// Outside a tunable kernel nothing gives the width.
// expected-error @+1 {{'func.func' op uses the scalable vector type 'vector<[4]xf32>' outside a tunable kernel: only a kernel whose space names a 'vscale' parameter gets fixed vector widths}}
func.func @helper(%v: vector<[4]xf32>) {
  return
}

// -----

func.func @helper(%x: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'vector.load' op uses the scalable vector type 'vector<[4]xf32>' outside a tunable kernel}}
  %v = vector.load %x[%i] : memref<?xf32>, vector<[4]xf32>
  return
}

// -----

// The body is valid as written, but vector.to_elements has one result
// whatever the width: the variant of vec = 2 is invalid, and the error
// names the op, the kernel and the configuration.
// expected-note @+1 {{in the variant of kernel 'k' for configuration {vec = 2}}}
func.func @k(%x: memref<?xf32>, %i: index) -> f32 attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 2]>], defaults = {vec = 1}, vscale = "vec">} {
  %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
  // expected-error @+1 {{'vector.to_elements' op failed to verify that shaped type 'source' matches 'elements' element count and types}}
  %e = vector.to_elements %v : vector<[1]xf32>
  return %e : f32
}
