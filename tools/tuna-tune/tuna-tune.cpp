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
#include "tuna/runtime/PhaseTimes.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
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
    "  --dims aI=S,...    sizes of memref argument I: integer expressions\n"
    "                     of the key values dJ with + - * / % and\n"
    "                     parentheses (d0*d1, (d1+3)/4); default: the largest\n"
    "                     key value of the shape, unless the memref would\n"
    "                     then be smaller than the product of the key values\n"
    "  --arg aI=VALUE     scalar argument I outside the key (floats: 1)\n"
    "  --device DEVICE    host (default), cuda, cuda:N, hip, hip:N, or\n"
    "                     cuda:local (under mpirun: the GPU numbered as the\n"
    "                     rank on its host); a list (cuda:0,cuda:1) spreads\n"
    "                     the timing of each shape's candidates over the\n"
    "                     devices, which decide on the first\n"
    "  --check            run every candidate once and reject those whose\n"
    "                     output differs from the output most of them\n"
    "                     agree on (a default that disagrees is an error);\n"
    "                     --atol X, --rtol Y (default: the output type's)\n"
    "  --reference B[:K]  check against kernel K (default: the same name)\n"
    "                     of bundle B instead (implies --check)\n"
    "  --budget-ms MS     time the candidates of one shape for at most MS\n"
    "                     (default 2000, or TUNA_TUNE_BUDGET_MS); the\n"
    "                     check's runs do not count\n"
    "  --no-isolate       time the candidates in this process (default: in a\n"
    "                     tuna-worker process, so that a variant that\n"
    "                     crashes or hangs is recorded as failed)\n"
    "  --timeout-ms MS    a worker silent this long is hung (default 10000)\n"
    "  --cache-dir DIR    cache to write (default: as the runtime)\n"
    "  --no-cache         write no cache\n"
    "  -o FILE            merge the decisions into the tuning database FILE\n"
    "  --shortlist K      with -o: keep the K fastest candidates of each\n"
    "                     bucket in the database; a first call times only\n"
    "                     those (default 8; 0: none, the pick is final)\n"
    "  --no-prune         time every candidate (default: drop those the\n"
    "                     static model says cannot be competitive first)\n"
    "  --cold             time each launch alone after evicting the GPU's\n"
    "                     L2 (TUNA_TUNE_COLD=1; default: back to back,\n"
    "                     L2 warm); decisions taken so are kept apart\n"
    "  --verify-pruning   time the dropped candidates too, say whether the\n"
    "                     best survived pruning, and pick it if it did not\n"
    "  --first-call DB    decide each shape as an application's first call\n"
    "                     does with the tuning database DB (mode on, no\n"
    "                     cache, isolated only with TUNA_ISOLATE=1): time\n"
    "                     a shortlist's candidates only, take other\n"
    "                     entries as they are; print the wall time\n"
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
    "                     split over the ranks; with --strategy, each batch\n"
    "                     of every search is)\n"
    "  --time-picks DB,DB...  tune nothing: for each shape, time the variant\n"
    "                     each tuning database picked for its bucket, side\n"
    "                     by side in this process, and print the ratios to\n"
    "                     the first database's\n"
    "  --seed N           seed of the random inputs and of a search\n"
    "                     (default 1)\n"
    "  --verbose          print every candidate's time while tuning\n"
    "  --timings          print the wall time of each phase of the run, in\n"
    "                     this process and in its tuning workers, to stderr\n";

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

/// The items of `option`'s comma-separated `list`; an empty item fails,
/// naming the expected form (`what`,`what`,...).
std::vector<std::string> commaList(const std::string &option,
                                   const std::string &list,
                                   const std::string &what) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    if (comma == start)
      fail(option + " '" + list + "': expected " + what + "," + what +
           ",... (no empty name)");
    items.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

/// A --device entry: a platform (host, cuda or hip) and an ordinal.
struct DeviceName {
  std::string platform;
  int ordinal = 0;
};

/// `localRank`: this process's rank on its host, for cuda:local.
DeviceName parseDeviceName(const std::string &text, int localRank) {
  if (text == "host")
    return {"host", 0};
  if (text == "cuda:local")
    return {"cuda", localRank};
  std::string platform = text.substr(0, text.find(':'));
  if (platform == "cuda" || platform == "hip") {
    long ordinal = 0;
    if (text.size() > platform.size()) {
      const char *digits = text.c_str() + platform.size() + 1;
      char *end = nullptr;
      ordinal = std::strtol(digits, &end, 10);
      if (!*digits || *end != '\0' || ordinal < 0 || ordinal > INT_MAX)
        ordinal = -1;
    }
    if (ordinal >= 0)
      return {platform, static_cast<int>(ordinal)};
  }
  fail("--device '" + text + "': expected host, cuda, cuda:N, hip, hip:N or "
       "cuda:local");
}

/// Opens `name`; `ownHost`: a host backend of its own rather than the
/// process's host device.
Device openDevice(const DeviceName &name, bool ownHost) {
  if (name.platform == "host")
    return ownHost ? Device(makeHostBackend()) : Device::host();
  return name.platform == "cuda" ? Device::cuda(name.ordinal)
                                 : Device::hip(name.ordinal);
}

/// The devices of --device's comma-separated list: the first is the one
/// the module is loaded on, the others time a share of each shape's
/// candidates (Options::tuningDevices). `host` twice or more gives each
/// entry a host backend of its own: the spread's code path on a machine
/// without GPUs, the CPU's cores shared.
std::vector<Device> parseDevices(const std::string &list, int localRank) {
  std::vector<std::string> items = commaList("--device", list, "DEVICE");
  std::set<std::string> seen;
  for (const std::string &item : items)
    if (item != "host" && !seen.insert(item).second)
      fail("--device '" + list + "': '" + item + "' is listed twice");
  if (items.size() > 1 && seen.count("cuda:local"))
    fail("--device '" + list +
         "': cuda:local names one device per rank; "
         "it takes no list");
  std::vector<DeviceName> names;
  for (const std::string &item : items)
    names.push_back(parseDeviceName(item, localRank));
  // Opened at once, each in a thread of its own: a GPU's context takes a
  // tenth of a second or more to make.
  std::vector<std::future<Device>> opening;
  for (size_t i = 0; i < names.size(); ++i)
    opening.push_back(std::async(std::launch::async, openDevice,
                                 std::cref(names[i]), i > 0));
  std::vector<Device> devices;
  for (std::future<Device> &device : opening)
    devices.push_back(device.get());
  return devices;
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

/// What the check did for one decision: against what, where and in how
/// long, how many candidates it checked and rejected, and each rejection's
/// reason.
std::string checkSummary(const Kernel &kernel, const TuningReport &report) {
  if (!report.checked)
    return "  check: not done: " +
           (report.checkSkipped.empty() ? std::string("nothing ran")
                                        : report.checkSkipped) +
           "\n";
  int checked = 0, rejected = 0;
  std::string reasons;
  for (const CandidateResult &c : report.candidates) {
    if (c.status == CandidateStatus::WrongResult) {
      ++rejected;
      reasons += "    rejected " + c.name + " (" + c.config +
                 (c.variant == kernel.defaultVariant ? ", the default" : "") +
                 "): " + c.reason + "\n";
    }
    checked += c.status == CandidateStatus::WrongResult ||
               c.status == CandidateStatus::Measured ||
               c.status == CandidateStatus::Eliminated;
  }
  char cost[64];
  std::snprintf(cost, sizeof(cost), "%.1f ms", report.checkMs);
  return "  check: " + std::to_string(checked) + " checked against " +
         report.checkedAgainst + ", compared on " + report.checkedOn +
         " in " + cost + "; " + std::to_string(rejected) + " rejected\n" +
         reasons;
}

/// Whether the check, with no majority among the variants (Tuner.cpp's
/// agreedOutput: a tie, or every output different), kept the default's
/// output as the reference and rejected variants that differ from it: the
/// default may be the broken one.
bool keptTheDefaultWithoutMajority(const TuningReport &report) {
  return report.checked &&
         report.checkedAgainst.rfind("the default's output (no majority", 0) ==
             0 &&
         std::any_of(report.candidates.begin(), report.candidates.end(),
                     [](const CandidateResult &c) {
                       return c.status == CandidateStatus::WrongResult;
                     });
}

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

/// "pruned 3 of 12 candidates before timing: 2 spills, 1 wave
/// quantization" (the rule's name is the reason up to its colon), or
/// nothing when none was pruned.
std::string describePruning(const TuningReport &report) {
  std::map<std::string, int> rules;
  int pruned = 0, considered = 0;
  for (const CandidateResult &c : report.candidates) {
    if (c.status == CandidateStatus::Excluded ||
        c.status == CandidateStatus::Unrunnable ||
        c.status == CandidateStatus::Failed)
      continue;
    ++considered;
    if (c.status == CandidateStatus::Pruned) {
      ++pruned;
      ++rules[c.reason.substr(0, c.reason.find(':'))];
    }
  }
  if (!pruned)
    return "";
  std::string text = "  pruned " + std::to_string(pruned) + " of " +
                     std::to_string(considered) + " candidates before timing:";
  const char *separator = " ";
  for (const auto &[rule, count] : rules) {
    text += separator + std::to_string(count) + " " + rule;
    separator = ", ";
  }
  return text + "\n";
}

/// "  failed: k__v2 (chunk=16): crashed: the tuning worker was killed by
/// signal 11 (Segmentation fault)", one line per candidate that failed as
/// it ran (a crash or hang in its worker, an error while it ran), so that a
/// crashing variant is reported without --verbose; nothing when none did.
std::string describeFailures(const TuningReport &report) {
  std::string text;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Failed)
      text += "  failed: " + c.name + " (" + c.config + "): " + c.reason + "\n";
  return text;
}

/// --first-call: "  first call: <k> of <n> candidates timed (shortlist),
/// decided (tuned) in <t> ms; the launch took <l> ms" (the launch: the
/// cache and database lookups, the decision, the launch itself).
std::string describeFirstCall(const TuningReport &report, double launchMs) {
  int timed = 0, shortlisted = 0;
  for (const CandidateResult &c : report.candidates) {
    timed += c.status == CandidateStatus::Measured ||
             c.status == CandidateStatus::Eliminated ||
             c.status == CandidateStatus::WrongResult;
    shortlisted += c.reason == "not on the shortlist";
  }
  char times[96];
  std::snprintf(times, sizeof(times), "%.1f ms; the launch took %.1f ms",
                report.wallMs, launchMs);
  return "  first call: " + std::to_string(timed) + " of " +
         std::to_string(report.candidates.size()) + " candidates timed" +
         (shortlisted ? " (shortlist)" : "") + ", decided (" +
         decisionSourceName(report.source) + ") in " + times + "\n";
}

/// --verify-pruning: times the candidates that pruning dropped and says
/// whether the fastest of all survived; if not, makes it the pick.
std::string verifyPrunedCandidates(TunedKernel &kernel, const ShapeArgs &args,
                                   TuningReport &report) {
  std::vector<int> pruned;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Pruned)
      pruned.push_back(c.variant);
  if (pruned.empty())
    return "";
  TuningReport timed = kernel.measure(nullptr, args.data(), args.size(), pruned);
  const CandidateResult *fastest = nullptr;
  for (int v : pruned) {
    const CandidateResult &c = timed.candidates[v];
    if (c.status == CandidateStatus::Measured &&
        (!fastest || c.medianMs < fastest->medianMs))
      fastest = &c;
  }
  const CandidateResult &pick = report.candidates[report.chosen];
  if (!fastest)
    return "  verify pruning: no pruned candidate could be timed\n";
  std::string line = "  verify pruning: fastest pruned " + fastest->name +
                     " (" + fastest->config + ") " +
                     timeText(fastest->medianMs) + ", " +
                     ratioText(fastest->medianMs / pick.medianMs) +
                     " the pick's time: ";
  if (pick.status == CandidateStatus::Measured &&
      fastest->medianMs >= pick.medianMs)
    return line + "the best survived pruning\n";
  // The pruned candidates join the decision as timed.
  std::string reason = report.candidates[fastest->variant].reason;
  for (int v : pruned)
    report.candidates[v] = timed.candidates[v];
  report.chosen = fastest->variant;
  report.chosenName = fastest->name;
  return line + "the best did NOT survive pruning (" + reason +
         "); picking it\n";
}

/// Where the candidates were timed when other devices or ranks timed a
/// share: "  timed: 520 here, 520 on device 1 (NVIDIA H100 80GB HBM3)".
std::string describeSpread(const TuningReport &report) {
  std::map<std::string, int> shares;
  int here = 0;
  for (const CandidateResult &c : report.candidates) {
    if (c.status != CandidateStatus::Measured &&
        c.status != CandidateStatus::Eliminated &&
        c.status != CandidateStatus::WrongResult)
      continue;
    if (c.timedOn.empty())
      ++here;
    else
      ++shares[c.timedOn];
  }
  if (shares.empty())
    return "";
  std::string line = "  timed: " + std::to_string(here) + " here";
  for (const auto &[where, count] : shares)
    line += ", " + std::to_string(count) + " on " + where;
  return line + "\n";
}

/// What every item of a run shares.
struct ItemContext {
  Device &device;
  const ArgSettings &settings;
  const SearchSettings &searchSettings;
  const std::string &cacheDir;
  unsigned seed;
  size_t total;       ///< Items in the run.
  bool check;         ///< --check: print what the check did.
  bool verifyPruning; ///< --verify-pruning.
  bool firstCall;     ///< --first-call: describe the first call.
  /// Whether this process writes the cache entries of its searches (under
  /// mpirun, a search spread over the ranks is recorded by rank 0).
  bool recordsSearches;
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

/// "tuned bucket (4096): scale__v3 (bs=256) 0.0123 ms, 1.52x faster than
/// the default scale__v0".
std::string describePick(const Kernel &spec, const TuningReport &report,
                         const std::vector<int64_t> &signature) {
  const CandidateResult &pick = report.candidates[report.chosen];
  std::string line = decisionSourceName(report.source) +
                     std::string(" bucket ") +
                     formatSignature(signature.data(), signature.size()) +
                     ": " + pick.name + " (" + pick.config + ")";
  if (pick.status != CandidateStatus::Measured)
    return line;
  line += " " + timeText(pick.medianMs);
  const CandidateResult &fallback = report.candidates[spec.defaultVariant];
  if (report.chosen != spec.defaultVariant &&
      fallback.status == CandidateStatus::Measured)
    line += ", " + ratioText(fallback.medianMs / pick.medianMs) +
            " faster than the default " + fallback.name;
  return line;
}

/// Decides the bucket `signature` of `args`: by a search (--strategy), else
/// by a launch in mode always, the runtime's first call. Appends what it
/// did to `log`; sets `store` when the cache entry is tuna-tune's to write
/// (the runtime writes those of its own decisions).
TuningReport decideBucket(TunedKernel &kernel, const ShapeArgs &args,
                          const std::vector<int64_t> &signature,
                          ItemContext &context, std::string &log,
                          bool &store) {
  TuningReport report;
  double launchMs = 0;
  store = false;
  if (context.searchSettings.enabled()) {
    report = searchShape(kernel, context.device.info(), args.data(),
                         args.size(), signature, context.searchSettings, log);
    context.searched.insert({&kernel.spec(), signature});
    store = true;
  } else {
    auto start = std::chrono::steady_clock::now();
    kernel.launch(nullptr, args.data(), args.size());
    context.device.backend().synchronize(nullptr);
    launchMs = std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count();
    report = kernel.reports().back();
  }
  log += describePruning(report);
  log += describeSpread(report);
  log += describeFailures(report);
  if (context.firstCall)
    log += describeFirstCall(report, launchMs);
  if (context.verifyPruning) {
    int before = report.chosen;
    log += verifyPrunedCandidates(kernel, args, report);
    store |= report.chosen != before;
  }
  return report;
}

/// The random inputs of item `item` (kernel, shape), seeded by the run's
/// seed and the item, so that any rank draws the same inputs for it; on
/// `threads` threads.
HostInputs drawInputs(const Kernel &spec, const Shape &shape, size_t item,
                      const ItemContext &context, unsigned threads) {
  std::mt19937 rng(context.seed + static_cast<unsigned>(item));
  return HostInputs(spec, shape, context.settings, rng, threads);
}

/// Tunes item `item` (kernel, shape) on the inputs `inputs` delivers.
ItemResult tuneItem(TunedKernel &kernel, const Shape &shape, size_t item,
                    std::future<HostInputs> &inputs, ItemContext &context) {
  const Kernel &spec = kernel.spec();
  ItemResult result;
  result.item = item;
  std::string line = "[" + std::to_string(item + 1) + "/" +
                     std::to_string(context.total) + "] " + spec.name + " " +
                     keyText(shape) + ": ";
  std::string log;
  try {
    TimedPhase inputsPhase("inputs");
    ShapeArgs launchArgs(context.device.backend(), inputs.get());
    inputsPhase.stop();
    std::vector<int64_t> signature =
        kernel.signature(launchArgs.data(), launchArgs.size());
    if (kernel.chosenVariant(signature) >= 0 ||
        context.searched.count({&spec, signature})) {
      result.output = line + "bucket " +
                      formatSignature(signature.data(), signature.size()) +
                      " already decided\n";
      return result;
    }
    bool store = false;
    TuningReport report =
        decideBucket(kernel, launchArgs, signature, context, log, store);
    if (store && context.recordsSearches && !context.cacheDir.empty()) {
      TimedPhase phase("cache store");
      TuningCache::inDirectory(context.cacheDir)
          .store(makeCacheEntry(context.device.info(), spec, report));
    }
    line += describePick(spec, report, signature);
    if (context.check && report.source == DecisionSource::Tuned) {
      std::string check = checkSummary(spec, report);
      if (keptTheDefaultWithoutMajority(report))
        check += "  warning: no majority of the variants agree: the check "
                 "kept the default's output and rejected those that differ, "
                 "which may be the correct ones; check against a known-good "
                 "kernel with --reference\n";
      log = check + log;
      if (report.defaultRejected) {
        log += "  error: the default variant '" +
               report.candidates[spec.defaultVariant].name +
               "' gives a wrong result; fix it or make another variant the "
               "default\n";
        result.failed = true;
      }
    }
    result.decision = {&spec, shape, std::move(report)};
    result.decided = true;
  } catch (const Error &e) {
    line += std::string("error: ") + e.what();
    result.failed = true;
  }
  result.output = line + "\n" + log;
  return result;
}

/// What the command line asks for.
struct TuneCommand {
  std::string bundlePath, cacheDir = defaultCacheDirectory(), database,
                          reportPath, deviceName = "host", referenceSpec,
                          firstCallDatabase;
  bool noCache = false, check = false, verbose = false, isolate = true,
       prune = true, verifyPruning = false, agree = false, timings = false,
       cold = false;
  int64_t shortlist = -1;
  double atol = -1, rtol = -1, timeoutMs = -1, budgetMs = -1;
  unsigned seed = 1;
  std::vector<std::string> kernelNames;
  std::vector<Shape> shapes;
  std::vector<std::string> timePicks; ///< --time-picks: the databases.
  ArgSettings settings;
  SearchSettings searchSettings;
};

/// Reads `arg` if it is an option without a value; false if it is not.
bool readFlag(const std::string &arg, TuneCommand &command) {
  if (arg == "--check")
    command.check = true;
  else if (arg == "--no-isolate")
    command.isolate = false;
  else if (arg == "--agree")
    command.agree = true;
  else if (arg == "--no-cache")
    command.noCache = true;
  else if (arg == "--no-prune")
    command.prune = false;
  else if (arg == "--cold")
    command.cold = true;
  else if (arg == "--verify-pruning")
    command.verifyPruning = true;
  else if (arg == "--verbose")
    command.verbose = true;
  else if (arg == "--timings")
    command.timings = true;
  else
    return false;
  return true;
}

/// Reads `arg` and its value (the next argument) if it is an option that
/// takes one; false if it is not.
bool readValueOption(const std::string &arg, tools::Arguments &arguments,
                     TuneCommand &command) {
  auto value = [&]() -> const std::string & { return arguments.value(arg); };
  search::SearchOptions &search = command.searchSettings.options;
  if (arg == "--kernel") {
    command.kernelNames.push_back(value());
  } else if (arg == "--shape" || arg == "--shapes") {
    for (Shape &shape : arg == "--shape" ? parseShapeSpec(value())
                                         : readShapeFile(value()))
      command.shapes.push_back(std::move(shape));
  } else if (arg == "--dims") {
    parseDims(value(), command.settings);
  } else if (arg == "--arg") {
    parseArg(value(), command.settings);
  } else if (arg == "--device") {
    command.deviceName = value();
  } else if (arg == "--reference") {
    command.referenceSpec = value();
    command.check = true;
  } else if (arg == "--atol") {
    command.atol = number(arg, value());
  } else if (arg == "--rtol") {
    command.rtol = number(arg, value());
  } else if (arg == "--cache-dir") {
    command.cacheDir = value();
  } else if (arg == "--budget-ms") {
    command.budgetMs = number(arg, value());
  } else if (arg == "--timeout-ms") {
    command.timeoutMs = number(arg, value());
  } else if (arg == "-o") {
    command.database = value();
  } else if (arg == "--shortlist") {
    command.shortlist = integer(arg, value());
    if (command.shortlist < 0)
      fail("--shortlist " + std::to_string(command.shortlist) +
           ": expected a number of candidates >= 0");
  } else if (arg == "--first-call") {
    command.firstCallDatabase = value();
  } else if (arg == "--report") {
    command.reportPath = value();
  } else if (arg == "--seed") {
    command.seed = static_cast<unsigned>(number(arg, value()));
  } else if (arg == "--strategy") {
    search.strategy = value();
  } else if (arg == "--budget-evals") {
    search.budgetEvaluations = integer(arg, value());
  } else if (arg == "--budget-s") {
    search.budgetSeconds = anyNumber(arg, value());
  } else if (arg == "--resume") {
    search.resumeFile = value();
  } else if (arg == "--time-picks") {
    command.timePicks = commaList(arg, value(), "DB");
  } else {
    return false;
  }
  return true;
}

/// Fails on options that contradict each other or miss what they need.
void checkCombinations(const TuneCommand &command) {
  if (command.bundlePath.empty())
    fail(std::string("no bundle\n") + kUsage);
  if (command.shapes.empty())
    fail("no shape: give --shape or --shapes");
  if ((command.atol >= 0 || command.rtol >= 0) && !command.check)
    fail("--atol and --rtol are tolerances of --check");
  if (command.shortlist >= 0 && command.database.empty())
    fail("--shortlist K sets the shortlists of the database: give -o FILE");
  const SearchSettings &search = command.searchSettings;
  if (!command.firstCallDatabase.empty() &&
      (!command.database.empty() || command.verifyPruning || search.enabled()))
    fail("--first-call DB measures an application's first call: it takes "
         "no -o, --verify-pruning or --strategy");
  if (command.verifyPruning && !command.prune)
    fail("--verify-pruning checks the pruning that --no-prune turns off");
  if (!search.enabled() &&
      (search.options.budgetEvaluations || search.options.budgetSeconds ||
       !search.options.resumeFile.empty()))
    fail("--budget-evals, --budget-s and --resume are settings of --strategy");
  if (!command.timePicks.empty() &&
      (!command.database.empty() || search.enabled() || command.agree ||
       command.verifyPruning || !command.firstCallDatabase.empty() ||
       !command.reportPath.empty()))
    fail("--time-picks times what databases picked and tunes nothing: it "
         "takes no -o, --strategy, --agree, --verify-pruning, --first-call "
         "or --report");
  if (command.agree && search.enabled())
    fail("--agree decides by the runtime's protocol; under mpirun --strategy "
         "spreads each search over the ranks, which then agree by itself");
  if (search.enabled()) {
    try {
      search::validate(search.options);
    } catch (const Error &e) {
      fail(e.what());
    }
  }
}

TuneCommand parseCommandLine(int argc, char **argv) {
  tools::Arguments arguments(argc, argv, kUsage);
  TuneCommand command;
  command.searchSettings.options.strategy.clear();
  try {
    std::string arg;
    while (arguments.next(arg)) {
      if (readFlag(arg, command) || readValueOption(arg, arguments, command))
        continue;
      if (tools::Arguments::isOption(arg))
        arguments.unknownOption(arg);
      if (!command.bundlePath.empty())
        fail("one bundle at a time (got '" + command.bundlePath + "' and '" +
             arg + "')");
      command.bundlePath = arg;
    }
  } catch (const Error &e) {
    fail(e.what());
  }
  command.searchSettings.options.seed = command.seed;
  checkCombinations(command);
  return command;
}

/// Under mpirun with --strategy, every rank searches every bucket and each
/// batch of visits is split over the ranks (TunedKernel::search).
bool spreadsSearches(const TuneCommand &command, const Ranks &ranks) {
  return command.searchSettings.enabled() && ranks.size() > 1;
}

/// The runtime's options (the environment's) as the command line changes
/// them.
Options runtimeOptions(const TuneCommand &command, Ranks &ranks) {
  Options options = Options::fromEnvironment();
  options.mode = TuneMode::Always;
  options.check = command.check;
  options.atol = command.atol >= 0 ? command.atol : options.atol;
  options.rtol = command.rtol >= 0 ? command.rtol : options.rtol;
  options.verbose |= command.verbose;
  bool firstCall = !command.firstCallDatabase.empty();
  // A first call isolates as an application does: with TUNA_ISOLATE=1.
  options.isolate = command.isolate && (!firstCall || options.isolate);
  options.tuneTimeoutMs =
      command.timeoutMs >= 0 ? command.timeoutMs : options.tuneTimeoutMs;
  options.totalBudgetMs =
      command.budgetMs >= 0 ? command.budgetMs : options.totalBudgetMs;
  options.cacheDir = command.noCache ? "" : command.cacheDir;
  options.prune = options.prune && command.prune;
  options.coldTiming |= command.cold;
  if (firstCall) {
    options.mode = TuneMode::On;
    options.cacheDir.clear();
    options.databases = {command.firstCallDatabase};
  }
  if (command.agree || spreadsSearches(command, ranks))
    options.communicator = ranks.job();
  // Each batch of a search is timed by the ranks together.
  options.spreadOverRanks |= spreadsSearches(command, ranks);
  return options;
}

/// --reference B[:K]: the bundle B and kernel K (empty: the tuned kernel's
/// name) that the check compares against.
struct Reference {
  std::optional<Module> module;
  std::string path, kernel;
};

/// A Device object of its own for the device `info` describes.
Device ownDevice(const DeviceInfo &info) {
  if (info.platform == "cuda")
    return Device(makeCudaBackend(info.ordinal));
  if (info.platform == "hip")
    return Device(makeHipBackend(info.ordinal));
  return Device(makeHostBackend());
}

/// Loads the reference bundle, if any. It runs its default variant,
/// untuned, on a Device object of its own: the reference runs while the
/// tuned kernel's device is tuning.
void loadReference(const std::string &spec, const DeviceInfo &info,
                   Reference &reference) {
  if (spec.empty())
    return;
  reference.path = spec;
  size_t colon = spec.rfind(':');
  if (colon != std::string::npos) {
    reference.path = spec.substr(0, colon);
    reference.kernel = spec.substr(colon + 1);
  }
  Options options;
  options.mode = TuneMode::Off;
  reference.module.emplace(
      Module::load(reference.path, ownDevice(info), options));
}

/// The kernels the command tunes, each checked against the shapes and
/// given its reference.
std::vector<TunedKernel *> openKernels(Module &module, TuneCommand &command,
                                       Reference &reference) {
  if (command.kernelNames.empty()) {
    if (module.kernelNames().size() != 1) {
      std::string names;
      for (const std::string &name : module.kernelNames())
        names += " " + name;
      fail(command.bundlePath +
           " has several kernels; pick with --kernel:" + names);
    }
    command.kernelNames = module.kernelNames();
  }
  if (!command.searchSettings.options.resumeFile.empty() &&
      (command.kernelNames.size() != 1 || command.shapes.size() != 1))
    fail("--resume FILE holds the search of one kernel and one shape; got " +
         std::to_string(command.kernelNames.size()) + " kernels and " +
         std::to_string(command.shapes.size()) + " shapes");
  std::vector<TunedKernel *> kernels;
  for (const std::string &name : command.kernelNames) {
    TunedKernel &kernel = module.kernel(name);
    if (reference.module) {
      std::string other = reference.kernel.empty() ? name : reference.kernel;
      TunedKernel &baseline = reference.module->kernel(other);
      kernel.setReference(
          [&baseline](StreamHandle stream, const ArgValue *args,
                      size_t count) { baseline.launch(stream, args, count); },
          "kernel '" + other + "' of " + reference.path);
    }
    for (const Shape &shape : command.shapes)
      if (shape.size() != kernel.spec().key.size())
        fail("kernel '" + name + "' has " +
             std::to_string(kernel.spec().key.size()) +
             " key values, the shape " + keyText(shape) + " gives " +
             std::to_string(shape.size()));
    kernels.push_back(&kernel);
  }
  return kernels;
}

/// Tunes the items (kernels by shapes, in order) this rank owns: under
/// mpirun each rank tunes the buckets it owns (Ranks.h), with `everyBucket`
/// (--agree, a spread search) every bucket. A single process prints each
/// item's lines as it goes.
std::vector<ItemResult> tuneOwnedItems(const std::vector<TunedKernel *> &kernels,
                                       const std::vector<Shape> &shapes,
                                       bool everyBucket, Ranks &ranks,
                                       ItemContext &context) {
  std::vector<std::string> buckets;
  for (TunedKernel *kernel : kernels)
    for (const Shape &shape : shapes)
      buckets.push_back(kernel->spec().name + " " +
                        keyText(bucketOf(kernel->spec(), shape)));
  std::vector<int> owners = everyBucket
                                ? std::vector<int>(buckets.size(), ranks.rank())
                                : ranks.owners(buckets);
  struct Owned {
    TunedKernel *kernel;
    const Shape *shape;
    size_t item;
  };
  std::vector<Owned> owned;
  size_t item = 0;
  for (TunedKernel *kernel : kernels)
    for (const Shape &shape : shapes) {
      if (owners[item] == ranks.rank())
        owned.push_back({kernel, &shape, item});
      ++item;
    }
  // The next item's inputs are drawn while this one tunes, on the cores a
  // tuning leaves idle (its workers launch and time on a core or two).
  auto draw = [&context](const Owned &next, unsigned threads) {
    return std::async(std::launch::async, [&context, next, threads] {
      TimedPhase phase("inputs drawn");
      return drawInputs(next.kernel->spec(), *next.shape, next.item, context,
                        threads);
    });
  };
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned spareCores = cores > 4 ? cores - 4 : 1;
  std::vector<ItemResult> results;
  Progress progress(context.total);
  if (ranks.size() == 1)
    progress.update(0);
  std::future<HostInputs> inputs;
  if (!owned.empty())
    inputs = draw(owned.front(), cores);
  for (size_t j = 0; j < owned.size(); ++j) {
    std::future<HostInputs> current = std::move(inputs);
    if (j + 1 < owned.size())
      inputs = draw(owned[j + 1], spareCores);
    results.push_back(tuneItem(*owned[j].kernel, *owned[j].shape, owned[j].item,
                               current, context));
    if (ranks.size() == 1) {
      progress.clear();
      std::printf("%s", results.back().output.c_str());
      std::fflush(stdout);
      progress.update(owned[j].item + 1);
    }
  }
  return results;
}

/// Under mpirun without --agree: how many decisions each rank made.
void printSpread(const std::vector<ItemResult> &results, int rankCount) {
  std::vector<int> decided(rankCount);
  for (const ItemResult &result : results)
    decided[result.rank] += result.decided;
  std::printf("spread over %d ranks, decisions per rank:", rankCount);
  for (int count : decided)
    std::printf(" %d", count);
  std::printf("\n");
}

/// Rank 0's summary and files: each kernel's default configuration, the
/// cache, the database (-o) and the report (--report).
void writeOutputs(const TuneCommand &command, const Options &options,
                  const DeviceInfo &device,
                  const std::vector<TunedKernel *> &kernels,
                  const std::vector<Decision> &decisions) {
  for (TunedKernel *kernel : kernels)
    printDefaultConfig(kernel->spec(), decisions);
  if (!options.cacheDir.empty())
    std::printf("cache: %s\n",
                TuningCache::inDirectory(options.cacheDir).path().c_str());
  if (!command.database.empty()) {
    TimedPhase phase("database write");
    std::vector<CacheEntry> entries;
    for (const Decision &d : decisions)
      if (d.report.source == DecisionSource::Tuned)
        entries.push_back(
            makeCacheEntry(device, *d.kernel, d.report,
                           command.shortlist >= 0 ? command.shortlist : 8));
    MergeCounts counts = TuningCache(command.database).merge(entries);
    std::printf("database: %s (%d added, %d replaced, %d kept)\n",
                command.database.c_str(), counts.added, counts.replaced,
                counts.kept);
  }
  if (!command.reportPath.empty()) {
    TimedPhase phase("report write");
    writeHtmlReport(command.reportPath, command.bundlePath, device, decisions);
    std::printf("report: %s\n", command.reportPath.c_str());
  }
}

/// The variant `entries` (a database) picked for `signature` of `kernel`,
/// if the bundle has it with that configuration; else -1, saying why in
/// `why`.
int databasePick(const std::vector<CacheEntry> &entries, const Kernel &kernel,
                 const std::vector<int64_t> &signature, std::string &why) {
  for (const CacheEntry &entry : entries) {
    if (entry.key.kernel != kernel.name || entry.key.signature != signature)
      continue;
    for (size_t v = 0; v < kernel.variants.size(); ++v)
      if (kernel.variants[v].name == entry.variant &&
          kernel.variants[v].config == entry.config)
        return static_cast<int>(v);
    why = "its pick " + entry.variant + " is not in the bundle";
    return -1;
  }
  why = "no entry";
  return -1;
}

/// Each database's pick for `signature` of `spec`; -1 (said on stdout)
/// where a database has none the bundle holds.
std::vector<int>
databasePicks(const TuneCommand &command,
              const std::vector<std::vector<CacheEntry>> &databases,
              const Kernel &spec, const std::vector<int64_t> &signature) {
  std::vector<int> picks;
  for (size_t d = 0; d < databases.size(); ++d) {
    std::string why;
    picks.push_back(databasePick(databases[d], spec, signature, why));
    if (picks.back() < 0)
      std::printf("  %s: %s\n", command.timePicks[d].c_str(), why.c_str());
  }
  return picks;
}

/// The medians of each picked variant (`picks`, -1: none) over three
/// rounds on `args`, timed by TunedKernel::measure one variant at a time,
/// in variant order and then reversed each other round; a timing that
/// fails is said on stdout and leaves no median.
std::map<int, std::vector<double>>
timePicksInRounds(TunedKernel &kernel, const ShapeArgs &args,
                  const std::vector<int> &picks) {
  constexpr int kRounds = 3, kSamples = 20;
  std::map<int, std::vector<double>> rounds;
  for (int pick : picks)
    if (pick >= 0)
      rounds[pick];
  for (int round = 0; round < kRounds; ++round) {
    std::vector<int> order;
    for (const auto &[variant, times] : rounds)
      order.push_back(variant);
    if (round % 2)
      std::reverse(order.begin(), order.end());
    for (int v : order) {
      TuningReport timed =
          kernel.measure(nullptr, args.data(), args.size(), {v}, kSamples);
      const CandidateResult &result = timed.candidates[v];
      if (result.status == CandidateStatus::Measured)
        rounds[v].push_back(result.medianMs);
      else
        std::printf("  %s: %s: %s\n", result.name.c_str(),
                    candidateStatusName(result.status), result.reason.c_str());
    }
  }
  return rounds;
}

/// Prints each database's pick with the median of its round medians, their
/// range and its ratio to the first database's pick; returns how many picks
/// have no time.
int printPickTimes(const TuneCommand &command, const Kernel &spec,
                   const std::vector<int> &picks,
                   std::map<int, std::vector<double>> &rounds) {
  int failures = 0;
  double first = -1;
  for (size_t d = 0; d < picks.size(); ++d) {
    if (picks[d] < 0)
      continue;
    std::vector<double> &times = rounds[picks[d]];
    if (times.empty()) {
      ++failures;
      continue;
    }
    std::sort(times.begin(), times.end());
    double ms = times[times.size() / 2];
    if (first < 0 && d == 0)
      first = ms;
    const Variant &variant = spec.variants[picks[d]];
    std::string ratio =
        first > 0 && d > 0
            ? ", " + ratioText(ms / first) + " the first's" +
                  (picks[d] == picks[0] ? " (the same variant)" : "")
            : "";
    std::printf("  %s: %s (%s) %s (rounds %s..%s)%s\n",
                command.timePicks[d].c_str(), variant.name.c_str(),
                formatConfig(variant.config).c_str(), timeText(ms).c_str(),
                timeText(times.front()).c_str(), timeText(times.back()).c_str(),
                ratio.c_str());
  }
  return failures;
}

/// --time-picks: per (kernel, shape), each database's pick for the bucket
/// timed by TunedKernel::measure, one variant at a time (no early
/// elimination between them), in three interleaved rounds on the same
/// inputs; the median of each variant's round medians is printed with its
/// ratio to the first database's pick. Returns the exit status.
int timeDatabasePicks(const TuneCommand &command,
                      const std::vector<TunedKernel *> &kernels,
                      Device &device) {
  std::vector<std::vector<CacheEntry>> databases;
  for (const std::string &path : command.timePicks)
    databases.push_back(readCacheFile(path));
  size_t item = 0, total = kernels.size() * command.shapes.size();
  int failures = 0;
  for (TunedKernel *kernel : kernels)
    for (const Shape &shape : command.shapes) {
      const Kernel &spec = kernel->spec();
      std::mt19937 rng(command.seed + static_cast<unsigned>(item));
      ShapeArgs args(device.backend(), spec, shape, command.settings, rng);
      std::vector<int64_t> signature =
          kernel->signature(args.data(), args.size());
      std::printf("[%zu/%zu] %s %s: bucket %s\n", ++item, total,
                  spec.name.c_str(), keyText(shape).c_str(),
                  formatSignature(signature.data(), signature.size()).c_str());
      std::vector<int> picks =
          databasePicks(command, databases, spec, signature);
      std::map<int, std::vector<double>> rounds =
          timePicksInRounds(*kernel, args, picks);
      failures += printPickTimes(command, spec, picks, rounds);
    }
  return failures ? 1 : 0;
}

/// Tunes what the command asks for; returns the exit status.
int run(TuneCommand &command, Ranks &ranks) {
  if (spreadsSearches(command, ranks) &&
      !command.searchSettings.options.resumeFile.empty())
    fail("--resume FILE keeps the search of one process; under mpirun the "
         "ranks search together: run without --resume");
  Options options = runtimeOptions(command, ranks);
  // The bundle is read while the devices open: neither needs the other.
  std::future<Bundle> bundle =
      std::async(std::launch::async, [&path = command.bundlePath] {
        TimedPhase phase("bundle file (beside the device open)");
        return readBundleFile(path);
      });
  TimedPhase deviceOpen("device open");
  std::vector<Device> devices =
      parseDevices(command.deviceName, ranks.localRank());
  Device device = devices.front();
  options.tuningDevices.assign(devices.begin() + 1, devices.end());
  deviceOpen.stop();
  ranks.checkSameDevice(device.info());
  TimedPhase bundleLoad("bundle load");
  Module module =
      Module::fromBundle(bundle.get(), device, command.bundlePath, options);
  bundleLoad.stop();
  Reference reference;
  TimedPhase referenceLoad("reference load");
  loadReference(command.referenceSpec, device.info(), reference);
  referenceLoad.stop();
  std::vector<TunedKernel *> kernels = openKernels(module, command, reference);
  ranks.checkSameWork(module, kernels, command.shapes);
  if (!command.timePicks.empty()) {
    if (ranks.size() > 1)
      fail("--time-picks times in one process: run it without mpirun");
    return timeDatabasePicks(command, kernels, device);
  }
  ItemContext context{device,
                      command.settings,
                      command.searchSettings,
                      options.cacheDir,
                      command.seed,
                      kernels.size() * command.shapes.size(),
                      command.check,
                      command.verifyPruning,
                      !command.firstCallDatabase.empty(),
                      ranks.rank() == 0 || !spreadsSearches(command, ranks),
                      {}};
  bool everyBucket = command.agree || spreadsSearches(command, ranks);
  std::vector<ItemResult> results =
      tuneOwnedItems(kernels, command.shapes, everyBucket, ranks, context);
  // Rank 0 prints every rank's lines and writes the outputs.
  results = ranks.gather(std::move(results), module);
  if (everyBucket && ranks.size() > 1 && ranks.rank() == 0)
    results = ranks.keepAgreed(std::move(results));
  int failures = 0;
  std::vector<Decision> decisions;
  for (const ItemResult &result : results) {
    if (ranks.size() > 1 && ranks.rank() == 0)
      std::printf("%s", result.output.c_str());
    failures += result.failed;
    if (result.decided)
      decisions.push_back(result.decision);
  }
  if (ranks.rank() != 0)
    return failures ? 1 : 0;
  if (ranks.size() > 1 && !everyBucket)
    printSpread(results, ranks.size());
  writeOutputs(command, options, device.info(), kernels, decisions);
  return failures ? 1 : 0;
}

/// --timings: the phases of this process and of its tuning workers.
void printPhaseTimes(const Ranks &ranks) {
  std::string rank =
      ranks.size() > 1 ? " (rank " + std::to_string(ranks.rank()) + ")" : "";
  std::fprintf(stderr,
               "tuna-tune: phase times%s (wall; a phase includes those "
               "indented under it):\n%s",
               rank.c_str(),
               PhaseTimes::format(PhaseTimes::process().phases()).c_str());
}

} // namespace

namespace {
/// What a crash in this process says before the process ends with its
/// signal: a variant run here (--no-isolate, --first-call without
/// TUNA_ISOLATE=1) that reads or writes past its buffers used to end
/// tuna-tune with exit 139 and no word.
constexpr char kCrashMessage[] =
    "tuna-tune: error: a fatal signal (a crash) in this process, most "
    "likely a kernel variant run here that reads or writes past its "
    "buffers (--dims gives their sizes); without --no-isolate (and, with "
    "--first-call, with TUNA_ISOLATE=1) every candidate runs in a "
    "tuna-worker process, and one that crashes is reported as failed\n";

void sayWhyOnCrash(int signal) {
  // Async-signal-safe: write(2), then the default action (SA_RESETHAND).
  ssize_t written =
      ::write(STDERR_FILENO, kCrashMessage, sizeof(kCrashMessage) - 1);
  (void)written;
  ::raise(signal);
}

void reportCrashes() {
  struct sigaction action = {};
  action.sa_handler = sayWhyOnCrash;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE})
    ::sigaction(signal, &action, nullptr);
}
} // namespace

int main(int argc, char **argv) {
  tools::toolName = "tuna-tune";
  Ranks ranks(argc, argv);
  reportCrashes();
  TuneCommand command = parseCommandLine(argc, argv);
  if (command.timings)
    PhaseTimes::process().start();
  try {
    int status;
    {
      TimedPhase whole("run");
      status = run(command, ranks);
    }
    if (command.timings)
      printPhaseTimes(ranks);
    return status;
  } catch (const Error &e) {
    fail(e.what());
  }
}
