//===- CacheBench.cpp - Cost of a tuning-cache lookup ---------------------===//
//
// TuningCache::lookup on a cache file of N entries (as many shapes of one
// kernel, each with 15 candidate times): what a launch of a new signature
// pays before it can take a decision from the disk cache.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Cache.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include <unistd.h>

using namespace tuna;

namespace {

CacheKey keyOf(int64_t shape) {
  CacheKey key;
  key.device = "NVIDIA H100 80GB HBM3";
  key.arch = "sm_90";
  key.driver = "13.0";
  key.tunaVersion = tunaVersion();
  key.kernel = "scale";
  key.sourceHash = "0123456789abcdef";
  key.signature = {shape};
  return key;
}

void BM_CacheLookup(benchmark::State &state) {
  int64_t entries = state.range(0);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tuna-cache-bench-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  TuningCache cache = TuningCache::inDirectory(dir.string());
  std::vector<CacheEntry> all;
  for (int64_t i = 0; i < entries; ++i) {
    CacheEntry entry;
    entry.key = keyOf(i);
    entry.variant = "scale__v3";
    entry.config = {{"block", 256}, {"vec", 4}};
    for (int v = 0; v < 15; ++v)
      entry.candidateMs.emplace_back("scale__v" + std::to_string(v),
                                     0.01 * (v + 1));
    entry.time = 1700000000 + i;
    all.push_back(std::move(entry));
  }
  cache.merge(all);
  CacheKey wanted = keyOf(entries / 2);
  for (auto _ : state)
    benchmark::DoNotOptimize(cache.lookup(wanted, true));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CacheLookup)->Arg(10)->Arg(1000)->Arg(10000)->Unit(
    benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
