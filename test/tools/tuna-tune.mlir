// tuna-tune on the host kernel of kernels-mlir/scale.mlir: one decision per
// pow2 bucket, written to the cache, a database and an HTML report.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: env TUNA_CACHE_DIR=%t/cache tuna-tune %t/scale.tuna --shape "d0=1000,1024,4096" --arg a2=2.5 --check -o %t/db.json --report %t/report.html | FileCheck %s
// RUN: env TUNA_CACHE_DIR=%t/cache tuna-cache list | FileCheck %s --check-prefix=CACHE
// RUN: tuna-cache --dir %t/none import %t/db.json | FileCheck %s --check-prefix=DB
// RUN: FileCheck %s --check-prefix=HTML < %t/report.html

// CHECK:      [1/3] scale_host [d0=1000]: tuned bucket [d0=1024]: scale_host__v{{[0-9]+}} (chunk={{[0-9]+}}) {{.*}} ms
// CHECK-NEXT:   check: 6 checked against the output 6 of 6 variants agree on (the default's), compared on the host in {{[0-9.]+}} ms; 0 rejected
// CHECK-NEXT: [2/3] scale_host [d0=1024]: bucket [d0=1024] already decided
// CHECK-NEXT: [3/3] scale_host [d0=4096]: tuned bucket [d0=4096]: scale_host__v
// CHECK-NEXT:   check: 6 checked
// CHECK-NEXT: scale_host: default config chunk={{[0-9]+}} wins {{[12]}} of 2 tuned shapes
// CHECK-NEXT: cache: {{.*}}/cache/tuning.json
// CHECK-NEXT: database: {{.*}}/db.json (2 added, 0 replaced, 0 kept)
// CHECK-NEXT: report: {{.*}}/report.html

// CACHE:      cache/tuning.json: 2 entries
// CACHE:      scale_host {{ *}}[d0=1024]
// CACHE-NEXT: scale_host {{ *}}[d0=4096]

// DB: db.json: 2 added, 0 replaced, 0 kept

// HTML:     A finalist's median is its final round's; the candidates behind the finalists were timed before that round
// HTML:     <h2>scale_host [d0=1024]</h2>
// HTML-NEXT: <p>Key values [d0=1000]; tuned in {{.*}}; outputs checked against the output 6 of 6 variants agree on (the default{{.*}}s), compared on the host in {{[0-9.]+}} ms.</p>
// HTML:     <g class="pick"><title>scale_host__v{{[0-9]+}}: median

// A shapes file, ranges, and shapes that do not fit the kernel.
// RUN: printf '# sizes\nd0=64..256  # three buckets\n\nd0=300\n' > %t/shapes.txt
// RUN: tuna-tune %t/scale.tuna --shapes %t/shapes.txt --no-cache | FileCheck %s --check-prefix=FILE
// FILE: [1/4] scale_host [d0=64]: {{tuned|default}} bucket [d0=64]
// FILE: [4/4] scale_host [d0=300]: {{tuned|default}} bucket [d0=512]
// RUN: not tuna-tune %t/scale.tuna --shape "d0=4 d1=8" --no-cache 2>&1 | FileCheck %s --check-prefix=KEYS
// KEYS: tuna-tune: error: kernel 'scale_host' has 1 key values, the shape [d0=4, d1=8] gives 2
// RUN: not tuna-tune %t/scale.tuna --shape d1=8 --no-cache 2>&1 | FileCheck %s --check-prefix=GAP
// GAP: tuna-tune: error: shape 'd1=8' gives no value for d0
// RUN: not tuna-tune %t/scale.tuna --shape d0=8..4 --no-cache 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: tuna-tune: error: shape 'd0=8..4': '8..4' is not an integer or a range A..B (0 < A <= B)
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --arg a3=5 --no-cache 2>&1 | FileCheck %s --check-prefix=KEYARG
// KEYARG: [1/1] scale_host [d0=8]: error: kernel 'scale_host': --arg a3: argument 3 is a key value (give it in the shape)
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --dims a2=4 --no-cache 2>&1 | FileCheck %s --check-prefix=DIMS
// DIMS: error: kernel 'scale_host': --dims a2: argument 2 is not a memref
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --kernel nope --no-cache 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: tuna-tune: error: {{.*}}nope
// RUN: not tuna-tune %t/scale.tuna --no-cache 2>&1 | FileCheck %s --check-prefix=NOSHAPE
// NOSHAPE: tuna-tune: error: no shape: give --shape or --shapes
// The bundle is read in a thread of its own while the device opens; what
// it finds wrong is still the error, naming the file.
// RUN: not tuna-tune %t/missing.tuna --shape d0=8 --no-cache 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tuna-tune: error: {{.*}}missing.tuna: cannot open bundle file
// RUN: echo garbage > %t/garbage.tuna
// RUN: not tuna-tune %t/garbage.tuna --shape d0=8 --no-cache 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: tuna-tune: error: {{.*}}garbage.tuna: not a Tuna bundle

// A device list spreads each shape's candidates over the devices; `host`
// listed again is a host backend of its own (the spread's path without GPUs).
// Which device takes which chunk depends on which is free first (the CPU's
// cores are shared): the line says where each was timed.
// RUN: tuna-tune %t/scale.tuna --shape d0=4096 --arg a2=2.5 --check --device host,host --no-cache | FileCheck %s --check-prefix=SPREAD
// SPREAD:      [1/1] scale_host [d0=4096]: tuned bucket [d0=4096]: scale_host__v
// SPREAD-NEXT:   check: {{[0-9]+}} checked
// SPREAD-NEXT:   timed: {{[1-9][0-9]*}} here{{(, [1-9][0-9]* on device 1 \(.*\))?$}}
// RUN: tuna-tune %t/scale.tuna --shape d0=4096 --arg a2=2.5 --device host,host,host --no-cache --no-isolate | FileCheck %s --check-prefix=SPREAD3
// SPREAD3: timed: {{[1-9][0-9]*}} here{{(, [1-9][0-9]* on device [12] \(.*\))*$}}
// RUN: not tuna-tune %t/scale.tuna --shape d0=64 --device host, --no-cache 2>&1 | FileCheck %s --check-prefix=EMPTYDEV
// EMPTYDEV: tuna-tune: error: --device 'host,': expected DEVICE,DEVICE,... (no empty name)
// RUN: not tuna-tune %t/scale.tuna --shape d0=64 --device host,cuda:local --no-cache 2>&1 | FileCheck %s --check-prefix=LOCALDEV
// LOCALDEV: tuna-tune: error: --device 'host,cuda:local': cuda:local names one device per rank; it takes no list
// RUN: not tuna-tune %t/scale.tuna --shape d0=64 --device host,cuda:3,cuda:3 --no-cache 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: tuna-tune: error: --device 'host,cuda:3,cuda:3': 'cuda:3' is listed twice

// A flat rows x cols buffer keyed on rows and cols: guessing max(rows, cols)
// elements made the host variants read past it (a segfault with no message);
// tuna-tune asks for --dims instead, and takes products there.
// RUN: tuna-compile %S/../../kernels-mlir/softmax.mlir --target=host -o %t/softmax.tuna > /dev/null 2>&1
// RUN: not tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --no-cache 2>&1 | FileCheck %s --check-prefix=FLAT
// FLAT: [1/1] softmax_host [d0=64, d1=128]: error: kernel 'softmax_host': the size of argument 0 dimension 0 is neither in the key nor given by --dims; guessing the largest key value (128) makes it 128 elements, fewer than d0*d1 = 8192, which the kernel may index: give its size with --dims a0=d0*d1 (or the size it has)
// RUN: tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims a0=d0*d1 --dims a1=d0*d1 --check --no-cache | FileCheck %s --check-prefix=PRODUCT
// PRODUCT: [1/1] softmax_host [d0=64, d1=128]: {{tuned|default}} bucket [d0=64, d1=128]
// RUN: not tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims a0=d0*x --no-cache 2>&1 | FileCheck %s --check-prefix=BADPRODUCT
// BADPRODUCT: tuna-tune: error: --dims 'a0=d0*x': 'd0*x' is not an integer expression of the key values dI (d0*d1, 2*d0 + 1, (d1 + 3) / 4: + - * / % and parentheses)

// Simple expressions of key values, not only products: (d0 + 1) * d1 - d1
// is d0 * d1 exactly (the check passes, the buffers are not over-allocated
// past what a kernel that reads too far would hit); sizes evaluate in
// checked arithmetic.
// RUN: tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims "a0=(d0 + 1) * d1 - d1" --dims "a1=d1*(d0 %% 65 + 0)/1" --check --no-cache | FileCheck %s --check-prefix=EXPR
// EXPR: [1/1] softmax_host [d0=64, d1=128]: tuned bucket [d0=64, d1=128]
// EXPR-NEXT: check: 9 checked
// RUN: not tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims "a0=d0*d1/(d1-d1)" --dims a1=d0*d1 --no-cache 2>&1 | FileCheck %s --check-prefix=DIVZERO
// DIVZERO: error: kernel 'softmax_host': --dims a0: dimension 0 divides by zero
// RUN: not tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims "a0=d0-d1" --dims a1=d0*d1 --no-cache 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: kernel 'softmax_host': argument 0 dimension 0 would be -64
// RUN: not tuna-tune %t/softmax.tuna --kernel softmax_host --shape "d0=64 d1=128" --dims "a0=(d0*d1" --no-cache 2>&1 | FileCheck %s --check-prefix=PAREN
// PAREN: tuna-tune: error: --dims 'a0=(d0*d1': '(d0*d1' is not an integer expression
