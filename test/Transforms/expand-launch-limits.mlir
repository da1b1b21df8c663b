// RUN: tuna-opt %s -split-input-file --tuna-expand="report-dropped max-shared-memory=8192" -verify-diagnostics | FileCheck %s

// Launch maps are checked for every configuration once the parameters are
// known (issue 16): a constant grid or block size below 1, a negative
// dynamic shared-memory size, or a term that overflows int64 or divides by
// zero drops the configuration; it never becomes a variant.

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+4 {{kernel 'sizes': dropped configuration {b = 0}: its 'grid' map gives 0 (at least 1 is needed)}}
    // expected-remark @+3 {{kernel 'sizes': dropped configuration {b = -64}: its 'grid' map gives -1 (at least 1 is needed)}}
    // expected-remark @+2 {{kernel 'sizes': dropped configuration {b = 192}: its 'block' map gives 0 (at least 1 is needed)}}
    // expected-remark @+1 {{kernel 'sizes': dropped configuration {b = 256}: its 'smem' map gives -4 (at least 0 is needed)}}
    gpu.func @sizes(%n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"b", [64, 0, -64, 192, 256]>], defaults = {b = 64},
        key = [#tuna.key<arg = 0>],
        grid = affine_map<(n)[b] -> (n ceildiv 64, b floordiv 64)>,
        block = affine_map<(n)[b] -> (b mod 192, 1)>,
        smem = affine_map<(n)[b] -> (b floordiv 64 - 4 * (b floordiv 256) * 2)>>} {
      gpu.return
    }
  }
}
// CHECK: tuna.dispatch @sizes
// CHECK-NEXT: tuna.variant @sizes__v0::@sizes__v0 config {b = 64 : i64} grid {{.*}} block
// CHECK-NOT: tuna.variant

// -----

// 2^62 * 4 wraps to 0 in int64: the configuration is dropped rather than
// launched as an empty grid (it would do no work and win the tuning).
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+2 {{kernel 'overflow': dropped configuration {s = 4611686018427387904}: its 'grid' map overflows int64 or divides by a value that is not positive}}
    // expected-remark @+1 {{kernel 'overflow': dropped configuration {s = 0}: its 'block' map overflows int64 or divides by a value that is not positive}}
    gpu.func @overflow(%n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"s", [1, 4611686018427387904, 0]>], defaults = {s = 1},
        key = [#tuna.key<arg = 0>],
        grid = affine_map<(n)[s] -> (n * (s * 4) + 1)>,
        block = affine_map<(n)[s] -> (n floordiv s)>>} {
      gpu.return
    }
  }
}
// CHECK: tuna.dispatch @overflow
// CHECK-NEXT: tuna.variant @overflow__v0::@overflow__v0 config {s = 1 : i64}
// CHECK-NOT: tuna.variant

// -----

// The same for constraints: a term that overflows drops the configuration.
#big = affine_set<()[s] : (s * 8 - 16 >= 0)>
// expected-remark @+1 {{kernel 'constraint': dropped configuration {s = 2305843009213693952}: constraint #0 overflows int64 or divides by a value that is not positive}}
func.func @constraint() attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [2, 2305843009213693952]>], defaults = {s = 2},
    constraints = [#big]>} {
  return
}
// CHECK: tuna.dispatch @constraint
// CHECK-NEXT: tuna.variant @constraint__v0 config {s = 2 : i64}
// CHECK-NOT: tuna.variant

// -----

// Workgroup buffers of index elements take the data layout's index size
// (64 bits by default); vectors count all their elements.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+1 {{kernel 'index_buffer': dropped configuration {block = 512}: it needs 10240 bytes of shared memory, over the limit of 8192}}
    gpu.func @index_buffer() workgroup(%tile: memref<256xindex, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 512]>], defaults = {block = 128},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        smem = affine_map<()[block] -> (block * 16)>>} {
      gpu.return
    }
    // expected-remark @+1 {{kernel 'vector_buffer': dropped configuration {block = 512}: it needs 12288 bytes of shared memory, over the limit of 8192}}
    gpu.func @vector_buffer() workgroup(%tile: memref<4x64xvector<4xf32>, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 512]>], defaults = {block = 128},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        smem = affine_map<()[block] -> (block * 16)>>} {
      gpu.return
    }
  }
}
// CHECK: tuna.dispatch @index_buffer
// CHECK: tuna.dispatch @vector_buffer

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{kernel 'complex_buffer': workgroup buffer #0 of type 'memref<4xcomplex<f32>, #gpu.address_space<workgroup>>' has no known size in bytes (a static shape of integers, floats, index or vectors of them is expected)}}
    gpu.func @complex_buffer() workgroup(%tile: memref<4xcomplex<f32>, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128]>], defaults = {block = 128},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>>} {
      gpu.return
    }
  }
}
