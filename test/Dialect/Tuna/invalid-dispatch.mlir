// RUN: tuna-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tuna.dispatch' op has no variants}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
}

// -----

// expected-error @+1 {{'tuna.dispatch' op default variant 1 is out of range [0, 1)}}
tuna.dispatch @k attributes {default_variant = 1 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @m::@k config {b = 64 : i64}
}

// -----

// expected-error @+1 {{'tuna.dispatch' op written argument 3 is out of range}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64: 3>} {
  tuna.variant @m::@k config {b = 64 : i64}
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op maps must take the 1 key value(s) as their dimensions and symbols, got 1 and 1}}
  tuna.variant @m::@k config {b = 64 : i64} grid affine_map<(d0)[s0] -> (d0 + s0)>
}

// -----

// A variant's cluster is compiled into it (its known cluster size): a
// hand-written table cannot make it follow the shape.
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op cluster must be 1 to 3 constant sizes (it is compiled into the variant), got affine_map<()[s0] -> (1, 1, s0)>}}
  tuna.variant @m::@k config {b = 64 : i64} cluster affine_map<()[s0] -> (1, 1, s0)>
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op cluster must be 1 to 3 constant sizes (it is compiled into the variant), got affine_map<() -> (1, 1, 2, 2)>}}
  tuna.variant @m::@k config {b = 64 : i64} cluster affine_map<() -> (1, 1, 2, 2)>
}

// -----

// So is its blocks-per-SM request (its nvvm.minctasm).
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op min_blocks must be one constant of at least 1 (it is compiled into the variant), got affine_map<()[s0] -> (s0 mod 3)>}}
  tuna.variant @m::@k config {b = 64 : i64} min_blocks affine_map<()[s0] -> (s0 mod 3)>
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op min_blocks must be one constant of at least 1 (it is compiled into the variant), got affine_map<()[s0] -> (0)>}}
  tuna.variant @m::@k config {b = 64 : i64} min_blocks affine_map<()[s0] -> (0)>
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op constraints must take the 0 key value(s) as their dimensions and symbols, got 1 and 0}}
  tuna.variant @m::@k config {b = 64 : i64} where [affine_set<(d0) : (d0 >= 0)>]
}

// -----

// expected-error @+1 {{'tuna.variant' op expects parent op 'tuna.dispatch'}}
tuna.variant @m::@k config {b = 64 : i64}

// -----

// The ABI of a bundle comes from function_type: a variant of another type
// would be launched with the wrong arguments (issue 16).
func.func @k__v0(%n: index) { return }
// expected-error @+1 {{'tuna.dispatch' op variant #0 kernel @k__v0 has type '(index) -> ()' but dispatch @k declares function_type '(memref<?xf32>, index) -> ()'}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?xf32>, index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @k__v0 config {b = 64 : i64}
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k__v0 {
    gpu.func @k(%x: memref<?xf32>, %n: index) kernel { gpu.return }
  }
  gpu.module @k__v1 {
    gpu.func @k(%x: memref<?xf16>, %n: index) kernel { gpu.return }
  }
  // expected-error @+1 {{'tuna.dispatch' op variant #1 kernel @k__v1::@k has type '(memref<?xf16>, index) -> ()' but dispatch @k declares function_type '(memref<?xf32>, index) -> ()'}}
  tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?xf32>, index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
    tuna.variant @k__v0::@k config {b = 64 : i64} grid affine_map<() -> (1)> block affine_map<() -> (64)>
    tuna.variant @k__v1::@k config {b = 128 : i64} grid affine_map<() -> (1)> block affine_map<() -> (128)>
  }
}

// -----

llvm.mlir.global internal @k__v0() : i32
// expected-error @+1 {{'tuna.dispatch' op variant #0 names @k__v0, which is not a function}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @k__v0 config {b = 64 : i64}
}

// -----

// expected-error @+1 {{'tuna.dispatch' op key component 0 names argument 1 but the kernel has 1 argument(s)}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 1>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @m::@k config {b = 64 : i64}
}

// -----

// expected-error @+1 {{'tuna.dispatch' op key component 0 reads dimension 0 of argument 0, which is not a ranked memref but 'index'}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [#tuna.key<arg = 0, dim = 0>], params = ["b"], source_hash = "00", written_args = array<i64>} {
  tuna.variant @m::@k config {b = 64 : i64}
}

// -----

// A variant's tensor maps: one box per map it takes, ascending indices into
// the dispatch's maps, each box over the key values with the map's rank.
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?x?xf32>) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (16, b)>>]} {
  // expected-error @+1 {{'tuna.variant' op takes 1 tensor map(s) but has 0 box(es); each map it takes has one}}
  tuna.variant @m::@k config {b = 64 : i64} tensor_maps [0]
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?x?xf32>) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (16, b)>>]} {
  // expected-error @+1 {{'tuna.variant' op tensor maps must be ascending indices below 1 (the dispatch's), got 1}}
  tuna.variant @m::@k config {b = 64 : i64} tensor_maps [1] boxes [affine_map<() -> (16, 8)>]
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?x?xf32>) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (16, b)>>]} {
  // expected-error @+1 {{'tuna.variant' op the box of tensor map 0 must take the 0 key value(s) and have 2 entries, got affine_map<() -> (16)>}}
  tuna.variant @m::@k config {b = 64 : i64} tensor_maps [0] boxes [affine_map<() -> (16)>]
}

// -----

// expected-error @+1 {{'tuna.dispatch' op tensor map #0 describes argument 0 of type 'index'}}
tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (16)>>]} {
  tuna.variant @m::@k config {b = 64 : i64}
}

// -----

// A variant that takes a tensor map has one more !llvm.ptr argument.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  // expected-error @+1 {{'tuna.dispatch' op variant #0 kernel @m::@k has type '(memref<?xf32>) -> ()' but takes 1 tensor map(s), so its type must be '(memref<?xf32>, !llvm.ptr) -> ()' (the dispatch's with one !llvm.ptr per map)}}
  tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (memref<?xf32>) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (16)>>]} {
    tuna.variant @m::@k config {b = 64 : i64} tensor_maps [0] boxes [affine_map<() -> (16)>]
  }
}
