// RUN: %python -c "print('func.func @k() attributes {a = ' + '[' * 257 + ']' * 257 + '} { return }')" > %t.deep.mlir
// RUN: not tuna-compile %t.deep.mlir --target=host -o %t.tuna 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tuna-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: %python -c "print('func.func @k() attributes {a = ' + '[' * 250 + ']' * 250 + ', s = \"' + '[' * 300 + '\"} { return } // ' + '(' * 300)" > %t.shallow.mlir
// RUN: not tuna-compile %t.shallow.mlir --target=host -o %t.tuna 2>&1 | FileCheck %s --check-prefix=SHALLOW
// RUN: tuna-opt %t.shallow.mlir | FileCheck %s --check-prefix=OPT

// MLIR's parser recurses once per nesting level of brackets (about 4,000
// levels overflow an 8 MB stack; a fuzzer found 11,000). tuna-compile, the
// JIT and tuna-opt (on a file; standard input is MlirOptMain's to read)
// refuse nesting deeper than 256 levels before parsing, at the place.
// Brackets in strings and comments do not count.

// DEEP: deep.mlir:1:287: error: brackets nest deeper than 256 levels here: MLIR's parser descends once per level and would run out of stack

// SHALLOW-NOT: nest deeper
// SHALLOW: error: no tuna.dispatch in the module
// OPT: func.func @k()
