//===- tuna-tune.cpp - Tune a bundle's kernels ahead of time --------------===//
//
//   tuna-tune kernels.tuna --kernel scale --shape d0=4096,65536,1048576
//
// Runs each kernel on random inputs of each shape through the runtime in
// mode always, so that every decision lands in the tuning cache (warm-up),
// optionally in a tuning database file that ships with an app (-o), and in
// an HTML report (--report). Prints each pick and, per kernel, the
// configuration that wins the most shapes. See docs/cache.md.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "Ranks.h"
#include "Report.h"
#include "SearchShape.h"
#include "Shapes.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

using namespace tuna;
using namespace tuna::tune;
using tuna::tools::fail;

namespace {

constexpr const char *kUsage =
    "usage: tuna-tune BUNDLE (--shape SPEC | --shapes FILE)... [options]\n"
    "  --kernel NAME      kernel to tune (repeatable; default: the only one)\n"
    "  --shape SPEC       key values, e.g. 'd0=4096,65536 d1=1..64' (A..B:\n"
    "                     A, 2A, 4A ... B); tunes every combination\n"
    "  --shapes FILE      one SPEC per line; '#' starts a comment\n"
    "  --dims aI=S,...    sizes of memref argument I: integers, dJ or\n"
    "                     products (d0*d1); default: the largest key value\n"
    "                     of the shape, unless the memref would then be\n"
    "                     smaller than the product of the key values\n"
    "  --arg aI=VALUE     scalar argument I outside the key (floats: 1)\n"
    "  --device DEVICE    host (default), cuda, cuda:N, or cuda:local (under\n"
    "                     mpirun: the GPU numbered as the rank on its host)\n"
    "  --check            reject variants whose output differs from the\n"
    "                     default variant's; --atol X, --rtol Y\n"
    "  --no-isolate       time the candidates in this process (default: in a\n"
    "                     tuna-worker process, so that a variant that\n"
    "                     crashes or hangs is recorded as failed)\n"
    "  --timeout-ms MS    a worker silent this long is hung (default 10000)\n"
    "  --cache-dir DIR    cache to write (default: as the runtime)\n"
    "  --no-cache         write no cache\n"
    "  -o FILE            merge the decisions into the tuning database FILE\n"
    "  --report FILE      an HTML page with every candidate's time\n"
    "  --strategy NAME    search the candidates of each bucket with\n"
    "                     exhaustive, random or pattern (docs/search.md)\n"
    "                     instead of timing them all\n"
    "  --budget-evals N   a search measures at most N candidates per bucket\n"
    "  --budget-s S       a search stops proposing after S seconds per bucket\n"
    "  --resume FILE      a search keeps its measurements in FILE and\n"
    "                     continues from it (one kernel, one shape)\n"
    "  --agree            under mpirun: every rank tunes every shape and the\n"
    "                     ranks agree on each pick (default: the shapes are\n"
    "                     split over the ranks)\n"
    "  --seed N           seed of the random inputs and of a search\n"
    "                     (default 1)\n"
    "  --verbose          print every candidate's time while tuning\n";

/// A number for the search library to judge (it names a budget <= 0).
double anyNumber(const std::string &option, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    fail(option + " '" + text + "': expected a number");
  return value;
}

int64_t integer(const std::string &option, const std::string &text) {
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0')
    fail(option + " '" + text + "': expected an integer");
  return value;
}

double number(const std::string &option, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || value < 0)
    fail(option + " '" + text + "': expected a non-negative number");
  return value;
}

/// `localRank`: this process's rank on its host, for cuda:local.
Device parseDevice(const std::string &text, int localRank) {
  if (text == "host")
    return Device::host();
  if (text == "cuda")
    return Device::cuda(0);
  if (text == "cuda:local")
    return Device::cuda(localRank);
  if (text.rfind("cuda:", 0) == 0) {
    char *end = nullptr;
    long ordinal = std::strtol(text.c_str() + 5, &end, 10);
    if (text.size() > 5 && *end == '\0' && ordinal >= 0)
      return Device::cuda(static_cast<int>(ordinal));
  }
  fail("--device '" + text + "': expected host, cuda, cuda:N or cuda:local");
}

std::vector<Shape> readShapeFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    fail("cannot read the shape file " + path);
  std::vector<Shape> shapes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    try {
      for (Shape &shape : parseShapeSpec(line))
        shapes.push_back(std::move(shape));
    } catch (const Error &e) {
      fail(path + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  return shapes;
}

std::string keyText(const Shape &shape) {
  return formatSignature(shape.data(), shape.size());
}

std::string timeText(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g ms", ms);
  return text;
}

std::string ratioText(double ratio) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2fx", ratio);
  return text;
}

/// A progress bar with the estimated time left, redrawn on a terminal.
class Progress {
public:
  explicit Progress(size_t total)
      : total(total), start(Clock::now()), terminal(::isatty(2)) {}

  /// Clears the bar so that a line of output can be printed.
  void clear() const {
    if (terminal)
      std::fprintf(stderr, "\r\033[K");
  }
  void update(size_t done) const {
    if (!terminal)
      return;
    constexpr size_t kWidth = 30;
    size_t filled = total ? done * kWidth / total : kWidth;
    double elapsed =
        std::chrono::duration<double>(Clock::now() - start).count();
    double left = done ? elapsed / done * (total - done) : 0;
    std::fprintf(stderr, "\r[%s%s] %zu/%zu, %.1f s, ETA %.1f s",
                 std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done, total,
                 elapsed, left);
    if (done == total)
      std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

private:
  using Clock = std::chrono::steady_clock;
  size_t total;
  Clock::time_point start;
  bool terminal;
};

/// How `config` does where it does not win: its worst median over the
/// winner's, on how many shapes that was measured, and on how many not.
struct Loss {
  double worst = 1;
  int compared = 0, untimed = 0;
};

Loss lossOf(const std::string &config, const Kernel &kernel,
            const std::vector<Decision> &decisions) {
  Loss loss;
  for (const Decision &d : decisions) {
    const TuningReport &r = d.report;
    if (d.kernel != &kernel || r.source != DecisionSource::Tuned ||
        r.candidates[r.chosen].config == config)
      continue;
    auto it = std::find_if(
        r.candidates.begin(), r.candidates.end(), [&](const auto &c) {
          return c.config == config && c.status == CandidateStatus::Measured;
        });
    if (it == r.candidates.end()) {
      ++loss.untimed;
      continue;
    }
    loss.worst =
        std::max(loss.worst, it->medianMs / r.candidates[r.chosen].medianMs);
    ++loss.compared;
  }
  return loss;
}

/// The configuration that wins the most tuned shapes of one kernel (ties:
/// the one that loses least elsewhere), and what it costs where it loses.
void printDefaultConfig(const Kernel &kernel,
                        const std::vector<Decision> &decisions) {
  std::map<std::string, int> wins;
  int tuned = 0, most = 0;
  for (const Decision &d : decisions)
    if (d.kernel == &kernel && d.report.source == DecisionSource::Tuned) {
      most =
          std::max(most, ++wins[d.report.candidates[d.report.chosen].config]);
      ++tuned;
    }
  if (!tuned) {
    std::printf("%s: no shape was tuned (one candidate or none)\n",
                kernel.name.c_str());
    return;
  }
  std::string best;
  Loss bestLoss;
  for (const auto &[config, count] : wins) {
    if (count != most)
      continue;
    Loss loss = lossOf(config, kernel, decisions);
    if (best.empty() || loss.untimed < bestLoss.untimed ||
        (loss.untimed == bestLoss.untimed && loss.worst < bestLoss.worst)) {
      best = config;
      bestLoss = loss;
    }
  }
  std::printf("%s: default config %s wins %d of %d tuned shapes",
              kernel.name.c_str(), best.c_str(), most, tuned);
  if (bestLoss.compared)
    std::printf("; elsewhere at most %.2fx the winner's time", bestLoss.worst);
  if (bestLoss.untimed)
    std::printf("; not timed (excluded, wrong or eliminated) on %d",
                bestLoss.untimed);
  std::printf("\n");
}

/// What every item of a run shares.
struct ItemContext {
  Device &device;
  const ArgSettings &settings;
  const SearchSettings &searchSettings;
  const std::string &cacheDir;
  unsigned seed;
  size_t total; ///< Items in the run.
  /// Buckets a search decided (a search publishes nothing in the kernel).
  std::set<std::pair<const Kernel *, std::vector<int64_t>>> searched;
};

/// The bucket of `shape`'s key values.
std::vector<int64_t> bucketOf(const Kernel &kernel, const Shape &shape) {
  std::vector<int64_t> bucket;
  for (size_t k = 0; k < shape.size(); ++k)
    bucket.push_back(bucketValue(kernel.key[k], shape[k]));
  return bucket;
}

/// Tunes item `item` (kernel, shape) on random inputs seeded by the run's
/// seed and the item, so that any rank draws the same inputs for it.
ItemResult tuneItem(TunedKernel &kernel, const Shape &shape, size_t item,
                    ItemContext &context) {
  const Kernel &spec = kernel.spec();
  ItemResult result;
  result.item = item;
  std::string line = "[" + std::to_string(item + 1) + "/" +
                     std::to_string(context.total) + "] " + spec.name + " " +
                     keyText(shape) + ": ";
  std::string searchLog;
  try {
    std::mt19937 rng(context.seed + static_cast<unsigned>(item));
    ShapeArgs launchArgs(context.device.backend(), spec, shape,
                         context.settings, rng);
    std::vector<int64_t> signature =
        kernel.signature(launchArgs.data(), launchArgs.size());
    if (kernel.chosenVariant(signature) >= 0 ||
        context.searched.count({&spec, signature})) {
      line += "bucket " + formatSignature(signature.data(), signature.size()) +
              " already decided";
    } else {
      TuningReport report;
      if (context.searchSettings.enabled()) {
        report = searchShape(kernel, context.device.info(), launchArgs.data(),
                             launchArgs.size(), signature,
                             context.searchSettings, searchLog);
        context.searched.insert({&spec, signature});
        if (!context.cacheDir.empty())
          TuningCache::inDirectory(context.cacheDir)
              .store(makeCacheEntry(context.device.info(), spec, report));
      } else {
        kernel.launch(nullptr, launchArgs.data(), launchArgs.size());
        context.device.backend().synchronize(nullptr);
        report = kernel.reports().back();
      }
      const CandidateResult &pick = report.candidates[report.chosen];
      line += decisionSourceName(report.source) + std::string(" bucket ") +
              formatSignature(signature.data(), signature.size()) + ": " +
              pick.name + " (" + pick.config + ")";
      if (pick.status == CandidateStatus::Measured) {
        line += " " + timeText(pick.medianMs);
        const CandidateResult &fallback =
            report.candidates[spec.defaultVariant];
        if (report.chosen != spec.defaultVariant &&
            fallback.status == CandidateStatus::Measured)
          line += ", " + ratioText(fallback.medianMs / pick.medianMs) +
                  " faster than the default " + fallback.name;
      }
      result.decision = {&spec, shape, std::move(report)};
      result.decided = true;
    }
  } catch (const Error &e) {
    line += std::string("error: ") + e.what();
    result.failed = true;
  }
  result.output = line + "\n" + searchLog;
  return result;
}

} // namespace

int main(int argc, char **argv) {
  tools::toolName = "tuna-tune";
  Ranks ranks(argc, argv);
  tools::Arguments arguments(argc, argv, kUsage);
  std::string bundlePath, cacheDir = defaultCacheDirectory(), database,
                          reportPath, deviceName = "host";
  bool noCache = false, check = false, verbose = false, isolate = true,
       agree = false;
  double atol = -1, rtol = -1, timeoutMs = -1;
  unsigned seed = 1;
  std::vector<std::string> kernelNames;
  std::vector<Shape> shapes;
  ArgSettings settings;
  SearchSettings searchSettings;
  searchSettings.options.strategy.clear();
  try {
    std::string arg;
    while (arguments.next(arg)) {
      auto value = [&]() -> const std::string & {
        return arguments.value(arg);
      };
      if (arg == "--kernel") {
        kernelNames.push_back(value());
      } else if (arg == "--shape") {
        for (Shape &shape : parseShapeSpec(value()))
          shapes.push_back(std::move(shape));
      } else if (arg == "--shapes") {
        for (Shape &shape : readShapeFile(value()))
          shapes.push_back(std::move(shape));
      } else if (arg == "--dims") {
        parseDims(value(), settings);
      } else if (arg == "--arg") {
        parseArg(value(), settings);
      } else if (arg == "--device") {
        deviceName = value();
      } else if (arg == "--check") {
        check = true;
      } else if (arg == "--atol") {
        atol = number(arg, value());
      } else if (arg == "--rtol") {
        rtol = number(arg, value());
      } else if (arg == "--cache-dir") {
        cacheDir = value();
      } else if (arg == "--no-isolate") {
        isolate = false;
      } else if (arg == "--timeout-ms") {
        timeoutMs = number(arg, value());
      } else if (arg == "--agree") {
        agree = true;
      } else if (arg == "--no-cache") {
        noCache = true;
      } else if (arg == "-o") {
        database = value();
      } else if (arg == "--report") {
        reportPath = value();
      } else if (arg == "--seed") {
        seed = static_cast<unsigned>(number(arg, value()));
      } else if (arg == "--strategy") {
        searchSettings.options.strategy = value();
      } else if (arg == "--budget-evals") {
        searchSettings.options.budgetEvaluations = integer(arg, value());
      } else if (arg == "--budget-s") {
        searchSettings.options.budgetSeconds = anyNumber(arg, value());
      } else if (arg == "--resume") {
        searchSettings.options.resumeFile = value();
      } else if (arg == "--verbose") {
        verbose = true;
      } else if (tools::Arguments::isOption(arg)) {
        arguments.unknownOption(arg);
      } else if (bundlePath.empty()) {
        bundlePath = arg;
      } else {
        fail("one bundle at a time (got '" + bundlePath + "' and '" + arg +
             "')");
      }
    }
  } catch (const Error &e) {
    fail(e.what());
  }
  if (bundlePath.empty())
    fail(std::string("no bundle\n") + kUsage);
  if (shapes.empty())
    fail("no shape: give --shape or --shapes");
  if ((atol >= 0 || rtol >= 0) && !check)
    fail("--atol and --rtol are tolerances of --check");
  const search::SearchOptions &searchOptions = searchSettings.options;
  if (!searchSettings.enabled() &&
      (searchOptions.budgetEvaluations || searchOptions.budgetSeconds ||
       !searchOptions.resumeFile.empty()))
    fail("--budget-evals, --budget-s and --resume are settings of --strategy");
  searchSettings.options.seed = seed;
  if (agree && searchSettings.enabled())
    fail("--agree decides by the runtime's protocol; --strategy searches "
         "outside it");
  if (searchSettings.enabled()) {
    try {
      search::validate(searchOptions);
    } catch (const Error &e) {
      fail(e.what());
    }
  }

  std::vector<Decision> decisions;
  int failures = 0;
  try {
    Options options = Options::fromEnvironment();
    options.mode = TuneMode::Always;
    options.check = check;
    options.atol = atol >= 0 ? atol : options.atol;
    options.rtol = rtol >= 0 ? rtol : options.rtol;
    options.verbose |= verbose;
    options.isolate = isolate;
    options.tuneTimeoutMs = timeoutMs >= 0 ? timeoutMs : options.tuneTimeoutMs;
    options.cacheDir = noCache ? "" : cacheDir;
    if (agree)
      options.communicator = ranks.job();
    Device device = parseDevice(deviceName, ranks.localRank());
    ranks.checkSameDevice(device.info());
    Module module = Module::load(bundlePath, device, options);
    if (kernelNames.empty()) {
      if (module.kernelNames().size() != 1) {
        std::string names;
        for (const std::string &name : module.kernelNames())
          names += " " + name;
        fail(bundlePath + " has several kernels; pick with --kernel:" + names);
      }
      kernelNames = module.kernelNames();
    }
    if (!searchOptions.resumeFile.empty() &&
        (kernelNames.size() != 1 || shapes.size() != 1))
      fail("--resume FILE holds the search of one kernel and one shape; got " +
           std::to_string(kernelNames.size()) + " kernels and " +
           std::to_string(shapes.size()) + " shapes");
    std::vector<TunedKernel *> kernels;
    for (const std::string &name : kernelNames) {
      TunedKernel &kernel = module.kernel(name);
      for (const Shape &shape : shapes)
        if (shape.size() != kernel.spec().key.size())
          fail("kernel '" + name + "' has " +
               std::to_string(kernel.spec().key.size()) +
               " key values, the shape " + keyText(shape) + " gives " +
               std::to_string(shape.size()));
      kernels.push_back(&kernel);
    }

    // Items in order, kernels by shapes; under mpirun each rank tunes the
    // buckets it owns (Ranks.h).
    std::vector<std::string> buckets;
    for (TunedKernel *kernel : kernels)
      for (const Shape &shape : shapes)
        buckets.push_back(kernel->spec().name + " " +
                          keyText(bucketOf(kernel->spec(), shape)));
    // --agree: every rank tunes every item, with the others.
    std::vector<int> owners = agree ? std::vector<int>(buckets.size(), ranks.rank())
                                    : ranks.owners(buckets);
    ItemContext context{device, settings, searchSettings, options.cacheDir,
                        seed, kernels.size() * shapes.size(), {}};
    std::vector<ItemResult> results;
    Progress progress(context.total);
    if (ranks.size() == 1)
      progress.update(0);
    size_t item = 0;
    for (TunedKernel *kernel : kernels)
      for (const Shape &shape : shapes) {
        if (owners[item] == ranks.rank()) {
          results.push_back(tuneItem(*kernel, shape, item, context));
          if (ranks.size() == 1) {
            progress.clear();
            std::printf("%s", results.back().output.c_str());
            std::fflush(stdout);
            progress.update(item + 1);
          }
        }
        ++item;
      }
    // Rank 0 prints every rank's lines and writes the outputs.
    results = ranks.gather(std::move(results), module);
    if (agree && ranks.size() > 1 && ranks.rank() == 0)
      results = ranks.keepAgreed(std::move(results));
    for (const ItemResult &result : results) {
      if (ranks.size() > 1 && ranks.rank() == 0)
        std::printf("%s", result.output.c_str());
      failures += result.failed;
      if (result.decided)
        decisions.push_back(result.decision);
    }
    if (ranks.rank() != 0)
      return failures ? 1 : 0;
    if (ranks.size() > 1 && !agree) {
      std::vector<int> decided(ranks.size());
      for (const ItemResult &result : results)
        decided[result.rank] += result.decided;
      std::printf("spread over %d ranks, decisions per rank:", ranks.size());
      for (int count : decided)
        std::printf(" %d", count);
      std::printf("\n");
    }

    for (TunedKernel *kernel : kernels)
      printDefaultConfig(kernel->spec(), decisions);
    if (!options.cacheDir.empty())
      std::printf("cache: %s\n",
                  TuningCache::inDirectory(options.cacheDir).path().c_str());
    if (!database.empty()) {
      std::vector<CacheEntry> entries;
      for (const Decision &d : decisions)
        if (d.report.source == DecisionSource::Tuned)
          entries.push_back(makeCacheEntry(device.info(), *d.kernel, d.report));
      MergeCounts counts = TuningCache(database).merge(entries);
      std::printf("database: %s (%d added, %d replaced, %d kept)\n",
                  database.c_str(), counts.added, counts.replaced, counts.kept);
    }
    if (!reportPath.empty()) {
      writeHtmlReport(reportPath, bundlePath, device.info(), decisions);
      std::printf("report: %s\n", reportPath.c_str());
    }
  } catch (const Error &e) {
    fail(e.what());
  }
  return failures ? 1 : 0;
}
