//===- header_app.cpp - An app that embeds kernels through the header -----===//
//
// kernels.h is written at build time by `tuna-compile kernels-mlir/scale.mlir
// --target=host -o kernels.tuna --header kernels.h`. The app checks that the
// header embeds kernels.tuna byte for byte, tunes and runs the embedded host
// kernel on fresh random inputs with a NaN-poisoned output through both
// launchers, and compares every element with the CPU. Exits 1 on any
// mismatch.
//
//===----------------------------------------------------------------------===//

#include "kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

tuna::Module &hostModuleFromOtherUnit();

static bool embedsTheBundle() {
  std::ifstream file(TUNA_TEST_BUNDLE, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  std::string embedded(reinterpret_cast<const char *>(kernels::detail::bundle),
                       sizeof(kernels::detail::bundle));
  if (file && bytes == embedded)
    return true;
  std::fprintf(stderr,
               "header_app: the header embeds %zu bytes, %s has %zu bytes "
               "that differ\n",
               embedded.size(), TUNA_TEST_BUNDLE, bytes.size());
  return false;
}

/// The first launches come from several threads at once: they share one
/// module, one kernel and one tuning of their signature.
static bool firstLaunchesFromThreads(float s) {
  constexpr int64_t n = 1000;
  std::vector<std::vector<float>> ys(4);
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i) - 500.0f;
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (std::vector<float> &y : ys)
    threads.emplace_back([&] {
      y.assign(n, std::numeric_limits<float>::quiet_NaN());
      try {
        kernels::scale_host(nullptr, tuna::memref(x.data(), {n}),
                            tuna::memref(y.data(), {n}), s, n);
      } catch (const tuna::Error &e) {
        std::fprintf(stderr, "header_app: %s\n", e.what());
        ++errors;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::vector<float> &y : ys)
    for (int64_t i = 0; i < n; ++i)
      if (!(y[i] == s * x[i])) {
        std::fprintf(stderr, "threads: y[%lld] = %g, expected %g\n",
                     (long long)i, y[i], s * x[i]);
        return false;
      }
  return errors == 0;
}

int main() {
  if (!embedsTheBundle() || !firstLaunchesFromThreads(3.0f))
    return 1;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  int failures = 0;
  try {
    for (int64_t n : {1, 37, 4096, 100003}) {
      std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
      for (float &v : x)
        v = dist(rng);
      const float s = -2.5f;
      auto check = [&](const char *launcher) {
        for (int64_t i = 0; i < n; ++i)
          if (!(y[i] == s * x[i])) {
            std::fprintf(stderr, "%s, n=%lld: y[%lld] = %g, expected %g\n",
                         launcher, (long long)n, (long long)i, y[i], s * x[i]);
            ++failures;
            return;
          }
      };
      kernels::scale_host(nullptr, tuna::memref(x.data(), {n}),
                          tuna::memref(y.data(), {n}), s, n);
      check("scale_host(stream, ...)");
      // The overload with an explicit device reaches the same module.
      std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
      kernels::scale_host(tuna::Device::host(), nullptr,
                          tuna::memref(x.data(), {n}),
                          tuna::memref(y.data(), {n}), s, n);
      check("scale_host(device, stream, ...)");
    }
    tuna::Module &module = kernels::module(tuna::Device::host());
    if (&module != &hostModuleFromOtherUnit()) {
      std::fprintf(stderr, "header_app: two modules for the host device\n");
      return 1;
    }
    const tuna::TunedKernel &kernel = module.kernel("scale_host");
    std::printf("header_app: %zu signatures decided, %zu variants\n",
                kernel.reports().size(), kernel.spec().variants.size());
  } catch (const tuna::Error &e) {
    std::fprintf(stderr, "header_app: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
