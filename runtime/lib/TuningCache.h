//===- TuningCache.h - Tuning results that outlive the process -*- C++ -*-===//
//
// One JSON file, `<dir>/tuning.json`, shared by every process of the user:
//
//   {"format": "tuna-tuning-cache", "version": 1, "entries": [
//     {"device": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "driver": "13.0",
//      "tuna": "0.1.0", "kernel": "scale", "source_hash": "f228...",
//      "signature": [1048576], "variant": "scale__v5",
//      "config": {"block": 128, "vec": 4}, "tuning_ms": 4.1,
//      "candidates": {"scale__v0": 0.0123, ...}}, ...]}
//
// Writers take an flock on `<dir>/tuning.json.lock`, read the file, replace
// or add their entry, write a temporary file, fsync it and rename it over the
// original, so concurrent processes lose nothing. A file that does not parse
// is renamed aside (`tuning.json.corrupt-<time>`) with one message on stderr;
// the cache is never a reason for a launch to fail.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_TUNINGCACHE_H
#define TUNA_RUNTIME_LIB_TUNINGCACHE_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/Tuning.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tuna {

/// What identifies one decision.
struct CacheKey {
  std::string device, arch, driver, tunaVersion;
  std::string kernel, sourceHash;
  std::vector<int64_t> signature;
};

/// What the cache remembers of it.
struct CacheEntry {
  std::string variant;
  std::vector<std::pair<std::string, int64_t>> config;
  double tuningMs = 0;
  std::vector<std::pair<std::string, double>> candidateMs;
};

class TuningCache {
public:
  explicit TuningCache(std::string directory) : dir(std::move(directory)) {}

  /// The entry for `key`. With `versionCheck` off, entries of another driver
  /// or Tuna version match too. Never throws: problems are reported on
  /// stderr and read as a miss.
  std::optional<CacheEntry> lookup(const CacheKey &key,
                                   bool versionCheck) const;

  /// Adds or replaces the entry for `key`. Never throws (see lookup).
  void store(const CacheKey &key, const CacheEntry &entry) const;

  const std::string &directory() const { return dir; }

private:
  std::string dir;
};

/// The directory Options::fromEnvironment() picks: $TUNA_CACHE_DIR, else
/// $XDG_CACHE_HOME/tuna, else $HOME/.cache/tuna; empty when none is set.
std::string defaultCacheDirectory();

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_TUNINGCACHE_H
