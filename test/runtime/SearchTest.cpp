//===- SearchTest.cpp - Search strategies on synthetic landscapes ---------===//
//
// Every landscape here has a known optimum (found by enumerating the space),
// the evaluator's clock is simulated (each sample of a configuration costs
// its true time, plus a fixed overhead per configuration), and noise is drawn
// from a seeded generator: nothing depends on the machine's speed or load.
//
//===----------------------------------------------------------------------===//

#include "SyntheticEvaluator.h"

#include "tuna/runtime/Search.h"
#include "tuna/runtime/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace tuna;
using namespace tuna::search;
using namespace tuna::test;

namespace {

/// A space and its landscape.
struct Landscape {
  std::string name;
  Space space;
  Truth truth;
  double noise = 0;

  /// The best true time over the space.
  double optimum() const {
    double best = INFINITY;
    for (size_t id = 0; id < space.size(); ++id)
      if (double ms = truth(space.values(id)); ms >= 0)
        best = std::min(best, ms);
    return best;
  }
};

std::vector<Parameter> powersOfTwo(const std::vector<std::string> &names,
                                   const std::vector<int> &counts) {
  std::vector<Parameter> parameters;
  for (size_t p = 0; p < names.size(); ++p) {
    Parameter parameter{names[p], {}};
    for (int i = 0; i < counts[p]; ++i)
      parameter.values.push_back(int64_t(1) << i);
    parameters.push_back(parameter);
  }
  return parameters;
}

/// log2 of each value: the position of a power of two.
std::vector<double> logs(const Values &values) {
  std::vector<double> result;
  for (int64_t v : values)
    result.push_back(std::log2(static_cast<double>(v)));
  return result;
}

/// 8 x 8 x 6 x 6 x 4 = 9216 configurations; a smooth bowl centred off the
/// grid, with unequal curvature.
Landscape bowl() {
  auto parameters =
      powersOfTwo({"bm", "bn", "bk", "stages", "warps"}, {8, 8, 6, 6, 4});
  Truth truth = [](const Values &values) {
    std::vector<double> x = logs(values);
    return 1 + 0.08 * std::pow(x[0] - 4.3, 2) + 0.05 * std::pow(x[1] - 5.6, 2) +
           0.1 * std::pow(x[2] - 2.2, 2) + 0.03 * std::pow(x[3] - 1.4, 2) +
           0.2 * std::pow(x[4] - 2.0, 2);
  };
  return {"bowl", Space::product(parameters, {}), truth};
}

/// A bowl whose axes are not the parameters' (bm and bn interact), in a
/// space with a static constraint (bm * bn <= 2^11): 8,352
/// configurations.
Landscape rotatedBowl() {
  auto parameters =
      powersOfTwo({"bm", "bn", "bk", "stages", "warps"}, {8, 8, 6, 6, 4});
  auto valid = [](const Values &values) {
    return values[0] * values[1] <= 2048;
  };
  Truth truth = [](const Values &values) {
    std::vector<double> x = logs(values);
    double u = x[0] - x[1], v = x[0] + x[1];
    return 1 + 0.15 * std::pow(u + 1.2, 2) + 0.06 * std::pow(v - 8.5, 2) +
           0.1 * std::pow(x[2] - 3.1, 2) + 0.04 * std::pow(x[3] - 2.6, 2) +
           0.1 * std::pow(x[2] - x[4] - 1, 2);
  };
  return {"rotated bowl", Space::product(parameters, valid), truth};
}

/// Separable and rugged: a seeded, non-monotone factor per parameter value
/// (time is their product). 10 x 8 x 6 x 5 x 4 = 9,600 configurations.
Landscape separable() {
  std::vector<int> counts = {10, 8, 6, 5, 4};
  auto parameters = powersOfTwo({"a", "b", "c", "d", "e"}, counts);
  std::vector<std::vector<double>> factors;
  uint64_t state = 12345;
  for (int count : counts) {
    std::vector<double> row;
    for (int i = 0; i < count; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      row.push_back(1 + double(state >> 40) / double(1 << 24));
    }
    factors.push_back(row);
  }
  Truth truth = [factors](const Values &values) {
    std::vector<double> x = logs(values);
    double ms = 1;
    for (size_t p = 0; p < x.size(); ++p)
      ms *= factors[p][static_cast<size_t>(x[p])];
    return ms;
  };
  return {"separable", Space::product(parameters, {}), truth};
}

/// Steps (a staircase bowl: flat plateaus between levels), a region the
/// static constraints drop (bm * bn > 2^11 and bk == 8), and a region that
/// fails when measured (stages == 32 with warps == 8): 6,960
/// configurations.
Landscape plateaus() {
  auto parameters =
      powersOfTwo({"bm", "bn", "bk", "stages", "warps"}, {8, 8, 6, 6, 4});
  auto valid = [](const Values &values) {
    return values[0] * values[1] <= 2048 && values[2] != 8;
  };
  Truth truth = [](const Values &values) {
    if (values[3] == 32 && values[4] == 8)
      return -1.0;
    std::vector<double> x = logs(values);
    double d = 0.3 * std::fabs(x[0] - 5) + 0.25 * std::fabs(x[1] - 5) +
               0.3 * std::fabs(x[2] - 4) + 0.2 * std::fabs(x[3] - 1) +
               0.4 * std::fabs(x[4] - 1);
    return 1 + 0.1 * std::floor(d / 0.5);
  };
  return {"plateaus", Space::product(parameters, valid), truth};
}

/// The rotated bowl measured with 3% noise per sample.
Landscape noisy() {
  Landscape landscape = rotatedBowl();
  landscape.name = "noisy rotated bowl";
  landscape.noise = 0.03;
  return landscape;
}

std::vector<Landscape> landscapes() {
  return {bowl(), rotatedBowl(), separable(), plateaus(), noisy()};
}

SearchResult runOn(const Landscape &landscape, SearchOptions options,
                   uint64_t evaluatorSeed = 1) {
  SyntheticEvaluator evaluator(landscape.truth, landscape.noise, evaluatorSeed);
  return search::run(landscape.space, evaluator, options);
}

std::vector<size_t> visits(const SearchResult &result) {
  std::vector<size_t> ids;
  for (const Evaluation &evaluation : result.evaluations)
    ids.push_back(evaluation.config);
  return ids;
}

/// Checks that `strategy` picks within 1.02x of each landscape's optimum
/// for seeds 0..9 with `fraction` of the space as its evaluation budget.
void expectFindsOptimum(const std::string &strategy, double fraction) {
  for (const Landscape &landscape : landscapes()) {
    double optimum = landscape.optimum();
    int64_t budget = static_cast<int64_t>(
        std::ceil(fraction * static_cast<double>(landscape.space.size())));
    for (uint64_t seed = 0; seed < 10; ++seed) {
      SearchOptions options;
      options.strategy = strategy;
      options.seed = seed;
      options.budgetEvaluations = budget;
      SearchResult result = runOn(landscape, options, seed + 1);
      ASSERT_TRUE(result.best) << landscape.name;
      double picked = landscape.truth(landscape.space.values(*result.best));
      EXPECT_LE(picked, 1.02 * optimum)
          << strategy << " on " << landscape.name << " (seed " << seed << ", "
          << result.freshEvaluations << " of " << landscape.space.size()
          << " evaluated): picked " << landscape.space.describe(*result.best);
      EXPECT_LE(result.freshEvaluations, budget);
    }
  }
}

TEST(SearchTest, LandscapesHaveTheStatedSize) {
  for (const Landscape &landscape : landscapes()) {
    EXPECT_GE(landscape.space.size(), 1000u) << landscape.name;
    EXPECT_LE(landscape.space.size(), 10000u) << landscape.name;
  }
}

TEST(SearchTest, ExhaustiveFindsTheOptimum) {
  for (const Landscape &landscape : landscapes()) {
    if (landscape.noise)
      continue;
    SearchOptions options;
    options.strategy = "exhaustive";
    SearchResult result = runOn(landscape, options);
    EXPECT_EQ(result.freshEvaluations,
              static_cast<int>(landscape.space.size()));
    EXPECT_EQ(result.stopReason, "space exhausted");
    ASSERT_TRUE(result.best);
    EXPECT_EQ(landscape.truth(landscape.space.values(*result.best)),
              landscape.optimum())
        << landscape.name;
  }
}

// Each landscape has only 2 to 15 configurations within 1.02x of its
// optimum, so a random search needs most of the space to find one (at 10%
// of the space its pick is 1.14x to 1.21x off); the pattern search needs
// less than 10%.
TEST(SearchTest, PatternFindsTheOptimumWithinTenPercent) {
  expectFindsOptimum("pattern", 0.10);
}

TEST(SearchTest, RandomPicksTheBestOfAUniformSample) {
  for (const Landscape &landscape : landscapes()) {
    if (landscape.noise)
      continue;
    SearchOptions options;
    options.strategy = "random";
    options.budgetEvaluations = landscape.space.size() / 10;
    SearchResult result = runOn(landscape, options);
    std::vector<size_t> visited = visits(result);
    std::sort(visited.begin(), visited.end());
    EXPECT_EQ(std::unique(visited.begin(), visited.end()), visited.end());
    double best = INFINITY;
    for (size_t id : visited)
      if (double ms = landscape.truth(landscape.space.values(id)); ms >= 0)
        best = std::min(best, ms);
    EXPECT_EQ(landscape.truth(landscape.space.values(*result.best)), best);
    // Uniform: about a tenth of each half of the ids.
    size_t low = std::count_if(visited.begin(), visited.end(), [&](size_t id) {
      return id < landscape.space.size() / 2;
    });
    EXPECT_NEAR(double(low) / double(visited.size()), 0.5, 0.1);
  }
  // With the whole space as its budget it is exhaustive in another order.
  expectFindsOptimum("random", 1.0);
}

TEST(SearchTest, PatternBeatsRandomAtTheSameBudget) {
  for (const Landscape &landscape : landscapes()) {
    SearchOptions options;
    options.budgetEvaluations = landscape.space.size() / 20;
    for (uint64_t seed = 0; seed < 5; ++seed) {
      options.seed = seed;
      options.strategy = "pattern";
      SearchResult pattern = runOn(landscape, options);
      options.strategy = "random";
      SearchResult random = runOn(landscape, options);
      EXPECT_LE(landscape.truth(landscape.space.values(*pattern.best)),
                landscape.truth(landscape.space.values(*random.best)))
          << landscape.name << ", seed " << seed;
    }
  }
}

TEST(SearchTest, SameSeedSameSequence) {
  Landscape landscape = noisy();
  for (const std::string &strategy : strategyNames()) {
    SearchOptions options;
    options.strategy = strategy;
    options.seed = 7;
    options.budgetEvaluations = 200;
    std::vector<size_t> first = visits(runOn(landscape, options));
    EXPECT_EQ(first.size(), 200u);
    EXPECT_EQ(visits(runOn(landscape, options)), first) << strategy;
    if (strategy != "exhaustive") {
      options.seed = 8;
      EXPECT_NE(visits(runOn(landscape, options)), first) << strategy;
    }
  }
}

TEST(SearchTest, EveryEvaluationIsInTheResult) {
  Landscape landscape = plateaus();
  SearchOptions options;
  options.budgetEvaluations = 300;
  SyntheticEvaluator evaluator(landscape.truth);
  SearchResult result = search::run(landscape.space, evaluator, options);
  // The evaluator saw the search's evaluations, then the re-timings.
  ASSERT_EQ(evaluator.measured.size(),
            result.evaluations.size() + result.retimed.size());
  int failed = 0;
  for (size_t i = 0; i < result.evaluations.size(); ++i) {
    const Evaluation &evaluation = result.evaluations[i];
    EXPECT_EQ(evaluation.values, evaluator.measured[i]);
    EXPECT_EQ(evaluation.values, landscape.space.values(evaluation.config));
    EXPECT_FALSE(evaluation.resumed);
    failed += !evaluation.measurement.ok();
  }
  EXPECT_GT(failed, 0) << "the failing region was never visited";
  ASSERT_TRUE(result.best);
  EXPECT_GE(landscape.truth(landscape.space.values(*result.best)), 0);
}

TEST(SearchTest, TimeBudgetUsesTheEvaluatorsClock) {
  Landscape landscape = bowl();
  SearchOptions options;
  options.strategy = "random";
  options.budgetSeconds = 50; // Each configuration costs >= 1 s.
  options.batchSize = 4;
  SearchResult result = runOn(landscape, options);
  EXPECT_EQ(result.stopReason, "time budget");
  // Checked before each batch: at most one batch over.
  EXPECT_GE(result.freshEvaluations, 40);
  EXPECT_LE(result.freshEvaluations, 50 + 3);
  EXPECT_GE(result.seconds, 50);
}

TEST(SearchTest, SpentTimeBudgetStillMeasuresOneBatch) {
  Landscape landscape = bowl();
  SearchOptions options;
  options.strategy = "random";
  options.budgetSeconds = 1e-9;
  options.batchSize = 4;
  SearchResult result = runOn(landscape, options);
  EXPECT_EQ(result.stopReason, "time budget");
  EXPECT_EQ(result.freshEvaluations, 4);
  EXPECT_TRUE(result.best);
}

TEST(SearchTest, EvaluationBudgetIsExact) {
  Landscape landscape = bowl();
  for (const std::string &strategy : strategyNames()) {
    SearchOptions options;
    options.strategy = strategy;
    options.budgetEvaluations = 37;
    SearchResult result = runOn(landscape, options);
    EXPECT_EQ(result.freshEvaluations, 37) << strategy;
    EXPECT_EQ(result.evaluations.size(), 37u) << strategy;
    EXPECT_EQ(result.stopReason, "evaluation budget") << strategy;
  }
}

TEST(SearchTest, PatternStopsWhenConverged) {
  Landscape landscape = bowl();
  SearchOptions options;
  SearchResult result = runOn(landscape, options);
  EXPECT_EQ(result.stopReason, "converged");
  EXPECT_LT(result.freshEvaluations,
            static_cast<int>(landscape.space.size()) / 10);
  EXPECT_EQ(landscape.truth(landscape.space.values(*result.best)),
            landscape.optimum());
}

/// First-pass times are deceptive: `liar`'s first measurement is 3% fast,
/// every re-timing with more samples is exact.
class DeceptiveEvaluator : public Evaluator {
public:
  DeceptiveEvaluator(Truth truth, Values liar)
      : truth(std::move(truth)), liar(std::move(liar)) {}
  std::vector<Measurement> measure(const std::vector<Values> &configurations,
                                   int samples) override {
    std::vector<Measurement> result;
    for (const Values &values : configurations) {
      Measurement m;
      m.ms = truth(values) * (samples == 0 && values == liar ? 0.97 : 1);
      m.minMs = m.ms * 0.99;
      m.maxMs = m.ms * 1.01;
      m.samples = samples ? samples : 1;
      result.push_back(m);
    }
    return result;
  }
  double seconds() override { return 0; }

private:
  Truth truth;
  Values liar;
};

TEST(SearchTest, RetimingCorrectsANoisyFirstPass) {
  Landscape landscape = bowl();
  size_t best = 0;
  for (size_t id = 0; id < landscape.space.size(); ++id)
    if (landscape.truth(landscape.space.values(id)) <
        landscape.truth(landscape.space.values(best)))
      best = id;
  // A neighbour within 2% of the best, which the first pass sees as faster.
  std::vector<int> near;
  for (size_t p = 0; p < landscape.space.rank(); ++p)
    near.push_back(landscape.space.index(best, p));
  near[3] += 1;
  size_t liar = *landscape.space.find(near);
  ASSERT_LT(landscape.truth(landscape.space.values(liar)),
            1.02 * landscape.truth(landscape.space.values(best)));

  SearchOptions options;
  options.strategy = "exhaustive";
  DeceptiveEvaluator deceptive(landscape.truth, landscape.space.values(liar));
  SearchResult result = search::run(landscape.space, deceptive, options);
  EXPECT_EQ(*result.best, best);
  ASSERT_GE(result.retimed.size(), 2u);
  EXPECT_EQ(result.retimed.front().config, liar);
  for (const Retiming &retiming : result.retimed) {
    EXPECT_EQ(retiming.again.samples, options.retimeSamples);
    EXPECT_NEAR(retiming.spread(), 0.02, 1e-9);
  }

  options.retimeMax = 0;
  result = search::run(landscape.space, deceptive, options);
  EXPECT_EQ(*result.best, liar);
  EXPECT_TRUE(result.retimed.empty());
}

class ResumeTest : public ::testing::Test {
protected:
  void SetUp() override {
    file = ::testing::TempDir() + "tuna-search-" + std::to_string(::getpid()) +
           "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
           ".json";
    std::remove(file.c_str());
    key = {"matmul", "abc123", "Synthetic GPU", {1024, 512}};
  }
  void TearDown() override { std::remove(file.c_str()); }

  SearchOptions options(const std::string &strategy, int64_t budget) const {
    SearchOptions options;
    options.strategy = strategy;
    options.seed = 3;
    options.budgetEvaluations = budget;
    options.resumeFile = file;
    options.resumeKey = key;
    return options;
  }

  std::string contents() const {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string file;
  ResumeKey key;
};

TEST_F(ResumeTest, SecondRunContinuesTheFirst) {
  Landscape landscape = noisy();
  for (const std::string &strategy : strategyNames()) {
    std::remove(file.c_str());
    SearchOptions uninterrupted = options(strategy, 250);
    uninterrupted.resumeFile.clear();
    std::vector<size_t> expected = visits(runOn(landscape, uninterrupted));

    SearchResult first = runOn(landscape, options(strategy, 100));
    EXPECT_EQ(first.freshEvaluations, 100);
    SyntheticEvaluator evaluator(landscape.truth, landscape.noise);
    SearchResult second =
        search::run(landscape.space, evaluator, options(strategy, 150));
    EXPECT_EQ(second.freshEvaluations, 150) << strategy;
    EXPECT_EQ(visits(second), expected) << strategy;
    for (size_t i = 0; i < second.evaluations.size(); ++i) {
      EXPECT_EQ(second.evaluations[i].resumed, i < 100) << strategy;
      if (i < 100) {
        EXPECT_EQ(second.evaluations[i].measurement.ms,
                  first.evaluations[i].measurement.ms);
      }
    }
    // The second run measured only what the first had not.
    EXPECT_EQ(evaluator.measured.size(), 150 + second.retimed.size());
  }
}

TEST_F(ResumeTest, ResumedMeasurementsCountEvenUnvisited) {
  Landscape landscape = bowl();
  SearchResult exhaustive = runOn(landscape, options("exhaustive", 20000));
  // A random search of 10 evaluations still knows the exhaustive optimum.
  SearchResult result = runOn(landscape, options("random", 10));
  EXPECT_EQ(result.freshEvaluations, 0);
  EXPECT_EQ(result.evaluations.size(), landscape.space.size());
  EXPECT_EQ(*result.best, *exhaustive.best);
}

TEST_F(ResumeTest, AnotherKernelDeviceOrSignatureIsRefused) {
  Landscape landscape = bowl();
  runOn(landscape, options("random", 10));
  std::string before = contents();
  ASSERT_NE(before.find("\"tuna-search\""), std::string::npos);

  std::vector<std::pair<ResumeKey, std::string>> others = {
      {{"softmax", "abc123", "Synthetic GPU", {1024, 512}}, "softmax"},
      {{"matmul", "def456", "Synthetic GPU", {1024, 512}}, "def456"},
      {{"matmul", "abc123", "Other GPU", {1024, 512}}, "Other GPU"},
      {{"matmul", "abc123", "Synthetic GPU", {2048, 512}}, "2048"}};
  for (const auto &[other, culprit] : others) {
    SearchOptions resumed = options("random", 10);
    resumed.resumeKey = other;
    try {
      runOn(landscape, resumed);
      ADD_FAILURE() << "resumed on another key: " << culprit;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(contents(), before);
  }
}

TEST_F(ResumeTest, AnotherSpaceIsRefused) {
  Landscape landscape = bowl();
  runOn(landscape, options("random", 10));
  std::string before = contents();
  // Same names, fewer values: the file names configurations outside it.
  auto smaller =
      powersOfTwo({"bm", "bn", "bk", "stages", "warps"}, {2, 2, 2, 2, 2});
  Space space = Space::product(smaller, {});
  SyntheticEvaluator evaluator(landscape.truth);
  EXPECT_THROW(search::run(space, evaluator, options("random", 10)), Error);
  // Other parameters.
  Space renamed = Space::product(
      powersOfTwo({"x", "bn", "bk", "stages", "warps"}, {8, 8, 6, 6, 4}), {});
  try {
    search::run(renamed, evaluator, options("random", 10));
    ADD_FAILURE() << "resumed with other parameters";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("parameters"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(contents(), before);
}

TEST_F(ResumeTest, DamagedFileIsRefusedAndKept) {
  for (const std::string &text :
       {std::string(""), std::string("{not json\n"),
        std::string("{\"format\": \"other\"}\n"),
        std::string("{\"format\": \"tuna-search\", \"version\": 1, "
                    "\"kernel\": \"matmul\", \"source_hash\": \"abc123\", "
                    "\"device\": \"Synthetic GPU\", \"signature\": [1024, "
                    "512], \"parameters\": [\"bm\", \"bn\", \"bk\", "
                    "\"stages\", \"warps\"]}\n{\"config\": {\"bm\": 3}}\n")}) {
    std::ofstream(file) << text;
    Landscape landscape = bowl();
    EXPECT_THROW(runOn(landscape, options("random", 10)), Error) << text;
    EXPECT_EQ(contents(), text);
  }
}

TEST_F(ResumeTest, InterruptedAppendIsIgnored) {
  Landscape landscape = bowl();
  SearchResult first = runOn(landscape, options("exhaustive", 20));
  std::ofstream(file, std::ios::app) << "{\"config\": {\"bm\": 1, \"b";
  SearchResult second = runOn(landscape, options("exhaustive", 20));
  EXPECT_EQ(second.freshEvaluations, 20);
  ASSERT_EQ(second.evaluations.size(), 40u);
  EXPECT_TRUE(second.evaluations[19].resumed);
  EXPECT_FALSE(second.evaluations[20].resumed);
}

TEST(SearchTest, BadOptionsAreRefused) {
  Landscape landscape = bowl();
  auto refused = [&](SearchOptions options, const std::string &culprit) {
    SyntheticEvaluator evaluator(landscape.truth);
    try {
      search::run(landscape.space, evaluator, options);
      ADD_FAILURE() << "accepted: " << culprit;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(evaluator.measured.empty());
  };
  SearchOptions options;
  options.strategy = "annealing";
  refused(options, "unknown search strategy 'annealing'");
  options = {};
  options.budgetEvaluations = 0;
  refused(options, "0 evaluations");
  options.budgetEvaluations = -5;
  refused(options, "-5 evaluations");
  options = {};
  options.budgetSeconds = 0;
  refused(options, "seconds");
  options.budgetSeconds = -1;
  refused(options, "seconds");
  options.budgetSeconds = NAN;
  refused(options, "seconds");
  options = {};
  options.batchSize = 0;
  refused(options, "batch size");
}

TEST(SearchTest, BadSpacesAreRefused) {
  auto refused = [](const std::function<void()> &make,
                    const std::string &culprit) {
    try {
      make();
      ADD_FAILURE() << "accepted: " << culprit;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos)
          << e.what();
    }
  };
  auto parameters = powersOfTwo({"bm", "bn"}, {4, 4});
  refused(
      [&] { Space::product(parameters, [](const Values &) { return false; }); },
      "no configuration of the 16 is valid");
  refused([&] { Space::list(parameters, {}); }, "empty");
  refused([] { Space::product({}, {}); }, "no parameters");
  refused([] { Space::product({{"bm", {}}}, {}); }, "'bm' has no values");
  refused([] { Space::product({{"bm", {1, 2, 1}}}, {}); }, "value 1 twice");
  refused([&] { Space::product(parameters, {}, /*maxConfigurations=*/10); },
          "over the limit of 10");
  refused(
      [&] {
        Space::product(parameters, {}, Space::kDefaultMaxConfigurations,
                       /*maxProduct=*/15);
      },
      "16 configurations, over the limit of 15");
  refused(
      [&] {
        Space::list(parameters, {{1, 1}, {2, 2}, {4, 4}}, 2);
      },
      "3 valid configurations, over the limit of 2");
  refused([&] { Space::list(parameters, {{1, 3}}); }, "bn=3");
  refused([&] { Space::list(parameters, {{1, 2}, {1, 2}}); }, "listed twice");
  refused([&] { Space::list(parameters, {{1}}); }, "has 1 values");
  // 40 parameters of 4 values: 2^80 configurations.
  std::vector<Parameter> many;
  for (int p = 0; p < 40; ++p)
    many.push_back({"p" + std::to_string(p), {1, 2, 3, 4}});
  refused([&] { Space::product(many, {}); }, "more than 2^64");
}

TEST(SearchTest, ListedSpace) {
  auto parameters = powersOfTwo({"bm", "bn"}, {4, 4});
  Space space = Space::list(parameters, {{8, 1}, {1, 8}, {4, 4}});
  EXPECT_EQ(space.size(), 3u);
  EXPECT_EQ(space.describe(1), "bm=1, bn=8");
  EXPECT_EQ(space.findValues({4, 4}), std::optional<size_t>(2));
  EXPECT_EQ(space.findValues({2, 2}), std::nullopt);
  SyntheticEvaluator evaluator([](const Values &v) { return double(v[0]); });
  SearchOptions options;
  options.strategy = "exhaustive";
  SearchResult result = search::run(space, evaluator, options);
  EXPECT_EQ(*result.best, 1u);
}

} // namespace
