//===- header_app.cpp - An app that embeds kernels through the header -----===//
//
// kernels.h is written at build time by `tuna-compile kernels-mlir/scale.mlir
// --target=host --header kernels.h`. The app tunes and runs the embedded
// host kernel on fresh random inputs with a NaN-poisoned output and compares
// every element with the CPU. Exits 1 on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "kernels.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

int main() {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  int failures = 0;
  try {
    for (int64_t n : {1, 37, 4096, 100003}) {
      std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
      for (float &v : x)
        v = dist(rng);
      const float s = -2.5f;
      kernels::scale_host(nullptr, tuna::memref(x.data(), {n}),
                          tuna::memref(y.data(), {n}), s, n);
      // The overload with an explicit device reaches the same module.
      kernels::scale_host(tuna::Device::host(), nullptr,
                          tuna::memref(x.data(), {n}),
                          tuna::memref(y.data(), {n}), s, n);
      for (int64_t i = 0; i < n; ++i)
        if (!(y[i] == s * x[i])) {
          std::fprintf(stderr, "n=%lld: y[%lld] = %g, expected %g\n",
                       (long long)n, (long long)i, y[i], s * x[i]);
          ++failures;
          break;
        }
    }
    const tuna::TunedKernel &kernel =
        kernels::module(tuna::Device::host()).kernel("scale_host");
    std::printf("header_app: %zu signatures decided, %zu variants\n",
                kernel.reports().size(), kernel.spec().variants.size());
  } catch (const tuna::Error &e) {
    std::fprintf(stderr, "header_app: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
