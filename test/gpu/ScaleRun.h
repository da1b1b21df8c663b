//===- ScaleRun.h - One checked run of kernels-mlir/scale.mlir --*- C++ -*-===//
//
// Shared by the CUDA and HIP tests of the compiled `scale` kernel: fresh
// random inputs, a NaN-poisoned output, the result compared with the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TEST_GPU_SCALERUN_H
#define TUNA_TEST_GPU_SCALERUN_H

#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tuna::test {

/// Device memory that frees itself.
struct Buffer {
  Backend &backend;
  void *ptr;
  Buffer(Backend &b, size_t bytes) : backend(b), ptr(b.allocate(bytes)) {}
  ~Buffer() { backend.deallocate(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
};

/// Runs scale on n elements and returns the largest error against s * x.
inline double runScale(Module &module, int64_t n, float s) {
  Backend &backend = module.device().backend();
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
  for (float &v : x)
    v = dist(rng);
  Buffer dx(backend, n * sizeof(float)), dy(backend, n * sizeof(float));
  backend.copy(dx.ptr, x.data(), n * sizeof(float), CopyKind::HostToDevice,
               nullptr);
  backend.copy(dy.ptr, y.data(), n * sizeof(float), CopyKind::HostToDevice,
               nullptr);
  module.kernel("scale").launch(
      nullptr, memref(static_cast<float *>(dx.ptr), {n}),
      memref(static_cast<float *>(dy.ptr), {n}), s, n);
  backend.synchronize(nullptr);
  backend.copy(y.data(), dy.ptr, n * sizeof(float), CopyKind::DeviceToHost,
               nullptr);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(y[i]) - double(s * x[i])));
  return worst; // NaN where an element was not written.
}

} // namespace tuna::test

#endif // TUNA_TEST_GPU_SCALERUN_H
