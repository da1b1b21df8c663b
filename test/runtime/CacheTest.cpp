//===- CacheTest.cpp - Tuning results persisted across processes ----------===//

#include "TestBundles.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tuna;
using namespace tuna::test;
using json = nlohmann::json;

namespace {

Options cachedOptions(const std::string &dir) {
  Options options;
  options.minRuns = 3;
  options.maxRuns = 6;
  options.candidateBudgetMs = 30;
  options.cacheDir = dir;
  options.check = true; // axpyBundle() has a deliberately wrong variant.
  return options;
}

/// Launches axpy once on n elements through a fresh module (a new process,
/// as far as the runtime can tell) and returns its decision.
TuningReport decideOnce(const Options &options, int64_t n) {
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", options);
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  TunedKernel &kernel = module.kernel("axpy");
  kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f, n);
  EXPECT_EQ(y[n - 1], 5.0f);
  return kernel.reports().back();
}

int measuredCount(const TuningReport &report) {
  int count = 0;
  for (const CandidateResult &c : report.candidates)
    count += c.status == CandidateStatus::Measured;
  return count;
}

json readCache(const std::string &dir) {
  std::ifstream in(dir + "/tuning.json");
  return json::parse(in);
}

void writeCache(const std::string &dir, const json &doc) {
  std::ofstream(dir + "/tuning.json") << doc.dump();
}

} // namespace

TEST(CacheTest, SecondModuleStartsWithoutTuning) {
  TempDir dir;
  TuningReport first = decideOnce(cachedOptions(dir.path), 4096);
  EXPECT_EQ(first.source, DecisionSource::Tuned);
  EXPECT_GT(measuredCount(first), 1);

  TuningReport second = decideOnce(cachedOptions(dir.path), 4096);
  EXPECT_EQ(second.source, DecisionSource::Cache);
  EXPECT_EQ(measuredCount(second), 0);
  EXPECT_EQ(second.chosen, first.chosen);

  json doc = readCache(dir.path);
  EXPECT_EQ(doc["format"], "tuna-tuning-cache");
  ASSERT_EQ(doc["entries"].size(), 1u);
  const json &entry = doc["entries"][0];
  EXPECT_EQ(entry["kernel"], "axpy");
  EXPECT_EQ(entry["signature"], json::array({4096}));
  EXPECT_EQ(entry["variant"], first.chosenName);
  EXPECT_EQ(entry["candidates"].size(),
            static_cast<size_t>(measuredCount(first)));
}

TEST(CacheTest, ParametersInAnyOrderMatch) {
  // The file keeps parameters sorted by name; the bundle keeps its order.
  TempDir dir;
  Bundle bundle = axpyBundle();
  bundle.kernels[0].params.insert(bundle.kernels[0].params.begin(), "zeta");
  for (Variant &variant : bundle.kernels[0].variants)
    variant.config.insert(variant.config.begin(), {"zeta", 1});
  Options options = cachedOptions(dir.path);
  auto decide = [&] {
    Module module =
        Module::fromBundle(bundle, Device::host(), "axpy.tuna", options);
    std::vector<float> x(300, 1.0f), y(300, 2.0f);
    module.kernel("axpy").launch(nullptr, memref(x.data(), {300}),
                                 memref(y.data(), {300}), 3.0f, int64_t(300));
    return module.kernel("axpy").reports().back();
  };
  EXPECT_EQ(decide().source, DecisionSource::Tuned);
  EXPECT_EQ(decide().source, DecisionSource::Cache);
}

TEST(CacheTest, AlwaysTunesAgainAndOffNeverTouchesTheCache) {
  TempDir dir;
  decideOnce(cachedOptions(dir.path), 2048);
  Options always = cachedOptions(dir.path);
  always.mode = TuneMode::Always;
  TuningReport again = decideOnce(always, 2048);
  EXPECT_EQ(again.source, DecisionSource::Tuned);
  EXPECT_GT(measuredCount(again), 1);

  TempDir empty;
  Options off = cachedOptions(empty.path);
  off.mode = TuneMode::Off;
  decideOnce(off, 2048);
  EXPECT_TRUE(empty.files().empty());
}

TEST(CacheTest, EntriesOfAnotherVersionNeedVersionCheckOff) {
  TempDir dir;
  decideOnce(cachedOptions(dir.path), 1024);
  json doc = readCache(dir.path);
  doc["entries"][0]["tuna"] = "0.0.1";
  writeCache(dir.path, doc);

  EXPECT_NE(decideOnce(cachedOptions(dir.path), 1024).source,
            DecisionSource::Cache);
  writeCache(dir.path, doc);
  Options lenient = cachedOptions(dir.path);
  lenient.versionCheck = false;
  EXPECT_EQ(decideOnce(lenient, 1024).source, DecisionSource::Cache);
}

TEST(CacheTest, AnEntryWhoseVariantChangedIsIgnored) {
  TempDir dir;
  decideOnce(cachedOptions(dir.path), 512);
  json doc = readCache(dir.path);
  doc["entries"][0]["config"] = {{"work", 12345}};
  writeCache(dir.path, doc);
  EXPECT_NE(decideOnce(cachedOptions(dir.path), 512).source,
            DecisionSource::Cache);
}

TEST(CacheTest, ADamagedFileIsSetAsideNeverFatal) {
  TempDir dir;
  std::ofstream(dir.path + "/tuning.json") << "{ this is not json";
  TuningReport report = decideOnce(cachedOptions(dir.path), 256);
  EXPECT_EQ(report.source, DecisionSource::Tuned);
  bool setAside = false;
  for (const std::string &file : dir.files())
    setAside |= file.rfind("tuning.json.corrupt-", 0) == 0;
  EXPECT_TRUE(setAside);
  EXPECT_EQ(readCache(dir.path)["entries"].size(), 1u);
  EXPECT_EQ(decideOnce(cachedOptions(dir.path), 256).source,
            DecisionSource::Cache);
}

TEST(CacheTest, ConcurrentProcessesLoseNothing) {
  TempDir dir;
  constexpr int kProcesses = 6;
  constexpr int kShapesEach = 3;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int s = 0; s < kShapesEach; ++s)
        decideOnce(cachedOptions(dir.path), 100 + p * kShapesEach + s);
      ::_exit(::testing::Test::HasFailure() ? 1 : 0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  json doc = readCache(dir.path);
  EXPECT_EQ(doc["entries"].size(),
            static_cast<size_t>(kProcesses * kShapesEach));
  for (int n = 100; n < 100 + kProcesses * kShapesEach; ++n)
    EXPECT_EQ(decideOnce(cachedOptions(dir.path), n).source,
              DecisionSource::Cache)
        << n;
}

TEST(CacheTest, ConcurrentModulesShareOneDirectory) {
  TempDir dir;
  constexpr int kModules = 4;
  // Module m tunes n = 32 * (m + 1) ... : overlapping sets of signatures.
  auto sizes = [](int m) {
    return std::vector<int64_t>{32 * (m + 1), 32 * (m + 2), 32 * (m + 3)};
  };
  std::atomic<int> wrong{0};
  runTogether(kModules, [&](int m) {
    Module module = Module::fromBundle(axpyBundle(), scriptedHost(),
                                       "axpy.tuna", cachedOptions(dir.path));
    for (int64_t n : sizes(m)) {
      std::vector<float> x(n, 1.0f), y(n, 2.0f);
      module.kernel("axpy").launch(nullptr, memref(x.data(), {n}),
                                   memref(y.data(), {n}), 3.0f, n);
      wrong += y != std::vector<float>(n, 5.0f);
    }
  });
  EXPECT_EQ(wrong.load(), 0);

  // One entry per signature, whoever tuned it; a new module tunes nothing.
  std::vector<int64_t> stored;
  for (const CacheEntry &entry : TuningCache::inDirectory(dir.path).entries())
    stored.push_back(entry.key.signature.at(0));
  std::sort(stored.begin(), stored.end());
  EXPECT_EQ(stored, (std::vector<int64_t>{32, 64, 96, 128, 160, 192}));
  for (int64_t n : stored)
    EXPECT_EQ(decideOnce(cachedOptions(dir.path), n).source,
              DecisionSource::Cache)
        << n;
}

TEST(CacheTest, DirectoryComesFromTheEnvironment) {
  ::setenv("TUNA_CACHE_DIR", "/somewhere/tuna", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(Options::fromEnvironment().cacheDir, "/somewhere/tuna");
  ::unsetenv("TUNA_CACHE_DIR");
  EXPECT_EQ(Options::fromEnvironment().cacheDir, "/xdg/tuna");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/me", 1);
  EXPECT_EQ(Options::fromEnvironment().cacheDir, "/home/me/.cache/tuna");
  ::setenv("TUNA_VERSION_CHECK", "0", 1);
  EXPECT_FALSE(Options::fromEnvironment().versionCheck);
  ::unsetenv("TUNA_VERSION_CHECK");
  EXPECT_TRUE(Options{}.cacheDir.empty()) << "no disk cache unless asked";
}

TEST(CacheTest, FinalistsComeFromTheEnvironment) {
  ::setenv("TUNA_TUNE_FINALISTS", "0", 1);
  EXPECT_EQ(Options::fromEnvironment().finalists, 0);
  ::setenv("TUNA_TUNE_FINALISTS", "2.5", 1);
  try {
    Options::fromEnvironment();
    ADD_FAILURE() << "2.5 finalists accepted";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "TUNA_TUNE_FINALISTS='2.5': expected a whole number up to "
              "1000000");
  }
  ::unsetenv("TUNA_TUNE_FINALISTS");
  EXPECT_EQ(Options::fromEnvironment().finalists, Options{}.finalists);
}

// The flags read outside Options (TUNA_GRID_DEPENDENCY,
// TUNA_IMPORT_BUFFERS) parse as Options' own: off is off, a typo is an
// error, not "on".
TEST(CacheTest, FlagsOutsideOptionsParseAsOptionsFlags) {
  ::unsetenv("TUNA_GRID_DEPENDENCY");
  EXPECT_TRUE(environmentFlag("TUNA_GRID_DEPENDENCY", true));
  for (const char *off : {"0", "off", "false", "no"}) {
    ::setenv("TUNA_GRID_DEPENDENCY", off, 1);
    EXPECT_FALSE(environmentFlag("TUNA_GRID_DEPENDENCY", true)) << off;
  }
  ::setenv("TUNA_GRID_DEPENDENCY", "2", 1);
  try {
    environmentFlag("TUNA_GRID_DEPENDENCY", true);
    ADD_FAILURE() << "TUNA_GRID_DEPENDENCY=2 accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(std::string(e.what()),
              "TUNA_GRID_DEPENDENCY='2': expected 0 or 1");
  }
  ::unsetenv("TUNA_GRID_DEPENDENCY");
}

//===----------------------------------------------------------------------===//
// The file API the tools use.
//===----------------------------------------------------------------------===//

namespace {

CacheEntry makeEntry(int64_t n, const std::string &variant, int64_t time,
                     const std::string &tuna = "0.1.0") {
  CacheEntry entry;
  entry.key = {"CPU", "host", "glibc 2.36", tuna, "axpy", "0123", {n}};
  entry.variant = variant;
  entry.config = {{"WORK", 4}, {"A", 1}};
  entry.tuningMs = 1.5;
  entry.candidateMs = {{variant, 0.25}, {"other", 0.5}};
  entry.time = time;
  return entry;
}

} // namespace

TEST(CacheFileTest, MergeKeepsTheNewerEntryPerKey) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path + "/sub/dir");
  MergeCounts counts = cache.merge({makeEntry(1, "a", 100)});
  EXPECT_EQ(counts.added, 1);
  counts = cache.merge({makeEntry(1, "older", 50), makeEntry(2, "b", 10)});
  EXPECT_EQ(counts.kept, 1);
  EXPECT_EQ(counts.added, 1);
  counts = cache.merge({makeEntry(1, "newer", 200)});
  EXPECT_EQ(counts.replaced, 1);
  std::vector<CacheEntry> entries = cache.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].variant, "newer");
  EXPECT_EQ(entries[1].variant, "b");
  // Fields survive the file, parameters in the order written.
  EXPECT_EQ(entries[0].config, makeEntry(1, "newer", 200).config);
  EXPECT_EQ(entries[0].candidateMs, makeEntry(1, "newer", 200).candidateMs);
  EXPECT_EQ(entries[0].time, 200);
  EXPECT_EQ(entries[0].key, makeEntry(1, "x", 0).key);
  // Removing the files of the nested directory is the test's business.
  std::remove((cache.path() + ".lock").c_str());
  std::remove(cache.path().c_str());
  ::rmdir((dir.path + "/sub/dir").c_str());
  ::rmdir((dir.path + "/sub").c_str());
}

TEST(CacheFileTest, RemoveTakesOnlyTheSelectedEntries) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  EXPECT_EQ(cache.remove([](const CacheEntry &) { return true; }), 0);
  cache.merge({makeEntry(1, "a", 1), makeEntry(2, "b", 1)});
  EXPECT_EQ(cache.remove([](const CacheEntry &entry) {
    return entry.key.signature[0] == 1;
  }),
            1);
  ASSERT_EQ(cache.entries().size(), 1u);
  EXPECT_EQ(cache.entries()[0].variant, "b");
}

TEST(CacheFileTest, LookupPrefersTheExactVersion) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  cache.merge({makeEntry(1, "exact", 1, "0.1.0"),
               makeEntry(1, "older-tuna", 5, "0.0.9"),
               makeEntry(2, "old", 1, "0.0.8"),
               makeEntry(2, "newest-other", 9, "0.0.9")});
  CacheKey key = makeEntry(1, "", 0).key;
  EXPECT_EQ(cache.lookup(key, true)->variant, "exact");
  EXPECT_EQ(cache.lookup(key, false)->variant, "exact");
  key.signature = {2};
  EXPECT_FALSE(cache.lookup(key, true));
  EXPECT_EQ(cache.lookup(key, false)->variant, "newest-other");
  key.device = "another CPU";
  EXPECT_FALSE(cache.lookup(key, false));
}

TEST(CacheFileTest, LookupsSeeEveryLaterWrite) {
  // Lookups keep what they parsed while the file is unchanged; each write
  // (here, of other TuningCache objects and other processes) replaces it.
  TempDir dir;
  TuningCache reader = TuningCache::inDirectory(dir.path);
  CacheKey one = makeEntry(1, "", 0).key, two = makeEntry(2, "", 0).key;
  EXPECT_FALSE(reader.lookup(one, true));
  TuningCache::inDirectory(dir.path).merge({makeEntry(1, "a", 1)});
  EXPECT_EQ(reader.lookup(one, true)->variant, "a");
  EXPECT_FALSE(reader.lookup(two, true));
  for (int round = 0; round < 3; ++round) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      TuningCache::inDirectory(dir.path).merge(
          {makeEntry(2, "b" + std::to_string(round), 10 + round)});
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(reader.lookup(two, true)->variant, "b" + std::to_string(round));
  }
  TuningCache::inDirectory(dir.path).remove(
      [](const CacheEntry &entry) { return entry.key.signature[0] == 1; });
  EXPECT_FALSE(reader.lookup(one, true));
}

TEST(CacheFileTest, ExportedFilesReadBack) {
  TempDir dir;
  std::string path = dir.path + "/db.json";
  writeCacheFile(path, {makeEntry(7, "a", 3), makeEntry(8, "b", 4)});
  std::vector<CacheEntry> entries = readCacheFile(path);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].key.signature, std::vector<int64_t>{8});
  EXPECT_EQ(entries[1].variant, "b");
}

TEST(CacheFileTest, ColdTimingIsPartOfTheKey) {
  TempDir dir;
  std::string path = dir.path + "/db.json";
  CacheEntry cold = makeEntry(7, "cold", 3);
  cold.key.coldTiming = true;
  writeCacheFile(path, {makeEntry(7, "warm", 3), cold});
  json doc = json::parse(std::ifstream(path));
  EXPECT_FALSE(doc["entries"][0].contains("timing"));
  EXPECT_EQ(doc["entries"][1]["timing"], "cold");
  std::vector<CacheEntry> entries = readCacheFile(path);
  ASSERT_EQ(entries.size(), 2u) << "two keys";
  EXPECT_FALSE(entries[0].key.coldTiming);
  EXPECT_TRUE(entries[1].key.coldTiming);
  EXPECT_FALSE(entries[0].key == entries[1].key);
  TuningCache cache(path);
  EXPECT_EQ(cache.lookup(cold.key, true)->variant, "cold");
  EXPECT_EQ(cache.lookup(makeEntry(7, "", 0).key, true)->variant, "warm");

  doc["entries"][1]["timing"] = "warm";
  std::ofstream(path) << doc.dump();
  try {
    readCacheFile(path);
    ADD_FAILURE() << "no error for timing \"warm\"";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "entries[1]: timing: expected \"cold\" (or no field: "
                  "timed back to back), got \"warm\""),
              std::string::npos)
        << e.what();
  }
}

TEST(CacheTest, ColdTimingComesFromTheEnvironment) {
  ::setenv("TUNA_TUNE_COLD", "1", 1);
  EXPECT_TRUE(Options::fromEnvironment().coldTiming);
  ::unsetenv("TUNA_TUNE_COLD");
  EXPECT_FALSE(Options::fromEnvironment().coldTiming);
}

TEST(CacheTest, ColdTimingOnTheHostTimesWarmAndSaysSo) {
  TempDir dir;
  Options options = cachedOptions(dir.path);
  options.coldTiming = true;
  options.verbose = true;
  ::testing::internal::CaptureStderr();
  TuningReport report = decideOnce(options, 4096);
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(report.coldTiming);
  EXPECT_NE(printed.find(", timed back to back: the host backend cannot "
                         "evict its cache"),
            std::string::npos)
      << printed;
  // The decision is an ordinary one, found again without tuning.
  EXPECT_FALSE(TuningCache::inDirectory(dir.path).entries().at(0).key.coldTiming);
  EXPECT_EQ(decideOnce(options, 4096).source, DecisionSource::Cache);
}

TEST(CacheFileTest, ForeignFilesAreErrorsForTools) {
  TempDir dir;
  std::string path = dir.path + "/x.json";
  try {
    readCacheFile(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  std::ofstream(path) << R"({"format": "something-else"})";
  try {
    readCacheFile(path);
    ADD_FAILURE() << "no error for a foreign file";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": not a readable Tuna tuning cache: not a "
                     "tuna-tuning-cache file");
  }
  json bad = {{"format", "tuna-tuning-cache"},
              {"version", 1},
              {"entries", json::array({{{"device", 3}}})}};
  std::ofstream(path) << bad.dump();
  try {
    readCacheFile(path);
    ADD_FAILURE() << "no error for a malformed entry";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("entries[0]"), std::string::npos)
        << e.what();
  }
}

TEST(CacheFileTest, ANewerFormatIsLeftAlone) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  std::string newer = R"({"format": "tuna-tuning-cache", "version": 3})";
  std::ofstream(cache.path()) << newer;
  EXPECT_FALSE(cache.lookup(makeEntry(1, "", 0).key, false));
  EXPECT_THROW(cache.merge({makeEntry(1, "a", 1)}), Error);
  cache.store(makeEntry(1, "a", 1)); // Reports, never throws.
  std::ifstream in(cache.path());
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), newer);
}

TEST(CacheFileTest, ALookupSetsADamagedFileAsideAndSaysSoOnce) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  std::ofstream(cache.path()) << "[1, 2";
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(makeEntry(1, "", 0).key, true));
  EXPECT_FALSE(cache.lookup(makeEntry(1, "", 0).key, true));
  std::string messages = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(messages.find("moved it to " + cache.path() + ".corrupt-"),
            messages.rfind("moved it to"))
      << messages;
  EXPECT_NE(messages.find("is unreadable"), std::string::npos) << messages;
  bool setAside = false;
  for (const std::string &file : dir.files())
    setAside |= file.rfind("tuning.json.corrupt-", 0) == 0;
  EXPECT_TRUE(setAside);
  EXPECT_TRUE(cache.entries().empty());
}

TEST(CacheFileTest, MakeCacheEntryRecordsTheDecision) {
  TempDir dir;
  TuningReport report = decideOnce(cachedOptions(dir.path), 64);
  DeviceInfo info = Device::host().info();
  CacheEntry entry = makeCacheEntry(info, axpyKernel(), report);
  EXPECT_EQ(entry.key.device, info.name);
  EXPECT_EQ(entry.key.driver, info.driverVersion);
  EXPECT_EQ(entry.key.tunaVersion, tunaVersion());
  EXPECT_EQ(entry.key.sourceHash, axpyKernel().sourceHash);
  EXPECT_EQ(entry.key.signature, std::vector<int64_t>{64});
  EXPECT_EQ(entry.variant, report.chosenName);
  EXPECT_EQ(entry.candidateMs.size(),
            static_cast<size_t>(measuredCount(report)));
  EXPECT_GT(entry.time, 0);
  EXPECT_EQ(TuningCache::inDirectory(dir.path).entries().at(0).variant,
            entry.variant);
}

TEST(CacheFileTest, ATuningDatabaseAnswersAfterTheCache) {
  TempDir tuned, empty;
  TuningReport first = decideOnce(cachedOptions(tuned.path), 96);
  std::string database = tuned.path + "/db.json";
  writeCacheFile(database, TuningCache::inDirectory(tuned.path).entries());

  Options options = cachedOptions(empty.path);
  options.databases = {empty.path + "/missing.json", database};
  TuningReport shipped = decideOnce(options, 96);
  EXPECT_EQ(shipped.source, DecisionSource::Cache);
  EXPECT_EQ(shipped.chosenName, first.chosenName);
  EXPECT_TRUE(empty.files().empty()) << "nothing new to persist";

  ::setenv("TUNA_TUNING_DB", "/a/b.json::/c.json", 1);
  EXPECT_EQ(Options::fromEnvironment().databases,
            (std::vector<std::string>{"/a/b.json", "/c.json"}));
  ::unsetenv("TUNA_TUNING_DB");
}

//===----------------------------------------------------------------------===//
// Validation of what a cache file holds.
//===----------------------------------------------------------------------===//

namespace {

/// The JSON text of `entry` as the cache writes it, for tests to corrupt.
json entryJson(const CacheEntry &entry) {
  TempDir dir;
  writeCacheFile(dir.path + "/one.json", {entry});
  std::ifstream in(dir.path + "/one.json");
  return json::parse(in)["entries"][0];
}

/// Writes a cache file of `entries` given as JSON text.
void writeEntries(const std::string &path,
                  const std::vector<std::string> &entries) {
  std::string text = R"({"format": "tuna-tuning-cache", "version": 1, )"
                     R"("entries": [)";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  std::ofstream(path) << text << "]}";
}

std::string fileText(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST(CacheFileTest, AVersionThatIsNotAnIntegerIsDamaged) {
  // 1e30 and 2^64 (a float to the parser) converted to int was undefined
  // behaviour that read as the current version.
  for (const char *version :
       {"1e30", "18446744073709551616", "1.5", "\"1\"", "0", "-3", "null"}) {
    TempDir dir;
    TuningCache cache = TuningCache::inDirectory(dir.path);
    std::ofstream(cache.path())
        << R"({"format": "tuna-tuning-cache", "version": )" << version
        << R"(, "entries": [)" << entryJson(makeEntry(1, "a", 1)).dump()
        << "]}";
    try {
      readCacheFile(cache.path());
      ADD_FAILURE() << "version " << version << " was read";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << version;
      EXPECT_NE(
          std::string(e.what()).find("version: expected an integer >= 1, got"),
          std::string::npos)
          << e.what();
    }
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.lookup(makeEntry(1, "", 0).key, true)) << version;
    ::testing::internal::GetCapturedStderr();
  }
  // The largest unsigned integer is a (much) newer version, left alone.
  TempDir dir;
  std::string path = dir.path + "/tuning.json";
  std::ofstream(path)
      << R"({"format": "tuna-tuning-cache", "version": 18446744073709551615})";
  try {
    readCacheFile(path);
    ADD_FAILURE() << "a newer version was read";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
}

TEST(CacheFileTest, BadEntriesAreDroppedOneByOneNeverWrapped) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  json good = entryJson(makeEntry(1, "good", 5));
  auto with = [&](const char *field, const std::string &value) {
    std::string text = good.dump();
    json changed = json::parse(text);
    changed[field] = json::parse(value);
    return changed.dump();
  };
  std::string bigSignature = good.dump();
  bigSignature.replace(bigSignature.find("\"signature\":[1]"),
                       sizeof("\"signature\":[1]") - 1,
                       "\"signature\":[9223372036854775808]");
  writeEntries(cache.path(),
               {good.dump(), bigSignature, with("signature", "[1e30]"),
                with("config", R"({"WORK": 9223372036854775808})"),
                with("config", R"({"WORK": 4.5})"),
                with("tuning_ms", "\"fast\""), with("time", "1e30"),
                with("time", "-1"), with("candidates", R"({"good": -1})"),
                with("device", "3"), with("signature", "7"), "[]"});

  ::testing::internal::CaptureStderr();
  std::optional<CacheEntry> hit = cache.lookup(makeEntry(1, "", 0).key, true);
  cache.lookup(makeEntry(1, "", 0).key, true);
  std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->variant, "good");
  EXPECT_EQ(messages.find("ignoring 11 malformed entries of " + cache.path()),
            messages.rfind("ignoring"))
      << "said once: " << messages;
  for (const char *why :
       {"entries[1]: signature[0]: expected an integer in int64 range, got "
        "9223372036854775808",
        "entries[2]: signature[0]: expected an integer in int64 range, got "
        "1e+30",
        "entries[3]: config.WORK: expected an integer in int64 range",
        "entries[4]: config.WORK: expected an integer in int64 range, got 4.5",
        "entries[5]: tuning_ms: expected a finite number of milliseconds >= "
        "0, got \"fast\"",
        "entries[6]: time: expected an integer in int64 range",
        "entries[7]: time: expected Unix seconds >= 0, got -1",
        "entries[8]: candidates.good: expected a finite number",
        "entries[9]: device: expected a string, got 3",
        "entries[10]: signature: expected an array, got 7",
        "entries[11]: expected an object, got []"})
    EXPECT_NE(messages.find(why), std::string::npos)
        << why << "\nnot in: " << messages;

  // The next update writes back the good entries only; nothing wrapped.
  cache.store(makeEntry(2, "second", 6));
  std::vector<CacheEntry> entries = cache.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].variant, "good");
  EXPECT_EQ(entries[1].variant, "second");
  EXPECT_EQ(fileText(cache.path()).find("-9223372036854775808"),
            std::string::npos);

  // A number beyond double range is not JSON the parser takes: the file is
  // set aside whole, as any unparsable file.
  std::string hugeTime = good.dump();
  hugeTime.replace(hugeTime.find("\"tuning_ms\":1.5"),
                   sizeof("\"tuning_ms\":1.5") - 1, "\"tuning_ms\":1e400");
  writeEntries(cache.path(), {hugeTime});
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(makeEntry(1, "", 0).key, true));
  messages = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(messages.find("number overflow parsing '1e400'"), std::string::npos)
      << messages;
}

TEST(CacheFileTest, AFractionalSignatureIsNoHit) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  json entry = entryJson(makeEntry(1024, "fraction", 5));
  entry["signature"] = json::array({1024.5});
  writeEntries(cache.path(), {entry.dump()});
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.lookup(makeEntry(1024, "", 0).key, true));
  EXPECT_FALSE(cache.lookup(makeEntry(1024, "", 0).key, false));
  ::testing::internal::GetCapturedStderr();
}

TEST(CacheFileTest, DuplicateKeysKeepTheNewestAndAreWrittenBackOnce) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  writeEntries(cache.path(), {entryJson(makeEntry(1, "older", 5)).dump(),
                              entryJson(makeEntry(1, "newest", 9)).dump(),
                              entryJson(makeEntry(1, "middle", 7)).dump(),
                              entryJson(makeEntry(1, "tie-later", 9)).dump()});
  // Equally new: the later one in the file wins, as in a merge.
  EXPECT_EQ(cache.lookup(makeEntry(1, "", 0).key, true)->variant, "tie-later");
  std::vector<CacheEntry> entries = cache.entries();
  ASSERT_EQ(entries.size(), 1u);
  cache.store(makeEntry(2, "other", 1));
  json doc = readCache(dir.path);
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["variant"], "tie-later");
}

TEST(CacheFileTest, TemporaryFilesOfDeadWritersAreRemoved) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0); // Gone: its pid names no process now.
  std::string dead = cache.path() + ".tmp-" + std::to_string(child);
  std::string alive = cache.path() + ".tmp-" + std::to_string(::getppid());
  std::ofstream(dead) << "{\"format\": ";
  std::ofstream(alive) << "{\"format\": ";
  ::testing::internal::CaptureStderr();
  cache.store(makeEntry(1, "a", 1));
  std::string messages = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(::access(dead.c_str(), F_OK), 0) << "stale file still there";
  EXPECT_EQ(::access(alive.c_str(), F_OK), 0) << "a live writer's file";
  EXPECT_NE(messages.find("removed " + dead), std::string::npos) << messages;
  EXPECT_EQ(cache.entries().size(), 1u);
}

TEST(CacheFileTest, ShortlistsRoundTripAndMakeTheFileVersion2) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  CacheEntry plain = makeEntry(1, "a", 5);
  cache.merge({plain});
  EXPECT_EQ(readCache(dir.path)["version"], 1) << "no shortlist: version 1";

  CacheEntry listed = makeEntry(2, "b", 6);
  listed.shortlist = {{"b", {{"WORK", 4}, {"A", 1}}}, {"c", {{"WORK", 64}}}};
  cache.merge({listed});
  json doc = readCache(dir.path);
  EXPECT_EQ(doc["version"], 2);
  EXPECT_EQ(doc["entries"][1]["shortlist"],
            json::parse(R"([{"variant": "b", "config": {"WORK": 4, "A": 1}},
                            {"variant": "c", "config": {"WORK": 64}}])"));
  std::vector<CacheEntry> entries = cache.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].shortlist.empty());
  EXPECT_EQ(entries[1].shortlist, listed.shortlist);
  std::optional<CacheEntry> hit = cache.lookup(listed.key, true);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->shortlist, listed.shortlist);
}

TEST(CacheFileTest, BadShortlistsDropTheirEntryOnly) {
  TempDir dir;
  TuningCache cache = TuningCache::inDirectory(dir.path);
  json good = entryJson(makeEntry(1, "good", 5));
  auto with = [&](const std::string &shortlist) {
    json changed = good;
    changed["shortlist"] = json::parse(shortlist);
    return changed.dump();
  };
  writeEntries(cache.path(),
               {with(R"([{"variant": "good", "config": {"WORK": 4}}])"),
                with("[]"), with(R"({"variant": "x"})"),
                with(R"([{"variant": "a", "config": {"WORK": 1}},
                         {"variant": "a", "config": {"WORK": 2}}])"),
                with(R"([{"config": {"WORK": 1}}])"),
                with(R"([{"variant": "a", "config": {"WORK": 1.5}}])"),
                with(R"([{"variant": "a"}])"), with(R"(["a"])")});
  ::testing::internal::CaptureStderr();
  std::optional<CacheEntry> hit = cache.lookup(makeEntry(1, "", 0).key, true);
  std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->shortlist.size(), 1u);
  for (const char *why :
       {"ignoring 7 malformed entries",
        "entries[1]: shortlist: expected a non-empty array, got []",
        "entries[2]: shortlist: expected a non-empty array, got "
        "{\"variant\":\"x\"}",
        "entries[3]: shortlist[1]: variant 'a' is listed twice",
        "entries[4]: shortlist[0].variant: missing",
        "entries[5]: shortlist[0].config.WORK: expected an integer in int64 "
        "range, got 1.5",
        "entries[6]: shortlist[0].config: missing",
        "entries[7]: shortlist[0]: expected an object, got \"a\""})
    EXPECT_NE(messages.find(why), std::string::npos)
        << why << "\nnot in: " << messages;
  EXPECT_THROW(readCacheFile(cache.path()), Error);
}

TEST(CacheFileTest, MakeCacheEntryShortlistsThePickThenTheFastest) {
  Kernel kernel = axpyKernel();
  TuningReport report;
  report.signature = {64};
  for (int v = 0; v < 4; ++v) {
    CandidateResult c;
    c.variant = v;
    c.name = kernel.variants[v].name;
    c.status = CandidateStatus::Measured;
    c.medianMs = 4.0 - v; // axpy_wrong (3) fastest, axpy_work4 (0) slowest.
    report.candidates.push_back(c);
  }
  report.candidates[3].status = CandidateStatus::WrongResult;
  report.chosen = 2; // Re-timed, say: the pick need not be the fastest.
  report.chosenName = kernel.variants[2].name;
  CacheEntry entry =
      makeCacheEntry(Device::host().info(), kernel, report, /*shortlist=*/2);
  ASSERT_EQ(entry.shortlist.size(), 2u);
  EXPECT_EQ(entry.shortlist[0].variant, "axpy_work64");
  EXPECT_EQ(entry.shortlist[0].config, kernel.variants[2].config);
  EXPECT_EQ(entry.shortlist[1].variant, "axpy_work0");
  EXPECT_EQ(makeCacheEntry(Device::host().info(), kernel, report, 8)
                .shortlist.size(),
            3u);
  EXPECT_TRUE(makeCacheEntry(Device::host().info(), kernel, report)
                  .shortlist.empty());
}
