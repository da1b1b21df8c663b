// RUN: tuna-compile %s --target=nvptx:sm_80 --no-ptxas -o %t.sm80.tuna --emit-dir=%t.sm80 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefixes=PTX,SM80 --input-file=%t.sm80/scale.block=64.sm_80.ptx \
// RUN:   --implicit-check-not=griddepcontrol
// RUN: grep -ao '"grid_dependency": *[a-z]*' %t.sm80.tuna | FileCheck %s --check-prefix=NOWAIT
// RUN: tuna-compile %s --target=nvptx:sm_90 --no-ptxas -o %t.sm90.tuna --emit-dir=%t.sm90
// RUN: FileCheck %s --check-prefixes=PTX,SM90 --input-file=%t.sm90/scale.block=64.sm_90.ptx
// RUN: grep -ao '"grid_dependency": *[a-z]*' %t.sm90.tuna | FileCheck %s --check-prefix=WAIT
// RUN: FileCheck %s --check-prefix=PTX128 --input-file=%t.sm90/scale.block=128.sm_90.ptx

// PTX for every variant, one module each; without ptxas no cubin.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [64, 128]>],
        defaults = {block = 128},
        key = [#tuna.key<arg = 3, bucket = pow2>],
        grid = affine_map<(n)[block] -> (n ceildiv block)>,
        block = affine_map<(n)[block] -> (block)>
      >} {
      %block = tuna.param "block" : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %block : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %v, %s : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// SUMMARY:      kernel scale: 2 variants, default [[DEFAULT:scale__v[0-9]+]]
// SUMMARY-NEXT: {{scale__v[0-9]+}} block=64   nvptx:sm_80: ptx {{[0-9]+}} B{{$}}
// SUMMARY-NEXT: [[DEFAULT]] block=128  nvptx:sm_80: ptx {{[0-9]+}} B{{$}}
// SUMMARY-NEXT: compiled nvptx:sm_80: 2 variants in {{[0-9.]+}} s
// SUMMARY-NEXT: wrote {{.*}}: 1 kernel, 2 variants, 2 objects, {{[0-9]+}} B in

// SM80:        .target sm_80
// SM90:        .target sm_90
// PTX:         .address_size 64
// Two memrefs (allocated, aligned, offset, size, stride), a float, an index.
// PTX:         .entry [[ENTRY:scale__v[0-9]+]](
// PTX-COUNT-11:  .param .{{.*}} [[ENTRY]]_param_{{[0-9]+}},
// PTX-NEXT:      .param .u64 [[ENTRY]]_param_11{{$}}
// PTX-NEXT:    )
// PTX-NEXT:    .maxntid 64, 1, 1
// From sm_90 a kernel first waits for the grid before it
// (tuna-grid-dependency); its objects say so in the manifest, and the CUDA
// runtime launches them with programmatic stream serialization.
// SM90-NOT:    ld.global
// SM90:        griddepcontrol.wait;
// SM90-NOT:    griddepcontrol.launch_dependents
// PTX:         ret;
// WAIT-COUNT-2:   "grid_dependency": true
// NOWAIT-COUNT-2: "grid_dependency": false

// PTX128:      .entry scale__v{{[0-9]+}}(
// PTX128:      .maxntid 128, 1, 1
