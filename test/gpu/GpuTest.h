//===- GpuTest.h - What the GPU tests share ---------------------*- C++ -*-===//
//
// The skip macro, CUDA device 0 with the nvcc-made PTX, a device with a
// compiled scale bundle, device memory that frees itself, the scale tests'
// inputs (fresh random x, a NaN-poisoned y), their checked run, and the
// tests of a tuned scale bundle, shared by the CUDA and HIP tests.
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
#include <cstdlib>
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

/// A GPU device and the scale bundle compiled for it, or the reason the
/// tests that need them cannot run.
struct BundleSetup {
  std::string skip;
  std::string bundle;
  std::unique_ptr<Device> device;
};

/// The bundle at `path` and the device `open()` returns, or `skip` saying
/// why not: `noDevice` and the error when `open` throws (checked first: on
/// a machine without the GPU, that is the reason, whatever the bundle),
/// else `noBundle` when `path` is null or empty.
template <typename Open>
BundleSetup openBundleAndDevice(const char *path, const std::string &noBundle,
                                const char *noDevice, Open open) {
  BundleSetup setup;
  try {
    setup.device = std::make_unique<Device>(open());
  } catch (const Error &e) {
    setup.skip = std::string(noDevice) + e.what();
    return setup;
  }
  if (!path || !*path) {
    setup.device.reset();
    setup.skip = noBundle;
    return setup;
  }
  setup.bundle = path;
  return setup;
}

/// $`variable` when set, else `builtIn`: the bundle compiled with the tests
/// (null where the compiler was not built).
inline const char *bundleFromEnvironment(const char *variable,
                                         const char *builtIn) {
  const char *path = std::getenv(variable);
  return path ? path : builtIn;
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
/// With `offset`, x and y are views that start `offset` floats into their
/// buffers (n - offset elements), off the alignment of a wider vector.
inline double runScale(Module &module, int64_t n, float s,
                       int64_t offset = 0) {
  Backend &backend = module.device().backend();
  ScaleVectors v(backend, n);
  int64_t size = n - offset;
  module.kernel("scale").launch(nullptr, memref(v.dx.data() + offset, {size}),
                                memref(v.dy.data() + offset, {size}), s, size);
  backend.synchronize(nullptr);
  v.readBack();
  double worst = 0;
  for (int64_t i = offset; i < n; ++i)
    worst = std::max(worst, std::fabs(double(v.y[i]) - double(s * v.x[i])));
  return worst;
}

/// Tunes the bundle's `scale` on five shapes, one per power-of-two bucket
/// (1, 1024, 8192, 2^20, 2^23), expects every result to equal the CPU's
/// and each of the 15 candidates to be judged; returns the decisions.
inline std::vector<TuningReport> expectTunedScaleMatchesCpu(
    const BundleSetup &setup) {
  Module module = Module::load(setup.bundle, *setup.device, Options());
  for (int64_t n : {1, 1000, 4097, 1 << 20, (1 << 22) + 3}) {
    double error = runScale(module, n, 1.75f);
    EXPECT_EQ(error, 0.0) << "n = " << n;
  }
  const std::vector<TuningReport> &reports = module.kernel("scale").reports();
  EXPECT_EQ(reports.size(), 5u);
  for (const TuningReport &report : reports) {
    EXPECT_EQ(report.candidates.size(), 15u);
    EXPECT_GE(report.chosen, 0);
  }
  return reports;
}

/// Tunes one shape of the bundle's `scale` with the check on and exact
/// tolerances: a candidate that differs from the others is rejected and
/// reported, and none may be. Returns the decision. `offset` as in
/// runScale.
inline TuningReport expectEveryScaleVariantCorrect(const BundleSetup &setup,
                                                   int64_t offset = 0) {
  Options options;
  options.check = true;
  options.atol = 0;
  options.rtol = 0;
  Module module = Module::load(setup.bundle, *setup.device, options);
  EXPECT_EQ(runScale(module, 123457, -3.0f, offset), 0.0);
  const TuningReport report = module.kernel("scale").reports().back();
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  for (const CandidateResult &c : report.candidates)
    EXPECT_NE(c.status, CandidateStatus::WrongResult)
        << c.name << ": " << c.reason;
  return report;
}

} // namespace tuna::gpu

#endif // TUNA_TEST_GPU_GPUTEST_H
