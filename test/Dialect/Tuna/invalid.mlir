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
// expected-error @+1 {{constraint #0 takes 0 dimension(s) and 2 symbol(s) but the key has 0 component(s) and the space declares 1 parameter(s); its inputs, dimensions then symbols, are the key values then the parameters}}
func.func @constraint_symbols() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, constraints = [#set]>} { return }

// -----

#set = affine_set<(n)[b] : (b - n >= 0)>
// expected-error @+1 {{constraint #0 takes 1 dimension(s) but the key has 0 component(s) (parameters are symbols)}}
func.func @constraint_dims() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, constraints = [#set]>} { return }

// -----

gpu.module @m {
  // expected-error @+1 {{'grid' takes 0 dimension(s) and 1 symbol(s) but the key has 1 component(s) and the space declares 1 parameter(s); its inputs, dimensions then symbols, are the key values then the parameters}}
  gpu.func @grid_dims(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<()[b] -> (b)>, block = affine_map<(n)[b] -> (b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'block' must have 1 to 3 results, got 4}}
  gpu.func @block_results(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b, 1, 1, 1)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'smem' takes 0 dimension(s) and 2 symbol(s) but the key has 0 component(s) and the space declares 1 parameter(s)}}
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

// The cluster's inputs are those of every launch map: the key values (here
// as a symbol), then the parameters; it still may not read the key value.
gpu.module @m {
  // expected-error @+1 {{'cluster' reads key component 0; a variant's cluster is fixed when it is compiled, so it may read only parameters}}
  gpu.func @cluster_reads_key_symbol(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<()[n, b] -> (n)>, block = affine_map<()[n, b] -> (b)>, cluster = affine_map<()[n, b] -> (1, 1, n mod 4 + 1)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'cluster' takes 0 dimension(s) and 1 symbol(s) but the key has 1 component(s) and the space declares 1 parameter(s); its inputs, dimensions then symbols, are the key values then the parameters}}
  gpu.func @cluster_without_key(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, cluster = affine_map<()[b] -> (1, 1, b)>>} { gpu.return }
}

// -----

// The blocks a variant asks an SM to hold are compiled into it too.
gpu.module @m {
  // expected-error @+1 {{'min_blocks' reads key component 0; a variant's min_blocks is fixed when it is compiled, so it may read only parameters}}
  gpu.func @min_blocks_reads_key(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, min_blocks = affine_map<(n)[b] -> (n mod 4 + 1)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'min_blocks' must have 1 result, got 2}}
  gpu.func @min_blocks_results(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, min_blocks = affine_map<(n)[b] -> (1, b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'cluster' takes 2 dimension(s) but the key has 1 component(s) (parameters are symbols)}}
  gpu.func @cluster_param_as_dim(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, cluster = affine_map<(n, b) -> (1, 1, b)>>} { gpu.return }
}

// -----

// A cluster map gets the launch maps' hint when it does not parse.
gpu.module @m {
  // expected-error @+3 {{non-affine expression: at least one of the multiply operands has to be either a constant or symbolic}}
  // expected-error @+2 {{a launch map is affine_map<(key values)[parameters] -> (...)>; to multiply or divide by key values, take them as symbols}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'cluster'}}
  gpu.func @cluster_product_of_dims(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, key = [#tuna.key<arg = 0>], grid = affine_map<(n)[b] -> (n)>, block = affine_map<(n)[b] -> (b)>, cluster = affine_map<(n, m)[b] -> (n * m)>>} { gpu.return }
}

// -----

// expected-error @+1 {{host kernels take no 'grid', 'block', 'smem', 'cluster' or 'min_blocks'}}
func.func @host_with_cluster() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, cluster = affine_map<()[b] -> (b)>>} { return }

// -----

gpu.module @m {
  // expected-error @+1 {{GPU kernel with a tuning space needs 'grid' and 'block'}}
  gpu.func @no_grid() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} { gpu.return }
}

// -----

// expected-error @+1 {{host kernels take no 'grid', 'block', 'smem', 'cluster' or 'min_blocks'}}
func.func @host_with_grid() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>>} { return }

// -----

// expected-error @+1 {{'tuna.space' must be attached to a func.func or gpu.func}}
"test.op"() {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} : () -> ()

// -----

// A transform sequence is a function too, but never a kernel.
module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{'tuna.space' must be attached to a func.func or gpu.func}}
  transform.named_sequence @tunable(%root: !transform.any_op {transform.readonly}) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
    transform.yield
  }
}

// -----

func.func @outer() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}>} {
  "test.region"() ({
    // expected-error @+1 {{a tunable kernel cannot be nested in another tunable kernel}}
    func.func @inner() attributes {tuna.space = #tuna.space<params = [#tuna.param<"c", [1]>], defaults = {c = 1}>} { return }
    "test.end"() : () -> ()
  }) : () -> ()
  return
}

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

// -----

// Affine maps multiply dimensions by constants and symbols only: the launch
// map's hint says to take the key values as symbols.
gpu.module @m {
  // expected-error @+3 {{non-affine expression: at least one of the multiply operands has to be either a constant or symbolic}}
  // expected-error @+2 {{a launch map is affine_map<(key values)[parameters] -> (...)>; to multiply or divide by key values, take them as symbols: affine_map<()[rows, cols, block] -> ((rows * cols) ceildiv block)>}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'grid'}}
  gpu.func @grid_product_of_dims(%rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>], grid = affine_map<(rows, cols)[b] -> ((rows * cols) ceildiv b)>, block = affine_map<(rows, cols)[b] -> (b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'grid' takes 3 dimension(s) but the key has 2 component(s) (parameters are symbols)}}
  gpu.func @grid_param_as_dim(%rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>], grid = affine_map<(rows, cols, b) -> (rows + b)>, block = affine_map<()[rows, cols, b] -> (b)>>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'block' takes 0 dimension(s) and 2 symbol(s) but the key has 2 component(s) and the space declares 1 parameter(s); its inputs, dimensions then symbols, are the key values then the parameters}}
  gpu.func @block_key_symbol_missing(%rows: index, %cols: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 0>, #tuna.key<arg = 1>], grid = affine_map<()[rows, cols, b] -> ((rows * cols) ceildiv b)>, block = affine_map<()[rows, b] -> (b)>>} { gpu.return }
}

// -----

// A key value taken as a symbol is still a key value: a constraint that
// reads it needs exact bucketing.
#set = affine_set<(rows)[cols, v] : ((rows * cols) mod v == 0)>
// expected-error @+1 {{constraint #0 reads key component 1 (argument 1), which must then use 'exact' bucketing, not 'pow2'}}
func.func @constraint_on_bucketed_key_symbol(%rows: index, %cols: index) attributes {tuna.space = #tuna.space<params = [#tuna.param<"v", [1]>], defaults = {v = 1}, constraints = [#set], key = [#tuna.key<arg = 0>, #tuna.key<arg = 1, bucket = pow2>]>} { return }

// -----

// expected-error @+1 {{'vscale' names unknown parameter 'lanes'; the space declares: 'vec'}}
func.func @vscale_unknown() attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 4]>], defaults = {vec = 1}, vscale = "lanes">} { return }

// -----

// expected-error @+1 {{'vscale' parameter 'vec' takes the value 0 in its candidates; a vector width multiple must be positive}}
func.func @vscale_zero() attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [0, 4]>], defaults = {vec = 4}, vscale = "vec">} { return }

// -----

// expected-error @+1 {{'vscale' parameter 'vec' takes the value -2 in config #1; a vector width multiple must be positive}}
func.func @vscale_negative_config() attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec">], configs = [{vec = 4}, {vec = -2}], defaults = {vec = 4}, vscale = "vec">} { return }

// -----

// expected-error @+1 {{config #0 binds 'vec' to a non-integer 2.000000e+00 : f32}}
func.func @vscale_not_integer() attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec">], configs = [{vec = 2.0 : f32}], defaults = {vec = 2.0 : f32}, vscale = "vec">} { return }

// -----

// expected-error @+1 {{the signature of a tunable kernel is the ABI of all its variants: it cannot use the scalable vector type 'memref<?xvector<[4]xf32>>', whose width depends on 'vscale'}}
func.func @vscale_signature(%x: memref<?xvector<[4]xf32>>) attributes {tuna.space = #tuna.space<params = [#tuna.param<"vec", [1, 2]>], defaults = {vec = 1}, vscale = "vec">} { return }

// -----

// `tuna.aligned` makes a scalable access's alignment follow its width
// (expand-vscale.mlir); anywhere else it is an error.
func.func @aligned_not_unit(%x: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'tuna.aligned' must be a unit attribute}}
  %v = vector.load %x[%i] {tuna.aligned = 16} : memref<?xf32>, vector<[1]xf32>
  return
}

// -----

func.func @aligned_scalar(%x: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'tuna.aligned' must mark a vector.load, vector.store, vector.maskedload or vector.maskedstore}}
  %v = memref.load %x[%i] {tuna.aligned} : memref<?xf32>
  return
}

// -----

func.func @aligned_fixed(%x: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'tuna.aligned' needs a 1-D scalable vector, whose width the space's 'vscale' fixes; got 'vector<4xf32>' (state a fixed access's 'alignment')}}
  %v = vector.load %x[%i] {tuna.aligned} : memref<?xf32>, vector<4xf32>
  return
}

// -----

func.func @aligned_2d(%x: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'tuna.aligned' needs a 1-D scalable vector}}
  %v = vector.load %x[%i, %i] {tuna.aligned} : memref<?x?xf32>, vector<2x[1]xf32>
  return
}

// -----

func.func @aligned_bits(%x: memref<?xi1>, %i: index) {
  // expected-error @+1 {{'tuna.aligned' needs elements of whole bytes; got 'i1'}}
  %v = vector.load %x[%i] {tuna.aligned} : memref<?xi1>, vector<[8]xi1>
  return
}

// -----

func.func @aligned_twice(%x: memref<?xf32>, %i: index) {
  // expected-error @+1 {{has both 'alignment' and 'tuna.aligned': keep one}}
  %v = vector.load %x[%i] {alignment = 4, tuna.aligned} : memref<?xf32>, vector<[1]xf32>
  return
}

// -----

// The targets a kernel supports (#tuna.target).

gpu.module @m {
  // expected-error @+2 {{#tuna.target for nvptx takes 'chips' or 'min', not both}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @chips_and_min() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"], min = "sm_80">]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target: 'min' is for nvptx chips, not amdgcn}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @amd_min() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = amdgcn, min = "gfx90a">]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target: bad nvptx chip "gfx942": an NVIDIA chip is written sm_XY}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @wrong_arch_chip() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, chips = ["gfx942"]>]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target: bad amdgcn chip "gfx999": an AMD chip is written gfxNNN, a processor LLVM knows, and 'gfx999' is none}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @unknown_gfx() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = amdgcn, chips = ["gfx999"]>]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target: bad nvptx chip "sm_70": an NVIDIA chip is written sm_XY, XY >= 75}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @old_chip() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, min = "sm_70">]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target: 'min' cannot be "sm_90a": the features of an 'a' chip run only on it; name it in 'chips'}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @min_a() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, min = "sm_90a">]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target for amdgcn lists no chips (leave 'chips' out for all)}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @no_chips() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = amdgcn, chips = []>]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+2 {{#tuna.target for nvptx: chips are strings, got 90}}
  // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
  gpu.func @chip_not_string() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, chips = [90]>]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'targets' names nvptx twice (one entry per architecture)}}
  gpu.func @twice() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = nvptx, min = "sm_80">, #tuna.target<arch = nvptx, chips = ["sm_90a"]>]>} { gpu.return }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'targets' of a GPU kernel names host (a GPU kernel runs on nvptx or amdgcn)}}
  gpu.func @gpu_on_host() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (b)>, block = affine_map<()[b] -> (b)>, targets = [#tuna.target<arch = host>]>} { gpu.return }
}

// -----

// expected-error @+1 {{'targets' of a host kernel names amdgcn (a host kernel runs on the host)}}
func.func @host_on_amd() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, targets = [#tuna.target<arch = amdgcn>]>} { return }

// -----

// expected-error @+2 {{#tuna.target: bad host chip "x86": the host target takes no chip}}
// expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'targets'}}
func.func @host_chip() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, targets = [#tuna.target<arch = host, chips = ["x86"]>]>} { return }
