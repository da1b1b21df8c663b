// RUN: tuna-opt %s -split-input-file --tuna-expand="report-dropped" -verify-diagnostics | FileCheck %s
// RUN: not tuna-opt %s -split-input-file --tuna-expand="plan-only" 2>&1 | FileCheck %s --check-prefix=PLAN

// Tensor maps (`tensor_maps`, `tuna.tensor_map`): a variant takes, after the
// kernel's own arguments, one hidden `!llvm.ptr {tuna.tensor_map}` per map
// its folded body still reads, in map order, and the dispatch table lists
// them with their boxes (the parameters substituted; a box may read exact
// key values). `use` is a bit mask of the maps the body reads: 0 reads none,
// 1 map 0, 2 map 1, 3 both.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?x?xf32>, %b: memref<?xf16>, %n: index) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"use", [0, 1, 2, 3]>, #tuna.param<"bk", [16]>],
        defaults = {use = 0, bk = 16},
        key = [#tuna.key<arg = 2>],
        grid = affine_map<(n)[use, bk] -> (n ceildiv bk)>,
        block = affine_map<(n)[use, bk] -> (128)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(n)[use, bk] -> (bk, 8)>, swizzle = 64>,
                       #tuna.tensor_map<arg = 1, box = affine_map<(n)[use, bk] -> (n mod 64 + 8)>, l2_promotion = 256>]>} {
      %use = tuna.param "use" : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %bit0 = arith.andi %use, %c1 : index
      %reads0 = arith.cmpi ne, %bit0, %c0 : index
      scf.if %reads0 {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      %bit1 = arith.andi %use, %c2 : index
      %reads1 = arith.cmpi ne, %bit1, %c0 : index
      scf.if %reads1 {
        %map = tuna.tensor_map 1 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
        %again = tuna.tensor_map 1 : !llvm.ptr
        nvvm.prefetch tensormap, %again : !llvm.ptr
      }
      gpu.return
    }
  }
}
// CHECK-DAG:   #[[BOX0:map[0-9]*]] = affine_map<(d0) -> (16, 8)>
// CHECK-DAG:   #[[BOX1:map[0-9]*]] = affine_map<(d0) -> (d0 mod 64 + 8)>
// CHECK-LABEL: gpu.module @k__v0
// CHECK:       gpu.func @k__v0(%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: index) kernel
// CHECK-NOT:   tuna.tensor_map
// CHECK-LABEL: gpu.module @k__v1
// CHECK:       gpu.func @k__v1(%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: index, %[[M0:.*]]: !llvm.ptr {tuna.tensor_map}) kernel
// CHECK:       nvvm.prefetch tensormap, %[[M0]] : !llvm.ptr
// CHECK-LABEL: gpu.module @k__v2
// CHECK:       gpu.func @k__v2(%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: index, %[[M1:.*]]: !llvm.ptr {tuna.tensor_map}) kernel
// CHECK:       nvvm.prefetch tensormap, %[[M1]] : !llvm.ptr
// CHECK-NEXT:  nvvm.prefetch tensormap, %[[M1]] : !llvm.ptr
// CHECK-LABEL: gpu.module @k__v3
// CHECK:       gpu.func @k__v3(%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: index, %[[A:.*]]: !llvm.ptr {tuna.tensor_map}, %[[B:.*]]: !llvm.ptr {tuna.tensor_map}) kernel
// CHECK:       nvvm.prefetch tensormap, %[[A]] : !llvm.ptr
// CHECK:       nvvm.prefetch tensormap, %[[B]] : !llvm.ptr
// CHECK-NOT:   tuna.tensor_map
// CHECK:       tuna.dispatch @k attributes {{{.*}}tensor_maps = [#tuna.tensor_map<arg = 0, box = {{.*}}, swizzle = 64>, #tuna.tensor_map<arg = 1, box = {{.*}}, l2_promotion = 256>]
// CHECK-NEXT:  tuna.variant @k__v0::@k__v0 config {bk = 16 : i64, use = 0 : i64} grid #{{.*}} block #{{.*}}{{$}}
// CHECK-NEXT:  tuna.variant @k__v1::@k__v1 config {bk = 16 : i64, use = 1 : i64} grid #{{.*}} block #{{.*}} tensor_maps [0] boxes [#[[BOX0]]]{{$}}
// CHECK-NEXT:  tuna.variant @k__v2::@k__v2 config {bk = 16 : i64, use = 2 : i64} grid #{{.*}} block #{{.*}} tensor_maps [1] boxes [#[[BOX1]]]{{$}}
// CHECK-NEXT:  tuna.variant @k__v3::@k__v3 config {bk = 16 : i64, use = 3 : i64} grid #{{.*}} block #{{.*}} tensor_maps [0, 1] boxes [#[[BOX0]], #[[BOX1]]]{{$}}

// PLAN: error: kernel 'k' has tensor maps, whose hidden parameters are known only once its variants are built: expand it without plan-only

// -----

// A configuration whose box breaks TMA's rules once its parameters are
// substituted is dropped (bk = 32: 128 bytes of f32, over the 64-byte
// swizzle span; bk = 2: 8 bytes, not a multiple of 16), whether its body
// reads the map (use = 1) or not.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-remark @+4 {{kernel 'k': dropped configuration {bk = 2, use = 0}: tensor map #0: its inner box is 8 bytes, not a multiple of 16}}
    // expected-remark @+3 {{kernel 'k': dropped configuration {bk = 2, use = 1}: tensor map #0: its inner box is 8 bytes, not a multiple of 16}}
    // expected-remark @+2 {{kernel 'k': dropped configuration {bk = 32, use = 0}: tensor map #0: its inner box is 128 bytes, over the 64-byte swizzle span}}
    // expected-remark @+1 {{kernel 'k': dropped configuration {bk = 32, use = 1}: tensor map #0: its inner box is 128 bytes, over the 64-byte swizzle span}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"bk", [2, 16, 32]>, #tuna.param<"use", [0, 1]>], defaults = {bk = 16, use = 0},
        grid = affine_map<()[bk, use] -> (1)>, block = affine_map<()[bk, use] -> (128)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[bk, use] -> (bk, 8)>, swizzle = 64>]>} {
      %use = tuna.param "use" : index
      %c0 = arith.constant 0 : index
      %reads = arith.cmpi ne, %use, %c0 : index
      scf.if %reads {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      gpu.return
    }
  }
}
// CHECK:       #[[BOX:map[0-9]*]] = affine_map<() -> (16, 8)>
// CHECK-LABEL: gpu.module @k__v0
// CHECK:       gpu.func @k__v0(%{{.*}}: memref<?x?xf32>) kernel
// CHECK-LABEL: gpu.module @k__v1
// CHECK:       gpu.func @k__v1(%{{.*}}: memref<?x?xf32>, %{{.*}}: !llvm.ptr {tuna.tensor_map}) kernel
// CHECK:       tuna.dispatch @k
// CHECK-NEXT:  tuna.variant @k__v0::@k__v0 config {bk = 16 : i64, use = 0 : i64} {{.*}}{{$}}
// CHECK-NEXT:  tuna.variant @k__v1::@k__v1 config {bk = 16 : i64, use = 1 : i64} {{.*}} tensor_maps [0] boxes [#[[BOX]]]{{$}}
// CHECK-NOT:   tuna.variant

// -----

// The default variant launches where no other can (a buffer TMA cannot
// describe excludes every variant that takes a map), so it must read none.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{kernel 'k': the default configuration {use = 1} reads tensor map 0, so a shape TMA cannot describe (a misaligned buffer, a stride) would leave no variant to launch: make the default a configuration that reads no map}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<
        params = [#tuna.param<"use", [0, 1]>], defaults = {use = 1},
        grid = affine_map<()[use] -> (1)>, block = affine_map<()[use] -> (128)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[use] -> (16, 8)>>]>} {
      %use = tuna.param "use" : index
      %c0 = arith.constant 0 : index
      %reads = arith.cmpi ne, %use, %c0 : index
      scf.if %reads {
        %map = tuna.tensor_map 0 : !llvm.ptr
        nvvm.prefetch tensormap, %map : !llvm.ptr
      }
      gpu.return
    }
  }
}
