// tuna-tune --strategy on the host kernel of kernels-mlir/matmul_host.mlir
// (18 configurations of tm, tn, tk): every visited configuration and its
// time in the output, budgets, seeds, a resume file, and bad input.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../../kernels-mlir/matmul_host.mlir --target=host -o %t/mm.tuna > /dev/null 2>&1

// Exhaustive: every candidate, then the close ones re-timed; the pick lands
// in the cache and the database.
// RUN: env TUNA_CACHE_DIR=%t/cache tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --strategy exhaustive -o %t/db.json | FileCheck %s --check-prefix=ALL
// ALL:      [1/1] matmul_host [d0=64, d1=64, d2=64]: tuned bucket [d0=64, d1=64, d2=64]: matmul_host__v{{[0-9]+}} (tm={{[0-9]+}}, tn={{[0-9]+}}, tk={{[0-9]+}}) {{.*}} ms
// ALL-NEXT: exhaustive search: 18 of 18 candidates (18 measured now), stopped: space exhausted; the tuning took {{[0-9]+\.[0-9]}} ms{{$}}
// ALL-NEXT:   tm=8, tn=64, tk=32: {{[0-9.e-]+}} ms
// ALL-NEXT:   tm=8, tn=64, tk=128: {{[0-9.e-]+}} ms
// ALL-COUNT-16: {{^}}  tm={{[0-9]+}}, tn={{[0-9]+}}, tk={{[0-9]+}}: {{[0-9.e-]+}} ms
// ALL-NEXT:   re-timed tm={{.*}}: {{[0-9.e-]+}} ms (first {{[0-9.e-]+}} ms), samples {{[0-9.e-]+}}..{{[0-9.e-]+}} ms
// ALL:      database: {{.*}}db.json (1 added, 0 replaced, 0 kept)
// RUN: env TUNA_CACHE_DIR=%t/cache tuna-cache list | FileCheck %s --check-prefix=CACHE
// CACHE: matmul_host {{ *}}[d0=64, d1=64, d2=64]

// A budget of evaluations; a resumed search replays the first and continues.
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy pattern --budget-evals 5 --resume %t/search.jsonl | FileCheck %s --check-prefix=FIRST
// FIRST: pattern search: 5 of 18 candidates (5 measured now), stopped: evaluation budget
// FIRST-NOT: resumed
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy pattern --budget-evals 5 --resume %t/search.jsonl | FileCheck %s --check-prefix=SECOND
// SECOND: pattern search: 10 of 18 candidates (5 measured now), stopped: evaluation budget
// SECOND-COUNT-5: ms (resumed)
// SECOND-NOT: resumed
// RUN: FileCheck %s --check-prefix=FILE < %t/search.jsonl
// FILE:      {"format":"tuna-search","version":1,"kernel":"matmul_host","source_hash":"{{[0-9a-f]+}}","device":"{{.*}}","signature":[64,64,64],"parameters":["tm","tn","tk"]}
// FILE-COUNT-10: {"config":{"tm":{{[0-9]+}},"tn":{{[0-9]+}},"tk":{{[0-9]+}}},"ms":

// The same seed visits the same configurations.
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 6 --seed 3 | grep '^  tm' | cut -d: -f1 > %t/seed3a
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 6 --seed 3 | grep '^  tm' | cut -d: -f1 > %t/seed3b
// RUN: diff %t/seed3a %t/seed3b

// A time budget.
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-s 1e-9 | FileCheck %s --check-prefix=SECONDS
// SECONDS: random search: {{[0-9]+}} of 18 candidates ({{[0-9]+}} measured now), stopped: time budget

// Bad input.
// RUN: not tuna-tune %t/mm.tuna --shape "d0=128 d1=64 d2=64" --no-cache --strategy pattern --resume %t/search.jsonl 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: resume file {{.*}}search.jsonl: it holds measurements of another search: signature '[d0=64, d1=64, d2=64]' (this search: '[d0=128, d1=64, d2=64]'); it is left as it is
// RUN: FileCheck %s --check-prefix=FILE < %t/search.jsonl
// RUN: not tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy annealing 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: tuna-tune: error: unknown search strategy 'annealing' (known: exhaustive, random, pattern)
// RUN: not tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: tuna-tune: error: search budget: 0 evaluations; expected a positive number
// RUN: not tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-s -2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: tuna-tune: error: search budget: -2.000000 seconds; expected a positive number
// RUN: not tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --budget-evals 5 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: tuna-tune: error: --budget-evals, --budget-s and --resume are settings of --strategy
// RUN: not tuna-tune %t/mm.tuna --shape "d0=64,128 d1=64 d2=64" --no-cache --strategy pattern --resume %t/two.jsonl 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: tuna-tune: error: --resume FILE holds the search of one kernel and one shape; got 1 kernels and 2 shapes

// A search with --check says what the check of its batches did (it said
// "not done: nothing ran" although every batch was checked).
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 6 --check | FileCheck %s --check-prefix=CHECKED
// CHECKED: check: {{[0-9]+}} checked against the output {{.*}} compared on the host in {{[0-9.]+}} ms; 0 rejected

// --timings: the phases of tuna-tune and of its tuning worker, on stderr
// (only their names: the times depend on the machine). The bundle file is
// read in a thread of its own while the device opens, and the inputs drawn
// in one. Without isolation, no worker.
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 4 --timings 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMINGS
// TIMINGS:      tuna-tune: phase times (wall; a phase includes those indented under it):
// TIMINGS-NEXT:   run {{[0-9.]+}} ms
// TIMINGS-NEXT:     device open {{[0-9.]+}} ms
// TIMINGS-NEXT:     bundle load {{[0-9.]+}} ms
// TIMINGS:          inputs {{[0-9.]+}} ms
// TIMINGS-NEXT:     search {{[0-9.]+}} ms
// TIMINGS:            batch {{[0-9.]+}} ms
// TIMINGS:            re-timing {{[0-9.]+}} ms
// TIMINGS:        bundle file (beside the device open) {{[0-9.]+}} ms
// TIMINGS-NEXT:     bundle read {{[0-9.]+}} ms
// TIMINGS-NEXT:     bundle parse {{[0-9.]+}} ms
// TIMINGS-NEXT:   inputs drawn {{[0-9.]+}} ms
// TIMINGS:        tuning worker start (spawn until ready; overlaps the above) {{[0-9.]+}} ms
// TIMINGS:        in the tuning workers
// TIMINGS-NEXT:     device open {{[0-9.]+}} ms
// TIMINGS:          timing {{[0-9.]+}} ms
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 4 --timings --no-isolate 2>&1 >/dev/null | FileCheck %s --check-prefix=INPROCESS
// INPROCESS: search
// INPROCESS: timing
// INPROCESS-NOT: worker
// With --check, the worker loads the comparison while it starts, before the
// first request.
// RUN: tuna-tune %t/mm.tuna --shape "d0=64 d1=64 d2=64" --no-cache --strategy random --budget-evals 4 --check --timings 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECKTIMINGS
// CHECKTIMINGS:     in the tuning workers
// CHECKTIMINGS-NOT: request
// CHECKTIMINGS:     comparison load
// CHECKTIMINGS:     request
