//===- SearchStrategy.cpp - Exhaustive, random and pattern search ---------===//
//
// exhaustive: every configuration in id order.
// random:     a seeded permutation of the space.
// pattern:    a pattern search guided by a surrogate. It starts from a seeded
//             random sample, then each round (1) fits a model of log(time)
//             (AdditiveModel: a smooth function of each parameter and of
//             each product of two parameters) to every measurement so far,
//             (2) picks leaders: the fastest configurations, each far
//             enough from the faster ones to be in another basin, (3)
//             measures, per leader, the unvisited neighbours the model
//             predicts fastest (one or two parameters moved by up to two
//             values, or one parameter with many values moved by up to a
//             quarter of its range), and for the fastest leader its
//             best-predicted area-keeping neighbours (one parameter moved,
//             a second one changed to keep their product), plus the
//             configuration of the whole space the model predicts fastest and
//             one random configuration. It stops when the best has not improved
//             for a few rounds after the leaders' neighbourhoods are exhausted.
//
//===----------------------------------------------------------------------===//

#include "SearchStrategy.h"

#include "tuna/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

/// How many configurations exhaustive and random propose at a time: their
/// proposals do not depend on what was measured, so the driver's batch size
/// alone sets how many are timed between two looks at the budgets (a batch
/// spread over devices holds several batches' worth, or a whole proposal).
constexpr size_t kProposal = 4096;

class Exhaustive : public Strategy {
public:
  std::vector<size_t> next(const History &history) override {
    std::vector<size_t> batch;
    for (; cursor < history.space.size() && batch.size() < kProposal; ++cursor)
      if (!history.visited(cursor))
        batch.push_back(cursor);
    return batch;
  }

private:
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
    return shuffle.draw(history, kProposal);
  }

private:
  Shuffle shuffle;
};

/// log(time) ~ bias + a smooth function of each axis, fitted by ridge
/// regression. The axes are the parameters (by value index) and the
/// products of two parameters (by log2 of the product, in bins of a factor
/// sqrt(2)): the ridges of kernel landscapes run along such products (a
/// tile's area, threads times elements per thread), and an additive model
/// of the parameters alone cannot represent them.
///
/// On each axis, the function at bin i is slope * i + level_i. The penalty
/// is on the slope and on the steps between adjacent levels: a consistent
/// trend is cheaper to explain by the slope than by equal steps, so the
/// model extrapolates a trend to values never measured, and a bin never
/// measured is predicted like its measured neighbours rather than like the
/// average. Each measurement touches two features per axis, so a fit costs
/// little even with a thousand measurements.
class AdditiveModel {
public:
  explicit AdditiveModel(const Space &space) : space(space) {
    const std::vector<Parameter> &parameters = space.parameters();
    for (size_t p = 0; p < space.rank(); ++p)
      addAxis({p, p, 0, int(parameters[p].values.size())});
    for (size_t p = 0; p < space.rank(); ++p)
      for (size_t q = p + 1; q < space.rank(); ++q) {
        std::optional<double> low, high;
        for (int64_t a : parameters[p].values)
          for (int64_t b : parameters[q].values)
            if (a > 0 && b > 0) {
              double x = std::log2(double(a)) + std::log2(double(b));
              low = std::min(low.value_or(x), x);
              high = std::max(high.value_or(x), x);
            }
        if (low && *high > *low)
          addAxis({p, q, *low, 1 + int((*high - *low) / kProductBin)});
      }
    bins.resize(space.size() * axes.size());
    for (size_t id = 0; id < space.size(); ++id)
      for (size_t x = 0; x < axes.size(); ++x)
        bins[id * axes.size() + x] = binOf(axes[x], id).value_or(-1);
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
    // Normal equations (X^T X + lambda I) w = X^T (y - bias).
    std::vector<double> a(features * features, 0), b(features, 0);
    std::vector<Feature> row;
    for (size_t n = 0; n < ids.size(); ++n) {
      featuresOf(ids[n], row);
      for (const Feature &fi : row) {
        b[fi.index] += fi.value * (targets[n] - bias);
        for (const Feature &fj : row)
          a[fi.index * features + fj.index] += fi.value * fj.value;
      }
    }
    addPenalty(a);
    solveSymmetric(a, b);
    weights = std::move(b);
  }

  double predict(size_t id) const {
    double value = bias;
    const int *bin = &bins[id * axes.size()];
    for (size_t x = 0; x < axes.size(); ++x)
      if (bin[x] >= 0)
        value += bin[x] * weights[axes[x].offset] +
                 weights[axes[x].offset + 1 + bin[x]];
    return value;
  }

private:
  static constexpr double kRidge = 0.1;
  /// Keeps the levels determined where the steps alone do not.
  static constexpr double kLevelRidge = 1e-3;
  static constexpr double kProductBin = 1.0; ///< In log2 of the product.

  /// Parameter p alone (p == q) or the product of p and q.
  struct Axis {
    size_t p, q;
    double low; ///< log2 of the smallest product.
    int bins;
    size_t offset = 0; ///< Of the axis's slope; its steps follow.
  };

  struct Feature {
    size_t index;
    double value;
  };

  void addAxis(Axis axis) {
    axis.offset = features;
    features += 1 + axis.bins; // The slope and a level per bin.
    axes.push_back(axis);
  }

  /// Adds the penalty matrix to the normal equations' `a`: kRidge on each
  /// slope and on each difference of adjacent levels.
  void addPenalty(std::vector<double> &a) const {
    for (const Axis &axis : axes) {
      a[axis.offset * features + axis.offset] += kRidge;
      for (int k = 0; k < axis.bins; ++k) {
        size_t i = axis.offset + 1 + k;
        a[i * features + i] += kLevelRidge;
        if (k + 1 < axis.bins) {
          size_t j = i + 1;
          a[i * features + i] += kRidge;
          a[j * features + j] += kRidge;
          a[i * features + j] -= kRidge;
          a[j * features + i] -= kRidge;
        }
      }
    }
  }

  /// The bin of `id` on `axis`; none for a product with a value <= 0.
  std::optional<int> binOf(const Axis &axis, size_t id) const {
    if (axis.p == axis.q)
      return space.index(id, axis.p);
    const std::vector<Parameter> &parameters = space.parameters();
    int64_t a = parameters[axis.p].values[space.index(id, axis.p)];
    int64_t b = parameters[axis.q].values[space.index(id, axis.q)];
    if (a <= 0 || b <= 0)
      return std::nullopt;
    double x = std::log2(double(a)) + std::log2(double(b));
    return std::clamp(int((x - axis.low) / kProductBin), 0, axis.bins - 1);
  }

  void featuresOf(size_t id, std::vector<Feature> &row) const {
    row.clear();
    for (size_t x = 0; x < axes.size(); ++x) {
      int bin = bins[id * axes.size() + x];
      if (bin >= 0) {
        row.push_back({axes[x].offset, double(bin)});
        row.push_back({axes[x].offset + 1 + bin, 1.0});
      }
    }
  }

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
  std::vector<Axis> axes;
  /// Each configuration's bin on each axis (-1: none), id-major.
  std::vector<int> bins;
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
  static constexpr size_t kLeaders = 4;   ///< Whose neighbours are searched.
  static constexpr size_t kPerLeader = 2; ///< Neighbours measured per round.
  static constexpr size_t kLineProbes = 2; ///< Per round, down one line.
  static constexpr double kSpread = 0.3;  ///< distance() between leaders.
  static constexpr int kPatience = 3;     ///< Idle rounds before stopping.
  /// The longest step along a parameter: this fraction of its values.
  static constexpr int kLongStepFraction = 4;

  size_t initialSample() const {
    return std::clamp<size_t>(space.size() / 200, 8, 32);
  }

  /// The unvisited neighbours of the leaders that the model predicts
  /// fastest, a few per leader; and for the fastest, a few of its
  /// area-keeping neighbours too, which the additive model underrates.
  std::vector<size_t> closeNeighbours(const History &history) {
    std::vector<size_t> batch;
    auto take = [&](const std::vector<std::vector<int>> &moves, size_t count) {
      std::vector<size_t> unvisited;
      for (const std::vector<int> &indices : moves)
        if (std::optional<size_t> id = space.find(indices))
          if (!history.visited(*id) &&
              std::find(batch.begin(), batch.end(), *id) == batch.end() &&
              std::find(unvisited.begin(), unvisited.end(), *id) ==
                  unvisited.end())
            unvisited.push_back(*id);
      for (size_t id : bestPredicted(unvisited, count))
        batch.push_back(id);
    };
    std::vector<size_t> chosen = leaders(history);
    for (size_t leader : chosen)
      take(compassMoves(indicesOf(leader)), kPerLeader);
    if (!chosen.empty()) {
      take(areaKeepingMoves(indicesOf(chosen.front())), kPerLeader);
      for (size_t id : lineProbes(history, indicesOf(chosen.front()), batch))
        batch.push_back(id);
    }
    return batch;
  }

  /// Along one parameter of `at` (the next in turn that has unvisited
  /// values there), the kLineProbes values farthest from every value
  /// visited on that line: a coarse look down the whole line, whatever the
  /// model predicts. A threshold such as "the row fits in registers" lies
  /// several values away on a flat plateau, where neither the model nor a
  /// step of two values finds it.
  std::vector<size_t> lineProbes(const History &history,
                                 const std::vector<int> &at,
                                 const std::vector<size_t> &taken) {
    for (size_t tries = 0; tries < space.rank(); ++tries) {
      size_t p = nextLine++ % space.rank();
      int n = int(space.parameters()[p].values.size());
      if (longSteps(p).size() > 4) // Its long steps look far already.
        continue;
      std::vector<int> visited, open;
      std::vector<size_t> ids(n, SIZE_MAX);
      for (int i = 0; i < n; ++i) {
        std::vector<int> point = at;
        point[p] = i;
        std::optional<size_t> id = space.find(point);
        if (!id)
          continue;
        ids[i] = *id;
        bool seen = history.visited(*id) ||
                    std::find(taken.begin(), taken.end(), *id) != taken.end();
        (seen ? visited : open).push_back(i);
      }
      std::vector<size_t> probes;
      while (!open.empty() && probes.size() < kLineProbes) {
        auto gap = [&](int i) {
          int nearest = n;
          for (int v : visited)
            nearest = std::min(nearest, std::abs(i - v));
          return nearest;
        };
        auto far = std::max_element(open.begin(), open.end(),
                                    [&](int a, int b) { return gap(a) < gap(b); });
        if (gap(*far) <= 2) // Within the compass moves' reach.
          break;
        probes.push_back(ids[*far]);
        visited.push_back(*far);
        open.erase(far);
      }
      if (!probes.empty())
        return probes;
    }
    return {};
  }

  std::vector<int> indicesOf(size_t id) const {
    std::vector<int> at(space.rank());
    for (size_t p = 0; p < space.rank(); ++p)
      at[p] = space.index(id, p);
    return at;
  }

  /// The fastest configurations, each at least kSpread value steps away
  /// from every faster leader, so that a second basin keeps being searched
  /// while the first is refined.
  std::vector<size_t> leaders(const History &history) const {
    std::vector<size_t> chosen;
    for (size_t id : history.fastest(history.order().size())) {
      bool apart = std::all_of(chosen.begin(), chosen.end(), [&](size_t other) {
        return distance(id, other) >= kSpread;
      });
      if (apart)
        chosen.push_back(id);
      if (chosen.size() == kLeaders)
        break;
    }
    return chosen;
  }

  /// The sum over parameters of the distance in values, each parameter's
  /// range counting 1.
  double distance(size_t a, size_t b) const {
    double sum = 0;
    for (size_t p = 0; p < space.rank(); ++p)
      if (size_t n = space.parameters()[p].values.size(); n > 1)
        sum += std::abs(space.index(a, p) - space.index(b, p)) / double(n - 1);
    return sum;
  }

  /// One parameter moved by up to two values (or further: longSteps), or
  /// two parameters moved by up to two values each.
  std::vector<std::vector<int>> compassMoves(const std::vector<int> &at) const {
    std::vector<std::vector<int>> moves;
    for (size_t p = 0; p < space.rank(); ++p) {
      for (int step : longSteps(p)) {
        moves.push_back(at);
        moves.back()[p] += step;
      }
      for (size_t q = p + 1; q < space.rank(); ++q)
        for (int dp : {-2, -1, 1, 2})
          for (int dq : {-2, -1, 1, 2}) {
            moves.push_back(at);
            moves.back()[p] += dp;
            moves.back()[q] += dq;
          }
    }
    return moves;
  }

  /// Steps along parameter p: +-1 and +-2 values, and on a parameter with
  /// many values, steps that double up to a quarter of its range, so that
  /// a leader on a wide parameter (threads per row: 32 values) reaches the
  /// next basin in a few rounds rather than a dozen.
  std::vector<int> longSteps(size_t p) const {
    std::vector<int> steps = {-2, -1, 1, 2};
    int n = int(space.parameters()[p].values.size());
    for (int step = 4; step <= n / kLongStepFraction; step *= 2) {
      steps.push_back(-step);
      steps.push_back(step);
    }
    return steps;
  }

  /// Moves of one parameter by one value with a second one changed to keep
  /// their product (a tile's area, threads times elements per thread) just
  /// above or below what it was: the ridges of kernel landscapes run along
  /// such products, and no one-parameter move stays on them.
  std::vector<std::vector<int>>
  areaKeepingMoves(const std::vector<int> &at) const {
    std::vector<std::vector<int>> moves;
    const std::vector<Parameter> &parameters = space.parameters();
    for (size_t p = 0; p < space.rank(); ++p)
      for (int step : {-1, 1}) {
        int moved = at[p] + step;
        if (moved < 0 || moved >= int(parameters[p].values.size()))
          continue;
        double from = double(parameters[p].values[at[p]]);
        double to = double(parameters[p].values[moved]);
        if (from <= 0 || to <= 0)
          continue;
        for (size_t q = 0; q < space.rank(); ++q) {
          if (q == p || parameters[q].values[at[q]] <= 0)
            continue;
          double target = double(parameters[q].values[at[q]]) * from / to;
          std::optional<int> below, above;
          for (int i = 0; i < int(parameters[q].values.size()); ++i) {
            double value = double(parameters[q].values[i]);
            if (value <= 0 || i == at[q])
              continue;
            if (value <= target &&
                (!below || value > double(parameters[q].values[*below])))
              below = i;
            if (value >= target &&
                (!above || value < double(parameters[q].values[*above])))
              above = i;
          }
          for (std::optional<int> index : {below, above})
            if (index) {
              std::vector<int> move = at;
              move[p] = moved;
              move[q] = *index;
              moves.push_back(std::move(move));
            }
        }
      }
    return moves;
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
  size_t nextLine = 0; ///< The parameter whose line lineProbes looks down.
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
