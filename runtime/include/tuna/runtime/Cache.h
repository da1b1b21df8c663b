//===- Cache.h - Tuning decisions that outlive the process -----*- C++ -*-===//
//
// The disk cache of tuning decisions (docs/cache.md). One JSON file,
// `<dir>/tuning.json`, shared by every process of the user:
//
//   {"format": "tuna-tuning-cache", "version": 1, "entries": [
//     {"device": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "driver": "13.0",
//      "tuna": "0.1.0", "kernel": "scale", "source_hash": "f228...",
//      "signature": [1048576], "variant": "scale__v5",
//      "config": {"block": 128, "vec": 4}, "tuning_ms": 4.1,
//      "time": 1795000000, "candidates": {"scale__v0": 0.0123, ...},
//      "failed": {"scale__v7": "crashed (signal 11) ..."},
//      "shortlist": [{"variant": "scale__v5", "config": {...}}, ...]}, ...]}
//
// A file with a shortlist in some entry is written as version 2 (older
// runtimes, which would drop shortlists when they rewrite the file, leave it
// alone); other files as version 1.
//
// Writers take an flock on `<dir>/tuning.json.lock`, read the file, merge
// their entries (per key, the newer `time` wins), write a temporary file,
// fsync it and rename it over the original, so concurrent processes lose
// nothing. A file that does not parse is renamed aside
// (`tuning.json.corrupt-<time>`) with one message on stderr; in one that does,
// malformed entries are dropped one by one (reported once) and duplicate keys
// merged (the newest wins), and the next change writes the rest back. Changes
// remove the temporary files of writers that died.
//
// The runtime uses lookup() and store(), which never throw: the cache is
// never a reason for a launch to fail. The tools (tuna-cache, tuna-tune) use
// the rest, which throws tuna::Error naming the file.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_CACHE_H
#define TUNA_RUNTIME_CACHE_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/Tuning.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tuna {

/// What identifies one decision.
struct CacheKey {
  std::string device, arch, driver; ///< DeviceInfo name, arch, driverVersion.
  std::string tunaVersion;
  std::string kernel, sourceHash; ///< Kernel name and Kernel::sourceHash.
  std::vector<int64_t> signature; ///< Bucketed key values.
  /// Decided by timing each launch after evicting the L2
  /// (Options::coldTiming): "timing": "cold" in the file, absent otherwise.
  bool coldTiming = false;

  /// Equal keys, or, with `versionCheck` off, equal but for driver and Tuna
  /// version.
  bool matches(const CacheKey &other, bool versionCheck) const;
  bool operator==(const CacheKey &other) const { return matches(other, true); }
};

/// A variant as an entry names it: by name and configuration, so that a
/// bundle rebuilt with other variants under the same names is noticed.
struct VariantRef {
  std::string variant;
  std::vector<std::pair<std::string, int64_t>> config;
  bool operator==(const VariantRef &other) const {
    return variant == other.variant && config == other.config;
  }
};

/// One decision: the pick by variant name and configuration, and the median
/// time of every candidate that was timed.
struct CacheEntry {
  CacheKey key;
  std::string variant;
  std::vector<std::pair<std::string, int64_t>> config;
  double tuningMs = 0; ///< Wall time of the decision.
  std::vector<std::pair<std::string, double>> candidateMs;
  /// Variants that crashed or hung while timed (isolated tuning), with why;
  /// a later tuning of the same key never runs them again.
  std::vector<std::pair<std::string, std::string>> failed;
  int64_t time = 0; ///< When it was decided (Unix seconds); newer wins.
  /// The fastest candidates, best first (tuna-tune -o --shortlist K); when
  /// present, a first call times these only and decides among them
  /// (Options::useShortlists) instead of taking `variant` untimed. Never
  /// empty in a valid entry, no variant twice.
  std::vector<VariantRef> shortlist;
};

/// The entry the runtime persists for `report`, a decision of `kernel` on
/// `device`, stamped with the current time. With `shortlist` > 0, the entry
/// carries the pick and then the fastest other measured candidates, at most
/// `shortlist` in all (makeShortlist).
CacheEntry makeCacheEntry(const DeviceInfo &device, const Kernel &kernel,
                          const TuningReport &report, size_t shortlist = 0);

/// The pick of `report` and then its other measured candidates, fastest
/// first (ties: variant order), at most `size` in all.
std::vector<VariantRef> makeShortlist(const Kernel &kernel,
                                      const TuningReport &report, size_t size);

/// The version of this runtime ("0.1.0"), part of every CacheKey.
const char *tunaVersion();

/// What a merge did.
struct MergeCounts {
  int added = 0;    ///< New keys.
  int replaced = 0; ///< Keys whose entry was older than the incoming one.
  int kept = 0;     ///< Keys whose entry was as new or newer.
};

/// One cache file: the cache of a directory (`<dir>/tuning.json`), or a
/// file anywhere in the same format (a tuning database that ships with an
/// app). Its lock is `<file>.lock`.
class TuningCache {
public:
  explicit TuningCache(std::string file) : file(std::move(file)) {}
  static TuningCache inDirectory(const std::string &dir) {
    return TuningCache(dir + "/tuning.json");
  }

  const std::string &path() const { return file; }

  /// The entry for `key`: an exact match, else (with `versionCheck` off) the
  /// newest entry of another driver or Tuna version. Never throws: problems
  /// are reported on stderr and read as a miss. Without `wait`, a file that a
  /// writer has locked is a miss too (a launch during graph capture must not
  /// wait on another process).
  std::optional<CacheEntry> lookup(const CacheKey &key, bool versionCheck,
                                   bool wait = true) const;

  /// Adds or replaces the entry of `entry.key`. Never throws (see lookup).
  void store(const CacheEntry &entry) const;

  /// Every entry, oldest first (an absent file has none). Throws tuna::Error
  /// if the file is damaged or has a malformed entry (it is left in place).
  std::vector<CacheEntry> entries() const;

  /// Merges `incoming` into the file under the lock: per key, the newer
  /// entry wins. Creates the file's directory. Throws tuna::Error if the file
  /// cannot be written; a damaged file is set aside first.
  MergeCounts merge(const std::vector<CacheEntry> &incoming) const;

  /// Removes the entries for which `select` is true, under the lock; returns
  /// how many. Throws tuna::Error as merge() does.
  int remove(const std::function<bool(const CacheEntry &)> &select) const;

private:
  std::string file;
};

/// The directory Options::fromEnvironment() picks: $TUNA_CACHE_DIR, else
/// $XDG_CACHE_HOME/tuna, else $HOME/.cache/tuna; empty when none is set.
std::string defaultCacheDirectory();

/// Reads a file in the cache format (a tuning database, an export). Throws
/// tuna::Error naming the file and what is wrong.
std::vector<CacheEntry> readCacheFile(const std::string &path);

/// Writes `entries` to `path` in the cache format (temporary file, fsync,
/// rename). Throws tuna::Error naming the file.
void writeCacheFile(const std::string &path,
                    const std::vector<CacheEntry> &entries);

} // namespace tuna

#endif // TUNA_RUNTIME_CACHE_H
