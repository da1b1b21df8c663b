//===- main.cpp - The application of docs/tutorial.md ---------------------===//
//
// Runs y = gelu(x + bias) through the launcher that bias_gelu.h declares
// (the bundle is embedded in it), on the host, for a few shapes, and checks
// every element against the formula in double. Prints how each shape was
// decided: how many variants its first call timed (all of them, or only a
// tuning database's shortlist, TUNA_TUNING_DB) and the pick. Exits 1 on any
// error or mismatch.
//
//===----------------------------------------------------------------------===//

#include "bias_gelu.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

double geluOfSum(double v, double b) {
  double s = v + b;
  return 0.5 * s * (1.0 + std::tanh(0.7978845608 * (s + 0.044715 * s * s * s)));
}

/// Launches the kernel on a rows x cols matrix; false on a wrong element.
bool runAndCheck(int64_t rows, int64_t cols) {
  std::vector<float> x(rows * cols), bias(cols), y(rows * cols, NAN);
  for (int64_t i = 0; i < rows * cols; ++i)
    x[i] = static_cast<float>(i % 101) / 25.0f - 2.0f;
  for (int64_t c = 0; c < cols; ++c)
    bias[c] = static_cast<float>(c % 7) / 10.0f - 0.3f;
  bias_gelu::bias_gelu_host(nullptr, tuna::memref(x.data(), {rows * cols}),
                            tuna::memref(bias.data(), {cols}),
                            tuna::memref(y.data(), {rows * cols}), rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double expected = geluOfSum(x[r * cols + c], bias[c]);
      double got = y[r * cols + c];
      if (!(std::fabs(got - expected) <= 1e-5 + 1e-5 * std::fabs(expected))) {
        std::fprintf(stderr, "tutorial_app: %lldx%lld: y[%lld, %lld] = %g, "
                             "expected %g\n",
                     (long long)rows, (long long)cols, (long long)r,
                     (long long)c, got, expected);
        return false;
      }
    }
  return true;
}

} // namespace

int main() {
  try {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{64, 512},
                              {1000, 333},
                              {3, 5}})
      if (!runAndCheck(rows, cols))
        return 1;
    const tuna::TunedKernel &kernel =
        bias_gelu::module(tuna::Device::host()).kernel("bias_gelu_host");
    for (const tuna::TuningReport &report : kernel.reports()) {
      int timed = 0;
      for (const tuna::CandidateResult &candidate : report.candidates)
        timed += candidate.samples > 0;
      std::printf("tutorial_app: %lld x %lld: %s, %d of %zu variants timed, "
                  "picked",
                  (long long)report.keyValues[0],
                  (long long)report.keyValues[1],
                  tuna::decisionSourceName(report.source), timed,
                  report.candidates.size());
      for (const auto &[param, value] :
           kernel.spec().variants[report.chosen].config)
        std::printf(" %s=%lld", param.c_str(), (long long)value);
      std::printf("\n");
    }
    std::printf("tutorial_app: %zu shapes checked\n", kernel.reports().size());
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "tutorial_app: %s\n", error.what());
    return 1;
  }
  return 0;
}
