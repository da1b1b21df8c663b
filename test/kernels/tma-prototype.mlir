// A prototype of a TMA tile load (docs/tma-design.md): the kernel asks for a
// CUDA tensor map (CUtensorMap, 128 bytes, 64-byte aligned) of its input
// memref in its space (`tensor_maps`); with tma = 1 it reads it with
// `tuna.tensor_map 0`, loads one rows x 64 box of f32 at (col, row) into
// shared memory with cp.async.bulk.tensor (completion on an mbarrier: init,
// arrive.expect_tx of the box's bytes, try_wait.parity 0), and writes the
// tile, row-major, to `out`. Out-of-bounds parts of the box arrive as zeros
// (the descriptor's fill); the transaction count is the whole box either
// way. tuna-expand gives that variant the map as a hidden parameter after
// the kernel's own, which the NVPTX pipeline makes a by-value grid
// constant; the bundle describes the map (the kernel's `tensorMaps`) and
// the variant's box. The default (tma = 0) loads the same tile with plain
// loads and takes no map: it runs where TMA cannot describe the input.
// `tma_flat` is the same kernel on a flat buffer with its sizes as scalars
// (the key), its map viewing the buffer as a height x width matrix
// (`shape`). test/gpu/CudaTensorMapTest.cpp runs both on an H100.

// RUN: tuna-opt %s --tuna-expand --tuna-lower-nvptx=chip=sm_90a | FileCheck %s --check-prefix=LLVM
// RUN: rm -rf %t.dir
// RUN: tuna-compile %s --target=nvptx:sm_90a --no-ptxas -o %t.tuna --emit-dir=%t.dir | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.dir/tma_tile.rows=32,tma=1.sm_90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.dir/tma_tile.rows=32,tma=0.sm_90a.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS0 %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.dir/tma_tile.rows=32,tma=1.sm_90a.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS1 %}
// RUN: FileCheck %s --check-prefix=BUNDLE --input-file=%t.tuna
// RUN: od -An -tu4 -j8 -N4 %t.tuna | FileCheck %s --check-prefix=VERSION

// The hidden argument comes after the kernel's own (the 2-D input memref,
// the output memref, col and row in MLIR's expanded form: allocated,
// aligned, offset, sizes, strides) and becomes a by-value, 64-byte aligned,
// 128-byte grid-constant parameter of the LLVM kernel; the default takes
// none.
// LLVM: llvm.func @tma_tile__v0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i32, %arg13: i32) attributes
// LLVM-NOT: nvvm.cp.async.bulk.tensor
// LLVM: llvm.func @tma_tile__v1(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i32, %arg13: i32, %arg14: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// LLVM-NOT: tuna.tensor_map
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg14, %{{.*}}, box[%arg12, %arg13] : !llvm.ptr<7>, !llvm.ptr

// PTX: .target sm_90a
// PTX: .entry tma_tile__v1(
// PTX: .param .align 64 .b8 tma_tile__v1_param_14[128]
// PTX: .shared .align 128 .b8 __wg_tma_tile__v1_0[8192];
// PTX: mov.b64 [[PARAM:%rd[0-9]+]], tma_tile__v1_param_14;
// PTX: cvta.param.u64 [[MAP:%rd[0-9]+]], [[PARAM]];
// PTX: mbarrier.init.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{.*}}], {{%r[0-9]+}};
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], {{\[}}[[MAP]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{.*}}];
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-NOT: .local

// PTXAS0: Compiling entry function 'tma_tile__v0' for 'sm_90a'
// PTXAS0: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS1: Compiling entry function 'tma_tile__v1' for 'sm_90a'
// PTXAS1: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// SUMMARY: kernel tma_tile: 2 variants, default tma_tile__v0
// SUMMARY: kernel tma_flat: 2 variants, default tma_flat__v0

// The bundle has tensor maps: format version 2 (the 4 bytes after the magic).
// VERSION: {{^ *2$}}
// BUNDLE:      "key": [],
// BUNDLE-NEXT: "tensorMaps": [
// BUNDLE-NEXT:  {
// BUNDLE-NEXT:   "arg": 0,
// BUNDLE-NEXT:   "l2Promotion": 128,
// BUNDLE-NEXT:   "oobFill": "zero"
// BUNDLE-NEXT:  }
// BUNDLE-NEXT: ],
// BUNDLE:      "name": "tma_tile__v0",
// BUNDLE-NOT:  "tensorMaps"
// BUNDLE:      "name": "tma_tile__v1",
// BUNDLE:      "tensorMaps": [
// BUNDLE-NEXT:   {
// BUNDLE-NEXT:    "map": 0,
// BUNDLE-NEXT:    "box": [
// BUNDLE-NEXT:     [
// BUNDLE-NEXT:      64
// BUNDLE-NEXT:     ],
// BUNDLE-NEXT:     [
// BUNDLE-NEXT:      32
// BUNDLE-NEXT:     ]
// BUNDLE-NEXT:    ],
// BUNDLE-NEXT:    "swizzle": 0
// BUNDLE-NEXT:   }
// BUNDLE-NEXT:  ],
// BUNDLE-NEXT:  "code": [

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tma_tile(%in: memref<?x?xf32>, %out: memref<?xf32>,
                       %col: i32, %row: i32)
        workgroup(%tile: memref<32x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64},
                  %bar: memref<1xi64, #gpu.address_space<workgroup>> {llvm.align = 8 : i64})
        kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"rows", [32]>, #tuna.param<"tma", [0, 1]>],
        defaults = {rows = 32, tma = 0},
        grid = affine_map<()[rows, tma] -> (1)>,
        block = affine_map<()[rows, tma] -> (256)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[rows, tma] -> (64, rows)>,
                                        l2_promotion = 128>],
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %rows = tuna.param "rows" : index
      %tma = tuna.param "tma" : index
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %n = arith.muli %rows, %c64 : index
      %use_map = arith.cmpi ne, %tma, %c0 : index
      scf.if %use_map {
        // The box is rows x 64 floats (64 innermost); the runtime encodes the
        // map of `in` with that box, so the kernel's byte count follows the
        // same parameter.
        %map = tuna.tensor_map 0 : !llvm.ptr

        // Shared addresses as LLVM pointers: the tile as a shared::cluster
        // destination (this block's own), the mbarrier as shared::cta.
        %tile_addr = memref.extract_aligned_pointer_as_index %tile
            : memref<32x64xf32, #gpu.address_space<workgroup>> -> index
        %tile_i64 = arith.index_cast %tile_addr : index to i64
        %tile_cta = llvm.inttoptr %tile_i64 : i64 to !llvm.ptr<3>
        %tile_dst = llvm.addrspacecast %tile_cta : !llvm.ptr<3> to !llvm.ptr<7>
        %bar_addr = memref.extract_aligned_pointer_as_index %bar
            : memref<1xi64, #gpu.address_space<workgroup>> -> index
        %bar_i64 = arith.index_cast %bar_addr : index to i64
        %bar_ptr = llvm.inttoptr %bar_i64 : i64 to !llvm.ptr<3>

        %leader = arith.cmpi eq, %tid, %c0 : index
        scf.if %leader {
          nvvm.mbarrier.init %bar_ptr, %c1_i32 : !llvm.ptr<3>, i32
          nvvm.fence.mbarrier.init
        }
        gpu.barrier
        scf.if %leader {
          %bytes_idx = arith.muli %rows, %c256 : index
          %bytes = arith.index_cast %bytes_idx : index to i32
          nvvm.mbarrier.arrive.expect_tx %bar_ptr, %bytes : !llvm.ptr<3>, i32
          nvvm.cp.async.bulk.tensor.shared.cluster.global %tile_dst, %map, %bar_ptr, box[%col, %row]
              : !llvm.ptr<7>, !llvm.ptr
        }
        // Phase 0 completes when the leader has arrived and every byte of the
        // box has landed.
        nvvm.mbarrier.try_wait.parity %bar_ptr, %c0_i32, %c0_i32 : !llvm.ptr<3>, i32, i32

        scf.for %i = %tid to %n step %c256 {
          %r = arith.divui %i, %c64 : index
          %c = arith.remui %i, %c64 : index
          %v = memref.load %tile[%r, %c] : memref<32x64xf32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%i] : memref<?xf32>
        }
      } else {
        // The default (tma = 0): the same tile with plain loads, zeros where
        // the box leaves the input, for the buffers a map cannot describe.
        %c1 = arith.constant 1 : index
        %height = memref.dim %in, %c0 : memref<?x?xf32>
        %width = memref.dim %in, %c1 : memref<?x?xf32>
        %row0 = arith.index_cast %row : i32 to index
        %col0 = arith.index_cast %col : i32 to index
        scf.for %i = %tid to %n step %c256 {
          %r = arith.divui %i, %c64 : index
          %c = arith.remui %i, %c64 : index
          %y = arith.addi %row0, %r : index
          %x = arith.addi %col0, %c : index
          %y_in = arith.cmpi ult, %y, %height : index
          %x_in = arith.cmpi ult, %x, %width : index
          %inside = arith.andi %y_in, %x_in : i1
          %v = scf.if %inside -> f32 {
            %loaded = memref.load %in[%y, %x] : memref<?x?xf32>
            scf.yield %loaded : f32
          } else {
            scf.yield %zero : f32
          }
          memref.store %v, %out[%i] : memref<?xf32>
        }
      }
      gpu.return
    }

    // The same tile of a flat buffer (height x width floats, row-major), the
    // map viewing it as a matrix (`shape`).
    gpu.func @tma_flat(%in: memref<?xf32>, %out: memref<?xf32>,
                       %col: i32, %row: i32, %height: index, %width: index)
        workgroup(%tile: memref<32x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64},
                  %bar: memref<1xi64, #gpu.address_space<workgroup>> {llvm.align = 8 : i64})
        kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"rows", [32]>, #tuna.param<"tma", [0, 1]>],
        defaults = {rows = 32, tma = 0},
        key = [#tuna.key<arg = 4>, #tuna.key<arg = 5>],
        grid = affine_map<(h, w)[rows, tma] -> (1)>,
        block = affine_map<(h, w)[rows, tma] -> (256)>,
        tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(h, w)[rows, tma] -> (64, rows)>,
                                        shape = affine_map<(h, w)[rows, tma] -> (h, w)>,
                                        l2_promotion = 128>],
        targets = [#tuna.target<arch = nvptx, chips = ["sm_90a"]>]
      >} {
      %rows = tuna.param "rows" : index
      %tma = tuna.param "tma" : index
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %n = arith.muli %rows, %c64 : index
      %use_map = arith.cmpi ne, %tma, %c0 : index
      scf.if %use_map {
        // The box is rows x 64 floats (64 innermost); the runtime encodes the
        // map of `in` with that box, so the kernel's byte count follows the
        // same parameter.
        %map = tuna.tensor_map 0 : !llvm.ptr

        // Shared addresses as LLVM pointers: the tile as a shared::cluster
        // destination (this block's own), the mbarrier as shared::cta.
        %tile_addr = memref.extract_aligned_pointer_as_index %tile
            : memref<32x64xf32, #gpu.address_space<workgroup>> -> index
        %tile_i64 = arith.index_cast %tile_addr : index to i64
        %tile_cta = llvm.inttoptr %tile_i64 : i64 to !llvm.ptr<3>
        %tile_dst = llvm.addrspacecast %tile_cta : !llvm.ptr<3> to !llvm.ptr<7>
        %bar_addr = memref.extract_aligned_pointer_as_index %bar
            : memref<1xi64, #gpu.address_space<workgroup>> -> index
        %bar_i64 = arith.index_cast %bar_addr : index to i64
        %bar_ptr = llvm.inttoptr %bar_i64 : i64 to !llvm.ptr<3>

        %leader = arith.cmpi eq, %tid, %c0 : index
        scf.if %leader {
          nvvm.mbarrier.init %bar_ptr, %c1_i32 : !llvm.ptr<3>, i32
          nvvm.fence.mbarrier.init
        }
        gpu.barrier
        scf.if %leader {
          %bytes_idx = arith.muli %rows, %c256 : index
          %bytes = arith.index_cast %bytes_idx : index to i32
          nvvm.mbarrier.arrive.expect_tx %bar_ptr, %bytes : !llvm.ptr<3>, i32
          nvvm.cp.async.bulk.tensor.shared.cluster.global %tile_dst, %map, %bar_ptr, box[%col, %row]
              : !llvm.ptr<7>, !llvm.ptr
        }
        // Phase 0 completes when the leader has arrived and every byte of the
        // box has landed.
        nvvm.mbarrier.try_wait.parity %bar_ptr, %c0_i32, %c0_i32 : !llvm.ptr<3>, i32, i32

        scf.for %i = %tid to %n step %c256 {
          %r = arith.divui %i, %c64 : index
          %c = arith.remui %i, %c64 : index
          %v = memref.load %tile[%r, %c] : memref<32x64xf32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%i] : memref<?xf32>
        }
      } else {
        // The default (tma = 0): the same tile with plain loads, zeros where
        // the box leaves the input, for the buffers a map cannot describe.
        %row0 = arith.index_cast %row : i32 to index
        %col0 = arith.index_cast %col : i32 to index
        scf.for %i = %tid to %n step %c256 {
          %r = arith.divui %i, %c64 : index
          %c = arith.remui %i, %c64 : index
          %y = arith.addi %row0, %r : index
          %x = arith.addi %col0, %c : index
          %y_in = arith.cmpi ult, %y, %height : index
          %x_in = arith.cmpi ult, %x, %width : index
          %inside = arith.andi %y_in, %x_in : i1
          %v = scf.if %inside -> f32 {
            %yw = arith.muli %y, %width : index
            %at = arith.addi %yw, %x : index
            %loaded = memref.load %in[%at] : memref<?xf32>
            scf.yield %loaded : f32
          } else {
            scf.yield %zero : f32
          }
          memref.store %v, %out[%i] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
