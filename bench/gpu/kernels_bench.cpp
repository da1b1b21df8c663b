//===- kernels_bench.cpp - The kernel library on a CUDA device ------------===//
//
// For each kernel of kernels-mlir/ (axpy, row_sum, softmax, layernorm,
// transpose, color_normalize) compiled for sm_90, at two or three shapes:
//  - correctness of the tuned and of the default variant: fresh random
//    inputs, outputs poisoned with NaN before each checked launch, the
//    relative L2 error against a CPU reference in double (transpose: exact);
//  - device time of the tuned variant and of the default configuration
//    (a module loaded with TuneMode::Off), and of a device-to-device copy
//    that moves as many bytes (read plus written) in this run.
// Bandwidth counts each input read once and each output written once.
// Prints one `TUNA {json}` line per kernel and shape for bench/run_gpu.sh.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"
#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tuna;

namespace {

struct Buffer {
  Backend &backend;
  void *ptr;
  Buffer(Backend &b, size_t bytes) : backend(b), ptr(b.allocate(bytes)) {}
  ~Buffer() { backend.deallocate(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  float *f() const { return static_cast<float *>(ptr); }
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Median device time of one call in ms, with events around `reps` calls.
double deviceMs(Backend &backend, const std::function<void()> &call,
                int reps = 20, int samples = 15) {
  EventHandle start = backend.createEvent(), end = backend.createEvent();
  call();
  backend.synchronize(nullptr);
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    backend.recordEvent(start, nullptr);
    for (int i = 0; i < reps; ++i)
      call();
    backend.recordEvent(end, nullptr);
    times.push_back(backend.elapsedMs(start, end) / reps);
  }
  backend.destroyEvent(start);
  backend.destroyEvent(end);
  return median(times);
}

std::string configOf(const TunedKernel &kernel, int variant) {
  std::string s;
  for (const auto &[name, value] : kernel.spec().variants[variant].config)
    s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

/// One kernel at one shape. Buffer i holds `init[i]` (uploaded before each
/// checked launch) or, when `init[i]` is empty, `sizes[i]` NaNs. Buffer
/// `out` is compared with `ref`.
struct Case {
  std::string kernel;
  std::string shape;
  std::vector<std::vector<float>> init;
  std::vector<int64_t> sizes;
  int out = 0;
  std::vector<double> ref;
  double tolerance = 1e-5;
  double bytes = 0;
  std::function<void(TunedKernel &, const std::vector<float *> &)> launch;
};

/// Relative L2 error of `got` against `want`; infinite if any element is
/// not finite (an unwritten NaN-poisoned element, say).
double relativeError(const std::vector<float> &got,
                     const std::vector<double> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i]))
      return std::numeric_limits<double>::infinity();
    double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

std::vector<float> randomVector(std::mt19937 &rng, int64_t n, float lo,
                                float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::string shape2(const char *a, int64_t x, const char *b, int64_t y) {
  return std::string(a) + "=" + std::to_string(x) + "," + b + "=" +
         std::to_string(y);
}

Case axpyCase(std::mt19937 &rng, int64_t n) {
  const float a = 1.75f;
  Case c{"axpy", "n=" + std::to_string(n)};
  c.init = {randomVector(rng, n, -1000, 1000),
            randomVector(rng, n, -1000, 1000)};
  c.sizes = {n, n};
  c.out = 1;
  c.ref.resize(n);
  for (int64_t i = 0; i < n; ++i)
    c.ref[i] = double(a) * c.init[0][i] + c.init[1][i];
  c.bytes = 3.0 * 4 * n;
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, a, memref(b[0], {n}), memref(b[1], {n}), n);
  };
  return c;
}

Case rowSumCase(std::mt19937 &rng, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  Case c{"row_sum", shape2("rows", rows, "cols", cols)};
  c.init = {randomVector(rng, n, -1, 1), {}};
  c.sizes = {n, rows};
  c.out = 1;
  c.ref.assign(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      c.ref[r] += c.init[0][r * cols + k];
  c.bytes = 4.0 * (n + rows);
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, memref(b[0], {n}), memref(b[1], {rows}), rows, cols);
  };
  return c;
}

Case softmaxCase(std::mt19937 &rng, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  Case c{"softmax", shape2("rows", rows, "cols", cols)};
  c.init = {randomVector(rng, n, -8, 8), {}};
  c.sizes = {n, n};
  c.out = 1;
  c.ref.resize(n);
  const std::vector<float> &x = c.init[0];
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    double m = *std::max_element(row, row + cols), s = 0;
    for (int64_t k = 0; k < cols; ++k)
      s += std::exp(row[k] - m);
    for (int64_t k = 0; k < cols; ++k)
      c.ref[r * cols + k] = std::exp(row[k] - m) / s;
  }
  c.bytes = 8.0 * n;
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, memref(b[0], {n}), memref(b[1], {n}), rows, cols);
  };
  return c;
}

Case layernormCase(std::mt19937 &rng, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  const float eps = 1e-5f;
  Case c{"layernorm", shape2("rows", rows, "cols", cols)};
  // A mean far from zero against the spread tests the shifted sums.
  c.init = {randomVector(rng, n, 2, 6),
            randomVector(rng, cols, 0.5f, 1.5f),
            randomVector(rng, cols, -0.5f, 0.5f),
            {}};
  c.sizes = {n, cols, cols, n};
  c.out = 3;
  c.ref.resize(n);
  const std::vector<float> &x = c.init[0];
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    double mean = 0, var = 0;
    for (int64_t k = 0; k < cols; ++k)
      mean += row[k];
    mean /= cols;
    for (int64_t k = 0; k < cols; ++k)
      var += (row[k] - mean) * (row[k] - mean);
    var /= cols;
    double rstd = 1 / std::sqrt(var + eps);
    for (int64_t k = 0; k < cols; ++k)
      c.ref[r * cols + k] =
          (row[k] - mean) * rstd * c.init[1][k] + c.init[2][k];
  }
  c.bytes = 8.0 * n + 8.0 * cols;
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, memref(b[0], {n}), memref(b[1], {cols}),
             memref(b[2], {cols}), memref(b[3], {n}), eps, rows, cols);
  };
  return c;
}

Case transposeCase(std::mt19937 &rng, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  Case c{"transpose", shape2("rows", rows, "cols", cols)};
  c.init = {randomVector(rng, n, -1000, 1000), {}};
  c.sizes = {n, n};
  c.out = 1;
  c.tolerance = 0;
  c.ref.resize(n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      c.ref[k * rows + r] = c.init[0][r * cols + k];
  c.bytes = 8.0 * n;
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, memref(b[0], {n}), memref(b[1], {n}), rows, cols);
  };
  return c;
}

Case colorCase(std::mt19937 &rng, int64_t images, int64_t h, int64_t w) {
  const int64_t hw = h * w, n = images * 3 * hw;
  const float brightness = 1.2f, saturation = 0.7f;
  const float mean[3] = {0.485f, 0.456f, 0.406f};
  const float stddev[3] = {0.229f, 0.224f, 0.225f};
  float inv[3];
  for (int ch = 0; ch < 3; ++ch)
    inv[ch] = 1 / stddev[ch];
  Case c{"color_normalize", "images=" + std::to_string(images) + ",hw=" +
                                std::to_string(h) + "x" + std::to_string(w)};
  c.init = {randomVector(rng, n, 0, 1), {}};
  c.sizes = {n, n};
  c.out = 1;
  c.ref.resize(n);
  const std::vector<float> &x = c.init[0];
  auto clamp01 = [](double v) { return std::min(1.0, std::max(0.0, v)); };
  for (int64_t img = 0; img < images; ++img)
    for (int64_t p = 0; p < hw; ++p) {
      double b[3];
      for (int ch = 0; ch < 3; ++ch)
        b[ch] = clamp01(x[(img * 3 + ch) * hw + p] * double(brightness));
      double gray = 0.299 * b[0] + 0.587 * b[1] + 0.114 * b[2];
      for (int ch = 0; ch < 3; ++ch)
        c.ref[(img * 3 + ch) * hw + p] =
            (clamp01(gray + saturation * (b[ch] - gray)) - mean[ch]) * inv[ch];
    }
  c.bytes = 8.0 * n;
  c.launch = [=](TunedKernel &k, const std::vector<float *> &b) {
    k.launch(nullptr, memref(b[0], {n}), memref(b[1], {n}), images, hw,
             brightness, saturation, mean[0], mean[1], mean[2], inv[0], inv[1],
             inv[2]);
  };
  return c;
}

/// Checks and times one case; prints its TUNA line. Returns whether both
/// the tuned and the default variant were correct.
bool runCase(Device &device, const std::string &bundles, const Case &c) {
  Backend &backend = device.backend();
  const cuda::Driver &driver = cuda::Driver::get();
  Options off;
  off.mode = TuneMode::Off;
  const std::string path = bundles + "/" + c.kernel + ".tuna";
  Module tunedModule = Module::load(path, device, Options::fromEnvironment());
  Module fixedModule = Module::load(path, device, off);
  TunedKernel &tuned = tunedModule.kernel(c.kernel);
  TunedKernel &fixed = fixedModule.kernel(c.kernel);

  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<float *> ptrs;
  for (int64_t size : c.sizes) {
    buffers.push_back(std::make_unique<Buffer>(backend, size * 4));
    ptrs.push_back(buffers.back()->f());
  }
  auto reset = [&] {
    for (size_t i = 0; i < c.sizes.size(); ++i) {
      std::vector<float> poison;
      const std::vector<float> *data = &c.init[i];
      if (data->empty()) {
        poison.assign(c.sizes[i], std::numeric_limits<float>::quiet_NaN());
        data = &poison;
      }
      backend.copy(ptrs[i], data->data(), c.sizes[i] * 4,
                   CopyKind::HostToDevice, nullptr);
    }
    backend.synchronize(nullptr);
  };
  auto error = [&] {
    backend.synchronize(nullptr);
    std::vector<float> got(c.sizes[c.out]);
    backend.copy(got.data(), ptrs[c.out], got.size() * 4,
                 CopyKind::DeviceToHost, nullptr);
    backend.synchronize(nullptr);
    return relativeError(got, c.ref);
  };

  reset();
  auto t0 = std::chrono::steady_clock::now();
  c.launch(tuned, ptrs); // The first call with this shape tunes.
  backend.synchronize(nullptr);
  double firstMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - t0)
                       .count();
  double tunedError = error();
  const TuningReport report = tuned.reports().back();
  reset();
  c.launch(fixed, ptrs);
  double defaultError = error();

  double tunedMs = deviceMs(backend, [&] { c.launch(tuned, ptrs); });
  double defaultMs = deviceMs(backend, [&] { c.launch(fixed, ptrs); });
  // A copy that moves as many bytes: half read, half written.
  size_t half = static_cast<size_t>(c.bytes / 2) & ~size_t(15);
  Buffer src(backend, half), dst(backend, half);
  double copyMs = deviceMs(backend, [&] {
    driver.check(
        driver.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst.ptr),
                                 reinterpret_cast<CUdeviceptr>(src.ptr),
                                 half, nullptr),
        "cuMemcpyDtoDAsync", "copy reference");
  });
  auto gbps = [&](double ms, double bytes) { return bytes / (ms * 1e6); };
  bool ok = tunedError <= c.tolerance && defaultError <= c.tolerance;
  std::printf(
      "TUNA {\"kernel\": \"%s\", \"shape\": \"%s\", \"ok\": %d, "
      "\"err_tuned\": %.3g, \"err_default\": %.3g, \"pick\": \"%s\", "
      "\"default\": \"%s\", \"variants\": %zu, \"first_call_ms\": %.1f, "
      "\"tuned_us\": %.2f, \"default_us\": %.2f, \"tuned_gbps\": %.1f, "
      "\"default_gbps\": %.1f, \"copy_gbps\": %.1f}\n",
      c.kernel.c_str(), c.shape.c_str(), ok ? 1 : 0, tunedError, defaultError,
      configOf(tuned, report.chosen).c_str(),
      configOf(fixed, fixed.spec().defaultVariant).c_str(),
      tuned.spec().variants.size(), firstMs, tunedMs * 1e3, defaultMs * 1e3,
      gbps(tunedMs, c.bytes), gbps(defaultMs, c.bytes),
      gbps(copyMs, 2.0 * half));
  std::fflush(stdout);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BUNDLE_DIR (holding KERNEL.tuna)\n",
                 argv[0]);
    return 2;
  }
  const std::string bundles = argv[1];
  std::mt19937 rng(std::random_device{}());
  // Each case is built (inputs and CPU reference) only when it runs.
  const std::vector<std::function<Case()>> cases = {
      [&] { return axpyCase(rng, int64_t(1) << 24); },
      [&] { return axpyCase(rng, int64_t(1) << 26); },
      [&] { return rowSumCase(rng, 131072, 256); },
      [&] { return rowSumCase(rng, 8192, 4096); },
      [&] { return softmaxCase(rng, 32768, 1024); },
      [&] { return softmaxCase(rng, 4096, 8192); },
      [&] { return layernormCase(rng, 32768, 1024); },
      [&] { return layernormCase(rng, 4096, 8192); },
      [&] { return transposeCase(rng, 8192, 4096); },
      [&] { return transposeCase(rng, 4000, 6000); },
      [&] { return colorCase(rng, 64, 512, 512); },
      [&] { return colorCase(rng, 256, 224, 224); },
  };
  bool allCorrect = true;
  try {
    Device device = Device::cuda(0);
    std::printf("device: %s (%s), driver %s\n", device.info().name.c_str(),
                device.info().arch.c_str(),
                device.info().driverVersion.c_str());
    for (const auto &make : cases)
      allCorrect &= runCase(device, bundles, make());
  } catch (const Error &e) {
    std::fprintf(stderr, "tuna-kernels-bench: %s\n", e.what());
    return 1;
  }
  return allCorrect ? 0 : 1;
}
