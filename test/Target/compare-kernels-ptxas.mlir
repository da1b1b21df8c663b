// REQUIRES: ptxas
// ptxas accepts the check's comparison kernels for their own chip and for
// the H100's.
// RUN: %ptxas -arch=sm_75 %S/../../runtime/lib/cuda/CompareKernels.ptx -o %t.sm_75.cubin
// RUN: %ptxas -arch=sm_90 %S/../../runtime/lib/cuda/CompareKernels.ptx -o %t.sm_90.cubin
