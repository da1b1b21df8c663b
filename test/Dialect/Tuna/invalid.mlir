// RUN: tuna-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{the space declares no parameters}}
func.func @no_params() attributes {tuna.space = #tuna.space<defaults = {}>} { return }

// -----

// expected-error @+1 {{parameter 'b' has no candidate values}}
func.func @no_candidates() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{parameter 'b' is declared twice}}
func.func @twice() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>, #tuna.param<"b", [2]>], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{parameter 'b' lists candidate 2 twice}}
func.func @dup_candidate() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2, 2]>], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{the space has no 'defaults' configuration}}
func.func @no_defaults() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>]>} { return }

// -----

// expected-error @+1 {{default value 3 of parameter 'b' is not one of its candidates}}
func.func @default_outside() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = 3}>} { return }

// -----

// expected-error @+1 {{'defaults' binds unknown parameter 'c'}}
func.func @default_unknown() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = 1, c = 2}>} { return }

// -----

// expected-error @+1 {{'defaults' does not bind parameter 'c'}}
func.func @default_missing() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>, #tuna.param<"c", [1]>], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{'defaults' binds 'b' to a non-integer "x"}}
func.func @default_string() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = "x"}>} { return }

// -----

// expected-error @+1 {{parameter 'b' lists candidates but the space has explicit 'configs'}}
func.func @configs_and_candidates() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], configs = [{b = 1}], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{config #1 does not bind parameter 'c'}}
func.func @config_missing() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">, #tuna.param<"c">], configs = [{b = 1, c = 1}, {b = 2}], defaults = {b = 1, c = 1}>} { return }

// -----

// expected-error @+1 {{config #0 binds unknown parameter 'd'}}
func.func @config_unknown() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">], configs = [{b = 1, d = 1}], defaults = {b = 1}>} { return }

// -----

// expected-error @+1 {{'defaults' is not one of the listed 'configs'}}
func.func @default_not_a_config() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">], configs = [{b = 1}, {b = 2}], defaults = {b = 3}>} { return }

// -----

// expected-error @+1 {{'configs' is empty}}
func.func @configs_empty() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b">], configs = [], defaults = {b = 3}>} { return }

// -----

// expected-error @+2 {{key on argument 0 uses 'bins' bucketing but lists no bins}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'key'}}
func.func @bins_missing(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, bucket = bins>]>} { return }

// -----

// expected-error @+2 {{key on argument 0: bins must be strictly ascending, got 32 after 64}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'key'}}
func.func @bins_unsorted(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, bucket = bins, bins = [64, 32]>]>} { return }

// -----

// expected-error @+2 {{key on argument 0 lists bins but its bucket is 'pow2'}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'key'}}
func.func @bins_without_bins_bucket(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, bucket = pow2, bins = [64]>]>} { return }

// -----

// expected-error @+1 {{key component 0 names argument 2 but the kernel has 1 argument(s)}}
func.func @key_missing_arg(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 2>]>} { return }

// -----

// expected-error @+1 {{key component 0 reads dimension 1 of argument 0, which has rank 1}}
func.func @key_dim_out_of_rank(%x: memref<?xf32>) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, dim = 1>]>} { return }

// -----

// expected-error @+1 {{key component 0 reads dimension 0 of argument 0, which is not a ranked memref but 'index'}}
func.func @key_dim_of_scalar(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, dim = 0>]>} { return }

// -----

// expected-error @+1 {{key component 0 reads argument 0 as an integer, but its type is 'f32' (name a memref dimension with 'dim = N')}}
func.func @key_float(%s: f32) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>]>} { return }

// -----

#set = affine_set<(n)[b] : (n mod b == 0)>
// expected-error @+1 {{constraint #0 reads key component 0 (argument 0), which must then use 'exact' bucketing, not 'pow2'}}
func.func @constraint_on_bucketed_key(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, constraints = [#set], key = [#tuna.key<arg = 0, bucket = pow2>]>} { return }

// -----

#set = affine_set<()[b, c] : (b - c >= 0)>
// expected-error @+1 {{constraint #0 takes 2 symbol(s) but the space declares 1 parameter(s)}}
func.func @constraint_symbols() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, constraints = [#set]>} { return }

// -----

#set = affine_set<(n)[b] : (b - n >= 0)>
// expected-error @+1 {{constraint #0 takes 1 dimension(s) but the key has 0 component(s)}}
func.func @constraint_dims() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, constraints = [#set]>} { return }

// -----

gpu.module @m {
  // expected-error @+1 {{'grid' takes 0 dimension(s) but the key has 1 component(s)}}
  gpu.func @grid_dims(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<()[b] -> (b)>, block = affine_map<(n)[b] -> (b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'block' must have 1 to 3 results, got 4}}
  gpu.func @block_results(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b, 1, 1, 1)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'smem' takes 2 symbol(s) but the space declares 1 parameter(s)}}
  gpu.func @smem_symbols(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, smem = affine_map<()[b, c] -> (b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'cluster' must have 1 to 3 results}}
  gpu.func @cluster_results(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (b)>, block = affine_map<(n)[b] -> (b)>, cluster = affine_map<(n)[b] -> (1, 1, 1, b)>>} { gpu.return }
}

// -----

// A variant's cluster is compiled into it: it cannot follow the shape.
gpu.module @m {
  // expected-error @+1 {{'cluster' reads key component 0; a variant's cluster is fixed when it is compiled, so it may read only parameters}}
  gpu.func @cluster_reads_key(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, cluster = affine_map<(n)[b] -> (n mod 4 + 1)>>} { gpu.return }
}

// -----

// expected-error @+1 {{host kernels take no 'grid', 'block', 'smem' or 'cluster'}}
func.func @host_with_cluster() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, cluster = affine_map<()[b] -> (b)>>} { return }

// -----

gpu.module @m {
  // expected-error @+1 {{GPU kernel with a tuning space needs 'grid' and 'block'}}
  gpu.func @no_grid() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} { gpu.return }
}

// -----

// expected-error @+1 {{host kernels take no 'grid', 'block', 'smem' or 'cluster'}}
func.func @host_with_grid() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>>} { return }

// -----

// expected-error @+1 {{'tuna.space' must be attached to a function}}
"test.op"() {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} : () -> ()

// -----

// expected-error @+1 {{'tuna.space' must be a #tuna.space attribute}}
func.func @not_a_space() attributes {tuna.space = 3} { return }

// -----

// expected-error @+1 {{unknown tuna attribute 'tuna.spaces'}}
func.func @misspelled() attributes {tuna.spaces = 3} { return }

// -----

func.func @param_outside() {
  // expected-error @+1 {{'tuna.param' op must be inside a kernel that has a 'tuna.space'}}
  %0 = tuna.param "b" : index
  return
}

// -----

func.func @param_unknown() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>, #tuna.param<"c", [1]>], defaults = {b = 1, c = 1}>} {
  // expected-error @+1 {{'tuna.param' op reads unknown parameter 'd'; the space declares: 'b' 'c'}}
  %0 = tuna.param "d" : index
  return
}

// -----

func.func @param_float() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
  // expected-error @+1 {{'tuna.param' op result #0 must be signless integer or index, but got 'f32'}}
  %0 = tuna.param "b" : f32
  return
}

// -----

// A vector or tensor of integers is no scalar parameter (tuna-expand crashed
// on it: issue 16).
func.func @param_vector() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
  // expected-error @+1 {{'tuna.param' op result #0 must be signless integer or index, but got 'vector<4xi32>'}}
  %0 = tuna.param "b" : vector<4xi32>
  return
}

// -----

func.func @param_tensor() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
  // expected-error @+1 {{'tuna.param' op result #0 must be signless integer or index, but got 'tensor<2xindex>'}}
  %0 = tuna.param "b" : tensor<2xindex>
  return
}

// -----

func.func @param_unsigned() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
  // expected-error @+1 {{'tuna.param' op result #0 must be signless integer or index, but got 'ui32'}}
  %0 = tuna.param "b" : ui32
  return
}

// -----

// expected-error @+3 {{expected ::mlir::tuna::BucketKind to be one of: exact, pow2, bins}}
// expected-error @+2 {{failed to parse Tuna_KeyAttr parameter 'bucket'}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'key'}}
func.func @bad_bucket(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0, bucket = log2>]>} { return }

// -----

// expected-error @+2 {{struct is missing required parameter: arg}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'key'}}
func.func @key_without_arg(%n: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<dim = 0>]>} { return }
