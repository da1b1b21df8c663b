// RUN: tuna-compile %s --target=host -o %t.tuna --verify-diagnostics

// tuna-expand's errors come through with their locations: here every
// configuration breaks the constraint, so the space is empty.

#none = affine_set<()[step] : (step - 1000 >= 0)>
// expected-error @below {{kernel 'empty': every configuration breaks a constraint or a limit}}
func.func @empty(%x: memref<?xf32>) attributes {
  tuna.space = #tuna.space<params = [#tuna.param<"step", [1, 2]>], defaults = {step = 1}, constraints = [#none]>} {
  return
}
