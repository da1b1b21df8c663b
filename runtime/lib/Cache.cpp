//===- Cache.cpp - Tuning decisions that outlive the process --------------===//

#include "tuna/runtime/Cache.h"

#include "AtomicFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
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

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuna {

namespace {

/// Keeps the order of fields as written: entries read like the docs.
using json = nlohmann::ordered_json;
constexpr const char *kFormat = "tuna-tuning-cache";
constexpr int kVersion = 1;

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
  FileLock(const std::string &path, bool exclusive) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && !lock(exclusive)) {
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
  /// Converts a shared lock to an exclusive one (not atomically: another
  /// writer may go first, so re-read after upgrading).
  bool upgrade() { return fd >= 0 && lock(true); }

private:
  bool lock(bool exclusive) {
    int result;
    do
      result = ::flock(fd, exclusive ? LOCK_EX : LOCK_SH);
    while (result != 0 && errno == EINTR);
    return result == 0;
  }
  int fd = -1;
};

json toJson(const CacheEntry &entry) {
  json config = json::object();
  for (const auto &[name, value] : entry.config)
    config[name] = value;
  json candidates = json::object();
  for (const auto &[name, ms] : entry.candidateMs)
    candidates[name] = ms;
  const CacheKey &key = entry.key;
  return {{"device", key.device},       {"arch", key.arch},
          {"driver", key.driver},       {"tuna", key.tunaVersion},
          {"kernel", key.kernel},       {"source_hash", key.sourceHash},
          {"signature", key.signature}, {"variant", entry.variant},
          {"config", config},           {"tuning_ms", entry.tuningMs},
          {"time", entry.time},         {"candidates", candidates}};
}

/// Throws json::exception naming the field when `value` is malformed.
CacheEntry fromJson(const json &value) {
  CacheEntry entry;
  CacheKey &key = entry.key;
  value.at("device").get_to(key.device);
  value.at("arch").get_to(key.arch);
  value.at("driver").get_to(key.driver);
  value.at("tuna").get_to(key.tunaVersion);
  value.at("kernel").get_to(key.kernel);
  value.at("source_hash").get_to(key.sourceHash);
  value.at("signature").get_to(key.signature);
  value.at("variant").get_to(entry.variant);
  for (const auto &[name, param] : value.at("config").items())
    entry.config.emplace_back(name, param.get<int64_t>());
  entry.tuningMs = value.value("tuning_ms", 0.0);
  entry.time = value.value("time", int64_t(0));
  if (value.contains("candidates"))
    for (const auto &[name, ms] : value.at("candidates").items())
      entry.candidateMs.emplace_back(name, ms.get<double>());
  return entry;
}

/// A cache file as read.
struct Contents {
  enum class State { Absent, Ok, Damaged, Newer } state = State::Absent;
  std::vector<CacheEntry> entries;
  std::string why; ///< Damaged, Newer: what is wrong.
};

Contents readContents(const std::string &path) {
  Contents contents;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return contents;
  std::ostringstream text;
  text << in.rdbuf();
  try {
    json doc = json::parse(text.str());
    if (!doc.is_object() || doc.value("format", "") != kFormat) {
      contents.state = Contents::State::Damaged;
      contents.why = std::string("not a ") + kFormat + " file";
      return contents;
    }
    int version = doc.value("version", 0);
    if (version > kVersion) {
      contents.state = Contents::State::Newer;
      contents.why = "written by a newer Tuna (cache format version " +
                     std::to_string(version) + "; this runtime reads up to " +
                     std::to_string(kVersion) + ")";
      return contents;
    }
    const json &entries = doc.at("entries");
    if (!entries.is_array())
      throw Error(ErrorCode::InvalidArgument, "entries: expected an array");
    for (size_t i = 0; i < entries.size(); ++i) {
      try {
        contents.entries.push_back(fromJson(entries[i]));
      } catch (const json::exception &e) {
        throw Error(ErrorCode::InvalidArgument,
                    "entries[" + std::to_string(i) + "]: " + e.what());
      }
    }
    contents.state = Contents::State::Ok;
  } catch (const std::exception &e) { // json::exception or Error.
    contents.state = Contents::State::Damaged;
    contents.entries.clear();
    contents.why = e.what();
  }
  return contents;
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
  std::map<std::string,
           std::pair<FileVersion, std::shared_ptr<const Contents>>>
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
  for (const CacheEntry &entry : entries)
    list.push_back(toJson(entry));
  json doc = {{"format", kFormat}, {"version", kVersion}, {"entries", list}};
  writeFileAtomically(path, doc.dump(1) + "\n");
}

/// Reads the cache for a change under the exclusive lock: a damaged file is
/// set aside (and the change starts from nothing), a newer one is an error.
std::vector<CacheEntry> readForUpdate(const std::string &path) {
  Contents contents = readContents(path);
  if (contents.state == Contents::State::Newer)
    throw Error(ErrorCode::Unsupported,
                path + ": " + contents.why + "; leaving it as it is");
  if (contents.state == Contents::State::Damaged)
    setAside(path, contents.why);
  return std::move(contents.entries);
}

} // namespace

bool CacheKey::matches(const CacheKey &other, bool versionCheck) const {
  return device == other.device && arch == other.arch &&
         kernel == other.kernel && sourceHash == other.sourceHash &&
         signature == other.signature &&
         (!versionCheck ||
          (driver == other.driver && tunaVersion == other.tunaVersion));
}

const char *tunaVersion() { return TUNA_VERSION_STRING; }

CacheEntry makeCacheEntry(const DeviceInfo &device, const Kernel &kernel,
                          const TuningReport &report) {
  CacheEntry entry;
  entry.key = {device.name,     device.arch, device.driverVersion,
               tunaVersion(),   kernel.name, kernel.sourceHash,
               report.signature};
  entry.variant = report.chosenName;
  entry.config = kernel.variants[report.chosen].config;
  entry.tuningMs = report.wallMs;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Measured)
      entry.candidateMs.emplace_back(c.name, c.medianMs);
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

std::optional<CacheEntry> TuningCache::lookup(const CacheKey &key,
                                              bool versionCheck) const {
  if (::access(file.c_str(), F_OK) != 0)
    return std::nullopt;
  FileLock lock(file + ".lock", /*exclusive=*/false);
  std::shared_ptr<const Contents> read = readContentsOnce(file);
  if (read->state == Contents::State::Damaged) {
    if (lock.upgrade()) {
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
  FileLock lock(file + ".lock", /*exclusive=*/true);
  if (!lock.held())
    throw Error(ErrorCode::InvalidArgument,
                systemError("lock", file + ".lock"));
  std::vector<CacheEntry> entries = readForUpdate(file);
  MergeCounts counts;
  for (const CacheEntry &entry : incoming) {
    auto old = std::find_if(
        entries.begin(), entries.end(),
        [&](const CacheEntry &other) { return other.key == entry.key; });
    if (old == entries.end()) {
      entries.push_back(entry);
      ++counts.added;
    } else if (old->time > entry.time) {
      ++counts.kept;
    } else {
      // Equally new: the incoming entry is the more recent decision (a
      // re-tuning replaces an entry it could not use within a second).
      *old = entry;
      ++counts.replaced;
    }
  }
  writeAtomically(file, entries);
  return counts;
}

int TuningCache::remove(
    const std::function<bool(const CacheEntry &)> &select) const {
  if (::access(file.c_str(), F_OK) != 0)
    return 0;
  FileLock lock(file + ".lock", /*exclusive=*/true);
  if (!lock.held())
    throw Error(ErrorCode::InvalidArgument,
                systemError("lock", file + ".lock"));
  std::vector<CacheEntry> entries = readForUpdate(file);
  size_t before = entries.size();
  entries.erase(std::remove_if(entries.begin(), entries.end(), select),
                entries.end());
  int removed = static_cast<int>(before - entries.size());
  if (removed)
    writeAtomically(file, entries);
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
  return std::move(contents.entries);
}

void writeCacheFile(const std::string &path,
                    const std::vector<CacheEntry> &entries) {
  writeAtomically(path, entries);
}

} // namespace tuna
