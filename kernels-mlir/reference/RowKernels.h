//===- RowKernels.h - Double-precision references of the row kernels ------===//
//
// What row_sum, softmax and layernorm (kernels-mlir/reduce.mlir,
// softmax.mlir, layernorm.mlir; GPU and host versions) compute, in double,
// for row-major rows x cols float inputs. One home for the references that
// the GPU benchmark (bench/gpu), the demo (bench/demo) and the host tests
// (test/jit) check against. Header-only C++17, no dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TUNA_KERNELS_REFERENCE_ROWKERNELS_H
#define TUNA_KERNELS_REFERENCE_ROWKERNELS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tuna::reference {

/// y[r] = sum_c x[r, c].
inline std::vector<double> rowSum(const float *x, int64_t rows,
                                  int64_t cols) {
  std::vector<double> y(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      y[r] += x[r * cols + c];
  return y;
}

/// y[r, c] = exp(x[r, c] - max_r) / sum_k exp(x[r, k] - max_r).
inline std::vector<double> softmax(const float *x, int64_t rows,
                                   int64_t cols) {
  std::vector<double> y(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x + r * cols;
    double m = *std::max_element(row, row + cols), sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(row[c] - m);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(row[c] - m) / sum;
  }
  return y;
}

/// y[r, c] = (x[r, c] - mean_r) / sqrt(var_r + eps) gamma[c] + beta[c], with
/// the biased variance.
inline std::vector<double> layernorm(const float *x, const float *gamma,
                                     const float *beta, float eps,
                                     int64_t rows, int64_t cols) {
  std::vector<double> y(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x + r * cols;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c)
      mean += row[c];
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c)
      var += (row[c] - mean) * (row[c] - mean);
    var /= cols;
    double rstd = 1 / std::sqrt(var + eps);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
  }
  return y;
}

} // namespace tuna::reference

#endif // TUNA_KERNELS_REFERENCE_ROWKERNELS_H
