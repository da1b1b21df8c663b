//===- tune_demo.cpp - Tune the kernel library end to end on a device -----===//
//
// The README's main job. Loads bundles compiled by tuna-compile, runs each
// kernel of kernels-mlir that has code for the device on fresh random inputs
// with a poisoned output, lets the runtime tune it on the first call, checks
// the result against a C++ reference, and compares the tuned variant's time
// with the default configuration's. Prints a table last.
//
//   tuna-demo build/demo/scale.tuna build/demo/matmul_host.tuna \
//     build/demo/reduce.tuna build/demo/softmax.tuna build/demo/layernorm.tuna
//
//===----------------------------------------------------------------------===//

#include "reference/RelativeError.h"
#include "reference/RowKernels.h"
#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

struct Row {
  std::string kernel, shape, pick;
  size_t variants = 0;
  double tuneMs = 0, defaultMs = 0, tunedMs = 0, error = 0;
  bool ok = false;
};

std::mt19937 rng(std::random_device{}());

std::vector<float> randomFloats(size_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Median wall times in ms of `a` and `b`, sampled in turns (so that a drift
/// of the machine, such as a clock ramping up, affects both alike) until
/// about 400 ms have passed.
std::pair<double, double> timeMs(const std::function<void()> &a,
                                 const std::function<void()> &b) {
  using Clock = std::chrono::steady_clock;
  auto sample = [](const std::function<void()> &launch) {
    auto t0 = Clock::now();
    launch();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0)
        .count();
  };
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  std::vector<double> as, bs;
  auto start = Clock::now();
  while (as.size() < 5 ||
         (as.size() < 200 &&
          Clock::now() - start < std::chrono::milliseconds(400))) {
    as.push_back(sample(a));
    bs.push_back(sample(b));
  }
  return {median(as), median(bs)};
}

std::string configOf(const tuna::TunedKernel &kernel, int variant) {
  std::string s;
  for (const auto &[name, value] : kernel.spec().variants[variant].config)
    s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

/// Runs `run(kernel)` on a tuning module and on a module with tuning off
/// (the default variant), checks the tuned output, and fills a row.
template <typename RunFn, typename CheckFn>
Row measure(tuna::Module &tuned, tuna::Module &fixed, const char *name,
            std::string shape, RunFn run, CheckFn check) {
  Row row;
  row.kernel = name;
  row.shape = std::move(shape);
  tuna::TunedKernel &kernel = tuned.kernel(name);
  row.variants = kernel.spec().variants.size();
  run(kernel); // First call: tunes, then launches the pick.
  row.error = check();
  row.ok = std::isfinite(row.error) && row.error < 1e-4;
  const tuna::TuningReport report = kernel.reports().back();
  row.tuneMs = report.wallMs;
  row.pick = configOf(kernel, report.chosen);
  tuna::TunedKernel &byDefault = fixed.kernel(name);
  std::tie(row.tunedMs, row.defaultMs) =
      timeMs([&] { run(kernel); }, [&] { run(byDefault); });
  return row;
}

Row runScale(tuna::Module &tuned, tuna::Module &fixed, int64_t n) {
  std::vector<float> x = randomFloats(n);
  std::vector<float> y(n, std::numeric_limits<float>::quiet_NaN());
  const float s = 1.5f;
  auto run = [&](tuna::TunedKernel &k) {
    k.launch(nullptr, tuna::memref(x.data(), {n}), tuna::memref(y.data(), {n}),
             s, n);
  };
  auto check = [&] {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(double(y[i]) - double(s) * x[i]));
    return worst; // NaN (unwritten) makes this NaN.
  };
  return measure(tuned, fixed, "scale_host", "n=" + std::to_string(n), run,
                 check);
}

Row runMatmul(tuna::Module &tuned, tuna::Module &fixed, int64_t m, int64_t n,
              int64_t k) {
  std::vector<float> a = randomFloats(m * k), b = randomFloats(k * n);
  std::vector<float> c(m * n, std::numeric_limits<float>::quiet_NaN());
  auto run = [&](tuna::TunedKernel &kernel) {
    kernel.launch(nullptr, tuna::memref(a.data(), {m, k}),
                  tuna::memref(b.data(), {k, n}),
                  tuna::memref(c.data(), {m, n}));
  };
  auto check = [&] {
    double num = 0, den = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < k; ++p)
          ref += double(a[i * k + p]) * b[p * n + j];
        num += (c[i * n + j] - ref) * (c[i * n + j] - ref);
        den += ref * ref;
      }
    return std::sqrt(num / den); // Relative Frobenius error.
  };
  return measure(tuned, fixed, "matmul_host",
                 std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k),
                 run, check);
}

std::string rowsByCols(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

/// row_sum_host (y has a float per row) and softmax_host (y is x's shape):
/// x in [-spread, spread], checked against `reference`.
Row runRowKernel(tuna::Module &tuned, tuna::Module &fixed, const char *kernel,
                 int64_t rows, int64_t cols, int64_t outputs, float spread,
                 std::vector<double> (*reference)(const float *, int64_t,
                                                  int64_t)) {
  std::vector<float> x = randomFloats(rows * cols);
  for (float &v : x)
    v *= spread;
  std::vector<float> y(outputs, std::numeric_limits<float>::quiet_NaN());
  auto run = [&](tuna::TunedKernel &k) {
    k.launch(nullptr, tuna::memref(x.data(), {rows * cols}),
             tuna::memref(y.data(), {outputs}), rows, cols);
  };
  auto check = [&] {
    return tuna::reference::relativeError(y, reference(x.data(), rows, cols));
  };
  return measure(tuned, fixed, kernel, rowsByCols(rows, cols), run, check);
}

Row runLayernorm(tuna::Module &tuned, tuna::Module &fixed, int64_t rows,
                 int64_t cols) {
  const float eps = 1e-5f;
  std::vector<float> x = randomFloats(rows * cols);
  for (float &v : x)
    v = 4 + 2 * v; // A mean far from zero against the spread.
  std::vector<float> gamma = randomFloats(cols), beta = randomFloats(cols);
  std::vector<float> y(rows * cols, std::numeric_limits<float>::quiet_NaN());
  auto run = [&](tuna::TunedKernel &k) {
    k.launch(nullptr, tuna::memref(x.data(), {rows * cols}),
             tuna::memref(gamma.data(), {cols}),
             tuna::memref(beta.data(), {cols}),
             tuna::memref(y.data(), {rows * cols}), eps, rows, cols);
  };
  auto check = [&] {
    return tuna::reference::relativeError(y, tuna::reference::layernorm(x.data(), gamma.data(),
                                                        beta.data(), eps,
                                                        rows, cols));
  };
  return measure(tuned, fixed, "layernorm_host", rowsByCols(rows, cols), run,
                 check);
}

/// The row kernels' shapes: short rows that no vector width divides (2 MiB
/// in all), rows of 1024 and of 16384 floats (4 MiB).
const std::pair<int64_t, int64_t> kRowShapes[] = {
    {16384, 33}, {1024, 1024}, {64, 16384}};

bool hasKernel(const tuna::Module &module, const char *name) {
  for (const std::string &k : module.kernelNames())
    if (k == name)
      return true;
  return false;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s BUNDLE.tuna...\n", argv[0]);
    return 2;
  }
  std::vector<Row> rows;
  try {
    tuna::Device host = tuna::Device::host();
    tuna::Options tuning = tuna::Options::fromEnvironment();
    tuna::Options off = tuning;
    off.mode = tuna::TuneMode::Off;
    for (int i = 1; i < argc; ++i) {
      tuna::Module tuned = tuna::Module::load(argv[i], host, tuning);
      tuna::Module fixed = tuna::Module::load(argv[i], host, off);
      if (hasKernel(tuned, "scale_host"))
        for (int64_t n : {int64_t(1) << 10, int64_t(1) << 20, int64_t(1) << 24})
          rows.push_back(runScale(tuned, fixed, n));
      if (hasKernel(tuned, "matmul_host"))
        for (int64_t size : {128, 512})
          rows.push_back(runMatmul(tuned, fixed, size, size, size));
      for (auto [r, c] : kRowShapes) {
        if (hasKernel(tuned, "row_sum_host"))
          rows.push_back(runRowKernel(tuned, fixed, "row_sum_host", r, c, r,
                                      1.0f, tuna::reference::rowSum));
        if (hasKernel(tuned, "softmax_host"))
          rows.push_back(runRowKernel(tuned, fixed, "softmax_host", r, c,
                                      r * c, 8.0f, tuna::reference::softmax));
        if (hasKernel(tuned, "layernorm_host"))
          rows.push_back(runLayernorm(tuned, fixed, r, c));
      }
    }
  } catch (const tuna::Error &e) {
    std::fprintf(stderr, "tuna-demo: %s\n", e.what());
    return 1;
  }

  bool allOk = true;
  std::printf("\n%-14s %-12s %8s %-22s %10s %11s %10s %8s %s\n", "kernel",
              "shape", "variants", "tuned pick", "tune (ms)", "default (ms)",
              "tuned (ms)", "speedup", "check");
  for (const Row &r : rows) {
    allOk &= r.ok;
    std::printf(
        "%-14s %-12s %8zu %-22s %10.1f %11.4f %10.4f %7.2fx %s (err %.1e)\n",
        r.kernel.c_str(), r.shape.c_str(), r.variants, r.pick.c_str(), r.tuneMs,
        r.defaultMs, r.tunedMs, r.defaultMs / r.tunedMs, r.ok ? "ok" : "WRONG",
        r.error);
  }
  if (rows.empty()) {
    std::fprintf(stderr, "tuna-demo: no known kernel in the bundles\n");
    return 1;
  }
  return allOk ? 0 : 1;
}
