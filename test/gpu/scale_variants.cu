// y = s * x over n floats, in 15 variants: `BLOCK` threads per block (64 to
// 1024) times `EPT` elements per thread (1, 2 or 4, a block apart, so that
// every access of a warp is coalesced). The parameters follow the MLIR memref
// calling convention, as Tuna's compiled kernels do: a rank-1 memref is
// (allocated ptr, aligned ptr, offset, size, stride) and `index` is 64-bit.
// Compiled to PTX by nvcc at build time (test/gpu/ScaleBundle.cmake).

template <int BLOCK, int EPT>
__device__ void scale(const float *x, long long xOffset, long long xStride,
                      float *y, long long yOffset, long long yStride, float s,
                      long long n) {
  long long first = (long long)blockIdx.x * BLOCK * EPT + threadIdx.x;
#pragma unroll
  for (int k = 0; k < EPT; ++k) {
    long long i = first + (long long)k * BLOCK;
    if (i < n)
      y[yOffset + i * yStride] = s * x[xOffset + i * xStride];
  }
}

#define SCALE_VARIANT(BLOCK, EPT)                                              \
  extern "C" __global__ void __launch_bounds__(BLOCK)                          \
      scale_b##BLOCK##_e##EPT(float *, float *x, long long xOffset,            \
                              long long, long long xStride, float *,           \
                              float *y, long long yOffset, long long,          \
                              long long yStride, float s, long long n) {       \
    scale<BLOCK, EPT>(x, xOffset, xStride, y, yOffset, yStride, s, n);         \
  }

#define SCALE_VARIANTS(BLOCK)                                                  \
  SCALE_VARIANT(BLOCK, 1) SCALE_VARIANT(BLOCK, 2) SCALE_VARIANT(BLOCK, 4)

SCALE_VARIANTS(64)
SCALE_VARIANTS(128)
SCALE_VARIANTS(256)
SCALE_VARIANTS(512)
SCALE_VARIANTS(1024)
