//===- FuzzCache.cpp - libFuzzer target: tuning cache and database files --===//
//
// The input is the text of a cache file (a tuning database has the same
// format). It is read as a database; if it reads, its entries must survive
// being written and read back, and a merge of one more entry into it (what
// every tuning process does) must keep every entry: entries lost 0.
//
// Files live in a private directory under /dev/shm (or $TMPDIR), so that
// the writers' fsync costs nothing.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tuna/runtime/Cache.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const fs::path &workDirectory() {
  static const fs::path dir = [] {
    fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm")
                                                 : fs::temp_directory_path();
    std::string pattern = (base / "tuna-fuzz-cache-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      tuna::fuzz::finding("fuzz-cache", "cannot create " + pattern);
    return fs::path(pattern);
  }();
  return dir;
}

bool sameEntry(const tuna::CacheEntry &a, const tuna::CacheEntry &b) {
  return a.key == b.key && a.variant == b.variant && a.config == b.config &&
         a.tuningMs == b.tuningMs && a.candidateMs == b.candidateMs &&
         a.failed == b.failed && a.time == b.time && a.shortlist == b.shortlist;
}

bool sameEntries(const std::vector<tuna::CacheEntry> &a,
                 const std::vector<tuna::CacheEntry> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameEntry(a[i], b[i]))
      return false;
  return true;
}

/// An entry to merge into the fuzzed file.
tuna::CacheEntry probeEntry() {
  tuna::CacheEntry entry;
  entry.key = {"fuzz device", "fuzz", "1", tuna::tunaVersion(),
               "probe\x01",   "0",    {1}};
  entry.variant = "probe__v0";
  entry.config = {{"block", 1}};
  entry.time = 1;
  return entry;
}

void checkFile(const std::string &path) {
  std::vector<tuna::CacheEntry> entries;
  try {
    entries = tuna::readCacheFile(path);
  } catch (const tuna::Error &) {
    return;
  }

  std::string copy = path + ".copy";
  tuna::writeCacheFile(copy, entries);
  if (!sameEntries(tuna::readCacheFile(copy), entries))
    tuna::fuzz::finding("fuzz-cache", "entries changed when written back");

  tuna::TuningCache cache(path);
  for (const tuna::CacheEntry &entry : entries)
    if (!cache.lookup(entry.key, /*versionCheck=*/true))
      tuna::fuzz::finding("fuzz-cache", "an entry read is not found");
  tuna::CacheEntry probe = probeEntry();
  for (const tuna::CacheEntry &entry : entries)
    if (entry.key == probe.key)
      return; // The merge replaces it, as it should.
  cache.merge({probe});
  entries.push_back(probe);
  if (!sameEntries(cache.entries(), entries))
    tuna::fuzz::finding("fuzz-cache", "a merge lost or changed entries");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fs::path &dir = workDirectory();
  std::string path = (dir / "tuning.json").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data),
              static_cast<std::streamsize>(size));
  }
  checkFile(path);
  for (const fs::directory_entry &file : fs::directory_iterator(dir))
    fs::remove(file.path());
  return 0;
}
