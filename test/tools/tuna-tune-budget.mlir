// The timing budget of one shape is tuna-tune's to set (--budget-ms, else
// TUNA_TUNE_BUDGET_MS, else 2000 ms), and the check's runs are not taken
// from it. With a budget of 0 every candidate still gets its one sample
// (and the check still checks every candidate); a budget that is given
// lets them take more.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: tuna-tune %t/scale.tuna --shape d0=65536 --budget-ms 0 --check --verbose --no-cache 2>&1 | FileCheck %s --check-prefix=SPENT
// RUN: env TUNA_TUNE_BUDGET_MS=0 tuna-tune %t/scale.tuna --shape d0=65536 --check --verbose --no-cache 2>&1 | FileCheck %s --check-prefix=SPENT
// SPENT-COUNT-6: tuna:   [{{[0-9]}}] scale_host__v{{[0-9]}} (chunk={{[0-9]+}}): {{[0-9.]+}} ms (median of 1, min
// SPENT-NOT: median of
// SPENT: check: 6 checked against the output 6 of 6 variants agree on (the default's), compared on the host in {{[0-9.]+}} ms; 0 rejected

// The command line wins over the environment.
// RUN: env TUNA_TUNE_BUDGET_MS=0 tuna-tune %t/scale.tuna --shape d0=65536 --budget-ms 60000 --verbose --no-cache 2>&1 | FileCheck %s --check-prefix=GIVEN
// GIVEN: (median of {{[2-9]|[1-9][0-9]+}}, min

// RUN: not tuna-tune %t/scale.tuna --shape d0=65536 --budget-ms -1 --no-cache 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: tuna-tune: error: --budget-ms '-1': expected a non-negative number
