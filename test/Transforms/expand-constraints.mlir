// RUN: tuna-opt %s -split-input-file --tuna-expand="max-threads-per-block=512 max-shared-memory=8192 report-dropped" -verify-diagnostics -allow-unregistered-dialect | FileCheck %s

// Compile-time constraints, target limits and launch-time constraints.

// block * vec <= 1024 is decided per configuration; n mod vec == 0 reads
// the key, so it stays with the variants that it does not fold away.
#sets = affine_set<(n)[block, vec] : (1024 - block * vec >= 0, n mod vec == 0)>

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+4 {{kernel 'k': dropped configuration {block = 512, vec = 4}: it breaks constraint #0}}
    // expected-remark @+3 {{kernel 'k': dropped configuration {block = 1024, vec = 1}: its block has 1024 threads, over the limit of 512}}
    // expected-remark @+2 {{kernel 'k': dropped configuration {block = 1024, vec = 4}: it breaks constraint #0}}
    // expected-remark @+1 {{kernel 'k': dropped configuration {block = 256, vec = 4}: it needs 16384 bytes of shared memory, over the limit of 8192}}
    gpu.func @k(%x: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [256, 512, 1024]>, #tuna.param<"vec", [1, 4]>],
        defaults = {block = 256, vec = 1},
        constraints = [#sets],
        key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[block, vec] -> (n ceildiv (block * vec))>,
        block = affine_map<(n)[block, vec] -> (block)>,
        smem = affine_map<(n)[block, vec] -> (block * vec * 16)>>} {
      gpu.return
    }
  }
}

// CHECK: tuna.dispatch @k
// CHECK-SAME: default_variant = 0
// CHECK-NEXT: tuna.variant @k__v0::@k__v0 config {block = 256 : i64, vec = 1 : i64} grid #{{.*}} block #{{.*}} smem #{{.*}}{{$}}
// CHECK-NEXT: tuna.variant @k__v1::@k__v1 config {block = 512 : i64, vec = 1 : i64} grid #{{.*}} block #{{.*}} smem #{{.*}}{{$}}
// CHECK-NEXT: }

// -----

// Launch-time constraints keep their key dimension; the parameters are
// substituted and constant parts are decided at compile time.
// CHECK-DAG: #[[MOD4:.+]] = affine_set<(d0) : (d0 mod 4 == 0)>
#div = affine_set<(n)[vec] : (n mod vec == 0)>
func.func @h(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [1, 4]>], defaults = {vec = 1},
    constraints = [#div], key = [#tuna.key<arg = 1>]>} {
  return
}
// CHECK: tuna.dispatch @h
// CHECK-NEXT: tuna.variant @h__v0 config {vec = 1 : i64}{{$}}
// CHECK-NEXT: tuna.variant @h__v1 config {vec = 4 : i64} where [#[[MOD4]]]

// -----

// An explicit list of configurations, like a list of triton.Config.
func.func @listed(%x: memref<?xf32>) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"tile">, #tuna.param<"unroll">],
    configs = [{tile = 16, unroll = 1}, {tile = 64, unroll = 4}, {tile = 128, unroll = 2}],
    defaults = {tile = 64, unroll = 4}>} {
  %t = tuna.param "tile" : index
  %u = tuna.param "unroll" : i32
  "test.use"(%t, %u) : (index, i32) -> ()
  return
}
// CHECK-LABEL: func.func @listed__v0
// CHECK: "test.use"(%c16, %c1_i32)
// CHECK-LABEL: func.func @listed__v1
// CHECK: "test.use"(%c64, %c4_i32)
// CHECK-LABEL: func.func @listed__v2
// CHECK: "test.use"(%c128, %c2_i32)
// CHECK: tuna.dispatch @listed
// CHECK-SAME: default_variant = 1
// CHECK-SAME: params = ["tile", "unroll"]

// -----

// Static workgroup memory counts against the shared-memory limit; workgroup
// attributions are not arguments, so writing them is not an argument write.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+1 {{kernel 'wg': dropped configuration {block = 512}: it needs 10240 bytes of shared memory, over the limit of 8192}}
    gpu.func @wg(%x: memref<?xf32>) workgroup(%tile: memref<512xf32, #gpu.address_space<workgroup>>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 512]>], defaults = {block = 128},
        grid = affine_map<()[block] -> (1)>, block = affine_map<()[block] -> (block)>,
        smem = affine_map<()[block] -> (block * 16)>>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      memref.store %v, %tile[%c0] : memref<512xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: tuna.dispatch @wg
// CHECK-SAME: written_args = array<i64>}
// CHECK-NEXT: tuna.variant @wg__v0::@wg__v0 config {block = 128 : i64}
