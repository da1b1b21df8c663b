//===- TuningCache.cpp - Tuning results that outlive the process ----------===//

#include "TuningCache.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuna {

namespace {

using json = nlohmann::json;
constexpr const char *kFormat = "tuna-tuning-cache";
constexpr int kVersion = 1;

void warn(const std::string &message) {
  std::fprintf(stderr, "tuna: tuning cache: %s\n", message.c_str());
}

/// Creates `dir` and its parents; false (with a warning) on failure.
bool makeDirectories(const std::string &dir) {
  std::string path;
  std::stringstream parts(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/')
    path = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty())
      continue;
    path += part + "/";
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      warn("cannot create " + path + ": " + std::strerror(errno));
      return false;
    }
  }
  return true;
}

/// An flock held for the life of the object (shared or exclusive).
class FileLock {
public:
  FileLock(const std::string &path, bool exclusive) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && ::flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~FileLock() {
    if (fd >= 0)
      ::close(fd); // Releases the lock.
  }
  bool held() const { return fd >= 0; }

private:
  int fd = -1;
};

/// The entries of `path`; an absent file is empty, a damaged one is moved
/// aside. The caller holds the lock.
json readEntries(const std::string &path, bool moveAsideIfDamaged) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return json::array();
  std::string why;
  try {
    json doc = json::parse(in);
    if (doc.is_object() && doc.value("format", "") == kFormat &&
        doc.value("version", 0) == kVersion && doc.contains("entries") &&
        doc["entries"].is_array())
      return doc["entries"];
    why = "not a version " + std::to_string(kVersion) + " " + kFormat + " file";
  } catch (const json::exception &e) {
    why = e.what();
  }
  if (!moveAsideIfDamaged) {
    warn(path + " is unreadable (" + why + "); ignoring it");
    return json::array();
  }
  std::string aside = path + ".corrupt-" +
                      std::to_string(static_cast<long>(std::time(nullptr)));
  if (std::rename(path.c_str(), aside.c_str()) == 0)
    warn(path + " is unreadable (" + why + "); moved it to " + aside);
  else
    warn(path + " is unreadable (" + why + ") and could not be moved aside");
  return json::array();
}

bool sameDecision(const json &entry, const CacheKey &key, bool versionCheck) {
  try {
    if (entry.at("device") != key.device || entry.at("arch") != key.arch ||
        entry.at("kernel") != key.kernel ||
        entry.at("source_hash") != key.sourceHash ||
        entry.at("signature").get<std::vector<int64_t>>() != key.signature)
      return false;
    return !versionCheck || (entry.at("driver") == key.driver &&
                             entry.at("tuna") == key.tunaVersion);
  } catch (const json::exception &) {
    return false; // A malformed entry matches nothing.
  }
}

} // namespace

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
  std::string path = dir + "/tuning.json";
  if (::access(path.c_str(), F_OK) != 0)
    return std::nullopt;
  FileLock lock(path + ".lock", /*exclusive=*/false);
  json entries = readEntries(path, /*moveAsideIfDamaged=*/false);
  // Newest last: prefer an exact version match, then any match.
  const json *found = nullptr;
  for (const json &entry : entries)
    if (sameDecision(entry, key, true) ||
        (!found && sameDecision(entry, key, versionCheck)))
      found = &entry;
  if (!found)
    return std::nullopt;
  try {
    CacheEntry result;
    result.variant = found->at("variant").get<std::string>();
    for (auto &[name, value] : found->at("config").items())
      result.config.emplace_back(name, value.get<int64_t>());
    result.tuningMs = found->value("tuning_ms", 0.0);
    return result;
  } catch (const json::exception &e) {
    warn("ignoring a malformed entry of " + path + ": " + e.what());
    return std::nullopt;
  }
}

void TuningCache::store(const CacheKey &key, const CacheEntry &entry) const {
  if (!makeDirectories(dir))
    return;
  std::string path = dir + "/tuning.json";
  FileLock lock(path + ".lock", /*exclusive=*/true);
  if (!lock.held()) {
    warn("cannot lock " + path + ".lock: " + std::strerror(errno));
    return;
  }
  json entries = readEntries(path, /*moveAsideIfDamaged=*/true);
  json kept = json::array();
  for (json &old : entries)
    if (!sameDecision(old, key, true))
      kept.push_back(std::move(old));
  json config = json::object();
  for (const auto &[name, value] : entry.config)
    config[name] = value;
  json candidates = json::object();
  for (const auto &[name, ms] : entry.candidateMs)
    candidates[name] = ms;
  kept.push_back({{"device", key.device},
                  {"arch", key.arch},
                  {"driver", key.driver},
                  {"tuna", key.tunaVersion},
                  {"kernel", key.kernel},
                  {"source_hash", key.sourceHash},
                  {"signature", key.signature},
                  {"variant", entry.variant},
                  {"config", config},
                  {"tuning_ms", entry.tuningMs},
                  {"candidates", candidates}});
  json doc = {{"format", kFormat}, {"version", kVersion}, {"entries", kept}};

  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  std::string text = doc.dump(1) + "\n";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  if (fd >= 0)
    ::close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    warn("cannot write " + path + ": " + std::strerror(errno));
    std::remove(temp.c_str());
  }
}

} // namespace tuna
