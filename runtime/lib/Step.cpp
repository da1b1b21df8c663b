//===- Step.cpp - Kernels tuned together, in the step that runs them ------===//
//
// A TunedStep being tuned installs a StepContext for its thread; every
// TunedKernel::launch of that thread then goes through the context
// (launchInTunedStep): its written memrefs are redirected to the step's
// scratch pool, it is matched to a slot (kernel, signature), and the slot's
// current variant is launched. Tuning = one discovery run, then timed runs
// of the whole step for each combination the strategy asks for. In a job of
// several ranks, StepRanks' exchanges make it one decision for all of them.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Step.h"

#include "AtomicFile.h"
#include "Clock.h"
#include "KernelImpl.h"
#include "Scratch.h"
#include "SearchStrategy.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Communicator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuna {

std::atomic<int> stepsBeingTuned{0};

namespace {
using Json = nlohmann::json;

/// Scratch copies of the buffers a step's kernels write, shared by every
/// launch of the step: a buffer one kernel writes and another reads is
/// one copy.
class ScratchPool {
public:
  ~ScratchPool() {
    for (const Buffer &buffer : buffers)
      buffer.backend->deallocate(buffer.scratch);
  }

  /// `arg` with its memref redirected into the pool: into the copy that
  /// holds its memory, or, when it is written, a new copy of it.
  ArgValue redirect(const ArgSpec &spec, ArgValue arg, Backend &backend,
                    StreamHandle stream) {
    if (arg.kind != ArgSpec::Kind::MemRef)
      return arg;
    MemRefView &view = arg.memref;
    ViewExtent extent = viewExtent(view);
    if (!extent.bytes)
      return arg;
    auto holds = [&](const Buffer &buffer) {
      return buffer.backend == &backend && buffer.source <= extent.first &&
             extent.first + extent.bytes <= buffer.source + buffer.bytes;
    };
    auto it = std::find_if(buffers.begin(), buffers.end(), holds);
    if (it == buffers.end()) {
      if (!spec.written)
        return arg;
      char *scratch = static_cast<char *>(backend.allocate(extent.bytes));
      buffers.push_back({&backend, extent.first, scratch, extent.bytes});
      backend.copy(scratch, extent.first, extent.bytes,
                   CopyKind::DeviceToDevice, stream);
      it = buffers.end() - 1;
    }
    char *first = it->scratch + (extent.first - it->source);
    view.allocated = view.aligned = first;
    view.offset = -extent.low;
    return arg;
  }

private:
  struct Buffer {
    Backend *backend;
    const char *source;
    char *scratch;
    size_t bytes;
  };
  std::vector<Buffer> buffers;
};

/// One (kernel, signature) a step launches.
struct Slot {
  TunedKernel::Impl *kernel = nullptr;
  std::vector<int64_t> keyValues, signature;
  std::vector<ArgValue> args; ///< Of its first launch, redirected.
  StreamHandle stream = nullptr;
  int own = -1;     ///< The kernel's own pick, once decided.
  int variant = -1; ///< What the step launches now.
  std::vector<int> candidates;
};

} // namespace

/// The state of a step while its thread runs it.
struct StepContext {
  bool tuning = false;       ///< Launches go through the slots.
  bool newSignature = false; ///< A launch decided a new signature.
  ScratchPool pool;
  std::vector<Slot> slots;

  Slot &slotFor(TunedKernel::Impl &kernel, const int64_t *keyValues,
                const int64_t *signature, const ArgValue *args, size_t count,
                StreamHandle stream) {
    size_t keySize = kernel.spec.key.size();
    size_t signatureSize = kernel.signatureSize;
    for (Slot &slot : slots)
      if (slot.kernel == &kernel &&
          std::equal(slot.signature.begin(), slot.signature.end(), signature))
        return slot;
    Slot &slot = slots.emplace_back();
    slot.kernel = &kernel;
    slot.keyValues.assign(keyValues, keyValues + keySize);
    slot.signature.assign(signature, signature + signatureSize);
    slot.args.assign(args, args + count);
    slot.stream = stream;
    slot.own = kernel.table.load(std::memory_order_acquire)->lookup(signature);
    std::lock_guard<std::mutex> lock(kernel.module.device.tuningMutex());
    TuningReport classes =
        kernel.measureLocked(stream, args, count, keyValues, signature, {}, 0);
    for (const CandidateResult &c : classes.candidates)
      if (c.status == CandidateStatus::NotTimed || c.variant == slot.own)
        slot.candidates.push_back(c.variant);
    if (kernel.module.options.mode == TuneMode::Off)
      slot.candidates = {slot.own >= 0 ? slot.own : kernel.spec.defaultVariant};
    if (slot.candidates.empty())
      throw Error(ErrorCode::Unsupported,
                  kernel.describe() + " for " +
                      formatSignature(signature, signatureSize) +
                      ": no variant can run");
    int fallback = kernel.spec.defaultVariant;
    slot.variant = slot.own >= 0 ? slot.own
                   : std::count(slot.candidates.begin(), slot.candidates.end(),
                                fallback)
                       ? fallback
                       : slot.candidates.front();
    return slot;
  }
};

namespace {
thread_local StepContext *currentStep = nullptr;

/// Installs `context` for this thread.
class StepScope {
public:
  explicit StepScope(StepContext &context) : previous(currentStep) {
    currentStep = &context;
    if (context.tuning)
      ++stepsBeingTuned;
    counted = context.tuning;
  }
  ~StepScope() {
    if (counted)
      --stepsBeingTuned;
    currentStep = previous;
  }

private:
  StepContext *previous;
  bool counted;
};
} // namespace

bool launchInTunedStep(TunedKernel::Impl &kernel, StreamHandle stream,
                       const ArgValue *args, size_t count) {
  StepContext *context = currentStep;
  if (!context || !context->tuning)
    return false;
  if (count != kernel.spec.args.size()) {
    LoweredArgs check;
    kernel.lower(args, count, check); // Throws, naming the kernel.
  }
  std::vector<ArgValue> copies;
  for (size_t i = 0; i < count; ++i)
    copies.push_back(context->pool.redirect(kernel.spec.args[i], args[i],
                                            kernel.backend, stream));
  LoweredArgs lowered;
  kernel.lower(copies.data(), count, lowered);
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxSignature];
  kernel.computeKey(copies.data(), keyValues, signature);
  Slot &slot = context->slotFor(kernel, keyValues, signature, copies.data(),
                                count, stream);
  {
    std::lock_guard<std::mutex> lock(kernel.module.device.tuningMutex());
    VariantState &variant = kernel.variants[slot.variant];
    if (!kernel.ensureLoaded(variant))
      throw Error(ErrorCode::Unsupported, variant.loadError);
  }
  kernel.launchVariant(slot.variant, stream, copies.data(), keyValues,
                       lowered.params);
  return true;
}

void noteNewSignatureInStep() {
  if (currentStep)
    currentStep->newSignature = true;
}

//===----------------------------------------------------------------------===//
// The persisted decisions: <cacheDir>/steps.json
//===----------------------------------------------------------------------===//

namespace {
constexpr const char *kStepFormat = "tuna-step-cache";
constexpr int kStepVersion = 1;

/// What identifies a step's decision: the device, Tuna, the step's name
/// and every launch's kernel, source hash and signature, in order.
Json stepKey(const std::string &name, const std::vector<Slot> &slots) {
  const DeviceInfo &info = slots.front().kernel->backend.info();
  Json launches = Json::array();
  for (const Slot &slot : slots)
    launches.push_back({{"kernel", slot.kernel->spec.name},
                        {"source_hash", slot.kernel->spec.sourceHash},
                        {"signature", slot.signature}});
  return {{"step", name},        {"device", info.name},
          {"arch", info.arch},   {"driver", info.driverVersion},
          {"tuna", tunaVersion()}, {"launches", launches}};
}

/// The decisions of `file`; an unreadable file is reported and read as
/// empty (a cache is never a reason for a step to fail).
Json readSteps(const std::string &file) {
  std::ifstream in(file);
  if (!in)
    return Json::array();
  try {
    Json doc = Json::parse(in);
    if (doc.value("format", "") != kStepFormat)
      throw Error(ErrorCode::InvalidArgument, "not a tuna-step-cache file");
    if (!doc["version"].is_number_integer() ||
        doc["version"].get<int64_t>() > kStepVersion)
      throw Error(ErrorCode::InvalidArgument,
                  "format version " + doc["version"].dump() +
                      "; this runtime reads version 1");
    return doc.at("steps");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tuna: step cache %s is unreadable (%s); ignoring it\n",
                 file.c_str(), e.what());
    return Json::array();
  }
}

/// An flock on `<file>.lock` for the life of the object.
class StepFileLock {
public:
  StepFileLock(const std::string &file, bool exclusive)
      : fd(::open((file + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                  0644)) {
    if (fd >= 0)
      while (::flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR)
        ;
  }
  ~StepFileLock() {
    if (fd >= 0)
      ::close(fd);
  }

private:
  int fd;
};
} // namespace

//===----------------------------------------------------------------------===//
// Several ranks: one decision for the step
//===----------------------------------------------------------------------===//

namespace {
constexpr const char *kStepContract =
    "ranks must run the same steps, launching the same kernels with the same "
    "signatures and bundles in the same order, on one device model "
    "(docs/runtime-api.md, \"Tuning a step\")";

/// The ranks a step decides with: the communicator of its first kernel's
/// module when it joins several ranks that tune (in mode off every rank
/// launches the same default variants without exchanging).
Communicator *stepCommunicator(const StepContext &context) {
  const Options &options = context.slots.front().kernel->module.options;
  if (!options.communicator || options.communicator->size() < 2 ||
      options.mode == TuneMode::Off)
    return nullptr;
  return options.communicator.get();
}

/// The exchanges of one step's decision between the ranks, each one
/// agreement of the communicator (Communicator::agreementMutex()).
class StepRanks {
public:
  StepRanks(Communicator &communicator, double timeoutMs)
      : communicator(communicator), timeoutMs(timeoutMs) {}

  int rank() const { return communicator.rank(); }
  int size() const { return communicator.size(); }
  std::string where() const {
    return "on rank " + std::to_string(rank()) + " of " +
           std::to_string(size());
  }

  /// Every rank's `mine`, in rank order, tagged as exchange `what`; throws
  /// naming the ranks that did not join within the timeout, or that sent
  /// something else (they are at another exchange: another step, or a
  /// kernel's own agreement), so that no field of another message is read.
  std::vector<Json> exchange(const char *what, Json mine) {
    mine["exchange"] = what;
    std::vector<std::string> texts;
    try {
      std::lock_guard<std::mutex> lock(communicator.agreementMutex());
      texts = allGatherStrings(communicator, mine.dump(), timeoutMs);
    } catch (const Error &e) {
      throw Error(e.code(),
                  where() + ": " + e.what() + " (" + kStepContract + ")");
    }
    std::vector<Json> all;
    std::string elsewhere;
    for (size_t r = 0; r < texts.size(); ++r) {
      Json message = Json::parse(texts[r], nullptr, /*allow_exceptions=*/false);
      if (!message.is_object() || !message.contains("exchange") ||
          message["exchange"] != what) {
        std::string text = texts[r].substr(0, 160);
        elsewhere += "\n  rank " + std::to_string(r) + " sent " + text +
                     (texts[r].size() > text.size() ? "..." : "");
      }
      all.push_back(std::move(message));
    }
    if (!elsewhere.empty())
      throw Error(ErrorCode::InvalidArgument,
                  where() +
                      ": the ranks are not at the same exchange (this "
                      "rank is at the step's '" +
                      what + "'): " + kStepContract + ":" + elsewhere);
    return all;
  }

private:
  Communicator &communicator;
  double timeoutMs;
};

/// How `other` (a rank's launches) differs from rank 0's `first`; empty
/// when it does not.
std::string launchDifference(const Json &other, const Json &first) {
  if (other.size() != first.size())
    return std::to_string(other.size()) + " launches, rank 0 " +
           std::to_string(first.size());
  for (size_t i = 0; i < first.size(); ++i)
    for (const char *field :
         {"kernel", "source hash", "bundle hash", "signature", "candidates"})
      if (other[i][field] != first[i][field])
        return "launch " + std::to_string(i) + " " + field + " " +
               other[i][field].dump() + ", rank 0 " + first[i][field].dump();
  return "";
}
} // namespace

//===----------------------------------------------------------------------===//
// TunedStep
//===----------------------------------------------------------------------===//

struct TunedStep::Impl {
  std::string name;
  Body body;
  StepOptions options;
  bool tuned = false;
  std::vector<StepReport> reports;

  std::string where() const { return "step '" + name + "'"; }

  /// Runs the body once through `context` (synchronized).
  void runThrough(StepContext &context, StreamHandle stream) {
    StepScope scope(context);
    body(stream);
    if (!context.slots.empty())
      context.slots.front().kernel->backend.synchronize(stream);
  }

  /// The median time of the step with the slots' current variants.
  double time(StepContext &context, StreamHandle stream, int minRuns) {
    Backend &backend = context.slots.front().kernel->backend;
    StepScope scope(context);
    for (int r = 0; r < options.warmupRuns; ++r)
      body(stream);
    backend.synchronize(stream);
    EventPair events(backend);
    std::vector<double> samples;
    double last = 0;
    Clock::time_point start = Clock::now();
    for (;;) {
      backend.recordEvent(events.start, stream);
      body(stream);
      backend.recordEvent(events.end, stream);
      samples.push_back(backend.elapsedMs(events.start, events.end));
      double now = median(samples);
      int n = static_cast<int>(samples.size());
      bool stable = n >= 2 && std::fabs(now - last) <=
                                  options.stableTolerance * now;
      last = now;
      if (n >= std::max(options.maxRuns, minRuns) ||
          (n >= minRuns && stable) ||
          (n >= minRuns && msSince(start) >= options.budgetMs))
        return now;
    }
  }

  /// Times the step with `assignment` (a variant per slot); infinity when
  /// a launch fails with it.
  double timeWith(StepContext &context, StreamHandle stream,
                  const std::vector<int> &assignment, int minRuns,
                  StepReport &report) {
    for (size_t s = 0; s < assignment.size(); ++s)
      context.slots[s].variant = assignment[s];
    ++report.evaluations;
    double ms;
    try {
      ms = time(context, stream, minRuns);
    } catch (const Error &e) {
      if (options.verbose)
        std::fprintf(stderr, "tuna: %s: %s fails: %s\n", where().c_str(),
                     describe(context, assignment).c_str(), e.what());
      return INFINITY;
    }
    if (options.verbose)
      std::fprintf(stderr, "tuna: %s: %s: %.4f ms\n", where().c_str(),
                   describe(context, assignment).c_str(), ms);
    return ms;
  }

  static std::string describe(const StepContext &context,
                              const std::vector<int> &assignment) {
    std::string text;
    for (size_t s = 0; s < assignment.size(); ++s)
      text += (s ? ", " : "") + context.slots[s].kernel->spec.name + "=" +
              context.slots[s].kernel->spec.variants[assignment[s]].name;
    return text;
  }

  std::vector<int> coordinateDescent(StepContext &context, StreamHandle stream,
                                     std::vector<int> assignment, double &best,
                                     StepReport &report) {
    for (int pass = 0; pass < options.passes; ++pass) {
      bool improved = false;
      for (size_t s = 0; s < context.slots.size(); ++s)
        for (int v : context.slots[s].candidates) {
          if (v == assignment[s])
            continue;
          std::vector<int> trial = assignment;
          trial[s] = v;
          double ms = timeWith(context, stream, trial, options.minRuns, report);
          if (ms < best) {
            best = ms;
            assignment = std::move(trial);
            improved = true;
          }
        }
      if (!improved)
        break;
    }
    return assignment;
  }

  /// The search strategies over the product of the slots' candidates.
  std::vector<int> searchJointly(StepContext &context, StreamHandle stream,
                                 StepReport &report) {
    std::vector<search::Parameter> parameters;
    for (size_t s = 0; s < context.slots.size(); ++s) {
      std::vector<int64_t> values(context.slots[s].candidates.begin(),
                                  context.slots[s].candidates.end());
      std::sort(values.begin(), values.end());
      parameters.push_back({"launch" + std::to_string(s), values});
    }
    search::Space space = search::Space::product(parameters, {});
    class Evaluator final : public search::Evaluator {
    public:
      Evaluator(Impl &step, StepContext &context, StreamHandle stream,
                StepReport &report)
          : step(step), context(context), stream(stream), report(report) {}
      std::vector<search::Measurement>
      measure(const std::vector<search::Values> &configurations,
              int samples) override {
        std::vector<search::Measurement> measured;
        for (const search::Values &values : configurations) {
          std::vector<int> assignment(values.begin(), values.end());
          double ms = step.timeWith(context, stream, assignment,
                                    std::max(samples, step.options.minRuns),
                                    report);
          if (std::isinf(ms)) {
            measured.push_back(search::Measurement::failed("a launch failed"));
            continue;
          }
          search::Measurement m;
          m.ms = m.minMs = m.maxMs = ms;
          m.samples = 1;
          measured.push_back(m);
        }
        return measured;
      }
      double seconds() override {
        return std::chrono::duration<double>(
                   Clock::now().time_since_epoch())
            .count();
      }

    private:
      Impl &step;
      StepContext &context;
      StreamHandle stream;
      StepReport &report;
    } evaluator(*this, context, stream, report);
    search::SearchOptions searchOptions = options.search;
    searchOptions.strategy = options.strategy;
    searchOptions.resumeFile.clear();
    search::SearchResult result = search::run(space, evaluator, searchOptions);
    if (!result.best)
      throw Error(ErrorCode::Unsupported,
                  "every combination the search tried failed");
    search::Values best = space.values(*result.best);
    return std::vector<int>(best.begin(), best.end());
  }

  std::string cacheFile(const StepContext &context) const {
    std::string dir = options.cacheDir.empty()
                          ? context.slots.front().kernel->module.options.cacheDir
                          : options.cacheDir;
    return dir.empty() ? "" : dir + "/steps.json";
  }

  /// The persisted variants of the slots, if the cache has this step.
  std::optional<std::vector<int>> lookup(const StepContext &context) const {
    std::string file = cacheFile(context);
    if (file.empty() || options.always)
      return std::nullopt;
    Json key = stepKey(name, context.slots);
    Json steps;
    {
      StepFileLock lock(file, /*exclusive=*/false);
      steps = readSteps(file);
    }
    for (const Json &entry : steps) {
      if (!entry.is_object() || !entry.contains("key") ||
          entry["key"] != key || !entry.contains("variants"))
        continue;
      std::vector<int> assignment;
      for (size_t s = 0; s < context.slots.size(); ++s) {
        const Json &ref = entry["variants"].at(s);
        VariantRef wanted{ref.at("variant").get<std::string>(), {}};
        for (const auto &[param, value] : ref.at("config").items())
          wanted.config.emplace_back(param, value.get<int64_t>());
        int v = context.slots[s].kernel->findVariant(wanted);
        const std::vector<int> &candidates = context.slots[s].candidates;
        if (v < 0 ||
            std::find(candidates.begin(), candidates.end(), v) ==
                candidates.end())
          return std::nullopt; // The bundle changed: tune again.
        assignment.push_back(v);
      }
      return assignment;
    }
    return std::nullopt;
  }

  void store(const StepContext &context, const StepReport &report) const {
    std::string file = cacheFile(context);
    if (file.empty())
      return;
    Json key = stepKey(name, context.slots);
    Json variants = Json::array();
    for (const StepLaunch &launch : report.launches) {
      const Slot &slot = context.slots[&launch - report.launches.data()];
      Json config = Json::object();
      for (const auto &[param, value] :
           slot.kernel->spec.variants[launch.chosen].config)
        config[param] = value;
      variants.push_back({{"variant", launch.chosenName}, {"config", config}});
    }
    Json entry = {{"key", key},
                  {"variants", variants},
                  {"kernel_by_kernel_ms", report.kernelByKernelMs},
                  {"joint_ms", report.jointMs},
                  {"time", static_cast<int64_t>(std::time(nullptr))}};
    try {
      ::mkdir(file.substr(0, file.rfind('/')).c_str(), 0755);
      StepFileLock lock(file, /*exclusive=*/true);
      Json steps = readSteps(file);
      Json kept = Json::array();
      for (Json &other : steps)
        if (!other.is_object() || other.value("key", Json()) != key)
          kept.push_back(std::move(other));
      kept.push_back(entry);
      Json doc = {{"format", kStepFormat},
                  {"version", kStepVersion},
                  {"steps", kept}};
      writeFileAtomically(file, doc.dump(1) + "\n");
    } catch (const std::exception &e) {
      std::fprintf(stderr, "tuna: %s: cannot persist the decision in %s: %s\n",
                   where().c_str(), file.c_str(), e.what());
    }
  }

  /// Publishes `assignment` in every kernel's signature table.
  static void publish(StepContext &context, const std::vector<int> &assignment) {
    for (size_t s = 0; s < context.slots.size(); ++s) {
      Slot &slot = context.slots[s];
      TunedKernel::Impl &kernel = *slot.kernel;
      std::lock_guard<std::mutex> lock(kernel.module.device.tuningMutex());
      // A persisted pick was never launched here: its code is loaded now.
      VariantState &variant = kernel.variants[assignment[s]];
      if (!kernel.ensureLoaded(variant))
        throw Error(ErrorCode::Unsupported, variant.loadError);
      kernel.tables.push_back(kernel.table.load(std::memory_order_relaxed)
                                  ->with(slot.signature.data(), assignment[s]));
      kernel.table.store(kernel.tables.back().get(),
                         std::memory_order_release);
    }
  }

  void tune(StreamHandle stream) {
    Clock::time_point start = Clock::now();
    StepReport report;
    report.step = name;
    StepContext context;
    discoverLaunches(context, stream);
    std::optional<StepRanks> ranks;
    if (Communicator *communicator = stepCommunicator(context))
      ranks.emplace(
          *communicator,
          context.slots.front().kernel->module.options.agreeTimeoutMs);
    std::optional<std::vector<int>> known = lookup(context);
    if (ranks)
      known = agreeOnStep(*ranks, context, known);
    std::vector<int> chosen, ownChoice;
    if (known) {
      chosen = *known;
      report.cached = true;
    } else if (!ranks) {
      chosen = searchJointPick(context, stream, report);
    } else {
      // A rank that fails says so in the next exchange instead of leaving
      // the others waiting for it.
      std::string error;
      try {
        ownChoice = searchJointPick(context, stream, report);
      } catch (const Error &e) {
        error = e.what();
      }
      chosen = agreeOnPick(*ranks, context, stream, ownChoice, error, report);
    }
    recordLaunches(context, chosen, ownChoice, report);
    publish(context, chosen);
    report.ranks = ranks ? ranks->size() : 1;
    // Recorded once: by rank 0 in a job of several ranks.
    if (!report.cached && (!ranks || ranks->rank() == 0))
      store(context, report);
    report.wallMs = msSince(start);
    if (options.verbose)
      std::fprintf(
          stderr,
          "tuna: %s: %s%s (kernel by kernel %.4f ms, jointly "
          "%.4f ms, %d combinations timed%s)\n",
          where().c_str(), describe(context, chosen).c_str(),
          report.cached ? ", from the step cache" : "", report.kernelByKernelMs,
          report.jointMs, report.evaluations,
          ranks ? (", agreed by " + std::to_string(ranks->size()) + " ranks")
                      .c_str()
                : "");
    reports.push_back(std::move(report));
  }

  /// Exchange 1 between the ranks: every rank tunes the same step (its
  /// name, device model and launches, each with its kernel, source and
  /// bundle hashes, signature and candidates, compared with rank 0's);
  /// returns rank 0's persisted decision, which every rank takes.
  std::optional<std::vector<int>>
  agreeOnStep(StepRanks &ranks, const StepContext &context,
              const std::optional<std::vector<int>> &known) const {
    Json launches = Json::array();
    for (const Slot &slot : context.slots) {
      std::string bundle;
      {
        std::lock_guard<std::mutex> lock(
            slot.kernel->module.device.tuningMutex());
        bundle = slot.kernel->bundleHash();
      }
      launches.push_back({{"kernel", slot.kernel->spec.name},
                          {"source hash", slot.kernel->spec.sourceHash},
                          {"bundle hash", bundle},
                          {"signature", slot.signature},
                          {"candidates", slot.candidates}});
    }
    const DeviceInfo &info = context.slots.front().kernel->backend.info();
    Json mine = {{"step", name},
                 {"device", info.name + " (" + info.arch + ")"},
                 {"launches", launches},
                 {"cached", known ? Json(*known) : Json()}};
    std::vector<Json> all = ranks.exchange("what", mine);
    const Json &first = all.front();
    std::string differences;
    for (size_t r = 1; r < all.size(); ++r) {
      std::string difference;
      for (const char *field : {"step", "device"})
        if (difference.empty() && all[r][field] != first[field])
          difference = std::string(field) + " " + all[r][field].dump() +
                       ", rank 0 " + first[field].dump();
      if (difference.empty())
        difference = launchDifference(all[r]["launches"], first["launches"]);
      if (!difference.empty())
        differences += "\n  rank " + std::to_string(r) + " has " + difference;
    }
    if (!differences.empty())
      throw Error(ErrorCode::InvalidArgument,
                  ranks.where() + ": the ranks are not tuning the same step: " +
                      kStepContract + ":" + differences);
    if (first["cached"].is_null())
      return std::nullopt;
    return first["cached"].get<std::vector<int>>();
  }

  /// Exchange 2: every rank's kernel-by-kernel and own joint picks (or why
  /// it has none). When they differ, every rank times each of them (the
  /// kernel-by-kernel picks first) and exchange 3 gathers the medians: the
  /// pick whose slowest rank is fastest wins, ties to the earlier one, as
  /// a step of the job waits for its slowest rank.
  std::vector<int> agreeOnPick(StepRanks &ranks, StepContext &context,
                               StreamHandle stream,
                               const std::vector<int> &ownChoice,
                               const std::string &error, StepReport &report) {
    std::vector<int> own;
    for (const Slot &slot : context.slots)
      own.push_back(slot.own);
    Json mine = error.empty() ? Json{{"own", own}, {"chosen", ownChoice}}
                              : Json{{"error", error}};
    std::vector<Json> all = ranks.exchange("picks", mine);
    std::string failures;
    for (size_t r = 0; r < all.size(); ++r)
      if (all[r].contains("error"))
        failures += "\n  rank " + std::to_string(r) + ": " +
                    all[r]["error"].get<std::string>();
    if (!failures.empty())
      throw Error(ErrorCode::Unsupported,
                  ranks.where() +
                      ": some ranks could not tune the step:" + failures);
    std::vector<std::vector<int>> proposals;
    auto propose = [&](const Json &assignment) {
      std::vector<int> values = assignment.get<std::vector<int>>();
      if (std::find(proposals.begin(), proposals.end(), values) ==
          proposals.end())
        proposals.push_back(std::move(values));
    };
    for (const Json &outcome : all)
      propose(outcome["own"]);
    for (const Json &outcome : all)
      propose(outcome["chosen"]);
    if (proposals.size() == 1)
      return proposals.front();
    std::vector<double> medians;
    for (const std::vector<int> &proposal : proposals) {
      double ms = timeWith(context, stream, proposal, options.maxRuns, report);
      medians.push_back(std::isinf(ms) ? -1 : ms);
    }
    std::vector<Json> times =
        ranks.exchange("times", Json{{"medians", medians}});
    int best = 0;
    double bestMs = INFINITY;
    for (size_t p = 0; p < proposals.size(); ++p) {
      double slowest = 0;
      for (const Json &rank : times) {
        double ms = rank["medians"].at(p).get<double>();
        slowest = ms < 0 ? INFINITY : std::max(slowest, ms);
      }
      if (slowest < bestMs) {
        best = static_cast<int>(p);
        bestMs = slowest;
      }
    }
    size_t mineAt =
        std::find(proposals.begin(), proposals.end(), own) - proposals.begin();
    report.kernelByKernelMs = medians[mineAt];
    report.jointMs = medians[best];
    if (options.verbose)
      std::fprintf(stderr,
                   "tuna: %s %s: %zu picks of the ranks, each timed on every "
                   "rank; the slowest rank's median is lowest with %s\n",
                   where().c_str(), ranks.where().c_str(), proposals.size(),
                   describe(context, proposals[best]).c_str());
    return proposals[best];
  }

  /// Runs the body once in tuning mode to find its launches, all on one
  /// device.
  void discoverLaunches(StepContext &context, StreamHandle stream) {
    context.tuning = true;
    runThrough(context, stream);
    if (context.slots.empty())
      throw Error(ErrorCode::InvalidArgument, "it launches no tuned kernel");
    for (const Slot &slot : context.slots)
      if (&slot.kernel->backend != &context.slots.front().kernel->backend)
        throw Error(ErrorCode::Unsupported,
                    "it launches kernels on several devices; a step is "
                    "tuned on one");
  }

  /// The joint search from each kernel's own decision; the kernel-by-kernel
  /// pick unless the joint one is faster when both are timed again.
  std::vector<int> searchJointPick(StepContext &context, StreamHandle stream,
                                   StepReport &report) {
    for (Slot &slot : context.slots)
      if (slot.own < 0)
        slot.own = slot.kernel->decide(slot.stream, slot.args.data(),
                                       slot.args.size(), slot.keyValues.data(),
                                       slot.signature.data());
    std::vector<int> own;
    for (const Slot &slot : context.slots)
      own.push_back(slot.own);
    double best = timeWith(context, stream, own, options.minRuns, report);
    std::vector<int> chosen =
        options.strategy == "coordinate"
            ? coordinateDescent(context, stream, own, best, report)
            : searchJointly(context, stream, report);
    // Both once more, side by side: the joint pick must beat the
    // kernel-by-kernel one measured under the same conditions.
    report.kernelByKernelMs =
        timeWith(context, stream, own, options.maxRuns, report);
    report.jointMs = chosen == own ? report.kernelByKernelMs
                                   : timeWith(context, stream, chosen,
                                              options.maxRuns, report);
    if (!(report.jointMs < report.kernelByKernelMs)) {
      chosen = own;
      report.jointMs = report.kernelByKernelMs;
    }
    return chosen;
  }

  /// One StepLaunch per launch of the step: its kernel, signature and
  /// picks.
  void recordLaunches(const StepContext &context,
                      const std::vector<int> &chosen,
                      const std::vector<int> &ownChoice, StepReport &report) {
    for (size_t s = 0; s < context.slots.size(); ++s) {
      const Slot &slot = context.slots[s];
      StepLaunch &launch = report.launches.emplace_back();
      launch.kernel = slot.kernel->spec.name;
      launch.module = slot.kernel->module.origin;
      launch.signature = slot.signature;
      launch.kernelByKernel = slot.own;
      launch.chosen = chosen[s];
      launch.chosenName = slot.kernel->spec.variants[chosen[s]].name;
      launch.ownChoice = ownChoice.empty() ? -1 : ownChoice[s];
      launch.candidates = slot.candidates;
    }
  }
};

TunedStep::TunedStep(std::string name, Body body, StepOptions options)
    : impl(std::make_unique<Impl>()) {
  if (options.strategy != "coordinate")
    search::checkStrategyName(options.strategy);
  impl->name = std::move(name);
  impl->body = std::move(body);
  impl->options = std::move(options);
}

TunedStep::~TunedStep() = default;

void TunedStep::run(StreamHandle stream) {
  if (!impl->tuned) {
    try {
      impl->tune(stream);
    } catch (const Error &e) {
      throw Error(e.code(), impl->where() + ": " + e.what());
    }
    impl->tuned = true;
  }
  StepContext watch;
  {
    StepScope scope(watch);
    impl->body(stream);
  }
  // New shapes: the next run tunes them jointly.
  if (watch.newSignature)
    impl->tuned = false;
}

const std::vector<StepReport> &TunedStep::reports() const {
  return impl->reports;
}

} // namespace tuna
