// tuna-tune --strategy on a host space of 1,100 configurations
// (matmul_host_wide: tm x tn x tk, kernels-mlir/wide_spaces.py). Host timings
// are noisy on a loaded machine, so nothing here depends on which
// configuration is fastest: only on what each strategy visits given its seed,
// on the budgets and on the output listing every evaluation. How close the
// picks come to exhaustive's best is measured by bench/gpu/search_table.py
// (docs/search.md). Compiling the 1,100 variants is most of this test's time
// (about 80 s on two cores).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../kernels-mlir/wide_spaces.py matmul_host_wide -o %t/wide.mlir
// RUN: tuna-compile %t/wide.mlir --target=host -o %t/wide.tuna | FileCheck %s --check-prefix=COMPILE
// COMPILE: kernel matmul_host_wide: 1100 variants

// Exhaustive visits the configurations in id order (the product, tk varying
// fastest); its budget stops it after exactly 100.
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy exhaustive --budget-evals 100 > %t/exhaustive
// RUN: FileCheck %s --check-prefix=EXHAUSTIVE < %t/exhaustive
// EXHAUSTIVE:      exhaustive search: 100 of 1100 candidates (100 measured now), stopped: evaluation budget
// EXHAUSTIVE-NEXT:   tm=1, tn=16, tk=8: {{[0-9.e-]+}} ms
// EXHAUSTIVE-NEXT:   tm=1, tn=16, tk=16: {{[0-9.e-]+}} ms
// EXHAUSTIVE-COUNT-7: {{^}}  tm=1, tn=16, tk={{[0-9]+}}: {{[0-9.e-]+}} ms
// EXHAUSTIVE-NEXT:   tm=1, tn=16, tk=512: {{[0-9.e-]+}} ms
// EXHAUSTIVE-NEXT:   tm=1, tn=32, tk=8: {{[0-9.e-]+}} ms
// EXHAUSTIVE-COUNT-89: {{^}}  tm=1, tn={{[0-9]+}}, tk={{[0-9]+}}: {{[0-9.e-]+}} ms
// EXHAUSTIVE-NEXT:   re-timed tm=1, tn=

// Random: the same seed visits the same configurations in the same order,
// none twice; every evaluation is in the output, the report and the
// database, and the report marks the other 1,050 as not visited.
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy random --budget-evals 50 --seed 7 \
// RUN:   --report %t/random.html -o %t/random.json > %t/random-a
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy random --budget-evals 50 --seed 7 > %t/random-b
// RUN: FileCheck %s --check-prefix=RANDOM < %t/random-a
// RANDOM: random search: 50 of 1100 candidates (50 measured now), stopped: evaluation budget
// RUN: grep '^  tm' %t/random-a | cut -d: -f1 > %t/random-a.visits
// RUN: grep '^  tm' %t/random-b | cut -d: -f1 > %t/random-b.visits
// RUN: diff %t/random-a.visits %t/random-b.visits
// RUN: sort -u %t/random-a.visits | wc -l | FileCheck %s --check-prefix=FIFTY
// FIFTY: {{^ *}}50{{$}}
// RUN: grep -o 'class="\(pick\|other\)"' %t/random.html | wc -l | FileCheck %s --check-prefix=FIFTY
// RUN: grep -o 'not visited by the search' %t/random.html | wc -l | FileCheck %s --check-prefix=UNVISITED
// UNVISITED: {{^ *}}1050{{$}}
// The database holds the visits timed to the end (docs/cache.md): all 50
// but those eliminated early as clearly slower, which depends on the
// machine's load; never a candidate the search did not visit.
// RUN: %python -c "import json, sys; n = len(json.load(open(sys.argv[1]))['entries'][0]['candidates']); print('visits in the database:', 'ok' if 25 <= n <= 50 else n)" %t/random.json \
// RUN:   | FileCheck %s --check-prefix=DATABASE
// DATABASE: visits in the database: ok

// Pattern: its first round is a seeded sample of 8 (1,100 / 200, at least
// 8), the same for the same seed whatever the timings; later rounds follow
// the measurements, so only their number is fixed by the budget.
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy pattern --budget-evals 40 --seed 7 > %t/pattern-a
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy pattern --budget-evals 40 --seed 7 > %t/pattern-b
// RUN: FileCheck %s --check-prefix=PATTERN < %t/pattern-a
// PATTERN:      pattern search: 40 of 1100 candidates (40 measured now), stopped: evaluation budget
// PATTERN-COUNT-40: {{^}}  tm={{[0-9]+}}, tn={{[0-9]+}}, tk={{[0-9]+}}: {{[0-9.e-]+}} ms{{$}}
// RUN: grep '^  tm' %t/pattern-a | head -8 | cut -d: -f1 > %t/pattern-a.first
// RUN: grep '^  tm' %t/pattern-b | head -8 | cut -d: -f1 > %t/pattern-b.first
// RUN: diff %t/pattern-a.first %t/pattern-b.first
// RUN: grep '^  tm' %t/pattern-a | cut -d: -f1 | sort -u | wc -l | FileCheck %s --check-prefix=FORTY
// FORTY: {{^ *}}40{{$}}

// A resumed pattern search replays its predecessor's 20 visits for free,
// whatever their times, and measures 20 more.
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy pattern --budget-evals 20 --seed 3 --resume %t/pattern.jsonl > %t/resume-1
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy pattern --budget-evals 20 --seed 3 --resume %t/pattern.jsonl > %t/resume-2
// RUN: FileCheck %s --check-prefix=RESUMED < %t/resume-2
// RESUMED:       pattern search: 40 of 1100 candidates (20 measured now), stopped: evaluation budget
// RESUMED-COUNT-20: ms (resumed){{$}}
// RESUMED-NOT:   resumed
// RUN: grep '^  tm' %t/resume-1 | cut -d: -f1 > %t/resume-1.visits
// RUN: grep '^  tm' %t/resume-2 | head -20 | cut -d: -f1 | diff %t/resume-1.visits -

// A time budget: the first batch (8) is always measured, and nothing after.
// RUN: tuna-tune %t/wide.tuna --shape "d0=16 d1=16 d2=16" --no-cache --strategy random --budget-s 1e-9 | FileCheck %s --check-prefix=SECONDS
// SECONDS: random search: 8 of 1100 candidates (8 measured now), stopped: time budget
