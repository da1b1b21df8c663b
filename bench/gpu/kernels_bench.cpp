//===- kernels_bench.cpp - The kernel library on a CUDA device ------------===//
//
// For each kernel of kernels-mlir/ (axpy, row_sum, softmax, layernorm,
// transpose, color_normalize, matmul_f32, matmul_f16) compiled for sm_90,
// and matmul_f16_wgmma compiled for sm_90a, at two or three shapes:
//  - correctness of the tuned and of the default variant: fresh random
//    inputs, outputs poisoned with NaN before each checked launch, the
//    relative L2 error against a CPU reference in double (transpose: exact);
//  - device time of the tuned variant and of the default configuration
//    (a module loaded with TuneMode::Off), and of a device-to-device copy
//    that moves as many bytes (read plus written) in this run.
// Bandwidth counts each input read once and each output written once.
// Matmuls report TFLOP/s (2 M N K flops a call) instead of a copy; their
// reference is computed for a random sample of rows of C (a full double
// reference of 4096^3 takes minutes), and every element of C must be finite
// (written over the NaN poison).
// Prints one `TUNA {json}` line per kernel and shape. bench/run_gpu.sh
// compares with Triton and cuBLAS through bench/gpu/compare.py instead (one
// timing method for every side); this C++ driver is what
// bench/profile_matmul.sh profiles (plain launches, no Python).
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"
#include "Measure.h"
#include "reference/RelativeError.h"
#include "reference/RowKernels.h"
#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::bench;
using tuna::reference::relativeError;

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

/// One kernel at one shape. Buffer i holds `init[i]` (uploaded before each
/// checked launch) or, when `init[i]` is empty, `sizes[i]` NaNs. Buffer
/// `out` is compared with `ref`, or by `check` when set. Buffers listed in
/// `half` hold IEEE halves (converted from and to float on the host).
struct Case {
  std::string kernel;
  std::string shape;
  std::vector<std::vector<float>> init;
  std::vector<int64_t> sizes;
  int out = 0;
  std::vector<double> ref;
  double tolerance = 1e-5;
  double bytes = 0;
  double flops = 0;          // > 0: report TFLOP/s, no copy reference.
  std::string bundle;        // Defaults to the kernel's name.
  std::vector<int> half;     // Indices of fp16 buffers.
  std::function<double(const std::vector<float> &)> check;
  std::function<void(TunedKernel &, const std::vector<float *> &)> launch;
};

uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // Inf or NaN.
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
  if (absx >= 0x477ff000u) // Rounds to a value beyond the largest half.
    return sign | 0x7c00u;
  if (absx < 0x38800000u) { // Subnormal half (or zero).
    float a;
    std::memcpy(&a, &absx, 4);
    return sign | static_cast<uint16_t>(std::lrint(a * 16777216.0f));
  }
  // Round to nearest even on the 13 dropped bits.
  uint32_t rounded = absx + 0xfffu + ((absx >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  }
  uint32_t x = sign | (exp == 31 ? 0x7f800000u | (mant << 13)
                                 : ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &x, 4);
  return f;
}

/// Rounds every element to the nearest half (so that the reference sees
/// exactly what the kernel reads).
void roundToHalf(std::vector<float> &v) {
  for (float &x : v)
    x = fromHalf(toHalf(x));
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
  c.ref = reference::rowSum(c.init[0].data(), rows, cols);
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
  c.ref = reference::softmax(c.init[0].data(), rows, cols);
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
  c.ref = reference::layernorm(c.init[0].data(), c.init[1].data(),
                               c.init[2].data(), eps, rows, cols);
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

/// C = A B (row-major, M x K times K x N), f32 or f16 in and out. The
/// reference covers `sampleRows` random rows of C in double; every element
/// of C must be finite. `wgmma`: matmul_f16_wgmma (bundle matmul_wgmma)
/// instead of matmul_f16, same inputs and check.
Case matmulCase(std::mt19937 &rng, bool f16, int64_t m, int64_t n, int64_t k,
                int sampleRows, bool wgmma = false) {
  Case c{wgmma ? "matmul_f16_wgmma" : f16 ? "matmul_f16" : "matmul_f32",
         "M=" + std::to_string(m) + ",N=" + std::to_string(n) +
             ",K=" + std::to_string(k)};
  c.bundle = wgmma ? "matmul_wgmma" : "matmul";
  c.init = {randomVector(rng, m * k, -1, 1), randomVector(rng, k * n, -1, 1),
            {}};
  if (f16) {
    roundToHalf(c.init[0]);
    roundToHalf(c.init[1]);
    c.half = {0, 1, 2};
    // fp16 output: 2^-11 relative rounding of each element, plus fp32
    // accumulation.
    c.tolerance = 2e-3;
  } else {
    c.tolerance = 1e-4; // fp32 sums of K products, in another order.
  }
  c.sizes = {m * k, k * n, m * n};
  c.out = 2;
  std::vector<int64_t> rows(sampleRows);
  std::uniform_int_distribution<int64_t> pick(0, m - 1);
  for (int64_t &r : rows)
    r = pick(rng);
  rows.back() = m - 1; // The last row: in a partial tile when M is not a multiple.
  std::vector<double> ref(rows.size() * n, 0.0);
  const std::vector<float> &a = c.init[0], &b = c.init[1];
  for (size_t s = 0; s < rows.size(); ++s) {
    double *out = &ref[s * n];
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a[rows[s] * k + kk];
      const float *brow = &b[kk * n];
      for (int64_t j = 0; j < n; ++j)
        out[j] += av * brow[j];
    }
  }
  c.check = [rows, ref, n, name = c.kernel,
             tolerance = c.tolerance](const std::vector<float> &got) {
    size_t nonFinite = 0, firstNonFinite = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!std::isfinite(got[i]) && nonFinite++ == 0)
        firstNonFinite = i;
    if (nonFinite) {
      std::fprintf(stderr, "%s: %zu non-finite outputs, the first at row %zu "
                   "column %zu\n", name.c_str(), nonFinite,
                   firstNonFinite / n, firstNonFinite % n);
      return std::numeric_limits<double>::infinity();
    }
    std::vector<float> sampled(ref.size());
    for (size_t s = 0; s < rows.size(); ++s)
      std::copy_n(&got[rows[s] * n], n, &sampled[s * n]);
    double err = relativeError(sampled, ref);
    if (err > tolerance) {
      // Where it goes wrong says which part of a tile is misplaced.
      size_t bad = 0;
      for (size_t i = 0; i < ref.size(); ++i)
        if (std::fabs(sampled[i] - ref[i]) > 0.05 + 0.01 * std::fabs(ref[i])) {
          if (bad++ < 6)
            std::fprintf(stderr, "%s: row %lld column %lld: got %g, want %g\n",
                         name.c_str(), (long long)rows[i / n],
                         (long long)(i % n), sampled[i], ref[i]);
        }
      std::fprintf(stderr, "%s: %zu of %zu sampled outputs wrong\n",
                   name.c_str(), bad, ref.size());
    }
    return err;
  };
  c.flops = 2.0 * m * n * k;
  c.bytes = (f16 ? 2.0 : 4.0) * (m * k + k * n + m * n);
  const ScalarType type = f16 ? ScalarType::F16 : ScalarType::F32;
  c.launch = [=](TunedKernel &kernel, const std::vector<float *> &b) {
    kernel.launch(nullptr, memref(type, b[0], {m * k}),
                  memref(type, b[1], {k * n}), memref(type, b[2], {m * n}), m,
                  n, k);
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
  const std::string path =
      bundles + "/" + (c.bundle.empty() ? c.kernel : c.bundle) + ".tuna";
  Module tunedModule = Module::load(path, device, Options::fromEnvironment());
  Module fixedModule = Module::load(path, device, off);
  TunedKernel &tuned = tunedModule.kernel(c.kernel);
  TunedKernel &fixed = fixedModule.kernel(c.kernel);

  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<float *> ptrs;
  auto isHalf = [&](size_t i) {
    return std::find(c.half.begin(), c.half.end(), int(i)) != c.half.end();
  };
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    buffers.push_back(
        std::make_unique<Buffer>(backend, c.sizes[i] * (isHalf(i) ? 2 : 4)));
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
      if (isHalf(i)) {
        std::vector<uint16_t> h(data->size());
        for (size_t j = 0; j < h.size(); ++j)
          h[j] = toHalf((*data)[j]);
        backend.copy(ptrs[i], h.data(), c.sizes[i] * 2,
                     CopyKind::HostToDevice, nullptr);
        backend.synchronize(nullptr);
        continue;
      }
      backend.copy(ptrs[i], data->data(), c.sizes[i] * 4,
                   CopyKind::HostToDevice, nullptr);
    }
    backend.synchronize(nullptr);
  };
  auto error = [&] {
    backend.synchronize(nullptr);
    std::vector<float> got(c.sizes[c.out]);
    if (isHalf(c.out)) {
      std::vector<uint16_t> h(got.size());
      backend.copy(h.data(), ptrs[c.out], h.size() * 2,
                   CopyKind::DeviceToHost, nullptr);
      backend.synchronize(nullptr);
      for (size_t j = 0; j < h.size(); ++j)
        got[j] = fromHalf(h[j]);
    } else {
      backend.copy(got.data(), ptrs[c.out], got.size() * 4,
                   CopyKind::DeviceToHost, nullptr);
      backend.synchronize(nullptr);
    }
    return c.check ? c.check(got) : relativeError(got, c.ref);
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
  bool ok = tunedError <= c.tolerance && defaultError <= c.tolerance;
  if (c.flops > 0) {
    auto tflops = [&](double ms) { return c.flops / (ms * 1e9); };
    std::printf(
        "TUNA {\"kernel\": \"%s\", \"shape\": \"%s\", \"ok\": %d, "
        "\"err_tuned\": %.3g, \"err_default\": %.3g, \"pick\": \"%s\", "
        "\"default\": \"%s\", \"variants\": %zu, \"first_call_ms\": %.1f, "
        "\"tuned_us\": %.2f, \"default_us\": %.2f, \"tuned_tflops\": %.1f, "
        "\"default_tflops\": %.1f}\n",
        c.kernel.c_str(), c.shape.c_str(), ok ? 1 : 0, tunedError,
        defaultError, configOf(tuned, report.chosen).c_str(),
        configOf(fixed, fixed.spec().defaultVariant).c_str(),
        tuned.spec().variants.size(), firstMs, tunedMs * 1e3,
        defaultMs * 1e3, tflops(tunedMs), tflops(defaultMs));
    std::fflush(stdout);
    return ok;
  }
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

/// The mma.sync ceiling (bench/gpu/mma_peak.mlir): no memory traffic, so
/// the TFLOP/s that matmul_f16 could reach with its instruction. Prints a
/// TUNA line in the matmul format (tuned = the best warps per block).
void mmaPeak(Device &device, const std::string &bundles) {
  const std::string path = bundles + "/mma_peak.tuna";
  if (!std::ifstream(path))
    return;
  Backend &backend = device.backend();
  Options off;
  off.mode = TuneMode::Off;
  Module tunedModule = Module::load(path, device, Options::fromEnvironment());
  Module fixedModule = Module::load(path, device, off);
  TunedKernel &tuned = tunedModule.kernel("mma_peak");
  TunedKernel &fixed = fixedModule.kernel("mma_peak");
  const int64_t iters = 65536, blocks = 528;
  Buffer out(backend, blocks * 512 * 4);
  auto launch = [&](TunedKernel &k) {
    k.launch(nullptr, memref(out.f(), {blocks * 512}), iters);
  };
  launch(tuned);
  backend.synchronize(nullptr);
  const TuningReport report = tuned.reports().back();
  double tunedMs = deviceMs(backend, [&] { launch(tuned); }, 3, 7);
  double defaultMs = deviceMs(backend, [&] { launch(fixed); }, 3, 7);
  auto tflops = [&](double ms) {
    return double(blocks) * iters * 8 * 4096 / (ms * 1e9);
  };
  std::printf(
      "TUNA {\"kernel\": \"mma_peak\", \"shape\": \"iters=%lld\", "
      "\"ok\": 1, \"err_tuned\": 0, \"err_default\": 0, \"pick\": \"%s\", "
      "\"default\": \"%s\", \"variants\": %zu, \"first_call_ms\": 0, "
      "\"tuned_us\": %.2f, \"default_us\": %.2f, \"tuned_tflops\": %.1f, "
      "\"default_tflops\": %.1f}\n",
      static_cast<long long>(iters), configOf(tuned, report.chosen).c_str(),
      configOf(fixed, fixed.spec().defaultVariant).c_str(),
      tuned.spec().variants.size(), tunedMs * 1e3, defaultMs * 1e3,
      tflops(tunedMs), tflops(defaultMs));
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr,
                 "usage: %s BUNDLE_DIR (holding KERNEL.tuna) [ONLY_PREFIX]\n",
                 argv[0]);
    return 2;
  }
  const std::string bundles = argv[1];
  // Only the cases whose kernel starts with this (say "matmul").
  const std::string only = argc == 3 ? argv[2] : "";
  std::mt19937 rng(std::random_device{}());
  // Each case is built (inputs and CPU reference) only when it runs.
  const std::vector<std::pair<std::string, std::function<Case()>>> cases = {
      {"axpy", [&] { return axpyCase(rng, int64_t(1) << 24); }},
      {"axpy", [&] { return axpyCase(rng, int64_t(1) << 26); }},
      {"row_sum", [&] { return rowSumCase(rng, 131072, 256); }},
      {"row_sum", [&] { return rowSumCase(rng, 8192, 4096); }},
      {"softmax", [&] { return softmaxCase(rng, 32768, 1024); }},
      {"softmax", [&] { return softmaxCase(rng, 4096, 8192); }},
      {"layernorm", [&] { return layernormCase(rng, 32768, 1024); }},
      {"layernorm", [&] { return layernormCase(rng, 4096, 8192); }},
      {"transpose", [&] { return transposeCase(rng, 8192, 4096); }},
      {"transpose", [&] { return transposeCase(rng, 4000, 6000); }},
      {"color_normalize", [&] { return colorCase(rng, 64, 512, 512); }},
      {"color_normalize", [&] { return colorCase(rng, 256, 224, 224); }},
      {"matmul_f16", [&] { return matmulCase(rng, true, 4096, 4096, 4096, 16); }},
      {"matmul_f16", [&] { return matmulCase(rng, true, 2048, 2048, 2048, 32); }},
      {"matmul_f16", [&] { return matmulCase(rng, true, 8192, 8192, 8192, 4); }},
      {"matmul_f16_wgmma", [&] { return matmulCase(rng, true, 4096, 4096, 4096, 16, true); }},
      {"matmul_f16_wgmma", [&] { return matmulCase(rng, true, 2048, 2048, 2048, 32, true); }},
      {"matmul_f16_wgmma", [&] { return matmulCase(rng, true, 8192, 8192, 8192, 4, true); }},
      // No tile divides it: only the masked variants (mask = 1) can run.
      {"matmul_f16_wgmma", [&] { return matmulCase(rng, true, 4000, 4008, 3992, 16, true); }},
      {"matmul_f32", [&] { return matmulCase(rng, false, 2048, 2048, 2048, 32); }},
      {"matmul_f32", [&] { return matmulCase(rng, false, 4096, 4096, 4096, 16); }},
  };
  bool allCorrect = true;
  try {
    Device device = Device::cuda(0);
    std::printf("device: %s (%s), driver %s\n", device.info().name.c_str(),
                device.info().arch.c_str(),
                device.info().driverVersion.c_str());
    for (const auto &[kernel, make] : cases)
      if (kernel.rfind(only, 0) == 0)
        allCorrect &= runCase(device, bundles, make());
    if (only.empty() || only.rfind("matmul", 0) == 0 || only == "mma")
      mmaPeak(device, bundles);
  } catch (const Error &e) {
    std::fprintf(stderr, "tuna-kernels-bench: %s\n", e.what());
    return 1;
  }
  return allCorrect ? 0 : 1;
}
