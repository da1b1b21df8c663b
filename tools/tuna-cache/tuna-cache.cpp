//===- tuna-cache.cpp - Inspect and manage the tuning cache ---------------===//
//
//   tuna-cache [--dir DIR] list   [FILTERS]     one line per decision
//   tuna-cache [--dir DIR] show   [FILTERS]     every candidate's time
//   tuna-cache [--dir DIR] clear  [FILTERS]     remove decisions
//   tuna-cache [--dir DIR] export FILE [FILTERS]
//   tuna-cache [--dir DIR] import FILE...       merge; newer entries win
//
// FILTERS: --kernel NAME, --device TEXT (part of the device name),
// --signature V[,V...] (the bucketed key values). DIR defaults to the
// runtime's: $TUNA_CACHE_DIR, else $XDG_CACHE_HOME/tuna, else
// ~/.cache/tuna. See docs/cache.md.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace tuna;
using tuna::tools::fail;

namespace {

constexpr const char *kUsage =
    "usage: tuna-cache [--dir DIR] list|show|clear [FILTERS]\n"
    "       tuna-cache [--dir DIR] export FILE [FILTERS]\n"
    "       tuna-cache [--dir DIR] import FILE...\n"
    "FILTERS: --kernel NAME  --device TEXT  --signature V[,V...]\n"
    "DIR: $TUNA_CACHE_DIR, else $XDG_CACHE_HOME/tuna, else ~/.cache/tuna\n";

struct Filter {
  std::string kernel, device;
  std::optional<std::vector<int64_t>> signature;

  bool operator()(const CacheEntry &entry) const {
    return (kernel.empty() || entry.key.kernel == kernel) &&
           (device.empty() ||
            entry.key.device.find(device) != std::string::npos) &&
           (!signature || entry.key.signature == *signature);
  }
  bool empty() const { return kernel.empty() && device.empty() && !signature; }
};

std::vector<int64_t> parseValues(const std::string &text) {
  std::vector<int64_t> values;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    char *end = nullptr;
    long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0')
      fail("--signature '" + text + "': expected integers separated by commas");
    values.push_back(value);
    if (comma == std::string::npos)
      return values;
    start = comma + 1;
  }
}

std::string signatureText(const CacheEntry &entry) {
  return formatSignature(entry.key.signature.data(),
                         entry.key.signature.size());
}

std::string timeText(int64_t seconds) {
  std::time_t time = static_cast<std::time_t>(seconds);
  std::tm utc;
  char text[32];
  if (!seconds || !::gmtime_r(&time, &utc) ||
      !std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &utc))
    return "unknown";
  return text;
}

void list(const std::vector<CacheEntry> &entries) {
  std::vector<std::vector<std::string>> rows = {
      {"KERNEL", "SIGNATURE", "PICK", "CONFIG", "DEVICE", "TUNA", "DECIDED"}};
  for (const CacheEntry &entry : entries)
    rows.push_back({entry.key.kernel,
                    signatureText(entry) +
                        (entry.key.coldTiming ? " (timed cold)" : ""),
                    entry.variant,
                    formatConfig(entry.config),
                    entry.key.device + " (" + entry.key.arch + ")",
                    entry.key.tunaVersion, timeText(entry.time)});
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += row[c] + (c + 1 < row.size()
                            ? std::string(widths[c] - row[c].size() + 2, ' ')
                            : "");
    std::printf("%s\n", line.c_str());
  }
}

void show(const std::vector<CacheEntry> &entries) {
  for (const CacheEntry &entry : entries) {
    const CacheKey &key = entry.key;
    std::printf("kernel '%s' (source hash %s) for %s\n", key.kernel.c_str(),
                key.sourceHash.c_str(), signatureText(entry).c_str());
    std::printf("  device: %s (%s, driver %s), tuna %s\n", key.device.c_str(),
                key.arch.c_str(), key.driver.c_str(), key.tunaVersion.c_str());
    std::printf("  decided: %s, tuning took %.1f ms\n",
                timeText(entry.time).c_str(), entry.tuningMs);
    std::printf("  pick: %s (%s)\n", entry.variant.c_str(),
                formatConfig(entry.config).c_str());
    std::vector<std::pair<std::string, double>> times = entry.candidateMs;
    std::stable_sort(
        times.begin(), times.end(),
        [](const auto &a, const auto &b) { return a.second < b.second; });
    size_t width = 0;
    for (const auto &[name, ms] : times)
      width = std::max(width, name.size());
    std::printf("  candidates (median per launch, fastest first):\n");
    for (const auto &[name, ms] : times) {
      std::printf("  %s %-*s %10.4f ms", name == entry.variant ? "*" : " ",
                  static_cast<int>(width), name.c_str(), ms);
      if (!times.empty() && times[0].second > 0 && name != times[0].first)
        std::printf("  +%.0f%%", (ms / times[0].second - 1) * 100);
      std::printf("\n");
    }
  }
}

/// What the command line asks for.
struct Invocation {
  std::string dir = defaultCacheDirectory();
  std::string command;
  std::vector<std::string> files;
  Filter filter;
};

/// Reads the command line; exits with a message on a bad one.
Invocation parseArguments(int argc, char **argv) {
  tools::Arguments arguments(argc, argv, kUsage);
  Invocation invocation;
  Filter &filter = invocation.filter;
  std::string arg;
  while (arguments.next(arg)) {
    if (arg == "--dir") {
      invocation.dir = arguments.value(arg);
    } else if (arg == "--kernel") {
      filter.kernel = arguments.value(arg);
    } else if (arg == "--device") {
      filter.device = arguments.value(arg);
    } else if (arg == "--signature") {
      filter.signature = parseValues(arguments.value(arg));
    } else if (tools::Arguments::isOption(arg)) {
      arguments.unknownOption(arg);
    } else if (invocation.command.empty()) {
      invocation.command = arg;
    } else {
      invocation.files.push_back(arg);
    }
  }
  const std::string &command = invocation.command;
  const std::vector<std::string> &files = invocation.files;
  const char *commands[] = {"list", "show", "clear", "export", "import"};
  if (std::find(std::begin(commands), std::end(commands), command) ==
      std::end(commands))
    fail((command.empty() ? std::string("no command")
                          : "unknown command '" + command + "'") +
         "\n" + kUsage);
  if (invocation.dir.empty())
    fail("no cache directory: set TUNA_CACHE_DIR or HOME, or pass --dir");
  bool takesFiles = command == "export" || command == "import";
  if (!takesFiles && !files.empty())
    fail("'" + command + "' takes no file (got '" + files[0] + "')");
  if (command == "export" && files.size() != 1)
    fail("export writes one file: tuna-cache export FILE");
  if (command == "import" && files.empty())
    fail("import needs at least one file");
  if (command == "import" && !filter.empty())
    fail("import takes no filter");
  return invocation;
}

/// Runs the command; throws tuna::Error.
void run(const Invocation &invocation) {
  const std::string &command = invocation.command;
  TuningCache cache = TuningCache::inDirectory(invocation.dir);
  if (command == "import") {
    for (const std::string &file : invocation.files) {
      MergeCounts counts = cache.merge(readCacheFile(file));
      std::printf("%s: %d added, %d replaced, %d kept (newer in %s)\n",
                  file.c_str(), counts.added, counts.replaced, counts.kept,
                  cache.path().c_str());
    }
    return;
  }
  if (command == "clear") {
    int removed = cache.remove(invocation.filter);
    std::printf("removed %d entr%s from %s\n", removed,
                removed == 1 ? "y" : "ies", cache.path().c_str());
    return;
  }
  std::vector<CacheEntry> selected;
  for (CacheEntry &entry : cache.entries())
    if (invocation.filter(entry))
      selected.push_back(std::move(entry));
  if (command == "list") {
    std::printf("%s: %zu entr%s\n", cache.path().c_str(), selected.size(),
                selected.size() == 1 ? "y" : "ies");
    if (!selected.empty())
      list(selected);
  } else if (command == "show") {
    show(selected);
  } else {
    writeCacheFile(invocation.files[0], selected);
    std::printf("wrote %zu entr%s to %s\n", selected.size(),
                selected.size() == 1 ? "y" : "ies",
                invocation.files[0].c_str());
  }
}

} // namespace

int main(int argc, char **argv) {
  tools::toolName = "tuna-cache";
  Invocation invocation = parseArguments(argc, argv);
  try {
    run(invocation);
  } catch (const Error &e) {
    fail(e.what());
  }
  return 0;
}
