//===- SearchStrategy.h - What a search strategy is -------------*- C++ -*-===//
//
// The seam between search::run() (budgets, resume, re-timing) and the
// strategies (which configuration to measure next). Internal to tuna_runtime.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_SEARCHSTRATEGY_H
#define TUNA_RUNTIME_LIB_SEARCHSTRATEGY_H

#include "tuna/runtime/Search.h"

#include <memory>

namespace tuna::search {

/// A small, portable generator (splitmix64): the same seed gives the same
/// numbers on every platform and standard library.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, n), n > 0.
  size_t below(size_t n);

private:
  uint64_t state;
};

/// The configurations this search has visited and what they measured.
class History {
public:
  explicit History(const Space &space) : space(space), ms(space.size(), 0) {
    state.assign(space.size(), State::Unvisited);
  }

  const Space &space;

  bool visited(size_t id) const { return state[id] != State::Unvisited; }
  /// The time of `id`, if it was visited and measured.
  std::optional<double> time(size_t id) const {
    if (state[id] != State::Measured)
      return std::nullopt;
    return ms[id];
  }
  /// Ids in the order they were visited.
  const std::vector<size_t> &order() const { return visits; }
  /// The `k` fastest measured ids, fastest first (ties: lower id first).
  std::vector<size_t> fastest(size_t k) const;

  void record(size_t id, const Measurement &measurement);

private:
  enum class State : uint8_t { Unvisited, Measured, Failed };
  std::vector<State> state;
  std::vector<double> ms;
  std::vector<size_t> visits;
};

/// Proposes what to measure next. A strategy's proposals depend only on the
/// seed and on the history (never on the budget left), so a resumed search
/// replays its predecessor's visits and continues where it stopped.
class Strategy {
public:
  virtual ~Strategy() = default;
  /// The next configurations to visit, none visited yet; empty: done.
  virtual std::vector<size_t> next(const History &history) = 0;
};

/// Throws tuna::Error naming the known strategies unless `name` is one.
void checkStrategyName(const std::string &name);

/// The strategy called `name` (checkStrategyName).
std::unique_ptr<Strategy> makeStrategy(const std::string &name,
                                       const Space &space, uint64_t seed);

} // namespace tuna::search

#endif // TUNA_RUNTIME_LIB_SEARCHSTRATEGY_H
