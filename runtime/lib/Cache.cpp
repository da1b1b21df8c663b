//===- Cache.cpp - Tuning decisions that outlive the process --------------===//

#include "tuna/runtime/Cache.h"

#include "AtomicFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuna {

namespace {

/// Keeps the order of fields as written: entries read like the docs.
using json = nlohmann::ordered_json;
constexpr const char *kFormat = "tuna-tuning-cache";
/// The newest format this runtime reads and writes. Version 2 entries may
/// carry a shortlist; a file is written as version 1 when none does.
constexpr int kVersion = 2;
constexpr int kVersionWithoutShortlists = 1;

/// Prints `message` on stderr the first time this process sees it.
void warnOnce(const std::string &message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(message).second)
    std::fprintf(stderr, "tuna: tuning cache: %s\n", message.c_str());
}

/// Creates `dir` and its parents.
void makeDirectories(const std::string &dir) {
  std::string path;
  std::stringstream parts(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/')
    path = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty())
      continue;
    path += part + "/";
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
      throw Error(ErrorCode::InvalidArgument, systemError("create", path));
  }
}

/// An flock held for the life of the object.
class FileLock {
public:
  FileLock(const std::string &path, bool exclusive, bool wait = true) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && !lock(exclusive, wait)) {
      ::close(fd);
      fd = -1;
    }
  }
  ~FileLock() {
    if (fd >= 0)
      ::close(fd); // Releases the lock.
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

  bool held() const { return fd >= 0; }
  /// Another process holds the lock (and we did not wait).
  bool busy() const { return contended; }
  /// Converts a shared lock to an exclusive one (not atomically: another
  /// writer may go first, so re-read after upgrading).
  bool upgrade() { return fd >= 0 && lock(true, true); }

private:
  bool lock(bool exclusive, bool wait) {
    int result;
    do
      result =
          ::flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB));
    while (result != 0 && errno == EINTR);
    contended = result != 0 && errno == EWOULDBLOCK;
    return result == 0;
  }
  int fd = -1;
  bool contended = false;
};

json toJson(const std::vector<std::pair<std::string, int64_t>> &config) {
  json value = json::object();
  for (const auto &[name, param] : config)
    value[name] = param;
  return value;
}

json toJson(const CacheEntry &entry) {
  json config = toJson(entry.config);
  json candidates = json::object();
  for (const auto &[name, ms] : entry.candidateMs)
    candidates[name] = ms;
  const CacheKey &key = entry.key;
  json value = {{"device", key.device},       {"arch", key.arch},
                {"driver", key.driver},       {"tuna", key.tunaVersion},
                {"kernel", key.kernel},       {"source_hash", key.sourceHash},
                {"signature", key.signature}, {"variant", entry.variant},
                {"config", config},           {"tuning_ms", entry.tuningMs},
                {"time", entry.time},         {"candidates", candidates}};
  if (key.coldTiming)
    value["timing"] = "cold";
  if (!entry.failed.empty()) {
    json failed = json::object();
    for (const auto &[name, reason] : entry.failed)
      failed[name] = reason;
    value["failed"] = failed;
  }
  if (!entry.shortlist.empty()) {
    json shortlist = json::array();
    for (const VariantRef &ref : entry.shortlist)
      shortlist.push_back(
          {{"variant", ref.variant}, {"config", toJson(ref.config)}});
    value["shortlist"] = shortlist;
  }
  return value;
}

/// Why a field of an entry is malformed.
struct BadField {
  std::string what;
};

const json &field(const json &entry, const char *name) {
  auto it = entry.find(name);
  if (it == entry.end())
    throw BadField{std::string(name) + ": missing"};
  return *it;
}

std::string text(const json &entry, const char *name) {
  const json &value = field(entry, name);
  if (!value.is_string())
    throw BadField{std::string(name) + ": expected a string, got " +
                   value.dump()};
  return value.get<std::string>();
}

/// An integer in int64 range written as one: 1024.5, 1e3, 2^63 and "7" are
/// not.
int64_t integer(const json &value, const std::string &name) {
  if (value.is_number_integer() &&
      (value.is_number_unsigned() ? value.get<uint64_t>() <= INT64_MAX : true))
    return value.get<int64_t>();
  throw BadField{name + ": expected an integer in int64 range, got " +
                 value.dump()};
}

/// A finite, non-negative number of milliseconds.
double milliseconds(const json &value, const std::string &name) {
  if (value.is_number()) {
    double ms = value.get<double>();
    if (std::isfinite(ms) && ms >= 0)
      return ms;
  }
  throw BadField{name +
                 ": expected a finite number of milliseconds >= 0, got " +
                 value.dump()};
}

std::vector<std::pair<std::string, int64_t>> configOf(const json &entry,
                                                     const std::string &path) {
  auto it = entry.find("config");
  if (it == entry.end())
    throw BadField{path + "config: missing"};
  if (!it->is_object())
    throw BadField{path + "config: expected an object, got " + it->dump()};
  std::vector<std::pair<std::string, int64_t>> config;
  for (const auto &[name, param] : it->items())
    config.emplace_back(name, integer(param, path + "config." + name));
  return config;
}

/// A non-empty list of distinct variants.
std::vector<VariantRef> shortlistOf(const json &value) {
  if (!value.is_array() || value.empty())
    throw BadField{"shortlist: expected a non-empty array, got " +
                   value.dump()};
  std::vector<VariantRef> shortlist;
  for (size_t i = 0; i < value.size(); ++i) {
    std::string path = "shortlist[" + std::to_string(i) + "]";
    const json &item = value[i];
    if (!item.is_object())
      throw BadField{path + ": expected an object, got " + item.dump()};
    VariantRef ref;
    try {
      ref.variant = text(item, "variant");
    } catch (const BadField &bad) {
      throw BadField{path + "." + bad.what};
    }
    ref.config = configOf(item, path + ".");
    for (const VariantRef &earlier : shortlist)
      if (earlier.variant == ref.variant)
        throw BadField{path + ": variant '" + ref.variant +
                       "' is listed twice"};
    shortlist.push_back(std::move(ref));
  }
  return shortlist;
}

/// Throws BadField naming the field when `value` is not a valid entry.
CacheEntry fromJson(const json &value) {
  if (!value.is_object())
    throw BadField{"expected an object, got " + value.dump()};
  CacheEntry entry;
  CacheKey &key = entry.key;
  key.device = text(value, "device");
  key.arch = text(value, "arch");
  key.driver = text(value, "driver");
  key.tunaVersion = text(value, "tuna");
  key.kernel = text(value, "kernel");
  key.sourceHash = text(value, "source_hash");
  const json &signature = field(value, "signature");
  if (!signature.is_array())
    throw BadField{"signature: expected an array, got " + signature.dump()};
  for (size_t k = 0; k < signature.size(); ++k)
    key.signature.push_back(
        integer(signature[k], "signature[" + std::to_string(k) + "]"));
  if (value.contains("timing")) {
    const json &timing = value["timing"];
    if (timing != "cold")
      throw BadField{"timing: expected \"cold\" (or no field: timed back "
                     "to back), got " + timing.dump()};
    key.coldTiming = true;
  }
  entry.variant = text(value, "variant");
  entry.config = configOf(value, "");
  if (value.contains("tuning_ms"))
    entry.tuningMs = milliseconds(value["tuning_ms"], "tuning_ms");
  if (value.contains("time")) {
    entry.time = integer(value["time"], "time");
    if (entry.time < 0)
      throw BadField{"time: expected Unix seconds >= 0, got " +
                     std::to_string(entry.time)};
  }
  if (value.contains("candidates")) {
    const json &candidates = value["candidates"];
    if (!candidates.is_object())
      throw BadField{"candidates: expected an object, got " +
                     candidates.dump()};
    for (const auto &[name, ms] : candidates.items())
      entry.candidateMs.emplace_back(name,
                                     milliseconds(ms, "candidates." + name));
  }
  if (value.contains("failed")) {
    const json &failed = value["failed"];
    if (!failed.is_object())
      throw BadField{"failed: expected an object, got " + failed.dump()};
    for (const auto &[name, reason] : failed.items()) {
      if (!reason.is_string())
        throw BadField{"failed." + name + ": expected a string, got " +
                       reason.dump()};
      entry.failed.emplace_back(name, reason.get<std::string>());
    }
  }
  if (value.contains("shortlist"))
    entry.shortlist = shortlistOf(value["shortlist"]);
  return entry;
}

/// A cache file as read.
struct Contents {
  enum class State { Absent, Ok, Damaged, Newer } state = State::Absent;
  /// The valid entries, one per key (duplicates merged: see mergeEntry).
  std::vector<CacheEntry> entries;
  std::string why; ///< Damaged, Newer: what is wrong.
  /// Ok: why each malformed entry was dropped ("entries[3]: time: ...").
  std::vector<std::string> dropped;
  int duplicates = 0; ///< Entries merged into another of the same key.
};

/// Adds `entry` to `entries`, or replaces the entry of its key if that is
/// not newer (equally new: the later one wins, as a re-tuning within the
/// same second replaces the entry it could not use). Returns whether the key
/// was new (0), replaced (1) or kept (2).
int mergeEntry(std::vector<CacheEntry> &entries, const CacheEntry &entry) {
  auto old = std::find_if(
      entries.begin(), entries.end(),
      [&](const CacheEntry &other) { return other.key == entry.key; });
  if (old == entries.end()) {
    entries.push_back(entry);
    return 0;
  }
  if (old->time > entry.time)
    return 2;
  *old = entry;
  return 1;
}

Contents readContents(const std::string &path) {
  Contents contents;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return contents;
  std::ostringstream text;
  text << in.rdbuf();
  contents.state = Contents::State::Damaged;
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception &e) {
    contents.why = e.what();
    return contents;
  }
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat) {
    contents.why = std::string("not a ") + kFormat + " file";
    return contents;
  }
  const json *version = doc.contains("version") ? &doc["version"] : nullptr;
  // Only an integer is a version: 1e30 or 2^64 must not convert to one.
  if (!version || !version->is_number_integer() ||
      (version->is_number_unsigned() ? version->get<uint64_t>() < 1
                                     : version->get<int64_t>() < 1)) {
    contents.why = "version: expected an integer >= 1, got " +
                   (version ? version->dump() : std::string("nothing"));
    return contents;
  }
  if (version->get<uint64_t>() > kVersion) {
    contents.state = Contents::State::Newer;
    contents.why = "written by a newer Tuna (cache format version " +
                   version->dump() + "; this runtime reads up to " +
                   std::to_string(kVersion) + ")";
    return contents;
  }
  if (!doc.contains("entries") || !doc["entries"].is_array()) {
    contents.why = "entries: expected an array";
    return contents;
  }
  const json &entries = doc["entries"];
  for (size_t i = 0; i < entries.size(); ++i) {
    try {
      contents.duplicates +=
          mergeEntry(contents.entries, fromJson(entries[i])) != 0;
    } catch (const BadField &bad) {
      contents.dropped.push_back("entries[" + std::to_string(i) +
                                 "]: " + bad.what);
    }
  }
  contents.state = Contents::State::Ok;
  return contents;
}

/// Says once per file version what was dropped from it.
void reportDropped(const std::string &path, const Contents &contents) {
  if (contents.dropped.empty())
    return;
  std::string message = "ignoring " + std::to_string(contents.dropped.size()) +
                        " malformed entr" +
                        (contents.dropped.size() == 1 ? "y" : "ies") + " of " +
                        path + " (dropped at its next update):";
  for (const std::string &why : contents.dropped)
    message += "\n  " + why;
  warnOnce(message);
}

/// One version of a file: writers replace cache files by renaming a new
/// file into place, so a new version has a new inode and modification time.
struct FileVersion {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};

  static std::optional<FileVersion> of(const std::string &path) {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0)
      return std::nullopt;
    return FileVersion{info.st_dev, info.st_ino, info.st_size, info.st_mtim};
  }
  bool operator==(const FileVersion &other) const {
    return device == other.device && inode == other.inode &&
           size == other.size && modified.tv_sec == other.modified.tv_sec &&
           modified.tv_nsec == other.modified.tv_nsec;
  }
};

/// The readable cache files this process has read, by path, for as long as
/// they are unchanged: a lookup then costs no parsing.
class ReadFiles {
public:
  std::shared_ptr<const Contents> find(const std::string &path,
                                       const FileVersion &version) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = files.find(path);
    if (it == files.end() || !(it->second.first == version))
      return nullptr;
    return it->second.second;
  }
  void keep(const std::string &path, const FileVersion &version,
            std::shared_ptr<const Contents> contents) {
    std::lock_guard<std::mutex> lock(mutex);
    files[path] = {version, std::move(contents)};
  }

private:
  std::mutex mutex;
  std::map<std::string, std::pair<FileVersion, std::shared_ptr<const Contents>>>
      files;
};

ReadFiles &readFiles() {
  static ReadFiles *files = new ReadFiles; // Outlives static destructors.
  return *files;
}

/// readContents through ReadFiles. Call with the file's lock held.
std::shared_ptr<const Contents> readContentsOnce(const std::string &path) {
  std::optional<FileVersion> version = FileVersion::of(path);
  if (version)
    if (std::shared_ptr<const Contents> known =
            readFiles().find(path, *version))
      return known;
  auto contents = std::make_shared<const Contents>(readContents(path));
  if (version && contents->state == Contents::State::Ok &&
      FileVersion::of(path) == version)
    readFiles().keep(path, *version, contents);
  return contents;
}

/// Renames a damaged file aside and says so once.
void setAside(const std::string &path, const std::string &why) {
  std::string aside =
      path + ".corrupt-" +
      std::to_string(static_cast<long long>(std::time(nullptr)));
  if (std::rename(path.c_str(), aside.c_str()) == 0)
    warnOnce(path + " is unreadable (" + why + "); moved it to " + aside);
  else
    warnOnce(path + " is unreadable (" + why +
             ") and cannot be moved aside: " + std::strerror(errno));
}

/// Replaces `path` by a cache file of `entries` (writeFileAtomically).
void writeAtomically(const std::string &path,
                     const std::vector<CacheEntry> &entries) {
  json list = json::array();
  bool shortlists = false;
  for (const CacheEntry &entry : entries) {
    list.push_back(toJson(entry));
    shortlists |= !entry.shortlist.empty();
  }
  json doc = {{"format", kFormat},
              {"version", shortlists ? kVersion : kVersionWithoutShortlists},
              {"entries", list}};
  writeFileAtomically(path, doc.dump(1) + "\n");
}

/// Removes the `<path>.tmp-<pid>` files of processes that no longer exist
/// (killed while writing). Call with the exclusive lock held: a live writer
/// writes its temporary file only under that lock.
void removeStaleTemporaries(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string prefix =
      (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
  DIR *listing = ::opendir(dir.c_str());
  if (!listing)
    return;
  while (dirent *entry = ::readdir(listing)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH &&
        std::remove((dir + "/" + name).c_str()) == 0)
      warnOnce("removed " + dir + "/" + name + ", left by process " + digits +
               " which no longer exists");
  }
  ::closedir(listing);
}

/// Reads the cache for a change under the exclusive lock: a damaged file is
/// set aside (and the change starts from nothing), a newer one is an error.
std::vector<CacheEntry> readForUpdate(const std::string &path) {
  Contents contents = readContents(path);
  reportDropped(path, contents);
  if (contents.state == Contents::State::Newer)
    throw Error(ErrorCode::Unsupported,
                path + ": " + contents.why + "; leaving it as it is");
  if (contents.state == Contents::State::Damaged)
    setAside(path, contents.why);
  return std::move(contents.entries);
}

/// Changes the cache file `path` under its exclusive lock: `change` edits
/// its entries (read by readForUpdate, stale temporary files removed first)
/// and says whether to write them back.
void updateLocked(
    const std::string &path,
    const std::function<bool(std::vector<CacheEntry> &)> &change) {
  FileLock lock(path + ".lock", /*exclusive=*/true);
  if (!lock.held())
    throw Error(ErrorCode::InvalidArgument,
                systemError("lock", path + ".lock"));
  removeStaleTemporaries(path);
  std::vector<CacheEntry> entries = readForUpdate(path);
  if (change(entries))
    writeAtomically(path, entries);
}

} // namespace

bool CacheKey::matches(const CacheKey &other, bool versionCheck) const {
  return device == other.device && arch == other.arch &&
         kernel == other.kernel && sourceHash == other.sourceHash &&
         signature == other.signature && coldTiming == other.coldTiming &&
         (!versionCheck ||
          (driver == other.driver && tunaVersion == other.tunaVersion));
}

const char *tunaVersion() { return TUNA_VERSION_STRING; }

std::vector<VariantRef> makeShortlist(const Kernel &kernel,
                                      const TuningReport &report, size_t size) {
  std::vector<const CandidateResult *> measured;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Measured && c.variant != report.chosen)
      measured.push_back(&c);
  std::stable_sort(measured.begin(), measured.end(),
                   [](const CandidateResult *a, const CandidateResult *b) {
                     return a->medianMs < b->medianMs;
                   });
  std::vector<VariantRef> shortlist;
  if (size == 0 || report.chosen < 0)
    return shortlist;
  const Variant &pick = kernel.variants[report.chosen];
  shortlist.push_back({pick.name, pick.config});
  for (size_t i = 0; i < measured.size() && shortlist.size() < size; ++i) {
    const Variant &variant = kernel.variants[measured[i]->variant];
    shortlist.push_back({variant.name, variant.config});
  }
  return shortlist;
}

CacheEntry makeCacheEntry(const DeviceInfo &device, const Kernel &kernel,
                          const TuningReport &report, size_t shortlist) {
  CacheEntry entry;
  entry.key = {device.name,     device.arch, device.driverVersion,
               tunaVersion(),   kernel.name, kernel.sourceHash,
               report.signature, report.coldTiming};
  entry.variant = report.chosenName;
  entry.config = kernel.variants[report.chosen].config;
  entry.tuningMs = report.wallMs;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Measured)
      entry.candidateMs.emplace_back(c.name, c.medianMs);
    else if (c.status == CandidateStatus::Failed)
      entry.failed.emplace_back(c.name, c.reason);
  entry.shortlist = makeShortlist(kernel, report, shortlist);
  entry.time = static_cast<int64_t>(std::time(nullptr));
  return entry;
}

std::string defaultCacheDirectory() {
  if (const char *dir = std::getenv("TUNA_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tuna";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tuna";
  return "";
}

std::optional<CacheEntry>
TuningCache::lookup(const CacheKey &key, bool versionCheck, bool wait) const {
  if (::access(file.c_str(), F_OK) != 0)
    return std::nullopt;
  FileLock lock(file + ".lock", /*exclusive=*/false, wait);
  if (lock.busy())
    return std::nullopt;
  std::shared_ptr<const Contents> read = readContentsOnce(file);
  if (read->state == Contents::State::Damaged) {
    if (wait && lock.upgrade()) {
      // Set it aside now, unless a writer replaced it while we upgraded.
      Contents again = readContents(file);
      if (again.state == Contents::State::Damaged)
        setAside(file, again.why);
    } else {
      warnOnce(file + " is unreadable (" + read->why + "); ignoring it");
    }
  }
  if (read->state == Contents::State::Newer)
    warnOnce(file + ": " + read->why + "; not using it");
  reportDropped(file, *read);
  const Contents &contents = *read;
  const CacheEntry *found = nullptr;
  for (const CacheEntry &entry : contents.entries) {
    if (entry.key.matches(key, true))
      return entry;
    if (entry.key.matches(key, versionCheck) &&
        (!found || entry.time >= found->time))
      found = &entry;
  }
  if (!found)
    return std::nullopt;
  return *found;
}

void TuningCache::store(const CacheEntry &entry) const {
  try {
    merge({entry});
  } catch (const Error &e) {
    warnOnce(e.what());
  }
}

std::vector<CacheEntry> TuningCache::entries() const {
  if (::access(file.c_str(), F_OK) != 0)
    return {};
  FileLock lock(file + ".lock", /*exclusive=*/false);
  return readCacheFile(file);
}

MergeCounts TuningCache::merge(const std::vector<CacheEntry> &incoming) const {
  if (size_t slash = file.rfind('/'); slash != std::string::npos && slash > 0)
    makeDirectories(file.substr(0, slash));
  MergeCounts counts;
  updateLocked(file, [&](std::vector<CacheEntry> &entries) {
    for (const CacheEntry &entry : incoming) {
      int outcome = mergeEntry(entries, entry);
      ++(outcome == 0   ? counts.added
         : outcome == 1 ? counts.replaced
                        : counts.kept);
    }
    return true;
  });
  return counts;
}

int TuningCache::remove(
    const std::function<bool(const CacheEntry &)> &select) const {
  if (::access(file.c_str(), F_OK) != 0)
    return 0;
  int removed = 0;
  updateLocked(file, [&](std::vector<CacheEntry> &entries) {
    size_t before = entries.size();
    entries.erase(std::remove_if(entries.begin(), entries.end(), select),
                  entries.end());
    removed = static_cast<int>(before - entries.size());
    return removed > 0;
  });
  return removed;
}

std::vector<CacheEntry> readCacheFile(const std::string &path) {
  Contents contents = readContents(path);
  switch (contents.state) {
  case Contents::State::Absent:
    throw Error(ErrorCode::NotFound, systemError("read", path));
  case Contents::State::Damaged:
    throw Error(ErrorCode::InvalidArgument,
                path + ": not a readable Tuna tuning cache: " + contents.why);
  case Contents::State::Newer:
    throw Error(ErrorCode::Unsupported, path + ": " + contents.why);
  case Contents::State::Ok:
    break;
  }
  if (!contents.dropped.empty())
    throw Error(ErrorCode::InvalidArgument,
                path + ": not a readable Tuna tuning cache: " +
                    contents.dropped.front());
  return std::move(contents.entries);
}

void writeCacheFile(const std::string &path,
                    const std::vector<CacheEntry> &entries) {
  writeAtomically(path, entries);
}

} // namespace tuna
