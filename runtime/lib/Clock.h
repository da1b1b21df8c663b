//===- Clock.h - Wall-clock helpers of the tuning loops ---------*- C++ -*-===//
//
// What the tuner (Tuner.cpp) and the step tuner (Step.cpp) measure with:
// the wall clock and a pair of backend events.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CLOCK_H
#define TUNA_RUNTIME_LIB_CLOCK_H

#include "tuna/runtime/Backend.h"

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

/// Owns two backend events.
class EventPair {
public:
  explicit EventPair(Backend &backend)
      : backend(backend), start(backend.createEvent()) {
    try {
      end = backend.createEvent();
    } catch (...) {
      backend.destroyEvent(start);
      throw;
    }
  }
  ~EventPair() {
    backend.destroyEvent(start);
    backend.destroyEvent(end);
  }
  EventPair(const EventPair &) = delete;
  EventPair &operator=(const EventPair &) = delete;

  Backend &backend;
  EventHandle start;
  EventHandle end = nullptr;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_CLOCK_H
