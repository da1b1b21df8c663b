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
  // expected-error @+1 {{'tuna.variant' op maps must take the 1 key value(s) and no symbols}}
  tuna.variant @m::@k config {b = 64 : i64} grid affine_map<()[s0] -> (s0)>
}

// -----

tuna.dispatch @k attributes {default_variant = 0 : i64, function_type = (index) -> (), key = [], params = ["b"], source_hash = "00", written_args = array<i64>} {
  // expected-error @+1 {{'tuna.variant' op constraints must take the 0 key value(s) and no symbols}}
  tuna.variant @m::@k config {b = 64 : i64} where [affine_set<(d0) : (d0 >= 0)>]
}

// -----

// expected-error @+1 {{'tuna.variant' op expects parent op 'tuna.dispatch'}}
tuna.variant @m::@k config {b = 64 : i64}
