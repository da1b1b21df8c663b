//===- Clock.h - Wall-clock helpers of the tuning loops ---------*- C++ -*-===//
//
// What the tuner (Tuner.cpp) and the step tuner (Step.cpp) measure with.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CLOCK_H
#define TUNA_RUNTIME_LIB_CLOCK_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace tuna {

using Clock = std::chrono::steady_clock;

/// Milliseconds since `start`.
inline double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// The median of `values` (at least one).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_CLOCK_H
