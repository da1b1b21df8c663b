// RUN: not tuna-compile %s --target=host -o %t.tuna --header %t.h 2>&1 | FileCheck %s
// RUN: not ls %t.tuna
// RUN: not ls %t.h

// A kernel named like a declaration of the header has no launcher; nothing
// is written.
// CHECK: tuna-compile: error: kernel 'module' cannot have a launcher: the header's namespace declares 'module' itself; rename the kernel
func.func @module(%n: index) attributes {
  tuna.space = #tuna.space<params = [#tuna.param<"p", [1, 2]>], defaults = {p = 1}>} {
  return
}
