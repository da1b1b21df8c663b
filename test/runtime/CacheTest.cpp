//===- CacheTest.cpp - Tuning results persisted across processes ----------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tuna;
using namespace tuna::test;
using json = nlohmann::json;

namespace {

/// A fresh directory under $TMPDIR (or /tmp), removed with its files.
struct TempDir {
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/tuna-cache-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    path = ::mkdtemp(buffer.data());
  }
  ~TempDir() {
    for (const std::string &file : files())
      std::remove((path + "/" + file).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    if (DIR *dir = ::opendir(path.c_str())) {
      while (dirent *entry = ::readdir(dir))
        if (entry->d_name[0] != '.')
          names.push_back(entry->d_name);
      ::closedir(dir);
    }
    return names;
  }
  std::string path;
};

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
  EXPECT_FALSE(first.fromCache);
  EXPECT_GT(measuredCount(first), 1);

  TuningReport second = decideOnce(cachedOptions(dir.path), 4096);
  EXPECT_TRUE(second.fromCache);
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
  EXPECT_FALSE(decide().fromCache);
  EXPECT_TRUE(decide().fromCache);
}

TEST(CacheTest, AlwaysTunesAgainAndOffNeverTouchesTheCache) {
  TempDir dir;
  decideOnce(cachedOptions(dir.path), 2048);
  Options always = cachedOptions(dir.path);
  always.mode = TuneMode::Always;
  TuningReport again = decideOnce(always, 2048);
  EXPECT_FALSE(again.fromCache);
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

  EXPECT_FALSE(decideOnce(cachedOptions(dir.path), 1024).fromCache);
  writeCache(dir.path, doc);
  Options lenient = cachedOptions(dir.path);
  lenient.versionCheck = false;
  EXPECT_TRUE(decideOnce(lenient, 1024).fromCache);
}

TEST(CacheTest, AnEntryWhoseVariantChangedIsIgnored) {
  TempDir dir;
  decideOnce(cachedOptions(dir.path), 512);
  json doc = readCache(dir.path);
  doc["entries"][0]["config"] = {{"work", 12345}};
  writeCache(dir.path, doc);
  EXPECT_FALSE(decideOnce(cachedOptions(dir.path), 512).fromCache);
}

TEST(CacheTest, ADamagedFileIsSetAsideNeverFatal) {
  TempDir dir;
  std::ofstream(dir.path + "/tuning.json") << "{ this is not json";
  TuningReport report = decideOnce(cachedOptions(dir.path), 256);
  EXPECT_FALSE(report.fromCache);
  bool setAside = false;
  for (const std::string &file : dir.files())
    setAside |= file.rfind("tuning.json.corrupt-", 0) == 0;
  EXPECT_TRUE(setAside);
  EXPECT_EQ(readCache(dir.path)["entries"].size(), 1u);
  EXPECT_TRUE(decideOnce(cachedOptions(dir.path), 256).fromCache);
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
    EXPECT_TRUE(decideOnce(cachedOptions(dir.path), n).fromCache) << n;
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
