// Issue 13, item 5: a kernel's body is written once for every vector width
// (`vscale = "vec"` and scalable vector types, docs/attributes.md, "Vector
// widths"), not once per width in an `scf.index_switch` on `vec`. No kernel
// of kernels-mlir/ (the examples a new kernel is written from) repeats its
// body per width; the host row kernels and row_sum are written once.
// RUN: not grep -n "scf.index_switch %vec" %S/../../kernels-mlir/*.mlir %S/../../examples/tutorial/bias_gelu.mlir
// RUN: grep -c '^ *vscale = "vec"$' %S/../../kernels-mlir/reduce.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c '^ *vscale = "vec"$' %S/../../kernels-mlir/softmax.mlir | FileCheck %s --check-prefix=ONE
// RUN: grep -c '^ *vscale = "vec"$' %S/../../kernels-mlir/layernorm.mlir | FileCheck %s --check-prefix=ONE
// TWO: {{^2$}}
// ONE: {{^1$}}
