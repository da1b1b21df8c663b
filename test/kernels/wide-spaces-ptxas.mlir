// REQUIRES: ptxas
// Samples of the wide spaces, compiled with ptxas. matmul_f16_wgmma_wide for sm_90a
// with ptxas: the new parameters (order, l1) and the stages the library's
// 14 configurations do not use (5 for bm = 64) lower without a spill, a
// serialized wgmma or local memory. 13 drawn from the product, 6 kept. (All
// 1,040: about 2.3 s of one core each here, 40 minutes on the CI's two
// cores; docs/kernels.md.)
// RUN: %python %S/../../kernels-mlir/wide_spaces.py matmul_f16_wgmma_wide --sample 12 -o %t.mlir
// RUN: tuna-compile %t.mlir --target=nvptx:sm_90a --ptxas=%ptxas --max-shared-memory=232448 \
// RUN:   -o %t.tuna --emit-dir=%t 2>&1 | FileCheck %s --implicit-check-not=warning
// RUN: FileCheck %s --check-prefix=CA --input-file=%t/matmul_f16_wgmma_wide.bm=128,bk=64,stages=3,gm=24,deep=1,mask=1,order=1,l1=1,split=1,tma=0.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=CG --input-file=%t/matmul_f16_wgmma_wide.bm=128,bk=64,stages=4,gm=8,deep=0,mask=1,order=0,l1=0,split=1,tma=0.sm_90a.ptx
// RUN: cat %t/*.sm_90a.ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=.local

// CHECK:      kernel matmul_f16_wgmma_wide: 6 variants, default matmul_f16_wgmma_wide__v{{[0-9]+}}
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=128 bk=64 stages=4 gm=8 deep=0 mask=1 order=0 l1=0 {{.*}} spill 0 B
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=128 bk=64 stages=3 gm=24 deep=1 mask=1 order=1 l1=1 {{.*}} spill 0 B
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=64 bk=64 stages=5 gm=16 deep=1 mask=1 order=1 l1=0 {{.*}} spill 0 B
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=64 bk=64 stages=3 gm=6 deep=1 mask=0 order=1 l1=1 {{.*}} spill 0 B
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=128 bk=64 stages=3 gm=1 deep=0 mask=1 order=1 l1=1 {{.*}} spill 0 B
// CHECK-DAG:  __v{{[0-9]+}} {{ *}}bm=64 bk=64 stages=4 gm=32 deep=0 mask=1 order=1 l1=0 {{.*}} spill 0 B
// CHECK:      compiled nvptx:sm_90a: 6 variants

// PTX-COUNT-6: .target sm_90a

// l1 = 1: the copies go through L1 (cp.async.ca); l1 = 0 bypasses it (.cg).
// CA:     cp.async.ca.shared.global [{{.*}}], [{{.*}}], 16
// CA-NOT: cp.async.cg
// CG:     cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CG-NOT: cp.async.ca

// softmax_wide: rows of tpr threads that are not a power of two, rpb = 12,
// odd regs. 101 drawn from the product, 7 kept.
// RUN: %python %S/../../kernels-mlir/wide_spaces.py softmax_wide --sample 100 -o %t.softmax.mlir
// libdevice (exp2) is found through CUDA_HOME, which lit does not pass on.
// RUN: env CUDA_HOME=$(dirname $(dirname %ptxas)) \
// RUN:   tuna-compile %t.softmax.mlir --target=nvptx:sm_90 --ptxas=%ptxas -o %t.softmax.tuna \
// RUN:   --emit-dir=%t.softmax 2>&1 | FileCheck %s --check-prefix=SOFTMAX --implicit-check-not=warning
// RUN: cat %t.softmax/softmax_wide.*.sm_90.ptx | FileCheck %s --check-prefix=SOFTMAX-PTX --implicit-check-not=.local
// SOFTMAX:      kernel softmax_wide: 7 variants, default softmax_wide__v{{[0-9]+}}
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=128 rpb=1 vec=1 regs=0 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=32 rpb=1 vec=1 regs=0 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=512 rpb=2 vec=4 regs=1 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=640 rpb=1 vec=4 regs=1 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=800 rpb=1 vec=4 regs=2 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=64 rpb=12 vec=4 regs=0 {{.*}} spill 0 B
// SOFTMAX-DAG:  __v{{[0-9]+}} {{ *}}tpr=960 rpb=1 vec=4 regs=3 {{.*}} spill 0 B
// SOFTMAX-PTX-COUNT-7: .target sm_90
