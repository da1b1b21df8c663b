// bench/gpu/profile_pick.sh checks its arguments before it builds or
// profiles anything: the usage without enough of them, a bundle that is
// not there.
// RUN: not bash %S/../../bench/gpu/profile_pick.sh a.tuna k 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: rm -rf %t && mkdir -p %t
// RUN: not bash %S/../../bench/gpu/profile_pick.sh %t/none.tuna transpose "d0=8 d1=8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BUNDLE -DDIR=%t

// USAGE: Nsight Compute on the variant tuna-tune picks for one kernel of a bundle
// USAGE: bash bench/gpu/profile_pick.sh BUNDLE KERNEL SHAPE [tuna-tune arguments...]
// BUNDLE: profile_pick.sh: no bundle [[DIR]]/none.tuna
