//===- SyntheticEvaluator.h - A simulated, seeded evaluator -----*- C++ -*-===//
//
// Measures configurations of a search against a known landscape: the clock
// is simulated (each sample costs its true time, plus a fixed overhead per
// configuration) and noise is drawn from a seeded generator, so nothing
// depends on the machine's speed or load.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TEST_RUNTIME_SYNTHETICEVALUATOR_H
#define TUNA_TEST_RUNTIME_SYNTHETICEVALUATOR_H

#include "tuna/runtime/Search.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace tuna::test {

/// True time of a configuration in ms, or a negative number: the
/// configuration fails when measured.
using Truth = std::function<double(const search::Values &)>;

class SyntheticEvaluator : public search::Evaluator {
public:
  /// `noise`: the relative standard deviation of one sample (log-normal).
  SyntheticEvaluator(Truth truth, double noise = 0, uint64_t seed = 1)
      : truth(std::move(truth)), noise(noise), seed(seed) {}

  std::vector<search::Measurement>
  measure(const std::vector<search::Values> &configurations,
                                   int samples) override {
    ++calls;
    std::vector<search::Measurement> result;
    for (const search::Values &values : configurations) {
      measured.push_back(values);
      now += kOverheadSeconds;
      double ms = truth(values);
      if (ms < 0) {
        result.push_back(search::Measurement::failed("synthetic failure"));
        continue;
      }
      int n = samples ? samples : kDefaultSamples;
      // The noise depends only on what is measured and how often it was, so
      // a resumed search sees what an uninterrupted one would.
      state = seed + 7919 * uint64_t(repeats[values]++) + 31 * uint64_t(n);
      for (int64_t v : values)
        state = (state ^ uint64_t(v)) * 1099511628211ull;
      std::vector<double> times;
      for (int s = 0; s < n; ++s) {
        times.push_back(ms * std::exp(noise * gaussian()));
        now += times.back() / 1000;
      }
      std::sort(times.begin(), times.end());
      search::Measurement m;
      m.ms = times[times.size() / 2];
      m.minMs = times.front();
      m.maxMs = times.back();
      m.samples = n;
      result.push_back(m);
    }
    return result;
  }
  double seconds() override { return now; }

  static constexpr int kDefaultSamples = 5;
  static constexpr double kOverheadSeconds = 1;
  std::vector<search::Values> measured;
  int calls = 0;

private:
  double uniform() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  }
  double gaussian() { // Box-Muller.
    double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

  Truth truth;
  double noise;
  uint64_t seed;
  uint64_t state = 0;
  std::map<search::Values, int> repeats;
  double now = 0;
};

} // namespace tuna::test

#endif // TUNA_TEST_RUNTIME_SYNTHETICEVALUATOR_H
