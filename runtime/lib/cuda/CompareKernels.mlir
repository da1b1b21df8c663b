// The correctness check's comparison on NVIDIA GPUs (Options::check; the
// runtime launches these kernels from runtime/lib/DeviceCompare.cpp).
//
// The runtime does not link MLIR: it embeds CompareKernels.ptx, this file
// compiled by Tuna's own NVPTX pipeline for sm_75 (PTX that the driver
// compiles for any newer GPU) as scripts/compare-kernels-ptx.py says;
// `cmake --build build --target update-compare-kernels-ptx` rewrites it and
// test/Target/compare-kernels-ptx.mlir fails when it is stale. The helpers
// are private with internal linkage, so that LLVM inlines them and the PTX
// holds the kernels only.
//
// The rule is compareElements' (runtime/lib/Compare.h), in double precision
// with separately rounded operations (no fused multiply-add), so that the
// device and the host agree on every element: a float element passes when
// want is finite and |got - want| <= absolute + relative * |want|, when
// got == want (equal infinities) or when both are NaN; an integer element when it equals its
// reference. A failing element's ratio is error / allowed, infinity when
// nothing is allowed or the ratio is NaN; the worst element is the one of the
// largest ratio, the first of them on a tie.
//
// A launch of `compare_<type>` or `scale_<type>` has blocks of 256 threads
// (the workgroup buffers' size) in a grid of any size up to the partials'
// capacity; block b writes its record (count, ratio as f64 bits, index) to
// partials[3b .. 3b+2]. `summarize`, one block of 256 threads, folds `parts`
// records into one at summary[0 .. 2]. The scale of a buffer (the largest
// finite |element|, at least 1) is a record's ratio.

module attributes {gpu.container_module} {
  gpu.module @tuna_compare {
    // |value|, by clearing the sign bit (math.absf would become a call into
    // libdevice, which the PTX would then depend on).
    func.func private @magnitude(%value: f64) -> f64
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %no_sign = arith.constant 0x7FFFFFFFFFFFFFFF : i64
      %bits = arith.bitcast %value : f64 to i64
      %cleared = arith.andi %bits, %no_sign : i64
      %magnitude = arith.bitcast %cleared : i64 to f64
      return %magnitude : f64
    }

    // Whether a float element fails, and its ratio.
    func.func private @judge(%a: f64, %b: f64, %absolute: f64, %relative: f64) -> (i1, f64)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %inf = arith.constant 0x7FF0000000000000 : f64
      %zero = arith.constant 0.0 : f64
      %true = arith.constant true
      %difference = arith.subf %a, %b : f64
      %error = func.call @magnitude(%difference) : (f64) -> f64
      %magnitude = func.call @magnitude(%b) : (f64) -> f64
      %proportional = arith.mulf %relative, %magnitude : f64
      %allowed = arith.addf %absolute, %proportional : f64
      %near = arith.cmpf ole, %error, %allowed : f64
      %finite = arith.cmpf olt, %magnitude, %inf : f64
      %within = arith.andi %near, %finite : i1
      %equal = arith.cmpf oeq, %a, %b : f64
      %a_nan = arith.cmpf uno, %a, %a : f64
      %b_nan = arith.cmpf uno, %b, %b : f64
      %both_nan = arith.andi %a_nan, %b_nan : i1
      %close = arith.ori %within, %equal : i1
      %passes = arith.ori %close, %both_nan : i1
      %fails = arith.xori %passes, %true : i1
      %positive = arith.cmpf ogt, %allowed, %zero : f64
      %quotient = arith.divf %error, %allowed : f64
      %quotient_nan = arith.cmpf uno, %quotient, %quotient : f64
      %finite_rule = arith.select %positive, %quotient, %inf : f64
      %ratio = arith.select %quotient_nan, %inf, %finite_rule : f64
      return %fails, %ratio : i1, f64
    }

    // The record of an element to a thread's record: counts a failing
    // element, keeps it when its ratio is larger (a thread sees its
    // elements in increasing order, so a tie keeps the first).
    func.func private @note(%fails: i1, %ratio: f64, %index: index, %count: i64,
                    %worst: f64, %at: i64) -> (i64, f64, i64)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %one = arith.extui %fails : i1 to i64
      %next_count = arith.addi %count, %one : i64
      %larger = arith.cmpf ogt, %ratio, %worst : f64
      %take = arith.andi %fails, %larger : i1
      %i = arith.index_cast %index : index to i64
      %next_worst = arith.select %take, %ratio, %worst : f64
      %next_at = arith.select %take, %i, %at : i64
      return %next_count, %next_worst, %next_at : i64, f64, i64
    }

    // A float element's record added to a thread's.
    func.func private @note_float(%a: f64, %b: f64, %absolute: f64, %relative: f64,
                                  %index: index, %count: i64, %worst: f64,
                                  %at: i64) -> (i64, f64, i64)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %fails, %ratio = func.call @judge(%a, %b, %absolute, %relative)
          : (f64, f64, f64, f64) -> (i1, f64)
      %c, %w, %i = func.call @note(%fails, %ratio, %index, %count, %worst, %at)
          : (i1, f64, index, i64, f64, i64) -> (i64, f64, i64)
      return %c, %w, %i : i64, f64, i64
    }

    // An integer element's record added to a thread's: it fails unless
    // equal, with an infinite ratio (nothing is allowed).
    func.func private @note_integer(%a: i64, %b: i64, %absolute: f64, %relative: f64,
                                    %index: index, %count: i64, %worst: f64,
                                    %at: i64) -> (i64, f64, i64)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %inf = arith.constant 0x7FF0000000000000 : f64
      %fails = arith.cmpi ne, %a, %b : i64
      %c, %w, %i = func.call @note(%fails, %inf, %index, %count, %worst, %at)
          : (i1, f64, index, i64, f64, i64) -> (i64, f64, i64)
      return %c, %w, %i : i64, f64, i64
    }

    // max(largest, |value|) over finite values.
    func.func private @larger_finite(%value: f64, %largest: f64) -> f64
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %inf = arith.constant 0x7FF0000000000000 : f64
      %magnitude = func.call @magnitude(%value) : (f64) -> f64
      %finite = arith.cmpf olt, %magnitude, %inf : f64
      %larger = arith.cmpf ogt, %magnitude, %largest : f64
      %take = arith.andi %finite, %larger : i1
      %next = arith.select %take, %magnitude, %largest : f64
      return %next : f64
    }

    // Two records as one: counts add up; the larger ratio wins, the lower
    // index on a tie.
    func.func private @combine(%count: i64, %worst: f64, %at: i64, %other_count: i64,
                       %other_worst: f64, %other_at: i64) -> (i64, f64, i64)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %sum = arith.addi %count, %other_count : i64
      %larger = arith.cmpf ogt, %other_worst, %worst : f64
      %tie = arith.cmpf oeq, %other_worst, %worst : f64
      %earlier = arith.cmpi slt, %other_at, %at : i64
      %tie_earlier = arith.andi %tie, %earlier : i1
      %take = arith.ori %larger, %tie_earlier : i1
      %next_worst = arith.select %take, %other_worst, %worst : f64
      %next_at = arith.select %take, %other_at, %at : i64
      return %sum, %next_worst, %next_at : i64, f64, i64
    }

    // Folds the records of the block's 256 threads into one, which thread 0
    // stores at records[3 slot .. 3 slot + 2].
    func.func private @store_block_record(%count: i64, %worst: f64, %at: i64,
        %counts: memref<256xi64, #gpu.address_space<workgroup>>,
        %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
        %ats: memref<256xi64, #gpu.address_space<workgroup>>,
        %records: memref<?xi64>, %slot: index)
        attributes {llvm.linkage = #llvm.linkage<internal>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %tid = gpu.thread_id x
      memref.store %count, %counts[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
      memref.store %worst, %worsts[%tid] : memref<256xf64, #gpu.address_space<workgroup>>
      memref.store %at, %ats[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %step = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %step : index
        %active = arith.cmpi ult, %tid, %half : index
        scf.if %active {
          %other = arith.addi %tid, %half : index
          %c = memref.load %counts[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
          %w = memref.load %worsts[%tid] : memref<256xf64, #gpu.address_space<workgroup>>
          %a = memref.load %ats[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
          %oc = memref.load %counts[%other] : memref<256xi64, #gpu.address_space<workgroup>>
          %ow = memref.load %worsts[%other] : memref<256xf64, #gpu.address_space<workgroup>>
          %oa = memref.load %ats[%other] : memref<256xi64, #gpu.address_space<workgroup>>
          %nc, %nw, %na = func.call @combine(%c, %w, %a, %oc, %ow, %oa)
              : (i64, f64, i64, i64, f64, i64) -> (i64, f64, i64)
          memref.store %nc, %counts[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
          memref.store %nw, %worsts[%tid] : memref<256xf64, #gpu.address_space<workgroup>>
          memref.store %na, %ats[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %c = memref.load %counts[%c0] : memref<256xi64, #gpu.address_space<workgroup>>
        %w = memref.load %worsts[%c0] : memref<256xf64, #gpu.address_space<workgroup>>
        %a = memref.load %ats[%c0] : memref<256xi64, #gpu.address_space<workgroup>>
        %wbits = arith.bitcast %w : f64 to i64
        %base = arith.muli %slot, %c3 : index
        %at1 = arith.addi %base, %c1 : index
        %at2 = arith.addi %base, %c2 : index
        memref.store %c, %records[%base] : memref<?xi64>
        memref.store %wbits, %records[%at1] : memref<?xi64>
        memref.store %a, %records[%at2] : memref<?xi64>
      }
      return
    }

    // compare_<type>(got, want, absolute, relative, partials): one kernel
    // per element type; floats become f64 exactly, integers i64 (integer
    // kernels take the tolerances too, and ignore them).

    gpu.func @compare_f16(%got: memref<?xf16>, %want: memref<?xf16>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xf16>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xf16>
        %y = memref.load %want[%i] : memref<?xf16>
        %xd = arith.extf %x : f16 to f64
        %yd = arith.extf %y : f16 to f64
        %nc, %nw, %na = func.call @note_float(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (f64, f64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_bf16(%got: memref<?xbf16>, %want: memref<?xbf16>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xbf16>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xbf16>
        %y = memref.load %want[%i] : memref<?xbf16>
        %xd = arith.extf %x : bf16 to f64
        %yd = arith.extf %y : bf16 to f64
        %nc, %nw, %na = func.call @note_float(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (f64, f64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_f32(%got: memref<?xf32>, %want: memref<?xf32>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xf32>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xf32>
        %y = memref.load %want[%i] : memref<?xf32>
        %xd = arith.extf %x : f32 to f64
        %yd = arith.extf %y : f32 to f64
        %nc, %nw, %na = func.call @note_float(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (f64, f64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_f64(%got: memref<?xf64>, %want: memref<?xf64>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xf64>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xf64>
        %y = memref.load %want[%i] : memref<?xf64>
        %nc, %nw, %na = func.call @note_float(%x, %y, %absolute, %relative, %i, %c, %w, %a)
            : (f64, f64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_i8(%got: memref<?xi8>, %want: memref<?xi8>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xi8>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xi8>
        %y = memref.load %want[%i] : memref<?xi8>
        %xd = arith.extsi %x : i8 to i64
        %yd = arith.extsi %y : i8 to i64
        %nc, %nw, %na = func.call @note_integer(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (i64, i64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_i16(%got: memref<?xi16>, %want: memref<?xi16>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xi16>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xi16>
        %y = memref.load %want[%i] : memref<?xi16>
        %xd = arith.extsi %x : i16 to i64
        %yd = arith.extsi %y : i16 to i64
        %nc, %nw, %na = func.call @note_integer(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (i64, i64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_i32(%got: memref<?xi32>, %want: memref<?xi32>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xi32>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xi32>
        %y = memref.load %want[%i] : memref<?xi32>
        %xd = arith.extsi %x : i32 to i64
        %yd = arith.extsi %y : i32 to i64
        %nc, %nw, %na = func.call @note_integer(%xd, %yd, %absolute, %relative, %i, %c, %w, %a)
            : (i64, i64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @compare_i64(%got: memref<?xi64>, %want: memref<?xi64>,
        %absolute: f64, %relative: f64, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %n = memref.dim %got, %c0 : memref<?xi64>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %count, %worst, %at = scf.for %i = %start to %n step %stride
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %x = memref.load %got[%i] : memref<?xi64>
        %y = memref.load %want[%i] : memref<?xi64>
        %nc, %nw, %na = func.call @note_integer(%x, %y, %absolute, %relative, %i, %c, %w, %a)
            : (i64, i64, f64, f64, index, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    // scale_<type>(want, partials): the largest finite |element| (at least
    // 1), as the record's ratio.

    gpu.func @scale_f16(%want: memref<?xf16>, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %one = arith.constant 1.0 : f64
      %n = memref.dim %want, %c0 : memref<?xf16>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %worst = scf.for %i = %start to %n step %stride iter_args(%m = %one) -> f64 {
        %y = memref.load %want[%i] : memref<?xf16>
        %yd = arith.extf %y : f16 to f64
        %next = func.call @larger_finite(%yd, %m) : (f64, f64) -> f64
        scf.yield %next : f64
      }
      %count = arith.constant 0 : i64
      %at = arith.constant 0 : i64
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @scale_bf16(%want: memref<?xbf16>, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %one = arith.constant 1.0 : f64
      %n = memref.dim %want, %c0 : memref<?xbf16>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %worst = scf.for %i = %start to %n step %stride iter_args(%m = %one) -> f64 {
        %y = memref.load %want[%i] : memref<?xbf16>
        %yd = arith.extf %y : bf16 to f64
        %next = func.call @larger_finite(%yd, %m) : (f64, f64) -> f64
        scf.yield %next : f64
      }
      %count = arith.constant 0 : i64
      %at = arith.constant 0 : i64
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @scale_f32(%want: memref<?xf32>, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %one = arith.constant 1.0 : f64
      %n = memref.dim %want, %c0 : memref<?xf32>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %worst = scf.for %i = %start to %n step %stride iter_args(%m = %one) -> f64 {
        %y = memref.load %want[%i] : memref<?xf32>
        %yd = arith.extf %y : f32 to f64
        %next = func.call @larger_finite(%yd, %m) : (f64, f64) -> f64
        scf.yield %next : f64
      }
      %count = arith.constant 0 : i64
      %at = arith.constant 0 : i64
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    gpu.func @scale_f64(%want: memref<?xf64>, %partials: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %one = arith.constant 1.0 : f64
      %n = memref.dim %want, %c0 : memref<?xf64>
      %start = gpu.global_id x
      %blocks = gpu.grid_dim x
      %threads = gpu.block_dim x
      %stride = arith.muli %blocks, %threads : index
      %worst = scf.for %i = %start to %n step %stride iter_args(%m = %one) -> f64 {
        %y = memref.load %want[%i] : memref<?xf64>
        %next = func.call @larger_finite(%y, %m) : (f64, f64) -> f64
        scf.yield %next : f64
      }
      %count = arith.constant 0 : i64
      %at = arith.constant 0 : i64
      %bid = gpu.block_id x
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %partials, %bid)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }

    // summarize(partials, parts, summary): the records partials[0 .. 3 parts)
    // as one, at summary[0 .. 2]; one block.
    gpu.func @summarize(%partials: memref<?xi64>, %parts: index, %summary: memref<?xi64>)
        workgroup(%counts: memref<256xi64, #gpu.address_space<workgroup>>,
                  %worsts: memref<256xf64, #gpu.address_space<workgroup>>,
                  %ats: memref<256xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0 : i64
      %none = arith.constant -1.0 : f64
      %tid = gpu.thread_id x
      %count, %worst, %at = scf.for %p = %tid to %parts step %c256
          iter_args(%c = %zero, %w = %none, %a = %zero) -> (i64, f64, i64) {
        %base = arith.muli %p, %c3 : index
        %at1 = arith.addi %base, %c1 : index
        %at2 = arith.addi %base, %c2 : index
        %pc = memref.load %partials[%base] : memref<?xi64>
        %pwbits = memref.load %partials[%at1] : memref<?xi64>
        %pa = memref.load %partials[%at2] : memref<?xi64>
        %pw = arith.bitcast %pwbits : i64 to f64
        %nc, %nw, %na = func.call @combine(%c, %w, %a, %pc, %pw, %pa)
            : (i64, f64, i64, i64, f64, i64) -> (i64, f64, i64)
        scf.yield %nc, %nw, %na : i64, f64, i64
      }
      func.call @store_block_record(%count, %worst, %at, %counts, %worsts, %ats, %summary, %c0)
          : (i64, f64, i64, memref<256xi64, #gpu.address_space<workgroup>>,
             memref<256xf64, #gpu.address_space<workgroup>>,
             memref<256xi64, #gpu.address_space<workgroup>>, memref<?xi64>, index) -> ()
      gpu.return
    }
  }
}
