// RUN: tuna-opt %s -split-input-file --tuna-expand="max-variants=8" -verify-diagnostics

#small = affine_set<()[b] : (64 - b >= 0)>
// expected-error @+1 {{kernel 'k': the default configuration {b = 128} is dropped: it breaks constraint #0}}
func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [32, 64, 128]>], defaults = {b = 128}, constraints = [#small]>} {
  return
}

// -----

#none = affine_set<()[b] : (b - 1000 >= 0)>
// expected-error @+1 {{kernel 'k': every configuration breaks a constraint or a limit}}
func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [32, 64]>], defaults = {b = 32}, constraints = [#none]>} {
  return
}

// -----

// expected-error @+1 {{kernel 'k' has 9 configurations, over the limit of 8 (max-variants)}}
func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"a", [1, 2, 3]>, #tuna.param<"b", [1, 2, 3]>], defaults = {a = 1, b = 1}>} {
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{kernel 'k': the default configuration {b = 2048} is dropped: its block has 2048 threads, over the limit of 1024}}
    gpu.func @k(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [256, 2048]>], defaults = {b = 2048}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (b)>>} {
      gpu.return
    }
  }
}

// -----

func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 200]>], defaults = {b = 1}>} {
  // expected-error @+1 {{'tuna.param' op value 200 of parameter 'b' does not fit in 'i8'}}
  %b = tuna.param "b" : i8
  return
}

// -----

gpu.module @a {
  gpu.func @k() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (b)>>} {
    gpu.return
  }
}
gpu.module @b {
  // expected-error @+1 {{two tunable kernels are named 'k'; the runtime finds kernels by name}}
  gpu.func @k() kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1]>], defaults = {b = 1}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (b)>>} {
    gpu.return
  }
}

// -----

// expected-error @+1 {{schedule @missing is not a transform.named_sequence}}
func.func @k() attributes {tuna.space = #tuna.space<defaults = {}, schedule = @missing>} {
  return
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @k() attributes {tuna.space = #tuna.space<defaults = {}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    // expected-error @+1 {{knob 'k' used by kernel 'k' must list integer options}}
    %t = transform.tune.knob<"k"> options = ["a", "b"] -> !transform.any_param
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"t", [1]>], defaults = {t = 1}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    // expected-error @+1 {{knob 't' has the name of a parameter of kernel 'k'}}
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{kernel 'k': 'defaults' does not bind parameter 't'}}
  func.func @k() attributes {tuna.space = #tuna.space<defaults = {}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{kernel 'k': default value 3 of parameter 't' is not one of its candidates}}
  func.func @k() attributes {tuna.space = #tuna.space<defaults = {t = 3}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{schedule of kernel 'k' failed for configuration {t = 1}}}
  func.func @k() attributes {tuna.space = #tuna.space<defaults = {t = 1}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    // expected-note @+1 {{for this parameter}}
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{expected as many parameter values}}
    transform.structured.tile_using_for %m tile_sizes [%t] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [0, 1]>], defaults = {b = 0}>} {
  // expected-error @+1 {{'tuna.param' op value 1 of parameter 'b' does not fit in 'i0'}}
  %b = tuna.param "b" : i0
  return
}

// -----

// The knobs are parameters for every check of the space (verifySpace): here
// the constraint's symbols.
#positive = affine_set<()[b] : (b >= 0)>
module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{kernel 'k': constraint #0 takes 0 dimension(s) and 1 symbol(s) but the key has 0 component(s) and the space declares 2 parameter(s)}}
  func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = 1, t = 1}, constraints = [#positive], schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{kernel 'k': config #1 binds unknown parameter 'u'}}
  func.func @k() attributes {tuna.space = #tuna.space<configs = [{t = 1}, {t = 2, u = 1}], defaults = {t = 1}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    %t = transform.tune.knob<"t"> options = [1, 2] -> !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{kernel 'k': the space declares no parameters and its schedule has no unresolved knobs}}
  func.func @k() attributes {tuna.space = #tuna.space<defaults = {}, schedule = @s>} {
    return
  }
  transform.named_sequence @s(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
