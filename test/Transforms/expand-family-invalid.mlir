// RUN: tuna-opt %s -split-input-file --tuna-expand -verify-diagnostics
// RUN: not tuna-opt %s -split-input-file --tuna-expand="plan-only" 2>&1 | FileCheck %s --check-prefix=PLAN

// A family's kernels must be tunable kernels of the module with one ABI,
// one key and the same targets.

// expected-error @below {{family 'f' names 'missing', which is not a tunable kernel of this module}}
tuna.family @f kernels ["missing"]

// -----

func.func @a(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
func.func @b(%x: memref<?xf16>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
// expected-error @below {{family 'f': kernel 'b' has another function type than 'a'; a family's kernels must have the same function type, key and targets}}
tuna.family @f kernels ["a", "b"]

// -----

func.func @a(%x: memref<?xf32>, %n: index, %m: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
func.func @b(%x: memref<?xf32>, %n: index, %m: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 2>]>} {
  return
}
// expected-error @below {{family 'f': kernel 'b' has another key than 'a'}}
tuna.family @f kernels ["a", "b"]

// -----

func.func @a(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
func.func @b(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"t", [-1, 1]>], defaults = {t = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
// -1 marks a parameter absent in the variants of a kernel without it.
// expected-error @below {{family 'f': variant @b__v0 of kernel 'b' sets 't' to -1, the value that marks the parameter absent in the variants of a kernel without it}}
tuna.family @f kernels ["a", "b"]

// -----

func.func @a(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"kernel", [1]>], defaults = {kernel = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
// expected-error @below {{family 'f': kernel 'a' has a parameter named 'kernel', the name the family gives to its choice of kernel}}
tuna.family @f kernels ["a"]

// -----

func.func @a(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
  return
}
// expected-error @below {{'tuna.family' op names kernel 'a' twice}}
tuna.family @f kernels ["a", "a"]

// -----

// expected-error @below {{'tuna.family' op names no kernels}}
tuna.family @f kernels []

// -----

// A GPU kernel and a host kernel of the same type cannot share a table.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @a(%x: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[s] -> (n)>, block = affine_map<(n)[s] -> (32)>>} {
      gpu.return
    }
  }
  func.func @b(%x: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
      params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>]>} {
    return
  }
  // expected-error @below {{family 'f': kernel 'b' is a host kernel and 'a' is not; a family's kernels are all GPU kernels or all host ones}}
  tuna.family @f kernels ["a", "b"]
}

// -----

// The family's table takes its name at the top level, where a GPU kernel's
// table may have it (a host kernel of that name is a redefinition already).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @a(%x: memref<?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"s", [1]>], defaults = {s = 1}, key = [#tuna.key<arg = 1>],
        grid = affine_map<(n)[s] -> (n)>, block = affine_map<(n)[s] -> (32)>>} {
      gpu.return
    }
  }
  // expected-error @below {{family 'a': its dispatch table needs the name 'a' at the top level of the module, where another symbol has it}}
  tuna.family @a kernels ["a"]
}

// PLAN: family 'f' names 'missing', which is not a tunable kernel of this module
// PLAN: error: family 'f': kernel 'a' is only planned (plan-only: the JIT's lazy mode, tuna-compile --variants); a family's table is made of built variants
