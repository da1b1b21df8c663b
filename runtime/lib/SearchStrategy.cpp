//===- SearchStrategy.cpp - Exhaustive, random and pattern search ---------===//
//
// exhaustive: every configuration in id order.
// random:     a seeded permutation of the space.
// pattern:    a pattern search guided by a surrogate. It starts from a seeded
//             random sample, then each round (1) fits an additive model of
//             log(time) (one weight per parameter value, ridge regression) to
//             every measurement so far, (2) collects the unvisited
//             neighbours of the fastest configurations (one parameter moved
//             one or two values, or two parameters moved one value each),
//             (3) measures the neighbours the model predicts fastest, plus
//             the configuration of the whole space the model predicts
//             fastest and one random configuration. It stops when the best
//             has not improved for a few rounds after the neighbourhoods of
//             the fastest are exhausted.
//
//===----------------------------------------------------------------------===//

#include "SearchStrategy.h"

#include "tuna/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace tuna::search {

uint64_t Rng::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

size_t Rng::below(size_t n) {
  // Rejection keeps it uniform.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t r;
  do
    r = next();
  while (r >= limit);
  return static_cast<size_t>(r % n);
}

std::vector<size_t> History::fastest(size_t k) const {
  std::vector<size_t> measured;
  for (size_t id : visits)
    if (state[id] == State::Measured)
      measured.push_back(id);
  auto faster = [&](size_t a, size_t b) {
    return ms[a] != ms[b] ? ms[a] < ms[b] : a < b;
  };
  k = std::min(k, measured.size());
  std::partial_sort(measured.begin(), measured.begin() + k, measured.end(),
                    faster);
  measured.resize(k);
  return measured;
}

void History::record(size_t id, const Measurement &measurement) {
  state[id] = measurement.ok() ? State::Measured : State::Failed;
  ms[id] = measurement.ms;
  visits.push_back(id);
}

namespace {

class Exhaustive : public Strategy {
public:
  std::vector<size_t> next(const History &history) override {
    std::vector<size_t> batch;
    for (; cursor < history.space.size() && batch.size() < kBatch; ++cursor)
      if (!history.visited(cursor))
        batch.push_back(cursor);
    return batch;
  }

private:
  static constexpr size_t kBatch = 16;
  size_t cursor = 0;
};

/// Draws unvisited configurations uniformly without replacement: a lazy
/// Fisher-Yates shuffle of the ids.
class Shuffle {
public:
  Shuffle(size_t size, uint64_t seed) : order(size), rng(seed) {
    std::iota(order.begin(), order.end(), size_t(0));
  }
  /// The next id not visited, if any.
  std::optional<size_t> draw(const History &history) {
    while (drawn < order.size()) {
      std::swap(order[drawn], order[drawn + rng.below(order.size() - drawn)]);
      size_t id = order[drawn++];
      if (!history.visited(id))
        return id;
    }
    return std::nullopt;
  }
  /// Up to `count` ids not visited.
  std::vector<size_t> draw(const History &history, size_t count) {
    std::vector<size_t> batch;
    while (batch.size() < count)
      if (std::optional<size_t> id = draw(history))
        batch.push_back(*id);
      else
        break;
    return batch;
  }

private:
  std::vector<size_t> order;
  size_t drawn = 0;
  Rng rng;
};

class Random : public Strategy {
public:
  Random(const Space &space, uint64_t seed) : shuffle(space.size(), seed) {}
  std::vector<size_t> next(const History &history) override {
    return shuffle.draw(history, kBatch);
  }

private:
  static constexpr size_t kBatch = 16;
  Shuffle shuffle;
};

/// log(time) ~ bias + sum over parameters of a weight per value, fitted by
/// ridge regression. Exact for separable landscapes, a trend elsewhere.
class AdditiveModel {
public:
  explicit AdditiveModel(const Space &space) : space(space) {
    for (const Parameter &parameter : space.parameters()) {
      offsets.push_back(features);
      features += parameter.values.size();
    }
  }

  void fit(const History &history) {
    std::vector<size_t> ids;
    std::vector<double> targets;
    for (size_t id : history.order())
      if (std::optional<double> ms = history.time(id); ms && *ms > 0) {
        ids.push_back(id);
        targets.push_back(std::log(*ms));
      }
    weights.assign(features, 0);
    bias = 0;
    if (ids.empty())
      return;
    bias = std::accumulate(targets.begin(), targets.end(), 0.0) /
           static_cast<double>(targets.size());
    // Normal equations (X^T X + lambda I) w = X^T (y - bias), X one-hot.
    std::vector<double> a(features * features, 0), b(features, 0);
    std::vector<size_t> active(space.rank());
    for (size_t n = 0; n < ids.size(); ++n) {
      for (size_t p = 0; p < space.rank(); ++p)
        active[p] = offsets[p] + space.index(ids[n], p);
      for (size_t i : active) {
        b[i] += targets[n] - bias;
        for (size_t j : active)
          a[i * features + j] += 1;
      }
    }
    for (size_t i = 0; i < features; ++i)
      a[i * features + i] += kRidge;
    solveSymmetric(a, b);
    weights = std::move(b);
  }

  double predict(size_t id) const {
    double value = bias;
    for (size_t p = 0; p < space.rank(); ++p)
      value += weights[offsets[p] + space.index(id, p)];
    return value;
  }

private:
  static constexpr double kRidge = 0.1;

  /// Solves a x = b in place (b becomes x) for symmetric positive definite
  /// `a`, by Cholesky decomposition.
  void solveSymmetric(std::vector<double> &a, std::vector<double> &b) const {
    size_t n = features;
    for (size_t j = 0; j < n; ++j) {
      double d = a[j * n + j];
      for (size_t k = 0; k < j; ++k)
        d -= a[j * n + k] * a[j * n + k];
      d = std::sqrt(std::max(d, 1e-12));
      a[j * n + j] = d;
      for (size_t i = j + 1; i < n; ++i) {
        double s = a[i * n + j];
        for (size_t k = 0; k < j; ++k)
          s -= a[i * n + k] * a[j * n + k];
        a[i * n + j] = s / d;
      }
    }
    for (size_t i = 0; i < n; ++i) { // L y = b
      for (size_t k = 0; k < i; ++k)
        b[i] -= a[i * n + k] * b[k];
      b[i] /= a[i * n + i];
    }
    for (size_t i = n; i-- > 0;) { // L^T x = y
      for (size_t k = i + 1; k < n; ++k)
        b[i] -= a[k * n + i] * b[k];
      b[i] /= a[i * n + i];
    }
  }

  const Space &space;
  std::vector<size_t> offsets;
  size_t features = 0;
  std::vector<double> weights;
  double bias = 0;
};

class Pattern : public Strategy {
public:
  Pattern(const Space &space, uint64_t seed)
      : space(space), shuffle(space.size(), seed), model(space) {}

  std::vector<size_t> next(const History &history) override {
    if (history.order().size() < initialSample())
      return shuffle.draw(history, initialSample() - history.order().size());
    std::vector<size_t> best = history.fastest(1);
    if (!best.empty() && (bestSeen < 0 || best[0] != size_t(bestSeen))) {
      bestSeen = static_cast<long>(best[0]);
      idleRounds = 0;
    }
    model.fit(history);
    std::vector<size_t> batch = closeNeighbours(history);
    if (batch.empty() && ++idleRounds > kPatience)
      return {};
    for (size_t id : globalPicks(history, batch))
      batch.push_back(id);
    return batch;
  }

private:
  static constexpr size_t kLeaders = 4;    ///< Whose neighbours are searched.
  static constexpr size_t kNeighbours = 6; ///< Measured per round.
  static constexpr int kPatience = 3;      ///< Idle rounds before stopping.

  size_t initialSample() const {
    return std::clamp<size_t>(space.size() / 200, 8, 32);
  }

  /// The unvisited neighbours of the fastest configurations that the model
  /// predicts fastest.
  std::vector<size_t> closeNeighbours(const History &history) const {
    std::set<size_t> found;
    for (size_t leader : history.fastest(kLeaders))
      for (size_t id : neighbours(leader))
        if (!history.visited(id))
          found.insert(id);
    return bestPredicted(std::vector<size_t>(found.begin(), found.end()),
                         kNeighbours);
  }

  std::vector<size_t> neighbours(size_t id) const {
    std::vector<size_t> result;
    std::vector<int> at(space.rank());
    for (size_t p = 0; p < space.rank(); ++p)
      at[p] = space.index(id, p);
    auto tryAt = [&](const std::vector<int> &indices) {
      if (std::optional<size_t> other = space.find(indices))
        result.push_back(*other);
    };
    for (size_t p = 0; p < space.rank(); ++p) {
      for (int step : {-2, -1, 1, 2}) {
        std::vector<int> moved = at;
        moved[p] += step;
        tryAt(moved);
      }
      for (size_t q = p + 1; q < space.rank(); ++q)
        for (int dp : {-1, 1})
          for (int dq : {-1, 1}) {
            std::vector<int> moved = at;
            moved[p] += dp;
            moved[q] += dq;
            tryAt(moved);
          }
    }
    return result;
  }

  /// The `count` of `ids` with the lowest prediction (ties: lower id).
  std::vector<size_t> bestPredicted(std::vector<size_t> ids,
                                    size_t count) const {
    std::vector<std::pair<double, size_t>> scored;
    for (size_t id : ids)
      scored.emplace_back(model.predict(id), id);
    count = std::min(count, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + count, scored.end());
    std::vector<size_t> result;
    for (size_t i = 0; i < count; ++i)
      result.push_back(scored[i].second);
    return result;
  }

  /// The unvisited configuration of the whole space the model predicts
  /// fastest, and one random one (neither in `taken`).
  std::vector<size_t> globalPicks(const History &history,
                                  const std::vector<size_t> &taken) {
    std::vector<size_t> picks;
    std::optional<std::pair<double, size_t>> best;
    for (size_t id = 0; id < space.size(); ++id) {
      if (history.visited(id) ||
          std::find(taken.begin(), taken.end(), id) != taken.end())
        continue;
      std::pair<double, size_t> scored(model.predict(id), id);
      if (!best || scored < *best)
        best = scored;
    }
    if (best)
      picks.push_back(best->second);
    while (std::optional<size_t> id = shuffle.draw(history))
      if (std::find(taken.begin(), taken.end(), *id) == taken.end() &&
          std::find(picks.begin(), picks.end(), *id) == picks.end()) {
        picks.push_back(*id);
        break;
      }
    return picks;
  }

  const Space &space;
  Shuffle shuffle;
  AdditiveModel model;
  long bestSeen = -1;
  int idleRounds = 0;
};

} // namespace

const std::vector<std::string> &strategyNames() {
  static const std::vector<std::string> names = {"exhaustive", "random",
                                                 "pattern"};
  return names;
}

void checkStrategyName(const std::string &name) {
  const std::vector<std::string> &names = strategyNames();
  if (std::find(names.begin(), names.end(), name) != names.end())
    return;
  std::string known;
  for (const std::string &other : names)
    known += (known.empty() ? "" : ", ") + other;
  throw Error(ErrorCode::InvalidArgument,
              "unknown search strategy '" + name + "' (known: " + known + ")");
}

std::unique_ptr<Strategy> makeStrategy(const std::string &name,
                                       const Space &space, uint64_t seed) {
  checkStrategyName(name);
  if (name == "exhaustive")
    return std::make_unique<Exhaustive>();
  if (name == "random")
    return std::make_unique<Random>(space, seed);
  return std::make_unique<Pattern>(space, seed);
}

} // namespace tuna::search
