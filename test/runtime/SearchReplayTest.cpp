//===- SearchReplayTest.cpp - Strategies on landscapes measured on a GPU --===//
//
// Each file in landscapes/ is an exhaustive tuning run of a wide kernel on
// an H100 or an H200 (bench/gpu/search_table.sh): every configuration's
// time. Replayed through the simulated evaluator (seeded noise on top of the
// measured times), they test what synthetic landscapes cannot: that a
// strategy finds the fast configurations of real kernels within the budget
// that the search table gives it.
//
//===----------------------------------------------------------------------===//

#include "SyntheticEvaluator.h"

#include "tuna/runtime/Search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace tuna;
using namespace tuna::search;
using namespace tuna::test;

namespace {

struct MeasuredLandscape {
  std::string name;
  std::vector<Parameter> parameters;
  std::map<Values, double> ms;

  double best() const {
    double best = INFINITY;
    for (const auto &entry : ms)
      best = std::min(best, entry.second);
    return best;
  }
};

/// Reads a landscape file: '#' comment lines, a header of parameter names
/// ending in "ms", then one configuration per line.
MeasuredLandscape read(const std::filesystem::path &path) {
  MeasuredLandscape landscape;
  landscape.name = path.stem().string();
  std::ifstream in(path);
  std::string line;
  std::vector<std::set<int64_t>> seen;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    if (landscape.parameters.empty()) {
      std::string name;
      while (fields >> name)
        if (name != "ms")
          landscape.parameters.push_back({name, {}});
      seen.resize(landscape.parameters.size());
      continue;
    }
    Values values(landscape.parameters.size());
    double ms = 0;
    for (size_t p = 0; p < values.size(); ++p) {
      fields >> values[p];
      seen[p].insert(values[p]);
    }
    fields >> ms;
    landscape.ms[values] = ms;
  }
  for (size_t p = 0; p < seen.size(); ++p)
    landscape.parameters[p].values.assign(seen[p].begin(), seen[p].end());
  return landscape;
}

std::vector<MeasuredLandscape> measuredLandscapes() {
  std::vector<std::filesystem::path> paths;
  for (const auto &entry :
       std::filesystem::directory_iterator(TUNA_LANDSCAPES_DIR))
    if (entry.path().extension() == ".tsv")
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<MeasuredLandscape> landscapes;
  for (const auto &path : paths)
    landscapes.push_back(read(path));
  return landscapes;
}

/// The per-sample noise of a replay: the spread of 20 re-timing samples on
/// the H100 is about +-3% around the median.
constexpr double kReplayNoise = 0.015;

/// The budget the search table gives a strategy: 8% of the candidates.
constexpr double kBudgetFraction = 0.08;

struct Picks {
  std::vector<double> ratios; ///< Pick / best, one per seed.
  double worst() const {
    return *std::max_element(ratios.begin(), ratios.end());
  }
  int within(double bound) const {
    return static_cast<int>(std::count_if(
        ratios.begin(), ratios.end(), [&](double r) { return r <= bound; }));
  }
};

/// How a replay runs: the search table's budget and the noise above.
struct ReplaySettings {
  double budgetFraction = kBudgetFraction;
  double noise = kReplayNoise;
  int seeds = 20;
};

/// ReplaySettings with TUNA_REPLAY_BUDGET (a fraction of the candidates),
/// TUNA_REPLAY_NOISE and TUNA_REPLAY_SEEDS where set: how docs/search.md's
/// figures at other budgets and noise are made.
ReplaySettings replaySettingsFromEnvironment() {
  ReplaySettings settings;
  if (const char *budget = std::getenv("TUNA_REPLAY_BUDGET"))
    settings.budgetFraction = std::atof(budget);
  if (const char *noise = std::getenv("TUNA_REPLAY_NOISE"))
    settings.noise = std::atof(noise);
  if (const char *seeds = std::getenv("TUNA_REPLAY_SEEDS"))
    settings.seeds = std::atoi(seeds);
  return settings;
}

Picks replay(const MeasuredLandscape &landscape, const std::string &strategy,
             const ReplaySettings &settings = ReplaySettings()) {
  std::vector<Values> configurations;
  for (const auto &entry : landscape.ms)
    configurations.push_back(entry.first);
  Space space = Space::list(landscape.parameters, configurations);
  Truth truth = [&](const Values &values) { return landscape.ms.at(values); };
  Picks picks;
  for (int seed = 0; seed < settings.seeds; ++seed) {
    SearchOptions options;
    options.strategy = strategy;
    options.seed = seed;
    options.budgetEvaluations = static_cast<int64_t>(std::ceil(
        settings.budgetFraction * static_cast<double>(space.size())));
    SyntheticEvaluator evaluator(truth, settings.noise, seed + 1);
    SearchResult result = search::run(space, evaluator, options);
    EXPECT_TRUE(result.best) << landscape.name;
    if (result.best)
      picks.ratios.push_back(truth(space.values(*result.best)) /
                             landscape.best());
  }
  return picks;
}

TEST(SearchReplayTest, LandscapesAreReadWhole) {
  std::vector<MeasuredLandscape> landscapes = measuredLandscapes();
  ASSERT_GE(landscapes.size(), 6u);
  for (const MeasuredLandscape &landscape : landscapes) {
    EXPECT_GE(landscape.ms.size(), 500u) << landscape.name;
    EXPECT_GE(landscape.parameters.size(), 4u) << landscape.name;
    EXPECT_GT(landscape.best(), 0) << landscape.name;
  }
}

/// Landscapes where a seed may miss: the few configurations within 1.02x
/// lie on a ridge one configuration wide beside a broad plateau. The
/// H200's 512 x 16384 has one configuration within 1.02x (the next at
/// 1.033x) among neighbours at 1.25-1.47x, a landscape of one pass's timings
/// as rugged as its noise; the H100's at 10:44 UTC a ridge of 5 within
/// 1.02x beside a plateau at 1.07-1.10x.
struct Bounds {
  int within = 16;     ///< Seeds of 20 within 1.02x, at least.
  double worst = 1.03; ///< The worst pick, at most.
};
Bounds boundsOf(const std::string &landscape) {
  if (landscape == "softmax_wide-512x16384-1038h200")
    return {10, 1.11};
  if (landscape == "softmax_wide-512x16384-1044")
    return {18, 1.08};
  return {};
}

// On the 18 replays with seeds 0-19: pattern picks within 1.02x in 346 of
// 360 runs, random in 256. Every softmax_wide seed of the H100 landscapes
// of 05:08 and 07:01 lands within 1.02x, including 512 x 16384, where the
// few configurations within 1.02x lie on a ridge one configuration wide
// (the row just fits in registers) beside a broad plateau at 1.08-1.10x:
// the long steps along threads-per-row reach it from the plateau. On the
// H200's 4096 x 2048 the fast configurations lie past a threshold several
// register counts away across a flat plateau (1.15-1.4x) that neither the
// model nor a step of two values crosses: the line probes do (without them
// 16 of 20 within 1.02x, worst 1.184x). The other misses are on
// matmul_f16_wgmma_wide at 8192 x 8192 x 1024 (0701), where only 5
// configurations are within 1.02x and they differ by less than the noise.
TEST(SearchReplayTest, PatternFindsTheFastConfigurations) {
  int within = 0;
  for (const MeasuredLandscape &landscape : measuredLandscapes()) {
    Picks picks = replay(landscape, "pattern");
    Bounds bounds = boundsOf(landscape.name);
    EXPECT_GE(picks.within(1.02), bounds.within) << landscape.name;
    EXPECT_LE(picks.worst(), bounds.worst) << landscape.name;
    within += picks.within(1.02);
  }
  EXPECT_GE(within, 340);
}

TEST(SearchReplayTest, PatternBeatsRandom) {
  for (const MeasuredLandscape &landscape : measuredLandscapes()) {
    ReplaySettings settings = replaySettingsFromEnvironment();
    Picks pattern = replay(landscape, "pattern", settings);
    Picks random = replay(landscape, "random", settings);
    // The per-landscape figures that docs/search.md quotes.
    std::printf("%-44s pattern %2d/%d worst %.3f  random %2d/%d worst %.3f\n",
                landscape.name.c_str(), pattern.within(1.02), settings.seeds,
                pattern.worst(), random.within(1.02), settings.seeds,
                random.worst());
    EXPECT_GE(pattern.within(1.02), random.within(1.02)) << landscape.name;
  }
}

} // namespace
