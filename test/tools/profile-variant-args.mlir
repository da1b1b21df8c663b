// bench/gpu/profile_variant.sh checks its arguments before it builds or
// profiles anything: the usage without enough of them, an unknown type,
// a family bundle that is not there.
// RUN: not bash %S/../../bench/gpu/profile_variant.sh e4m3 1 2 3 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: not bash %S/../../bench/gpu/profile_variant.sh f32 1 2 3 v 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TUNA_BUNDLES=%t not bash %S/../../bench/gpu/profile_variant.sh bf16 1 2 3 v 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BUNDLE -DDIR=%t

// USAGE: Nsight Compute on named variants of a wgmma matmul family
// USAGE: bash bench/gpu/profile_variant.sh f16|bf16|e4m3 M N K VARIANT...
// TYPE: profile_variant.sh: unknown type f32 (f16, bf16 or e4m3)
// BUNDLE: profile_variant.sh: no [[DIR]]/matmul_wgmma_bf16_tiles.tuna (bash bench/make_bundles.sh)
