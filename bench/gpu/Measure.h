//===- Measure.h - What the GPU benchmarks share ---------------*- C++ -*-===//
//
// Device timing with the backend's events, the median, and a variant's
// configuration as text: one definition for tuna-gpu-bench and
// tuna-kernels-bench, so that their numbers are measured alike.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_BENCH_GPU_MEASURE_H
#define TUNA_BENCH_GPU_MEASURE_H

#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace tuna::bench {

/// The upper median.
inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Median device time of one call in ms: `samples` samples of `reps` calls
/// between two events, after one untimed call.
inline double deviceMs(Backend &backend, const std::function<void()> &call,
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

/// "block=256,vec=4": the configuration of `variant`.
inline std::string configOf(const TunedKernel &kernel, int variant) {
  std::string s;
  for (const auto &[name, value] : kernel.spec().variants[variant].config)
    s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

} // namespace tuna::bench

#endif // TUNA_BENCH_GPU_MEASURE_H
