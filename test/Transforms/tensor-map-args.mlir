// RUN: tuna-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(tuna-tensor-map-args))' | FileCheck %s --check-prefix=RECORD
// RUN: tuna-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(tuna-tensor-map-args,convert-gpu-to-nvvm,tuna-tensor-map-args))' \
// RUN:   | FileCheck %s --check-prefix=APPLY

// Before convert-gpu-to-nvvm the pass records where the marked arguments
// land in the lowered signature (a rank-2 memref is 7 parameters, so the
// second map is parameter 8); after it, those parameters are 128-byte,
// 64-byte aligned by-value grid constants.

// RECORD-LABEL: gpu.func @two_maps
// RECORD-SAME:    (%{{.*}}: !llvm.ptr, %{{.*}}: memref<?x?xf16>, %{{.*}}: !llvm.ptr, %{{.*}}: i32)
// RECORD-SAME:    tuna.tensor_map_params = array<i64: 0, 8>
// APPLY-LABEL: llvm.func @two_maps
// APPLY-SAME:    (%arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// APPLY-SAME:     %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: i64,
// APPLY-SAME:     %arg8: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// APPLY-SAME:     %arg9: i32)
// APPLY-NOT:     tuna.tensor_map
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @two_maps(%a: !llvm.ptr {tuna.tensor_map}, %x: memref<?x?xf16>,
                     %b: !llvm.ptr {tuna.tensor_map}, %n: i32) kernel {
    gpu.return
  }
}

// -----

// A kernel without marks is left alone.
// RECORD-LABEL: gpu.func @plain
// RECORD-NOT:     tuna.tensor_map_params
// APPLY-LABEL: llvm.func @plain(%arg0: !llvm.ptr)
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @plain(%a: !llvm.ptr) kernel {
    gpu.return
  }
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{argument #0 is marked 'tuna.tensor_map' but has type 'i64'; a tensor map argument is an !llvm.ptr}}
  gpu.func @not_a_pointer(%a: i64 {tuna.tensor_map}) kernel {
    gpu.return
  }
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{'tuna.tensor_map' marks an argument of a function that is not a kernel}}
  gpu.func @helper(%a: !llvm.ptr {tuna.tensor_map}) {
    gpu.return
  }
}
