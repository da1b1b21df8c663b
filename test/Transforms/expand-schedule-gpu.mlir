// RUN: tuna-opt %s --tuna-expand -allow-unregistered-dialect | FileCheck %s

// A GPU kernel's schedule lives in the kernel's gpu.module (symbols are
// looked up in the nearest symbol table). Two kernels share it here: it is
// erased with the last of them, before the gpu.module goes (a fuzzer found
// the pass reading the schedule after the module had taken it along), and
// no variant's gpu.module gets a copy.

module attributes {gpu.container_module} {
  gpu.module @m attributes {transform.with_named_sequence} {
    gpu.func @first(%n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"b", [64, 128]>], defaults = {b = 64, tm = 16},
        key = [#tuna.key<arg = 0>], schedule = @pick,
        grid = affine_map<(n)[b, tm] -> (n ceildiv b, 1)>,
        block = affine_map<(n)[b, tm] -> (b, 1)>>} {
      %b = tuna.param "b" : index
      "test.use"(%b) : (index) -> ()
      gpu.return
    }
    gpu.func @second(%n: index) kernel attributes {tuna.space = #tuna.space<
        defaults = {tm = 16}, key = [#tuna.key<arg = 0>], schedule = @pick,
        grid = affine_map<(n)[tm] -> (n ceildiv 64, 1)>,
        block = affine_map<(n)[tm] -> (64, 1)>>} {
      %tm = tuna.param "tm" : index
      "test.use"(%tm) : (index) -> ()
      gpu.return
    }
    transform.named_sequence @pick(%root: !transform.any_op {transform.readonly}) {
      %tm = transform.tune.knob<"tm"> options = [16, 32] -> !transform.param<i64>
      transform.yield
    }
  }
}

// CHECK-NOT:   transform.
// CHECK:       gpu.module @first__v0 {
// CHECK:         "test.use"(%c64)
// CHECK:       gpu.module @first__v1 {
// CHECK:         "test.use"(%c128)
// CHECK:       gpu.module @second__v0 {
// CHECK:         "test.use"(%c16)
// CHECK:       gpu.module @second__v1 {
// CHECK:         "test.use"(%c32)
// CHECK-NOT:   transform.
// CHECK:       tuna.dispatch @first
// CHECK-NOT:   gpu.module @m
// CHECK-NOT:   transform.
