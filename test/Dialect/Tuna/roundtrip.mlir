// RUN: tuna-opt %s | tuna-opt | FileCheck %s

// Every form of the attributes and ops prints back as it parses.

// CHECK-DAG: #[[FLAT:.+]] = affine_map<()[s0, s1, s2] -> ((s0 * s1) ceildiv s2)>
// CHECK-DAG: #[[FLAT256:.+]] = affine_map<()[s0, s1] -> ((s0 * s1) ceildiv 256)>

#fits = affine_set<(m, n)[b, v] : (4096 - b * v >= 0, n mod v == 0)>

// CHECK-LABEL: func.func @space
// CHECK-SAME: tuna.space = #tuna.space<params = [#tuna.param<"b", [64, 128]>, #tuna.param<"v", [1, 4]>], defaults = {b = 64 : i64, v = 1 : i64}, constraints = [#{{.*}}], key = [#tuna.key<arg = 0, dim = 0, bucket = bins, bins = [32, 64, 128]>, #tuna.key<arg = 1>]>
func.func @space(%x: memref<?x?xf32>, %n: i32) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"b", [64, 128]>, #tuna.param<"v", [1, 4]>],
    defaults = {b = 64, v = 1},
    constraints = [#fits],
    key = [#tuna.key<arg = 0, dim = 0, bucket = bins, bins = [32, 64, 128]>, #tuna.key<arg = 1, bucket = exact>]>} {
  // CHECK: tuna.param "b" : index
  %b = tuna.param "b" : index
  // CHECK: tuna.param "v" : i32
  %v = tuna.param "v" : i32
  return
}

// CHECK-LABEL: func.func @configs
// CHECK-SAME: configs = [{b = 1 : i64}, {b = 3 : i64}]
func.func @configs() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">], configs = [{b = 1}, {b = 3}], defaults = {b = 3}>} {
  return
}

// CHECK-LABEL: gpu.module @m
gpu.module @m {
  // CHECK: tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64 : i64}, key = [#tuna.key<arg = 0, bucket = pow2>], grid = #{{.*}}, block = #{{.*}}, smem = #{{.*}}>
  gpu.func @k(%n: index) kernel attributes {tuna.space = #tuna.space<
      params = [#tuna.param<"b", [64]>], defaults = {b = 64},
      key = [#tuna.key<arg = 0, bucket = pow2>],
      grid = affine_map<(n)[b] -> (n ceildiv b, 1, 1)>,
      block = affine_map<(n)[b] -> (b)>,
      smem = affine_map<(n)[b] -> (b * 4)>>} {
    gpu.return
  }
}

// CHECK: tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0, bucket = pow2>], params = ["b"], source_hash = "00", written_args = array<i64>} {
// CHECK-NEXT: tuna.variant @m::@k config {b = 64 : i64} grid #{{.*}} block #{{.*}} smem #{{.*}} where [#{{.*}}]
// CHECK-NEXT: tuna.variant @m::@k config {b = 128 : i64}
// CHECK-NEXT: }
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0, bucket = pow2>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @m::@k config {b = 64 : i64} grid affine_map<(d0) -> (d0 ceildiv 64)> block affine_map<(d0) -> (64)> smem affine_map<(d0) -> (256)> where [affine_set<(d0) : (d0 - 1 == 0)>]
  tuna.variant @m::@k config {b = 128 : i64}
}

// Key fields in any order (ODS struct syntax); printed in declaration order,
// without the default bucket.
// CHECK-LABEL: func.func @key_order
// CHECK-SAME: key = [#tuna.key<arg = 0, dim = 0, bucket = bins, bins = [8, 16]>, #tuna.key<arg = 0, dim = 0>]
func.func @key_order(%x: memref<?xf32>) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<bins = [8, 16], bucket = bins, dim = 0, arg = 0>, #tuna.key<arg = 0, dim = 0, bucket = exact>]>} { return }

// Key values as symbols, so that a map can multiply them (the aliases are
// checked at the top).
// CHECK-LABEL: gpu.module @flat
gpu.module @flat {
  // CHECK: key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>], grid = #[[FLAT]]
  gpu.func @k(%rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<
      params = [#tuna.param<"b", [256]>], defaults = {b = 256},
      key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>],
      grid = affine_map<()[rows, cols, b] -> ((rows * cols) ceildiv b)>,
      block = affine_map<(rows)[cols, b] -> (b)>>} {
    gpu.return
  }
}

// CHECK: tuna.dispatch @flat_k
// CHECK-NEXT: tuna.variant @flat::@k config {b = 256 : i64} grid #[[FLAT256]] block #{{.*}}{{$}}
tuna.dispatch @flat_k attributes {default_variant = 0 : i64, function_type = (index, index) -> (), key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @flat::@k config {b = 256 : i64} grid affine_map<()[s0, s1] -> ((s0 * s1) ceildiv 256)> block affine_map<(d0)[s0] -> (256)>
}

// A body written once for every vector width: scalable types are allowed in
// the body (not the signature) when the space names its 'vscale' parameter.
// CHECK-LABEL: func.func @vscale
// CHECK-SAME: tuna.space = #tuna.space<params = [#tuna.param<"vec", [4, 8]>], defaults = {vec = 4 : i64}, vscale = "vec">
// CHECK: memref.alloca() : memref<2xvector<[1]xf32>>
// CHECK: vector.load %{{.*}} : memref<?xf32>, vector<[1]xf32>
func.func @vscale(%x: memref<?xf32>, %i: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [4, 8]>], defaults = {vec = 4}, vscale = "vec">} {
  %acc = memref.alloca() : memref<2xvector<[1]xf32>>
  %v = vector.load %x[%i] : memref<?xf32>, vector<[1]xf32>
  return
}

// CHECK-LABEL: gpu.func @targets
// CHECK-SAME: targets = [#tuna.target<arch = nvptx, min = "sm_80">, #tuna.target<arch = amdgcn, chips = ["gfx90a", "gfx942"]>]
gpu.module @targets_module {
  gpu.func @targets() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>,
      targets = [#tuna.target<arch = nvptx, min = "sm_80">, #tuna.target<arch = amdgcn, chips = ["gfx90a", "gfx942"]>]>} { gpu.return }
}

// A cluster map takes the launch maps' inputs (the key value as a symbol
// here) and prints before the fields that follow it.
// CHECK-LABEL: gpu.func @cluster
// CHECK-SAME: cluster = #{{[a-z0-9_]+}}, targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]>
gpu.module @cluster_module {
  gpu.func @cluster(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"s", [1, 2]>], defaults = {s = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<()[n, s] -> (n, 1, s)>, block = affine_map<()[n, s] -> (128)>, cluster = affine_map<()[n, s] -> (1, 1, s)>, targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]>} { gpu.return }
}

// A family names kernels by their names (strings: the kernels are gone
// once tuna-expand has replaced the family by a table).
// CHECK: tuna.family @both kernels ["targets", "cluster"]
tuna.family @both kernels ["targets", "cluster"]
