//===- ScaleKernels.cpp - Host "variants" for the runtime tests -----------===//
//
// Variants of `y += alpha * x` with the lowered ABI of
//   (x: memref<?xf32>, y: memref<?xf32> written, alpha: f32, n: index):
// args[0..4] x (allocated, aligned, offset, size, stride), args[5..9] y,
// args[10] alpha, args[11] n. `Work` adds busy work per element, so a
// variant with more work is slower but computes the same result; `Wrong`
// computes a different one. Accumulating (+=) makes a second launch on user
// data visible.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

namespace {
template <typename T> T &at(void **args, int index) {
  return *static_cast<T *>(args[index]);
}

template <int Work, bool Wrong> void axpy(void **args) {
  const float *x = at<float *>(args, 1) + at<int64_t>(args, 2);
  int64_t xStride = at<int64_t>(args, 4);
  float *y = at<float *>(args, 6) + at<int64_t>(args, 7);
  int64_t yStride = at<int64_t>(args, 9);
  float alpha = at<float>(args, 10);
  int64_t n = at<int64_t>(args, 11);
  volatile float sink = 0;
  for (int64_t i = 0; i < n; ++i) {
    float value = alpha * x[i * xStride];
    for (int w = 0; w < Work; ++w)
      sink = sink + value;
    y[i * yStride] += Wrong ? value + 1 : value;
  }
}
} // namespace

extern "C" {
void axpy_work0(void **args) { axpy<0, false>(args); }
void axpy_work1(void **args) { axpy<1, false>(args); }
void axpy_work2(void **args) { axpy<2, false>(args); }
void axpy_work4(void **args) { axpy<4, false>(args); }
void axpy_work8(void **args) { axpy<8, false>(args); }
void axpy_work64(void **args) { axpy<64, false>(args); }
void axpy_wrong(void **args) { axpy<0, true>(args); }
}
