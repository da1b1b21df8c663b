// bench/gpu/compare.py --case: cases given on the command line instead of
// the built-in list (a one-off shape, reproducible from the repository);
// --dry-run lists them without CUDA. A malformed case is a usage error.
// RUN: rm -rf %t && mkdir -p %t && touch %t/layernorm.tuna
// RUN: %python %S/../../bench/gpu/compare.py --bundles %t --dry-run \
// RUN:   --case 'layernorm:layernorm:{"rows": 2048, "cols": 16384}' \
// RUN:   --case 'softmax:softmax:{"rows": 7, "cols": 8192}' | FileCheck %s
// RUN: not %python %S/../../bench/gpu/compare.py --bundles %t --dry-run \
// RUN:   --case layernorm:layernorm 2>&1 | FileCheck %s --check-prefix=PARTS
// RUN: not %python %S/../../bench/gpu/compare.py --bundles %t --dry-run \
// RUN:   --case 'layernorm:layernorm:{"rows": "x"}' 2>&1 | FileCheck %s --check-prefix=SHAPE

// CHECK:      dry run: no CUDA
// CHECK-NEXT: layernorm rows=2048,cols=16384 {{.*}}layernorm.tuna
// CHECK-NEXT: softmax rows=7,cols=8192 {{.*}}softmax.tuna (missing: skipped)
// CHECK-NOT:  scale

// PARTS: error: argument --case: expected KERNEL:BUNDLE:SHAPE, got 'layernorm:layernorm'
// SHAPE: error: argument --case: SHAPE of {{.*}} must be a JSON object of integers
