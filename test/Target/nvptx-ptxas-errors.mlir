// RUN: not tuna-compile %s --target=nvptx:sm_90 --ptxas=%S/Inputs/ptxas-rejects.sh -o %t.tuna 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not tuna-compile %s --target=nvptx:sm_90 --ptxas=%S/Inputs/ptxas-rejects.sh -o %t.tuna -j 1 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: env REJECT_PTX_WITH="maxntid 1024" not tuna-compile %s --target=nvptx:sm_90 --ptxas=%S/Inputs/ptxas-rejects.sh -o %t.tuna 2>&1 | FileCheck %s --check-prefix=SOME

// ptxas rejecting every variant is one error, not one per variant: the
// stand-in ptxas names the PTX file (a temporary file, spelled as the
// kernel's) and the entry function (the variant's symbol, spelled as the
// kernel's name), so the six messages are one. Rejecting the variants of
// one block size names their configurations.

// ALL: error: the variant's PTX: {{.*}}ptxas-rejects.sh failed:
// ALL-NEXT: ptxas copy.ptx, line 12; error   : Instruction 'wgmma.fence' not supported on .target 'sm_80' (function 'copy')
// ALL-NEXT: ptxas fatal   : Ptx assembly aborted due to errors
// ALL: note: in all 6 variants of kernel 'copy'
// ALL-NOT: error

// SOME: error: the variant's PTX: {{.*}}ptxas-rejects.sh failed:
// SOME-NEXT: ptxas copy.ptx, line 12; error
// SOME: note: in 2 of 6 variants of kernel 'copy': block=1024 vec=1; block=1024 vec=2
// SOME-NOT: error

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {
      tuna.space = #tuna.space<
        params = [#tuna.param<"block", [128, 256, 1024]>, #tuna.param<"vec", [1, 2]>],
        defaults = {block = 128, vec = 1},
        grid = affine_map<()[block, vec] -> (1)>,
        block = affine_map<()[block, vec] -> (block)>
      >} {
      %vec = tuna.param "vec" : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %vec : index
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
      gpu.return
    }
  }
}
