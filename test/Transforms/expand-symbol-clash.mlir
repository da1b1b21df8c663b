// RUN: tuna-opt %s --tuna-expand -verify-diagnostics

// Found by fuzzing (test/fuzz): the dispatch table of a GPU kernel takes the
// kernel's name at the top level, which a function already had; the pass
// produced IR that did not verify.
module attributes {gpu.container_module} {
  func.func private @k()
  gpu.module @m {
    // expected-error @+1 {{kernel 'k': its dispatch table needs the name 'k' at the top level of the module, where another symbol has it}}
    gpu.func @k(%n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (b)>>} {
      gpu.return
    }
  }
}
