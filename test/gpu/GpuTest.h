//===- GpuTest.h - What the GPU tests share ---------------------*- C++ -*-===//
//
// The skip macro, CUDA device 0 with the nvcc-made PTX, device memory that
// frees itself, and the scale tests' inputs (fresh random x, a NaN-poisoned y)
// and checked run, shared by the CUDA and HIP tests.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TEST_GPU_GPUTEST_H
#define TUNA_TEST_GPU_GPUTEST_H

#include "ScaleBundle.h"

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/Device.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

/// Skips the test, saying why, when the file's setup() found no GPU (its
/// `skip` is not empty).
#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!setup().skip.empty())                                                 \
      GTEST_SKIP() << setup().skip;                                            \
  } while (0)

namespace tuna::gpu {

/// CUDA device 0 and the nvcc-made scale PTX, or the reason the tests that
/// need them cannot run.
struct PtxSetup {
  std::string skip;
  std::string ptx;
  std::unique_ptr<Device> device;
};

/// Opens CUDA device 0 and reads the scale PTX into `setup`, or says in
/// `setup.skip` why not.
inline void openDeviceAndPtx(PtxSetup &setup) {
  try {
    setup.device = std::make_unique<Device>(Device::cuda(0));
    setup.ptx = readScalePtx();
  } catch (const Error &e) {
    setup.skip = e.what();
  }
}

/// Device memory on `backend` that frees itself.
class DeviceBuffer {
public:
  DeviceBuffer(Backend &backend, size_t bytes)
      : backend(backend), ptr(backend.allocate(bytes)) {}
  ~DeviceBuffer() { backend.deallocate(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  float *data() const { return static_cast<float *>(ptr); }

private:
  Backend &backend;
  void *ptr;
};

/// Fresh random x and a NaN-poisoned y of n floats, on the host and on the
/// device of `backend`.
struct ScaleVectors {
  ScaleVectors(Backend &backend, int64_t n)
      : deviceBackend(backend), n(n), x(n),
        y(n, std::numeric_limits<float>::quiet_NaN()), dx(backend, bytes()),
        dy(backend, bytes()) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    for (float &v : x)
      v = dist(rng);
    backend.copy(dx.data(), x.data(), bytes(), CopyKind::HostToDevice,
                 nullptr);
    backend.copy(dy.data(), y.data(), bytes(), CopyKind::HostToDevice,
                 nullptr);
  }
  size_t bytes() const { return n * sizeof(float); }

  /// Reads y back from the device; call once the work on it is done.
  void readBack() {
    deviceBackend.copy(y.data(), dy.data(), bytes(), CopyKind::DeviceToHost,
                       nullptr);
  }

  /// Elements of y (read back from the device) other than s * x, NaN
  /// (never written) included; call once the work on y is done.
  int64_t wrong(float s) {
    readBack();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i)
      count += !(y[i] == s * x[i]);
    return count;
  }

  Backend &deviceBackend;
  int64_t n;
  std::vector<float> x, y;
  DeviceBuffer dx, dy;
};

/// Runs the `scale` kernel of `module` on n fresh random elements and returns
/// the largest error against s * x (NaN where an element was not written).
inline double runScale(Module &module, int64_t n, float s) {
  Backend &backend = module.device().backend();
  ScaleVectors v(backend, n);
  module.kernel("scale").launch(nullptr, memref(v.dx.data(), {n}),
                                memref(v.dy.data(), {n}), s, n);
  backend.synchronize(nullptr);
  v.readBack();
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(v.y[i]) - double(s * v.x[i])));
  return worst;
}

} // namespace tuna::gpu

#endif // TUNA_TEST_GPU_GPUTEST_H
