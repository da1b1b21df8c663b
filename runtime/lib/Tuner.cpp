//===- Tuner.cpp - Deciding the variant of a new signature ----------------===//
//
// The miss path of TunedKernel::launch. With the device's tuning mutex held:
// classify every variant (constraints, code for the device), then take the
// disk cache's pick, or the default (mode off, or a single candidate), or
// benchmark the candidates; only the variants a decision needs are loaded
// and checked against the device's limits. Benchmarking runs the
// candidates on scratch copies of the written buffers: optional correctness
// check against the default variant, warm-up, batched timed samples until
// the median is stable or the budget is spent, early elimination of clear
// losers. The fastest correct candidate wins and is published. With
// Options::isolate the same loop runs in a worker process (Isolation.h).
//
//===----------------------------------------------------------------------===//

#include "Agreement.h"
#include "Compare.h"
#include "Isolation.h"
#include "KernelImpl.h"
#include "Scratch.h"
#include "tuna/runtime/Cache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>

namespace tuna {

namespace {
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/// Owns two backend events.
class EventPair {
public:
  explicit EventPair(Backend &backend)
      : backend(backend), start(backend.createEvent()) {
    try {
      end = backend.createEvent();
    } catch (...) {
      backend.destroyEvent(start);
      throw;
    }
  }
  ~EventPair() {
    backend.destroyEvent(start);
    backend.destroyEvent(end);
  }
  EventPair(const EventPair &) = delete;
  EventPair &operator=(const EventPair &) = delete;

  Backend &backend;
  EventHandle start;
  EventHandle end = nullptr;
};

class Tuner {
public:
  Tuner(TunedKernel::Impl &kernel, const Options &options, StreamHandle stream,
        const ArgValue *args, size_t count, const int64_t *keyValues,
        const int64_t *signature)
      : kernel(kernel), backend(kernel.backend), options(options),
        stream(stream), args(args), count(count), keyValues(keyValues),
        dims(kernel.variants.size()) {
    size_t keySize = kernel.spec.key.size();
    report.keyValues.assign(keyValues, keyValues + keySize);
    report.signature.assign(signature, signature + keySize);
    report.mode = options.mode;
  }

  /// Decides; `persisted` is what the disk cache remembers: its pick, or
  /// -1, and the variants that failed before (never run again). Loads only
  /// the code the decision needs: the cache's pick, or the default when
  /// nothing is measured, or every candidate when tuning. Without `tune`,
  /// nothing is measured and nothing printed.
  TuningReport run(const TunedKernel::Impl::Persisted &persisted,
                   bool tune = true) {
    int cached = persisted.variant;
    Clock::time_point start = Clock::now();
    classify();
    for (const auto &[name, reason] : persisted.failed)
      for (CandidateResult &result : report.candidates)
        if (result.name == name && result.status == CandidateStatus::NotTimed) {
          result.status = CandidateStatus::Failed;
          result.reason = "failed in an earlier tuning: " + reason;
        }
    std::vector<int> candidates;
    for (const CandidateResult &result : report.candidates)
      if (result.status == CandidateStatus::NotTimed)
        candidates.push_back(result.variant);
    if (candidates.empty())
      throw Error(ErrorCode::Unsupported, noCandidateMessage());
    bool measure = tune && options.mode != TuneMode::Off &&
                   candidates.size() > 1 && !noWork;
    int fallback = isCandidate(kernel.spec.defaultVariant)
                       ? kernel.spec.defaultVariant
                       : candidates.front();
    if (cached >= 0 && isCandidate(cached) && admit(cached)) {
      report.chosen = cached;
      report.source = DecisionSource::Cache;
    } else {
      if (cached >= 0 && options.verbose)
        std::fprintf(stderr,
                     "tuna: %s: not using the tuning cache's pick '%s': %s\n",
                     where().c_str(), report.candidates[cached].name.c_str(),
                     report.candidates[cached].reason.c_str());
      bool search = measure && options.useSearch;
      if (!measure && admit(fallback)) {
        report.chosen = fallback;
      } else if (search) {
        // Loads and times only what the search visits.
        kernel.searchCandidates(stream, args, count, keyValues,
                                report.signature.data(), candidates, report);
      } else {
        candidates = admitAll(candidates);
        if (candidates.empty())
          throw Error(ErrorCode::Unsupported, noCandidateMessage());
        measure = measure && candidates.size() > 1;
        if (!measure)
          report.chosen = isCandidate(kernel.spec.defaultVariant)
                              ? kernel.spec.defaultVariant
                              : candidates.front();
      }
      if (search) {
        report.source = DecisionSource::Tuned;
      } else if (measure) {
        benchmark(candidates);
        report.source = DecisionSource::Tuned;
      } else {
        report.source = DecisionSource::Default;
      }
    }
    report.chosenName = kernel.spec.variants[report.chosen].name;
    report.wallMs = msSince(start);
    if (options.verbose && tune)
      print();
    return std::move(report);
  }

  /// Times exactly `variants` (those of them that are candidates) and
  /// decides nothing: report.chosen stays -1.
  TuningReport measureOnly(const std::vector<int> &variants) {
    Clock::time_point start = Clock::now();
    classify();
    std::vector<int> wanted;
    for (int v : variants)
      if (v >= 0 && v < static_cast<int>(dims.size()) && isCandidate(v) &&
          std::find(wanted.begin(), wanted.end(), v) == wanted.end())
        wanted.push_back(v);
    // The check's reference comes from the default variant: load it too.
    int fallback = kernel.spec.defaultVariant;
    bool withFallback =
        options.check && isCandidate(fallback) &&
        std::find(wanted.begin(), wanted.end(), fallback) == wanted.end();
    if (withFallback)
      wanted.push_back(fallback);
    std::vector<int> admitted = admitAll(wanted);
    if (withFallback && !admitted.empty() && admitted.back() == fallback)
      admitted.pop_back();
    if (!admitted.empty())
      timeAll(admitted);
    report.source = DecisionSource::Tuned;
    report.wallMs = msSince(start);
    return std::move(report);
  }

private:
  std::string where() const {
    return kernel.describe() + " for " +
           formatSignature(report.signature.data(), report.signature.size());
  }

  bool isCandidate(int variant) const {
    return report.candidates[variant].status == CandidateStatus::NotTimed;
  }

  /// Fills report.candidates from what needs no code: NotTimed for the
  /// variants whose constraints hold and that have code for the device,
  /// else why not.
  void classify() {
    const DeviceInfo &info = backend.info();
    for (size_t v = 0; v < kernel.variants.size(); ++v) {
      VariantState &variant = kernel.variants[v];
      CandidateResult result;
      result.variant = static_cast<int>(v);
      result.name = variant.spec->name;
      result.config = variant.config;
      result.reason = excludedBy(variant);
      if (!result.reason.empty()) {
        result.status = CandidateStatus::Excluded;
      } else if (variant.code < 0) {
        result.reason = "no code for " + info.platform + " " + info.arch;
        result.status = CandidateStatus::Unrunnable;
      } else {
        result.reason = overLimits(variant, dims[v]);
        if (!result.reason.empty())
          result.status = CandidateStatus::Unrunnable;
      }
      report.candidates.push_back(std::move(result));
    }
    // A variant that would launch nothing where another does work is
    // broken for these key values (an empty grid would also time as the
    // fastest); when no variant has work, the launch is a no-op.
    bool someWork = false;
    for (size_t v = 0; v < kernel.variants.size(); ++v)
      someWork |= isCandidate(static_cast<int>(v)) && !isEmpty(dims[v]);
    for (size_t v = 0; someWork && v < kernel.variants.size(); ++v) {
      if (!isCandidate(static_cast<int>(v)) || !isEmpty(dims[v]))
        continue;
      const LaunchDims &geometry = dims[v];
      report.candidates[v].status = CandidateStatus::Unrunnable;
      report.candidates[v].reason = "an empty grid (" +
                                    std::to_string(geometry.grid[0]) + "x" +
                                    std::to_string(geometry.grid[1]) + "x" +
                                    std::to_string(geometry.grid[2]) +
                                    ") where other variants launch work";
    }
    noWork = !someWork;
  }

  /// Loads candidate `v` and checks the launch against the device and the
  /// function's limits; marks it Unrunnable (false) when either fails.
  bool admit(int v) {
    VariantState &variant = kernel.variants[v];
    std::string why = kernel.ensureLoaded(variant)
                          ? overLimits(variant, dims[v])
                          : variant.loadError;
    if (why.empty())
      return true;
    report.candidates[v].status = CandidateStatus::Unrunnable;
    report.candidates[v].reason = why;
    return false;
  }

  /// Admits every candidate, after asking for all their code in one go;
  /// returns those admitted.
  std::vector<int> admitAll(const std::vector<int> &candidates) {
    std::vector<int> objects;
    for (int v : candidates) {
      const VariantState &variant = kernel.variants[v];
      if (!variant.function)
        objects.push_back(variant.spec->code[variant.code].object);
    }
    kernel.module.prepare(objects);
    std::vector<int> admitted;
    for (int v : candidates)
      if (isCandidate(v) && admit(v))
        admitted.push_back(v);
    return admitted;
  }

  /// The first constraint that fails for the key values, described.
  std::string excludedBy(const VariantState &variant) const {
    for (size_t c = 0; c < variant.constraints.size(); ++c) {
      const VariantState::CompiledConstraint &constraint =
          variant.constraints[c];
      int64_t value;
      bool ok = constraint.expr.evaluate(keyValues, value) &&
                (constraint.isEquality ? value == 0 : value >= 0);
      if (!ok)
        return "constraint " + std::to_string(c) + " (" +
               formatExpr(variant.spec->constraints[c].expr) +
               (constraint.isEquality ? " == 0" : " >= 0") + ") does not hold";
    }
    return "";
  }

  /// Evaluates the geometry into `out`; describes what the device or the
  /// (loaded) function cannot do.
  std::string overLimits(const VariantState &variant, LaunchDims &out) const {
    DimsProblem problem;
    if (!kernel.computeDims(variant, keyValues, out, problem))
      return problem.describe();
    return "";
  }

  static bool isEmpty(const LaunchDims &geometry) {
    return !geometry.grid[0] || !geometry.grid[1] || !geometry.grid[2];
  }

  std::string noCandidateMessage() const {
    std::string message =
        where() + ": no variant can run on " + backend.info().name + ":";
    for (const CandidateResult &result : report.candidates)
      message += "\n  " + result.name + ": " + result.reason;
    return message;
  }

  void launch(int variant, void **params) {
    backend.launch(kernel.variants[variant].function, stream, dims[variant],
                   params);
  }

  void benchmark(const std::vector<int> &candidates) {
    timeAll(candidates);
    for (int v : candidates) {
      const CandidateResult &result = report.candidates[v];
      if (result.status == CandidateStatus::Measured &&
          (report.chosen < 0 ||
           result.medianMs < report.candidates[report.chosen].medianMs))
        report.chosen = v;
    }
    if (report.chosen < 0)
      throw Error(ErrorCode::Unsupported,
                  where() + ": every candidate failed:" + failures());
  }

  /// Checks and times `candidates` on scratch copies of the arguments, in
  /// a worker when isolated (Options::isolate), else here.
  void timeAll(const std::vector<int> &candidates) {
    TimingPlan plan;
    // The default goes first: it sets the bar for early elimination.
    plan.order = candidates;
    std::stable_partition(plan.order.begin(), plan.order.end(), [&](int v) {
      return v == kernel.spec.defaultVariant;
    });
    plan.budgetMs = options.totalBudgetMs;
    if (options.isolate && canIsolate(backend))
      timeInWorker(kernel, stream, args, count, plan, report);
    else
      timeCandidates(plan, nullptr);
  }

public:
  /// The worker's entry (timeForWorker): the variants of `failed` marked.
  void timeForWorker(const TimingPlan &plan, const std::vector<int> &failed,
                     TimingObserver &observer) {
    classify();
    for (int v : failed) {
      report.candidates[v].status = CandidateStatus::Failed;
      report.candidates[v].reason = "failed in this tuning";
    }
    timeCandidates(plan, &observer);
  }

private:
  /// The timing loop over `plan.order`; reports each step to `observer`
  /// when there is one (in a worker, where the code is loaded here).
  void timeCandidates(const TimingPlan &plan, TimingObserver *observer) {
    ScratchArgs scratch(backend, stream, kernel.spec, args, count);
    auto lowered = std::make_unique<LoweredArgs>();
    kernel.lower(scratch.args(), scratch.size(), *lowered);
    EventPair events(backend);

    std::vector<std::string> reference;
    bool check = prepareCheck(scratch, lowered->params, reference, observer);
    Clock::time_point start = Clock::now();
    double bestMedian = plan.bestMedianMs;
    const std::vector<int> &order = plan.order;
    for (size_t k = 0; k < order.size(); ++k) {
      int v = order[k];
      CandidateResult &result = report.candidates[v];
      // Each candidate gets at most its fair share of what is left.
      double budget = std::min(options.candidateBudgetMs,
                               (plan.budgetMs - msSince(start)) /
                                   static_cast<double>(order.size() - k));
      if (observer)
        observer->starting(v, /*reference=*/false);
      timeCandidate(v, scratch, lowered->params, check ? &reference : nullptr,
                    events, bestMedian, budget, observer != nullptr);
      if (observer)
        observer->finished(report, v);
      if (result.status == CandidateStatus::Measured)
        bestMedian = std::min(bestMedian, result.medianMs);
      if (result.status == CandidateStatus::Failed)
        return;
    }
  }

  /// Checks (against `reference`, if any) and measures candidate `v`. In a
  /// worker, an error while running may come from a fault that left the
  /// device unusable (a CUDA trap): the candidate is Failed.
  void timeCandidate(int v, ScratchArgs &scratch, void **params,
                     const std::vector<std::string> *reference,
                     EventPair &events, double bestMedian, double budget,
                     bool inWorker) {
    CandidateResult &result = report.candidates[v];
    if (!kernel.variants[v].function && !admit(v))
      return;
    try {
      if (reference && v != kernel.spec.defaultVariant) {
        scratch.reset();
        launch(v, params);
        backend.synchronize(stream);
        if (std::string wrong = compare(scratch, *reference); !wrong.empty()) {
          result.status = CandidateStatus::WrongResult;
          result.reason = wrong;
          return;
        }
      }
      scratch.reset();
      measure(v, params, events, bestMedian, budget, result);
    } catch (const Error &e) {
      result.status =
          inWorker ? CandidateStatus::Failed : CandidateStatus::Unrunnable;
      result.reason = e.what();
    }
  }

  /// Runs the default variant for the reference output; false when the
  /// check is off or cannot be done (report.checkSkipped says why).
  bool prepareCheck(ScratchArgs &scratch, void **params,
                    std::vector<std::string> &reference,
                    TimingObserver *observer) {
    if (!options.check)
      return false;
    int fallback = kernel.spec.defaultVariant;
    if (!isCandidate(fallback)) {
      report.checkSkipped =
          "the default variant '" + report.candidates[fallback].name +
          "' cannot run here: " + report.candidates[fallback].reason;
      return false;
    }
    if (scratch.buffers().empty()) {
      report.checkSkipped = "the kernel writes no memref";
      return false;
    }
    if (!kernel.variants[fallback].function && !admit(fallback)) {
      report.checkSkipped = "the default variant '" +
                            report.candidates[fallback].name +
                            "' cannot run here: " +
                            report.candidates[fallback].reason;
      return false;
    }
    if (observer)
      observer->starting(fallback, /*reference=*/true);
    scratch.reset();
    launch(fallback, params);
    backend.synchronize(stream);
    reference = scratch.readBack();
    report.checked = true;
    return true;
  }

  std::string compare(ScratchArgs &scratch,
                      const std::vector<std::string> &reference) {
    std::vector<std::string> output = scratch.readBack();
    for (size_t b = 0; b < output.size(); ++b) {
      const ScratchArgs::Buffer &buffer = scratch.buffers()[b];
      if (std::optional<std::string> mismatch = compareElements(
              buffer.type, output[b].data(), reference[b].data(), buffer.bytes,
              options.atol, options.rtol))
        return "argument " + std::to_string(buffer.arg) + " " + *mismatch;
    }
    return "";
  }

  /// Times variant `v`: warm-up, then samples of `batch` launches each,
  /// for at most `budgetMs` once one sample is taken.
  void measure(int v, void **params, EventPair &events, double bestMedian,
               double budgetMs, CandidateResult &result) {
    for (int r = 0; r < options.warmupRuns; ++r)
      launch(v, params);
    backend.synchronize(stream);

    auto sample = [&](int batch) {
      backend.recordEvent(events.start, stream);
      for (int r = 0; r < batch; ++r)
        launch(v, params);
      backend.recordEvent(events.end, stream);
      return double(backend.elapsedMs(events.start, events.end)) / batch;
    };
    double estimate = sample(1);
    int batch = static_cast<int>(
        std::clamp(std::ceil(options.minSampleMs / std::max(estimate, 1e-6)),
                   1.0, 1000.0));

    Clock::time_point start = Clock::now();
    std::vector<double> samples;
    double fastest = INFINITY, slowest = 0;
    double lastMedian = 0;
    result.status = CandidateStatus::Measured;
    for (;;) {
      samples.push_back(sample(batch));
      fastest = std::min(fastest, samples.back());
      slowest = std::max(slowest, samples.back());
      double currentMedian = median(samples);
      int n = static_cast<int>(samples.size());
      if (n >= options.eliminateAfter &&
          fastest > options.eliminateFactor * bestMedian) {
        result.status = CandidateStatus::Eliminated;
        result.reason =
            "fastest sample " + std::to_string(fastest) + " ms is over " +
            std::to_string(options.eliminateFactor) + "x the best median " +
            std::to_string(bestMedian) + " ms";
      }
      bool stable = n >= 2 && std::fabs(currentMedian - lastMedian) <=
                                  options.stableTolerance * currentMedian;
      lastMedian = currentMedian;
      if (result.status == CandidateStatus::Eliminated ||
          n >= options.maxRuns || (n >= options.minRuns && stable) ||
          msSince(start) >= budgetMs)
        break;
    }
    result.medianMs = lastMedian;
    result.minMs = fastest;
    result.maxMs = slowest;
    result.samples = static_cast<int>(samples.size());
  }

  std::string failures() const {
    std::string text;
    for (const CandidateResult &result : report.candidates)
      text += "\n  " + result.name + ": " + result.reason;
    return text;
  }

  void print() const {
    const DeviceInfo &info = backend.info();
    std::string header =
        "tuna: " + where() + " (key values " +
        formatSignature(report.keyValues.data(), report.keyValues.size()) +
        "), mode " + tuneModeName(report.mode) + ", on " + info.name;
    std::fprintf(stderr, "%s\n", header.c_str());
    for (const CandidateResult &result : report.candidates) {
      // Nothing was benchmarked: list only the variants that could not run.
      if (result.status == CandidateStatus::NotTimed)
        continue;
      std::string line = "tuna:   [" + std::to_string(result.variant) + "] " +
                         result.name + " (" + result.config + "): ";
      if (result.status == CandidateStatus::Measured) {
        char times[96];
        std::snprintf(times, sizeof(times), "%.4f ms (median of %d, min %.4f)",
                      result.medianMs, result.samples, result.minMs);
        line += times;
      } else {
        line += candidateStatusName(result.status);
        if (!result.reason.empty())
          line += ": " + result.reason;
      }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    if (options.check && !report.checked && !report.checkSkipped.empty())
      std::fprintf(stderr, "tuna:   no correctness check: %s\n",
                   report.checkSkipped.c_str());
    const CandidateResult &chosen = report.candidates[report.chosen];
    std::fprintf(
        stderr, "tuna: picked [%d] %s (%s) in %.1f ms%s\n", report.chosen,
        chosen.name.c_str(), chosen.config.c_str(), report.wallMs,
        report.source == DecisionSource::Cache ? ", from the tuning cache"
                                               : "");
  }

  TunedKernel::Impl &kernel;
  Backend &backend;
  const Options &options;
  StreamHandle stream;
  const ArgValue *args;
  size_t count;
  const int64_t *keyValues;
  std::vector<LaunchDims> dims; ///< Per variant, for candidates.
  /// Every candidate's grid is empty: nothing to tune.
  bool noWork = false;
  TuningReport report;
};
} // namespace

void timeForWorker(TunedKernel::Impl &kernel, const ArgValue *args,
                   size_t count, const TimingPlan &plan,
                   const std::vector<int> &failed, TimingObserver &observer) {
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxKey];
  kernel.computeKey(args, keyValues, signature);
  Tuner(kernel, kernel.module.options, /*stream=*/nullptr, args, count,
        keyValues, signature)
      .timeForWorker(plan, failed, observer);
}

const char *candidateStatusName(CandidateStatus status) {
  switch (status) {
  case CandidateStatus::Measured:
    return "measured";
  case CandidateStatus::Eliminated:
    return "eliminated";
  case CandidateStatus::WrongResult:
    return "wrong result";
  case CandidateStatus::Excluded:
    return "excluded";
  case CandidateStatus::Unrunnable:
    return "cannot run";
  case CandidateStatus::Failed:
    return "failed";
  case CandidateStatus::NotTimed:
    return "not timed";
  }
  return "?";
}

const char *decisionSourceName(DecisionSource source) {
  switch (source) {
  case DecisionSource::Tuned:
    return "tuned";
  case DecisionSource::Cache:
    return "cache";
  case DecisionSource::Default:
    return "default";
  }
  return "?";
}

int TunedKernel::Impl::cachedVariant(const CacheEntry &entry) const {
  // The bundle may have changed under the same source hash (other compile
  // options): trust an entry only if the variant still has its config. The
  // file may list the parameters in any order.
  auto sorted = [](std::vector<std::pair<std::string, int64_t>> config) {
    std::sort(config.begin(), config.end());
    return config;
  };
  auto wanted = sorted(entry.config);
  for (size_t v = 0; v < spec.variants.size(); ++v)
    if (spec.variants[v].name == entry.variant &&
        sorted(spec.variants[v].config) == wanted)
      return static_cast<int>(v);
  if (module.options.verbose)
    std::fprintf(stderr,
                 "tuna: %s: ignoring the tuning cache's entry: the bundle has "
                 "no variant '%s' with its configuration\n",
                 describe().c_str(), entry.variant.c_str());
  return -1;
}

TunedKernel::Impl::Persisted
TunedKernel::Impl::persisted(const int64_t *signature, bool wait) const {
  Persisted result;
  const Options &options = module.options;
  if (options.mode == TuneMode::Off)
    return result;
  const DeviceInfo &info = backend.info();
  CacheKey key = {info.name,
                  info.arch,
                  info.driverVersion,
                  tunaVersion(),
                  spec.name,
                  spec.sourceHash,
                  std::vector<int64_t>(signature, signature + spec.key.size())};
  std::optional<CacheEntry> entry;
  if (!options.cacheDir.empty())
    entry = TuningCache::inDirectory(options.cacheDir)
                .lookup(key, options.versionCheck, wait);
  for (size_t d = 0; !entry && d < options.databases.size(); ++d)
    entry = TuningCache(options.databases[d])
                .lookup(key, options.versionCheck, wait);
  if (!entry)
    return result;
  result.failed = entry->failed;
  if (options.mode == TuneMode::On)
    result.variant = cachedVariant(*entry);
  return result;
}

int TunedKernel::Impl::decide(StreamHandle stream, const ArgValue *args,
                              size_t count, const int64_t *keyValues,
                              const int64_t *signature) {
  if (!unavailable.empty())
    throw Error(ErrorCode::Unsupported, unavailable);
  std::lock_guard<std::mutex> lock(module.device.tuningMutex());
  // Another caller may have decided this signature while we waited.
  int known = table.load(std::memory_order_acquire)->lookup(signature);
  if (known >= 0)
    return known;
  const Options &options = module.options;
  if (options.mode != TuneMode::Off && backend.isCapturing(stream))
    return pickDuringCapture(stream, args, count, keyValues, signature);
  // The disk cache, then the tuning databases: in TuneMode::On a persisted
  // decision replaces the tuning; a fresh one is persisted in the cache
  // (Always takes only the variants that failed from the lookups, Off
  // skips both).
  Persisted remembered = persisted(signature, /*wait=*/true);
  auto decideHere = [&] {
    return Tuner(*this, options, stream, args, count, keyValues, signature)
        .run(remembered);
  };
  // Several ranks decide together (Agreement.h); in mode off each takes
  // the default.
  std::optional<Agreement> agreement;
  if (options.communicator && options.mode != TuneMode::Off)
    agreement.emplace(*this, keyValues, signature, remembered);
  TuningReport report = agreement ? agreement->decide(decideHere) : decideHere();
  if (!options.cacheDir.empty() && options.mode != TuneMode::Off &&
      report.source == DecisionSource::Tuned &&
      (!agreement || agreement->recordsDecision()))
    TuningCache::inDirectory(options.cacheDir)
        .store(makeCacheEntry(backend.info(), spec, report));
  int chosen = report.chosen;
  tables.push_back(
      table.load(std::memory_order_relaxed)->with(signature, chosen));
  table.store(tables.back().get(), std::memory_order_release);
  history.push_back(std::move(report));
  return chosen;
}

int TunedKernel::Impl::pickDuringCapture(StreamHandle stream,
                                         const ArgValue *args, size_t count,
                                         const int64_t *keyValues,
                                         const int64_t *signature) {
  TuningReport report =
      Tuner(*this, module.options, stream, args, count, keyValues, signature)
          .run(persisted(signature, /*wait=*/false),
               /*tune=*/false);
  if (module.options.verbose && !captureNoticed) {
    captureNoticed = true;
    std::fprintf(
        stderr,
        "tuna: %s for %s: the stream is capturing a graph; launching '%s' "
        "(%s) untuned; the signature is tuned at its first launch outside "
        "capture (said once per kernel)\n",
        describe().c_str(), formatSignature(signature, spec.key.size()).c_str(),
        report.chosenName.c_str(),
        report.source == DecisionSource::Cache ? "the tuning cache's pick"
                                               : "the default");
  }
  return report.chosen;
}

TuningReport TunedKernel::Impl::measure(StreamHandle stream,
                                        const ArgValue *args, size_t count,
                                        const std::vector<int> &variants,
                                        int samples) {
  if (!unavailable.empty())
    throw Error(ErrorCode::Unsupported, unavailable);
  LoweredArgs lowered;
  lower(args, count, lowered);
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxKey];
  computeKey(args, keyValues, signature);
  std::lock_guard<std::mutex> lock(module.device.tuningMutex());
  return measureLocked(stream, args, count, keyValues, signature, variants,
                       samples);
}

TuningReport TunedKernel::Impl::measureLocked(
    StreamHandle stream, const ArgValue *args, size_t count,
    const int64_t *keyValues, const int64_t *signature,
    const std::vector<int> &variants, int samples) {
  // More samples, each within the usual time per sample.
  Options options = module.options;
  if (samples > 0) {
    double scale =
        std::max(1.0, double(samples) / std::max(1, options.minRuns));
    options.minRuns = samples;
    options.maxRuns = std::max(options.maxRuns, samples);
    options.candidateBudgetMs *= scale;
    options.totalBudgetMs *= scale;
  }
  return Tuner(*this, options, stream, args, count, keyValues, signature)
      .measureOnly(variants);
}

} // namespace tuna
