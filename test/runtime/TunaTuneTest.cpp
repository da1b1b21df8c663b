//===- TunaTuneTest.cpp - tuna-tune's options, on host bundles ------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>

using namespace tuna;
using namespace tuna::test;

namespace {
std::string readText(const std::string &path) {
  std::ifstream file(path);
  return {std::istreambuf_iterator<char>(file),
          std::istreambuf_iterator<char>()};
}
} // namespace

TEST(TunaTuneTest, TimePicksTimesEachDatabasesPickSideBySide) {
  TempDir dir;
  // axpy_work64 (the default) does 64 dependent additions per element
  // where axpy_work0 does none: far more apart than a loaded machine's
  // noise.
  Bundle bundle = axpyBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants = {variants[2], variants[1]};
  std::string path = dir.path + "/axpy.tuna";
  writeBundleFile(bundle, path);
  std::string tune = std::string(TUNA_TUNE_PATH) + " " + path +
                     " --shape d0=4096,65536 --no-isolate --no-cache";
  ASSERT_EQ(std::system((tune + " -o " + dir.path + "/tuned.json > " +
                         dir.path + "/tune.txt 2>&1")
                            .c_str()),
            0)
      << readText(dir.path + "/tune.txt");
  // Another database that picked the default everywhere.
  std::vector<CacheEntry> entries = readCacheFile(dir.path + "/tuned.json");
  ASSERT_EQ(entries.size(), 2u);
  for (CacheEntry &entry : entries) {
    ASSERT_EQ(entry.variant, "axpy_work0");
    entry.variant = "axpy_work64";
    entry.config = {{"WORK", 64}};
    entry.shortlist.clear();
  }
  TuningCache(dir.path + "/default.json").merge(entries);
  std::string out = dir.path + "/picks.txt";
  ASSERT_EQ(std::system((tune + " --time-picks " + dir.path + "/tuned.json," +
                         dir.path + "/default.json," + dir.path +
                         "/tuned.json > " + out + " 2>&1")
                            .c_str()),
            0)
      << readText(out);
  std::string text = readText(out);
  // Per bucket: the first database's pick, the default many times slower,
  // and the first's pick again (its ratio is noise, but said to be the
  // same variant).
  std::smatch match;
  std::regex slower("default\\.json: axpy_work64 \\(WORK=64\\) [0-9.e-]+ ms "
                    "\\(rounds [^)]*\\), ([0-9.]+)x the first's\n");
  int buckets = 0;
  for (auto it = text.cbegin();
       std::regex_search(it, text.cend(), match, slower);
       it = match.suffix().first, ++buckets)
    EXPECT_GT(std::stod(match[1]), 5.0) << text;
  EXPECT_EQ(buckets, 2) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 8) << text;
  EXPECT_NE(text.find("x the first's (the same variant)"), std::string::npos)
      << text;
  // It times; it does not tune or write.
  EXPECT_NE(std::system((tune + " --time-picks " + dir.path +
                         "/tuned.json -o x.json > /dev/null 2>&1")
                            .c_str()),
            0);
}
