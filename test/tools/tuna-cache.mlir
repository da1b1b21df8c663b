// tuna-cache over a cache that tuna-tune filled.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: tuna-tune %t/scale.tuna --shape d0=256..1024 --cache-dir %t/c > /dev/null
// RUN: tuna-cache --dir %t/c list | FileCheck %s --check-prefix=LIST
// RUN: tuna-cache --dir %t/c list --kernel other | FileCheck %s --check-prefix=NONE
// RUN: tuna-cache --dir %t/c show --signature 512 | FileCheck %s --check-prefix=SHOW
// RUN: tuna-cache --dir %t/c export %t/e.json --signature 256 | FileCheck %s --check-prefix=EXPORT
// RUN: tuna-cache --dir %t/c clear --signature 256 | FileCheck %s --check-prefix=CLEAR1
// RUN: tuna-cache --dir %t/c import %t/e.json | FileCheck %s --check-prefix=IMPORT
// RUN: tuna-cache --dir %t/c import %t/e.json | FileCheck %s --check-prefix=AGAIN
// RUN: tuna-cache --dir %t/c clear | FileCheck %s --check-prefix=CLEAR

// LIST:      c/tuning.json: 3 entries
// LIST-NEXT: KERNEL {{ *}}SIGNATURE {{ *}}PICK {{ *}}CONFIG {{ *}}DEVICE {{ *}}TUNA {{ *}}DECIDED
// LIST-NEXT: scale_host  [d0=256]  {{ *}}scale_host__v{{[0-9]+}}  chunk={{[0-9]+}} {{.*}} (host)  0.1.0  {{[0-9-]+ [0-9:]+}} UTC
// LIST-NEXT: scale_host  [d0=512]
// LIST-NEXT: scale_host  [d0=1024]
// NONE:      c/tuning.json: 0 entries
// NONE-NOT:  scale_host

// SHOW:      kernel 'scale_host' (source hash {{[0-9a-f]+}}) for [d0=512]
// SHOW-NEXT:   device: {{.*}} (host, driver glibc {{.*}}), tuna 0.1.0
// SHOW-NEXT:   decided: {{.*}} UTC, tuning took {{.*}} ms
// SHOW-NEXT:   pick: [[PICK:scale_host__v[0-9]+]] (chunk={{[0-9]+}})
// SHOW-NEXT:   candidates (median per launch, fastest first):
// SHOW-NEXT:   * [[PICK]] {{ *}}{{[0-9.]+}} ms
// SHOW-NOT:  for [d0=

// EXPORT: wrote 1 entry to {{.*}}e.json
// CLEAR1: removed 1 entry from {{.*}}c/tuning.json
// IMPORT: e.json: 1 added, 0 replaced, 0 kept (newer in {{.*}}c/tuning.json)
// AGAIN:  e.json: 0 added, 1 replaced, 0 kept
// CLEAR:  removed 3 entries

// A damaged file: an error for list, set aside by clear.
// RUN: echo "{" > %t/c/tuning.json
// RUN: not tuna-cache --dir %t/c list 2>&1 | FileCheck %s --check-prefix=DAMAGED
// DAMAGED: tuna-cache: error: {{.*}}c/tuning.json: not a readable Tuna tuning cache: [json.exception.parse_error.101]
// RUN: tuna-cache --dir %t/c clear 2>&1 | FileCheck %s --check-prefix=ASIDE
// ASIDE: tuna: tuning cache: {{.*}}c/tuning.json is unreadable ({{.*}}); moved it to {{.*}}c/tuning.json.corrupt-{{[0-9]+}}
// ASIDE: removed 0 entries

// RUN: not tuna-cache --dir %t/c frob 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: tuna-cache: error: unknown command 'frob'
// RUN: not tuna-cache --dir %t/c import %t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tuna-cache: error: cannot read {{.*}}missing.json: No such file or directory
// RUN: not tuna-cache --dir %t/c import 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: tuna-cache: error: import needs at least one file
