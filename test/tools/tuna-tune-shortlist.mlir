// tuna-tune -o writes per bucket a ranked shortlist into the database (the
// pick first), --shortlist 0 none; the settings' errors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=host -o %t/scale.tuna > /dev/null 2>&1
// RUN: tuna-tune %t/scale.tuna --shape "d0=1024,4096" --no-cache --no-isolate -o %t/db.json --shortlist 2 > /dev/null
// RUN: FileCheck %s < %t/db.json
// RUN: tuna-tune %t/scale.tuna --shape "d0=1024" --no-cache --no-isolate -o %t/plain.json --shortlist 0 > /dev/null
// RUN: FileCheck %s --check-prefix=PLAIN < %t/plain.json
// RUN: tuna-tune %t/scale.tuna --shape "d0=1024" --no-cache --no-isolate -o %t/default.json > /dev/null
// RUN: FileCheck %s --check-prefix=DEFAULT < %t/default.json
// RUN: tuna-tune %t/scale.tuna --shape "d0=1000,65536" --first-call %t/db.json | FileCheck %s --check-prefix=FIRST
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --first-call %t/db.json -o %t/y.json 2>&1 | FileCheck %s --check-prefix=FIRSTO
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --no-cache --shortlist 3 2>&1 | FileCheck %s --check-prefix=NODB
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --no-cache -o %t/x.json --shortlist -1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tuna-tune %t/scale.tuna --shape d0=8 --no-cache --no-prune --verify-pruning 2>&1 | FileCheck %s --check-prefix=VERIFY

// CHECK:      "version": 2,
// CHECK:      "signature": [
// CHECK-NEXT:   1024
// CHECK:      "variant": "[[PICK:scale_host__v[0-9]+]]",
// CHECK:      "shortlist": [
// CHECK-NEXT:   {
// CHECK-NEXT:    "variant": "[[PICK]]",
// CHECK:        },
// CHECK-NEXT:   {
// CHECK-NEXT:    "variant": "scale_host__v{{[0-9]+}}",
// CHECK-NEXT:    "config": {
// CHECK-NEXT:     "chunk": {{[0-9]+}}
// CHECK-NEXT:    }
// CHECK-NEXT:   }
// CHECK-NEXT:  ]
// CHECK:      "signature": [
// CHECK-NEXT:   4096
// CHECK:      "shortlist": [

// PLAIN:     "version": 1,
// PLAIN-NOT: shortlist

// Without --shortlist: up to 8, of the candidates that were timed to the end.
// DEFAULT:      "version": 2,
// DEFAULT:      "shortlist": [
// DEFAULT-NEXT:   {
// DEFAULT-NEXT:    "variant": "scale_host__v

// An application's first call with the database: the bucket [d0=1024] has a
// shortlist of 2, [d0=65536] no entry.
// FIRST:      [1/2] scale_host [d0=1000]: tuned bucket [d0=1024]: scale_host__v
// FIRST-NEXT:   first call: 2 of 6 candidates timed (shortlist), decided (tuned) in {{.*}} ms; the launch took {{.*}} ms
// FIRST-NEXT: [2/2] scale_host [d0=65536]: tuned bucket [d0=65536]: scale_host__v
// FIRST-NEXT:   first call: {{[2-6]}} of 6 candidates timed, decided (tuned) in {{.*}} ms; the launch took {{.*}} ms
// FIRSTO: tuna-tune: error: --first-call DB measures an application's first call: it takes no -o, --verify-pruning or --strategy

// NODB: tuna-tune: error: --shortlist K sets the shortlists of the database: give -o FILE
// NEGATIVE: tuna-tune: error: --shortlist -1: expected a number of candidates >= 0
// VERIFY: tuna-tune: error: --verify-pruning checks the pruning that --no-prune turns off
