//===- Options.cpp - How a module tunes its kernels -----------------------===//

#include "tuna/runtime/Options.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tuna {

bool environmentFlag(const char *name, bool unset) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return unset;
  std::string value = text;
  if (value == "1" || value == "true" || value == "on" || value == "yes")
    return true;
  if (value == "0" || value == "false" || value == "off" || value == "no")
    return false;
  throw Error(ErrorCode::InvalidArgument,
              std::string(name) + "='" + value + "': expected 0 or 1");
}

namespace {
/// The numeric value of the variable `name`, or `current` when unset.
double readNumber(const char *name, double current) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return current;
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (*end != '\0' || value < 0)
    throw Error(ErrorCode::InvalidArgument,
                std::string(name) + "='" + text +
                    "': expected a non-negative number");
  return value;
}

/// The whole-number value of the variable `name`, or `current` when unset.
int readCount(const char *name, int current) {
  double value = readNumber(name, current);
  if (value != std::floor(value) || value > 1e6)
    throw Error(ErrorCode::InvalidArgument,
                std::string(name) + "='" + std::getenv(name) +
                    "': expected a whole number up to 1000000");
  return static_cast<int>(value);
}
} // namespace

Options Options::fromEnvironment() {
  Options options;
  if (environmentFlag("TUNA_ALWAYS_TUNE", false))
    options.mode = TuneMode::Always;
  if (!environmentFlag("TUNA_AUTOTUNE", true)) // Off wins over Always.
    options.mode = TuneMode::Off;
  options.verbose = environmentFlag("TUNA_PRINT_AUTOTUNING", options.verbose);
  options.check = environmentFlag("TUNA_CHECK", options.check);
  options.cacheDir = defaultCacheDirectory();
  if (const char *list = std::getenv("TUNA_TUNING_DB"))
    for (std::string_view rest = list; !rest.empty();) {
      size_t colon = std::min(rest.find(':'), rest.size());
      if (colon)
        options.databases.emplace_back(rest.substr(0, colon));
      rest.remove_prefix(std::min(colon + 1, rest.size()));
    }
  options.versionCheck =
      environmentFlag("TUNA_VERSION_CHECK", options.versionCheck);
  options.atol = readNumber("TUNA_CHECK_ATOL", options.atol);
  options.rtol = readNumber("TUNA_CHECK_RTOL", options.rtol);
  options.isolate = environmentFlag("TUNA_ISOLATE", options.isolate);
  options.prune = environmentFlag("TUNA_PRUNE", options.prune);
  options.coldTiming = environmentFlag("TUNA_TUNE_COLD", options.coldTiming);
  options.useShortlists =
      environmentFlag("TUNA_SHORTLISTS", options.useShortlists);
  if (const char *worker = std::getenv("TUNA_WORKER"))
    options.workerPath = worker;
  options.tuneTimeoutMs =
      readNumber("TUNA_TUNE_TIMEOUT_MS", options.tuneTimeoutMs);
  options.totalBudgetMs =
      readNumber("TUNA_TUNE_BUDGET_MS", options.totalBudgetMs);
  options.finalists = readCount("TUNA_TUNE_FINALISTS", options.finalists);
  options.communicator = defaultCommunicator();
  options.agreeTimeoutMs =
      readNumber("TUNA_AGREE_TIMEOUT_MS", options.agreeTimeoutMs);
  options.spreadOverRanks =
      environmentFlag("TUNA_SPREAD_TUNING", options.spreadOverRanks);
  return options;
}

const char *tuneModeName(TuneMode mode) {
  switch (mode) {
  case TuneMode::Off:
    return "off";
  case TuneMode::On:
    return "on";
  case TuneMode::Always:
    return "always";
  }
  return "?";
}

} // namespace tuna
