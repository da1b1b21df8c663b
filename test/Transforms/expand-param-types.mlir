// RUN: tuna-opt %s --tuna-expand -allow-unregistered-dialect | FileCheck %s

// A parameter read as i1 is a flag: 0 and 1 both fit (i1's signed range
// would be [-1, 0]); wider types take their signed range.

func.func @flag() attributes {tuna.space = #tuna.space<params = [#tuna.param<"f", [0, 1]>, #tuna.param<"w", [-128, 127]>], defaults = {f = 0, w = 127}>} {
  %f = tuna.param "f" : i1
  %w = tuna.param "w" : i8
  "test.use"(%f, %w) : (i1, i8) -> ()
  return
}
// CHECK-LABEL: func.func @flag__v0
// CHECK: "test.use"(%false, %c-128_i8)
// CHECK-LABEL: func.func @flag__v3
// CHECK: "test.use"(%true, %c127_i8)
