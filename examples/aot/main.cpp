//===- main.cpp - An application with its kernels embedded ----------------===//
//
// kernels.h comes from `tuna-compile scale.mlir --target=host --header
// kernels.h` at build time: it embeds the bundle and declares one launcher
// per kernel. The app runs the host scale kernel (tuned on the first call
// of each shape) and checks y = s * x against a plain loop. Exits 1 on any
// error or mismatch.
//
//===----------------------------------------------------------------------===//

#include "kernels.h"

#include <cstdio>
#include <limits>
#include <vector>

int main() {
  try {
    for (int64_t n : {5, 1000, 65537}) {
      std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
      for (int64_t i = 0; i < n; ++i)
        x[i] = static_cast<float>(i % 97) - 48.0f;
      const float s = 1.5f;
      kernels::scale_host(nullptr, tuna::memref(x.data(), {n}),
                          tuna::memref(y.data(), {n}), s, n);
      for (int64_t i = 0; i < n; ++i)
        if (!(y[i] == s * x[i])) {
          std::fprintf(stderr, "aot_app: n=%lld: y[%lld] = %g, expected %g\n",
                       (long long)n, (long long)i, y[i], s * x[i]);
          return 1;
        }
    }
    const tuna::TunedKernel &kernel =
        kernels::module(tuna::Device::host()).kernel("scale_host");
    std::printf("aot_app: %zu shapes tuned and checked, %zu variants\n",
                kernel.reports().size(), kernel.spec().variants.size());
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "aot_app: %s\n", error.what());
    return 1;
  }
  return 0;
}
