// tuna-tune --cold (or TUNA_TUNE_COLD=1) times each candidate launch alone
// after an eviction of the device's L2 (Options::coldTiming). The host
// backend cannot evict the CPU's caches: it times back to back, says so,
// and its decisions are ordinary (warm) ones.
// RUN: rm -rf %t && mkdir -p %t/cold %t/bad
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: tuna-tune %t/scale.tuna --shape d0=4096 --cold --verbose --cache-dir %t/c --report %t/report.html 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefix=HTML < %t/report.html
// RUN: env TUNA_TUNE_COLD=1 tuna-tune %t/scale.tuna --shape d0=4096 --verbose --no-cache 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: tuna: kernel 'scale_host' in '{{.*}}scale.tuna' for [d0=4096] (key values [d0=4096]), mode always, on {{.*}}, timed back to back: the host backend cannot evict its cache
// HTML: <p>Key values [d0=4096]; tuned in {{[0-9.]+}} ms; pick scale_host__v{{[0-9]+}} (chunk={{[0-9]+}}); launches timed back to back
// RUN: tuna-cache --dir %t/c list | FileCheck %s --check-prefix=WARM
// WARM: scale_host [d0=4096] scale_host__v
// WARM-NOT: timed cold

// An entry a cold tuning wrote (on a GPU) says so; any other timing is a
// damaged entry.
// RUN: sed 's/"signature"/"timing": "cold", "signature"/' %t/c/tuning.json > %t/cold/tuning.json
// RUN: tuna-cache --dir %t/cold list | FileCheck %s --check-prefix=COLD
// COLD: scale_host [d0=4096] (timed cold) scale_host__v
// RUN: sed 's/"signature"/"timing": "hot", "signature"/' %t/c/tuning.json > %t/bad/tuning.json
// RUN: not tuna-cache --dir %t/bad list 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tuna-cache: error: {{.*}}bad/tuning.json: not a readable Tuna tuning cache: entries[0]: timing: expected "cold" (or no field: timed back to back), got "hot"
