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
#include "Isolation.h"
#include "Clock.h"
#include "KernelImpl.h"
#include "OutputCheck.h"
#include "Scratch.h"
#include "Spread.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/PhaseTimes.h"
#include "tuna/runtime/Prune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

namespace tuna {

namespace {

/// Whether tuning with `options` on `backend` times each launch cold
/// (Options::coldTiming, where the backend can evict its L2): what a
/// report says and what its decisions are looked up and kept under.
bool timesCold(const Options &options, const Backend &backend) {
  return options.coldTiming && backend.evictsCache();
}

class Tuner {
public:
  /// Isolated timing (Options::isolate) goes to `session` when given, else
  /// to a worker of its own.
  Tuner(TunedKernel::Impl &kernel, const Options &options, StreamHandle stream,
        const ArgValue *args, size_t count, const int64_t *keyValues,
        const int64_t *signature, WorkerSession *session = nullptr)
      : kernel(kernel), backend(kernel.backend), options(options),
        stream(stream), args(args), count(count), keyValues(keyValues),
        session(session), dims(kernel.variants.size()) {
    size_t keySize = kernel.spec.key.size();
    report.keyValues.assign(keyValues, keyValues + keySize);
    report.signature.assign(signature, signature + kernel.signatureSize);
    report.mode = options.mode;
    report.coldTiming = timesCold(options, backend);
  }

  /// Decides; `persisted` is what the disk cache remembers: its pick, or
  /// -1, the variants that failed before (never run again), and a
  /// shortlist (then only its candidates are tuned, unpruned). Loads only
  /// the code the decision needs: the cache's pick, or the default when
  /// nothing is measured, or every candidate when tuning. Without `tune`,
  /// nothing is measured and nothing printed. With `spread`, the timing of
  /// every candidate is spread over devices or ranks (Spread.h).
  TuningReport run(const TunedKernel::Impl::Persisted &persisted,
                   bool tune = true, CandidateSpread *spread = nullptr) {
    int cached = persisted.variant;
    Clock::time_point start = Clock::now();
    classify();
    markFailedBefore(persisted.failed);
    std::vector<int> candidates = currentCandidates();
    if (candidates.empty())
      throw Error(ErrorCode::Unsupported, noCandidateMessage());
    bool measure = tune && options.mode != TuneMode::Off &&
                   candidates.size() > 1 && !noWork;
    bool shortlisted = measure && !persisted.shortlist.empty() &&
                       restrictToShortlist(persisted.shortlist, candidates);
    measure = measure && candidates.size() > 1;
    int fallback = !shortlisted && isCandidate(kernel.spec.defaultVariant)
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
      decideWithoutCache(std::move(candidates), fallback, measure,
                         shortlisted, spread);
    }
    // Spread over ranks, this rank's share may have no winner: the ranks
    // decide together (Agreement.h).
    if (report.chosen >= 0)
      report.chosenName = kernel.spec.variants[report.chosen].name;
    report.wallMs = msSince(start);
    if (options.verbose && tune)
      print();
    return std::move(report);
  }

  /// Marks Failed the candidates that failed in an earlier tuning (the
  /// disk cache's names and reasons): they are never run again.
  void markFailedBefore(
      const std::vector<std::pair<std::string, std::string>> &failed) {
    for (const auto &[name, reason] : failed)
      for (CandidateResult &result : report.candidates)
        if (result.name == name && result.status == CandidateStatus::NotTimed) {
          result.status = CandidateStatus::Failed;
          result.reason = "failed in an earlier tuning: " + reason;
        }
  }

  /// Decides among `candidates` with no pick from the cache: `fallback`
  /// without `measure`, else a search (Options::useSearch) or the timing
  /// of every candidate left after pruning (all of a shortlist).
  void decideWithoutCache(std::vector<int> candidates, int fallback,
                          bool measure, bool shortlisted,
                          CandidateSpread *spread) {
    bool search = measure && options.useSearch && !shortlisted;
    if (!measure && admit(fallback)) {
      report.chosen = fallback;
    } else if (search) {
      // Loads and times only what the search visits.
      candidates = prune(candidates);
      search::SearchOptions searchOptions = options.search;
      searchOptions.resumeFile.clear();
      std::vector<int64_t> signature = report.signature;
      report = kernel
                   .searchCandidates(stream, args, count, keyValues,
                                     signature.data(), candidates,
                                     searchOptions, std::move(report))
                   .report;
    } else {
      // Started now, the worker gets ready while the code loads here.
      if (measure && !spread)
        startWorkerSession();
      candidates = admitAll(candidates);
      if (candidates.empty())
        throw Error(ErrorCode::Unsupported, noCandidateMessage());
      if (!shortlisted)
        candidates = prune(candidates);
      measure = measure && candidates.size() > 1;
      if (!measure)
        report.chosen = !shortlisted && isCandidate(kernel.spec.defaultVariant)
                            ? kernel.spec.defaultVariant
                            : candidates.front();
    }
    if (search) {
      report.source = DecisionSource::Tuned;
    } else if (measure) {
      benchmark(candidates, spread);
      report.source = DecisionSource::Tuned;
    } else {
      report.source = DecisionSource::Default;
    }
  }

  /// Times exactly `variants` (those of them that are candidates) and
  /// decides nothing: report.chosen stays -1.
  TuningReport measureOnly(const std::vector<int> &variants) {
    Clock::time_point start = Clock::now();
    classify();
    if (variants.empty()) {
      prune(currentCandidates());
      report.wallMs = msSince(start);
      return std::move(report);
    }
    std::vector<int> wanted;
    for (int v : variants)
      if (v >= 0 && v < static_cast<int>(dims.size()) && isCandidate(v) &&
          std::find(wanted.begin(), wanted.end(), v) == wanted.end())
        wanted.push_back(v);
    // The default variant votes in the check without being timed.
    int fallback = kernel.spec.defaultVariant;
    bool withFallback =
        options.check && isCandidate(fallback) &&
        std::find(wanted.begin(), wanted.end(), fallback) == wanted.end();
    if (withFallback)
      wanted.push_back(fallback);
    std::vector<int> admitted = admitAll(wanted);
    std::vector<int> voters;
    if (withFallback && !admitted.empty() && admitted.back() == fallback) {
      admitted.pop_back();
      voters.push_back(fallback);
    }
    if (!admitted.empty())
      timeAll(admitted, voters);
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

  std::vector<int> currentCandidates() const {
    std::vector<int> candidates;
    for (const CandidateResult &result : report.candidates)
      if (result.status == CandidateStatus::NotTimed)
        candidates.push_back(result.variant);
    return candidates;
  }

  /// Keeps the candidates that `shortlist` names, in its order; the others
  /// stay untimed ("not on the shortlist"). False, leaving `candidates` as
  /// they are, when none of the shortlist can run here.
  bool restrictToShortlist(const std::vector<int> &shortlist,
                           std::vector<int> &candidates) {
    std::vector<int> listed;
    for (int v : shortlist)
      if (isCandidate(v))
        listed.push_back(v);
    if (listed.empty()) {
      std::fprintf(stderr,
                   "tuna: %s: no variant of the shortlist can run for these "
                   "key values; timing every candidate\n",
                   where().c_str());
      return false;
    }
    for (int v : candidates)
      if (std::find(listed.begin(), listed.end(), v) == listed.end())
        report.candidates[v].reason = "not on the shortlist";
    candidates = std::move(listed);
    return true;
  }

  /// Judges `candidates` with the static model (Prune.h) when
  /// Options::prune is on: marks those it drops Pruned and returns the
  /// others, best estimate first. Uses the loaded function's figures where
  /// the variant is loaded, else the compiler's (the bundle's resources),
  /// so that it loads nothing. Keeps every candidate if it would drop all.
  std::vector<int> prune(const std::vector<int> &candidates) {
    if (!options.prune || candidates.size() < 2)
      return candidates;
    std::vector<StaticFacts> facts;
    for (int v : candidates)
      facts.push_back(staticFacts(v));
    std::vector<PruneVerdict> verdicts =
        judgeCandidates(backend.info(), facts, options.pruneSlowerThan);
    std::vector<int> kept;
    for (const PruneVerdict &verdict : verdicts)
      if (verdict.dropped.empty())
        kept.push_back(verdict.variant);
    if (kept.empty())
      return candidates;
    for (const PruneVerdict &verdict : verdicts)
      if (!verdict.dropped.empty()) {
        report.candidates[verdict.variant].status = CandidateStatus::Pruned;
        report.candidates[verdict.variant].reason = verdict.dropped;
      }
    return kept;
  }

  StaticFacts staticFacts(int v) {
    const VariantState &variant = kernel.variants[v];
    StaticFacts facts;
    facts.variant = v;
    facts.dims = dims[v];
    const Resources &compiled = variant.spec->code[variant.code].resources;
    facts.spillBytes = compiled.spillBytes;
    facts.minBlocks = variant.spec->minBlocks;
    if (!variant.function) {
      facts.registers = compiled.registers;
      facts.localBytes = compiled.localBytes;
      facts.staticSharedBytes = compiled.sharedBytes;
      return facts;
    }
    facts.registers = variant.limits.registers;
    facts.localBytes = variant.limits.localBytes;
    facts.staticSharedBytes = variant.limits.staticSharedBytes;
    try {
      facts.residentBlocks =
          backend.residentBlocksPerMultiprocessor(variant.function, dims[v]);
    } catch (const Error &e) {
      // The model computes occupancy itself; the driver's failure is not
      // the candidate's.
      if (options.verbose)
        std::fprintf(stderr, "tuna: %s: %s\n", where().c_str(), e.what());
    }
    return facts;
  }

  /// Fills report.candidates from what needs no code: NotTimed for the
  /// variants whose constraints hold and that have code for the device,
  /// else why not.
  void classify() {
    TimedPhase phase("classify");
    const DeviceInfo &info = backend.info();
    const TunedKernel::Impl::KeyedFacts &facts = kernel.keyedFacts(keyValues);
    report.candidates.reserve(kernel.variants.size());
    for (size_t v = 0; v < kernel.variants.size(); ++v) {
      VariantState &variant = kernel.variants[v];
      CandidateResult result;
      result.variant = static_cast<int>(v);
      result.name = variant.spec->name;
      result.config = variant.config;
      result.reason = facts.excluded[v];
      if (result.reason.empty() && !variant.tensorMaps.empty())
        result.reason = kernel.tensorMapExclusion(
            static_cast<int>(v), args, keyValues, report.signature.data());
      if (!result.reason.empty()) {
        result.status = CandidateStatus::Excluded;
      } else if (variant.code < 0) {
        // A bundle of some planned variants lists the others without code.
        result.reason = variant.spec->code.empty()
                            ? "not compiled (the bundle has no code for it)"
                            : "no code for " + info.platform + " " + info.arch;
        result.status = CandidateStatus::Unrunnable;
      } else if (!variant.tensorMapProblem.empty()) {
        result.reason = variant.tensorMapProblem;
        result.status = CandidateStatus::Unrunnable;
      } else {
        result.reason = overLimits(static_cast<int>(v));
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

  /// Loads candidate `v`, checks the launch against the device and the
  /// function's limits and makes its tensor maps for the arguments; marks it
  /// Unrunnable (false) when any of these fails.
  bool admit(int v) {
    VariantState &variant = kernel.variants[v];
    std::string why =
        kernel.ensureLoaded(variant) ? overLimits(v) : variant.loadError;
    if (why.empty())
      why = tensorMapFailure(v);
    if (why.empty())
      return true;
    report.candidates[v].status = CandidateStatus::Unrunnable;
    report.candidates[v].reason = why;
    return false;
  }

  /// Why the maps of `v` cannot be made for the arguments (the driver's
  /// refusal, a box TMA cannot load), or "": made now, they are in this
  /// thread's map cache for the launches that follow.
  std::string tensorMapFailure(int v) {
    try {
      for (size_t j = 0; j < kernel.variants[v].tensorMaps.size(); ++j)
        kernel.tensorMap(v, j, args, keyValues);
    } catch (const Error &e) {
      return e.what();
    }
    return "";
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

  /// Takes variant `v`'s launch geometry for the key values into dims[v];
  /// describes what the device or the (loaded) function cannot do.
  std::string overLimits(int v) {
    const TunedKernel::Impl::KeyedFacts &facts = kernel.keyedFacts(keyValues);
    dims[v] = facts.dims[v];
    if (facts.problems[v])
      return facts.problems[v]->describe();
    DimsProblem problem;
    if (!kernel.withinFunctionLimits(kernel.variants[v], dims[v], problem))
      return problem.describe();
    return "";
  }

  static bool isEmpty(const LaunchDims &geometry) {
    return !geometry.grid[0] || !geometry.grid[1] || !geometry.grid[2];
  }

  std::string noCandidateMessage() const {
    std::string message =
        where() + ": no variant can run on " + backend.info().name + ":";
    return message + failures();
  }

  /// Launches `variant` with `params` (lowered from launchArgs), and its
  /// maps of launchArgs if it takes any.
  void launch(int variant, void **params) {
    if (!kernel.variants[variant].spec->tensorMaps.empty())
      return kernel.launchWithTensorMaps(variant, stream, launchArgs, keyValues,
                                         dims[variant], params);
    backend.launch(kernel.variants[variant].function, stream, dims[variant],
                   params);
  }

  void benchmark(const std::vector<int> &candidates, CandidateSpread *spread) {
    // A share without the default still checks against its output.
    auto timeShare = [&](const std::vector<int> &share) {
      int fallback = kernel.spec.defaultVariant;
      std::vector<int> voters;
      if (spread && options.check && isCandidate(fallback) &&
          std::find(share.begin(), share.end(), fallback) == share.end())
        voters.push_back(fallback);
      if (!share.empty())
        timeAll(share, voters);
    };
    if (spread)
      spread->time(candidates, report, timeShare);
    else
      timeShare(candidates);
    report.chosen = fastest(candidates);
    if (report.chosen < 0 && !(spread && spread->overRanks()))
      throw Error(ErrorCode::Unsupported,
                  where() + ": every candidate failed:" + failures());
  }

  /// The candidate with the lowest median among those that compete
  /// (CandidateResult::competes): not those behind the finalists of their
  /// final round, since a GPU that heats up under a long tuning runs the
  /// final round slower than the first candidates, whose earlier medians
  /// would otherwise win on that.
  int fastest(const std::vector<int> &candidates) const {
    int best = -1;
    for (int v : candidates) {
      const CandidateResult &result = report.candidates[v];
      if (result.competes() &&
          (best < 0 || result.medianMs < report.candidates[best].medianMs))
        best = v;
    }
    return best;
  }

  /// Checks and times `candidates` (`voters` are only checked) on scratch
  /// copies of the arguments, in a worker when isolated (Options::isolate),
  /// else here.
  void timeAll(const std::vector<int> &candidates,
               const std::vector<int> &voters = {}) {
    TimingPlan plan;
    // The default goes first: it sets the bar for early elimination.
    plan.order = candidates;
    std::stable_partition(plan.order.begin(), plan.order.end(), [&](int v) {
      return v == kernel.spec.defaultVariant;
    });
    plan.voters = voters;
    plan.budgetMs = options.totalBudgetMs;
    if (options.check && kernel.reference) {
      plan.referenceOutputs = referenceOutputs();
      plan.referenceName = kernel.referenceName;
    }
    if (options.isolate && canIsolate(backend) && session)
      session->time(plan, options, report);
    else if (options.isolate && canIsolate(backend))
      WorkerSession(kernel, stream, args, count).time(plan, options, report);
    else
      timeCandidates(plan, nullptr);
    if (report.defaultRejected)
      std::fprintf(stderr,
                   "tuna: warning: %s: the default variant '%s' gives a "
                   "wrong result (checked against %s): %s\n",
                   where().c_str(),
                   report.candidates[kernel.spec.defaultVariant].name.c_str(),
                   report.checkedAgainst.c_str(),
                   report.candidates[kernel.spec.defaultVariant].reason.c_str());
  }

  /// When isolated, gives the timing a worker session of its own, unless it
  /// has one.
  void startWorkerSession() {
    if (session || !options.isolate || !canIsolate(backend))
      return;
    ownSession.emplace(kernel, stream, args, count);
    session = &*ownSession;
  }

  /// Runs the application's reference (TunedKernel::setReference) on
  /// scratch copies; its output per written buffer.
  std::vector<std::string> referenceOutputs() {
    TimedPhase phase("reference");
    ScratchArgs scratch(backend, stream, kernel.spec, args, count);
    scratch.reset();
    try {
      kernel.reference(stream, scratch.args(), scratch.size());
      backend.synchronize(stream);
    } catch (const std::exception &e) {
      throw Error(ErrorCode::InvalidArgument,
                  where() + ": the check's reference '" +
                      kernel.referenceName + "' failed: " + e.what());
    }
    return scratch.readBack();
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
    launchArgs = scratch.args();
    EventPair events(backend);

    Clock::time_point checkStart = Clock::now();
    TimedPhase checkPhase("check");
    std::optional<std::vector<int>> checked =
        checkCandidates(plan, scratch, lowered->params, observer);
    checkPhase.stop();
    double checkMs = msSince(checkStart);
    report.checkMs += checkMs;
    if (observer)
      observer->checked(report, checkMs);
    if (!checked)
      return;
    // The check's cost is not the timing budget's.
    TimedPhase timing("timing");
    Clock::time_point start = Clock::now();
    double bestMedian = plan.bestMedianMs;
    const std::vector<int> &order = *checked;
    for (size_t k = 0; k < order.size(); ++k) {
      int v = order[k];
      CandidateResult &result = report.candidates[v];
      // Each candidate gets at most its fair share of what is left.
      double budget = std::min(options.candidateBudgetMs,
                               (plan.budgetMs - msSince(start)) /
                                   static_cast<double>(order.size() - k));
      if (observer)
        observer->starting(v, /*reference=*/false);
      timeCandidate(v, scratch, lowered->params, events, bestMedian, budget,
                    observer != nullptr);
      if (observer)
        observer->finished(report, v);
      if (result.status == CandidateStatus::Measured)
        bestMedian = std::min(bestMedian, result.medianMs);
      if (result.status == CandidateStatus::Failed)
        return;
    }
    std::vector<int> finalists = finalistsOf(order);
    try {
      if (finalists.size() >= 2) {
        scratch.reset();
        finalRound(order, finalists, lowered->params, events,
                   plan.budgetMs - msSince(start), observer);
      }
    } catch (const Error &e) {
      // The finalists ran before: the device failed meanwhile.
      for (int v : finalists) {
        report.candidates[v].status = observer ? CandidateStatus::Failed
                                               : CandidateStatus::Unrunnable;
        report.candidates[v].reason =
            std::string("in the final round: ") + e.what();
      }
    }
    // The round changed its finalists' results and marked the others.
    if (observer && finalists.size() >= 2)
      for (int v : order)
        observer->finished(report, v);
  }

  /// The finalists among the measured candidates of `order`
  /// (Options::finalists), fastest first.
  std::vector<int> finalistsOf(const std::vector<int> &order) const {
    std::vector<int> measured;
    for (int v : order)
      if (report.candidates[v].status == CandidateStatus::Measured)
        measured.push_back(v);
    if (options.finalists < 1 || measured.empty())
      return {};
    auto medianOf = [&](int v) { return report.candidates[v].medianMs; };
    std::stable_sort(measured.begin(), measured.end(),
                     [&](int a, int b) { return medianOf(a) < medianOf(b); });
    double bar = medianOf(measured.front()) * (1 + options.finalMargin);
    std::vector<int> finalists;
    for (int v : measured)
      if (medianOf(v) <= bar &&
          finalists.size() < static_cast<size_t>(options.finalists))
        finalists.push_back(v);
    return finalists;
  }

  /// Samples `finalists` round-robin, Options::finalRounds samples each,
  /// or as many rounds as `budgetMs` allows (at least three, else none),
  /// and replaces their times by the round's; when it runs, marks them
  /// and the other candidates of `timed` behind them. In a worker,
  /// `observer` hears which finalist runs, so that a crash fails that one.
  void finalRound(const std::vector<int> &timed,
                  const std::vector<int> &finalists, void **params,
                  EventPair &events, double budgetMs,
                  TimingObserver *observer) {
    std::vector<int> batches;
    double roundMs = 0;
    for (int v : finalists) {
      double launchMs = report.candidates[v].medianMs;
      batches.push_back(batchFor(launchMs));
      roundMs += launchMs * batches.back();
    }
    int rounds = options.finalRounds;
    if (roundMs > 0)
      rounds = static_cast<int>(
          std::min<double>(rounds, std::floor(budgetMs / roundMs)));
    if (rounds < 3)
      return;
    for (int v : finalists)
      report.candidates[v].finalist = true;
    auto running = [&](size_t f) {
      if (observer)
        observer->starting(finalists[f], /*checking=*/false);
    };
    std::vector<std::vector<double>> samples(finalists.size());
    for (size_t f = 0; f < finalists.size(); ++f) {
      running(f);
      launch(finalists[f], params); // Its code and data back in cache.
    }
    for (int r = 0; r < rounds; ++r)
      for (size_t f = 0; f < finalists.size(); ++f) {
        running(f);
        samples[f].push_back(sample(finalists[f], params, events, batches[f]));
      }
    for (size_t f = 0; f < finalists.size(); ++f) {
      CandidateResult &result = report.candidates[finalists[f]];
      result.medianMs = median(samples[f]);
      result.minMs = *std::min_element(samples[f].begin(), samples[f].end());
      result.maxMs = *std::max_element(samples[f].begin(), samples[f].end());
      result.samples = rounds;
    }
    for (int v : timed)
      if (report.candidates[v].status == CandidateStatus::Measured &&
          !report.candidates[v].finalist)
        report.candidates[v].behindFinalists = true;
  }

  /// Measures candidate `v`. In a worker, an error while running may come
  /// from a fault that left the device unusable (a CUDA trap): the
  /// candidate is Failed.
  void timeCandidate(int v, ScratchArgs &scratch, void **params,
                     EventPair &events, double bestMedian, double budget,
                     bool inWorker) {
    CandidateResult &result = report.candidates[v];
    if (!kernel.variants[v].function && !admit(v))
      return;
    try {
      scratch.reset();
      measure(v, params, events, bestMedian, budget, result);
    } catch (const Error &e) {
      result.status =
          inWorker ? CandidateStatus::Failed : CandidateStatus::Unrunnable;
      result.reason = e.what();
    }
  }

  /// Candidates whose outputs agree (within the tolerances).
  struct OutputGroup {
    std::unique_ptr<SavedOutput> output; ///< The first member's.
    std::vector<int> members;
  };

  /// One check's state (checkCandidates): where outputs are compared, the
  /// candidates that ran, and how each output differs from the reference.
  struct CheckRun {
    OutputComparer &comparer;
    ScratchArgs &scratch;
    void **params;
    TimingObserver *observer; ///< Set in a worker.
    std::vector<OutputGroup> groups; ///< Without an application reference.
    std::vector<int> ran;
    std::map<int, std::string> wrong; ///< Empty when it agrees.
  };

  /// The check (Options::check): runs every candidate of `plan.order` and
  /// every voter once on fresh scratch copies and rejects as WrongResult
  /// those whose output is not the reference: the application's
  /// (plan.referenceOutputs) if any, else the output most of them agree on
  /// (the default variant's on a tie), so that a broken default is
  /// rejected rather than trusted. Outputs are compared where they are
  /// (OutputCheck.h). Returns the candidates left to time, in order;
  /// nullopt when a candidate failed in a worker (the device may be
  /// unusable: the parent goes on in a fresh worker).
  std::optional<std::vector<int>>
  checkCandidates(const TimingPlan &plan, ScratchArgs &scratch, void **params,
                  TimingObserver *observer) {
    if (!options.check)
      return plan.order;
    if (scratch.buffers().empty()) {
      report.checkSkipped = "the kernel writes no memref";
      return plan.order;
    }
    OutputComparer comparer(backend, stream, scratch,
                            kernel.module.deviceComparison(), options.atol,
                            options.rtol);
    report.checkedOn = comparer.where();
    std::unique_ptr<SavedOutput> appReference;
    if (!plan.referenceOutputs.empty())
      appReference = comparer.adopt(plan.referenceOutputs);
    CheckRun check{comparer, scratch, params, observer, {}, {}, {}};
    if (!runAndCompare(plan, appReference.get(), check))
      return std::nullopt;
    if (check.ran.empty()) {
      report.checkSkipped = "no candidate could run";
      return plan.order;
    }
    report.checked = true;
    if (appReference)
      report.checkedAgainst = "the reference " + plan.referenceName;
    else if (!compareOutsiders(agreedOutput(check.groups, check.ran.size()),
                               check))
      return std::nullopt;
    return rejectWrong(plan, check);
  }

  /// Runs every candidate of `plan.order` and every voter once: compares
  /// each output with `appReference` if there is one, else groups the
  /// outputs that agree. False when a candidate failed in a worker.
  bool runAndCompare(const TimingPlan &plan, const SavedOutput *appReference,
                     CheckRun &check) {
    std::vector<int> run = plan.order;
    run.insert(run.end(), plan.voters.begin(), plan.voters.end());
    for (int v : run) {
      if (!isCandidate(v) || (!kernel.variants[v].function && !admit(v)))
        continue;
      if (!runForCheck(v, check)) {
        if (check.observer)
          return false;
        continue;
      }
      check.ran.push_back(v);
      if (appReference) {
        check.wrong[v] = check.comparer.differences(*appReference);
        continue;
      }
      auto same = std::find_if(
          check.groups.begin(), check.groups.end(), [&](auto &group) {
            return check.comparer.differences(*group.output).empty();
          });
      if (same == check.groups.end())
        check.groups.push_back({check.comparer.save(), {v}});
      else
        same->members.push_back(v);
    }
    return true;
  }

  /// Runs again each candidate outside the group whose output is
  /// `reference` (it may not be its group's first) and records how its own
  /// output differs. False when a candidate failed in a worker.
  bool compareOutsiders(const SavedOutput &reference, CheckRun &check) {
    for (const OutputGroup &group : check.groups) {
      if (group.output.get() == &reference)
        continue;
      for (int v : group.members) {
        bool again = runForCheck(v, check);
        if (!again && check.observer)
          return false;
        check.wrong[v] = again ? check.comparer.differences(reference)
                               : report.candidates[v].reason;
      }
    }
    return true;
  }

  /// Marks WrongResult the candidates that ran and differ; returns those
  /// of `plan.order` that agree, in order. Voters that failed or were
  /// rejected are reported; those that passed are not timed.
  std::vector<int> rejectWrong(const TimingPlan &plan, CheckRun &check) {
    std::vector<int> accepted;
    for (int v : check.ran) {
      CandidateResult &result = report.candidates[v];
      if (result.status != CandidateStatus::NotTimed)
        continue; // Failed when run again.
      const std::string &wrong = check.wrong[v];
      if (wrong.empty()) {
        if (std::find(plan.order.begin(), plan.order.end(), v) !=
            plan.order.end())
          accepted.push_back(v);
        continue;
      }
      result.status = CandidateStatus::WrongResult;
      result.reason = "differs from " + report.checkedAgainst + ": " + wrong;
      if (v == kernel.spec.defaultVariant)
        report.defaultRejected = true;
      if (check.observer)
        check.observer->finished(report, v);
    }
    return accepted;
  }

  /// Runs `v` once for the check; false when it failed (in a worker, the
  /// observer is told).
  bool runForCheck(int v, CheckRun &check) {
    if (check.observer)
      check.observer->starting(v, /*checking=*/true);
    if (runOnce(v, check.scratch, check.params, check.observer != nullptr))
      return true;
    if (check.observer)
      check.observer->finished(report, v);
    return false;
  }

  /// The output the check trusts without an application reference: that
  /// of the largest group, unless the default variant's group is as large.
  /// Describes it in report.checkedAgainst.
  const SavedOutput &agreedOutput(const std::vector<OutputGroup> &groups,
                                  size_t ran) {
    int fallback = kernel.spec.defaultVariant;
    auto defaultGroup =
        std::find_if(groups.begin(), groups.end(), [&](const auto &group) {
          return std::count(group.members.begin(), group.members.end(),
                            fallback) > 0;
        });
    auto largest = std::max_element(
        groups.begin(), groups.end(), [](const auto &a, const auto &b) {
          return a.members.size() < b.members.size();
        });
    const OutputGroup &chosen =
        defaultGroup != groups.end() &&
                defaultGroup->members.size() == largest->members.size()
            ? *defaultGroup
            : *largest;
    size_t agree = chosen.members.size();
    bool isDefault = defaultGroup != groups.end() && &chosen == &*defaultGroup;
    if (isDefault && agree * 2 <= ran)
      report.checkedAgainst = "the default's output (no majority among " +
                              std::to_string(ran) + " variants)";
    else
      report.checkedAgainst = "the output " + std::to_string(agree) + " of " +
                              std::to_string(ran) + " variants agree on" +
                              (isDefault ? " (the default's)" : "");
    return *chosen.output;
  }

  /// Launches `v` once on fresh scratch copies and waits for it; false
  /// when it failed (the candidate says why: Failed in a worker, else
  /// Unrunnable).
  bool runOnce(int v, ScratchArgs &scratch, void **params, bool inWorker) {
    try {
      scratch.reset();
      launch(v, params);
      backend.synchronize(stream);
      return true;
    } catch (const Error &e) {
      CandidateResult &result = report.candidates[v];
      result.status =
          inWorker ? CandidateStatus::Failed : CandidateStatus::Unrunnable;
      result.reason = std::string("while checking its output: ") + e.what();
      return false;
    }
  }

  /// The time per launch of `v` over `batch` launches: back to back, or
  /// with report.coldTiming each alone after an eviction of the L2.
  double sample(int v, void **params, EventPair &events, int batch) {
    if (report.coldTiming) {
      double ms = 0;
      for (int r = 0; r < batch; ++r) {
        backend.evictCache(stream);
        backend.recordEvent(events.start, stream);
        launch(v, params);
        backend.recordEvent(events.end, stream);
        ms += backend.elapsedMs(events.start, events.end);
      }
      return ms / batch;
    }
    backend.recordEvent(events.start, stream);
    for (int r = 0; r < batch; ++r)
      launch(v, params);
    backend.recordEvent(events.end, stream);
    return double(backend.elapsedMs(events.start, events.end)) / batch;
  }

  /// Launches a sample takes to last about Options::minSampleMs.
  int batchFor(double launchMs) const {
    return static_cast<int>(std::clamp(
        std::ceil(options.minSampleMs / std::max(launchMs, 1e-6)), 1.0,
        1000.0));
  }

  /// Times variant `v`: warm-up, then samples of `batch` launches each,
  /// for at most `budgetMs` once one sample is taken.
  void measure(int v, void **params, EventPair &events, double bestMedian,
               double budgetMs, CandidateResult &result) {
    for (int r = 0; r < options.warmupRuns; ++r)
      launch(v, params);
    backend.synchronize(stream);

    int batch = batchFor(sample(v, params, events, 1));
    Clock::time_point start = Clock::now();
    std::vector<double> samples;
    double fastest = INFINITY, slowest = 0;
    double lastMedian = 0;
    result.status = CandidateStatus::Measured;
    for (;;) {
      samples.push_back(sample(v, params, events, batch));
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

  /// Why each candidate was not picked, one line per distinct reason
  /// ("\n  a, b: reason"): many variants often fail alike.
  std::string failures() const {
    std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
    for (const CandidateResult &result : report.candidates) {
      auto same = std::find_if(
          reasons.begin(), reasons.end(),
          [&](const auto &entry) { return entry.first == result.reason; });
      if (same == reasons.end())
        reasons.push_back({result.reason, {result.name}});
      else
        same->second.push_back(result.name);
    }
    std::string text;
    for (const auto &[reason, names] : reasons) {
      text += "\n  ";
      for (size_t n = 0; n < names.size(); ++n)
        text += (n ? ", " : "") + names[n];
      text += ": " + reason;
    }
    return text;
  }


  void print() const {
    const DeviceInfo &info = backend.info();
    std::string header =
        "tuna: " + where() + " (key values " +
        formatSignature(report.keyValues.data(), report.keyValues.size()) +
        "), mode " + tuneModeName(report.mode) + ", on " + info.name;
    if (report.coldTiming)
      header += ", each launch timed after evicting the L2";
    else if (options.coldTiming)
      header += ", timed back to back: the " + info.platform +
                " backend cannot evict its cache";
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
        if (result.finalist)
          line += ", finalist";
        else if (result.behindFinalists)
          line += ", behind the finalists";
        if (!result.timedOn.empty())
          line += " on " + result.timedOn;
      } else {
        line += candidateStatusName(result.status);
        if (!result.reason.empty())
          line += ": " + result.reason;
      }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    if (report.checked)
      std::fprintf(stderr, "tuna:   checked against %s, compared on %s in %.1f ms\n",
                   report.checkedAgainst.c_str(), report.checkedOn.c_str(),
                   report.checkMs);
    if (options.check && !report.checked && !report.checkSkipped.empty())
      std::fprintf(stderr, "tuna:   no correctness check: %s\n",
                   report.checkSkipped.c_str());
    if (report.chosen < 0) {
      std::fprintf(stderr, "tuna: no pick among this rank's share; the "
                           "ranks decide together\n");
      return;
    }
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
  WorkerSession *session;
  std::optional<WorkerSession> ownSession; ///< startWorkerSession()'s.
  std::vector<LaunchDims> dims; ///< Per variant, for candidates.
  /// The arguments timeCandidates() launches with (scratch copies): the
  /// maps of a variant are made of them.
  const ArgValue *launchArgs = nullptr;
  /// Every candidate's grid is empty: nothing to tune.
  bool noWork = false;
  TuningReport report;
};
} // namespace

void timeForWorker(TunedKernel::Impl &kernel, const Options &options,
                   const ArgValue *args, size_t count, const TimingPlan &plan,
                   const std::vector<int> &failed, TimingObserver &observer) {
  int64_t keyValues[kMaxKey];
  int64_t signature[kMaxSignature];
  kernel.computeKey(args, keyValues, signature);
  Tuner(kernel, options, /*stream=*/nullptr, args, count, keyValues,
        signature)
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
  case CandidateStatus::Pruned:
    return "pruned";
  }
  return "?";
}

std::string
formatConfig(const std::vector<std::pair<std::string, int64_t>> &config) {
  std::string text;
  for (const auto &[name, value] : config)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
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

int TunedKernel::Impl::findVariant(const VariantRef &ref) const {
  // The bundle may have changed under the same source hash (other compile
  // options): trust a name only if the variant still has its config. The
  // file may list the parameters in any order.
  auto sorted = [](std::vector<std::pair<std::string, int64_t>> config) {
    std::sort(config.begin(), config.end());
    return config;
  };
  auto wanted = sorted(ref.config);
  for (size_t v = 0; v < spec.variants.size(); ++v)
    if (spec.variants[v].name == ref.variant &&
        sorted(spec.variants[v].config) == wanted)
      return static_cast<int>(v);
  return -1;
}

int TunedKernel::Impl::cachedVariant(const CacheEntry &entry) const {
  int variant = findVariant({entry.variant, entry.config});
  if (variant < 0 && module.options.verbose)
    std::fprintf(stderr,
                 "tuna: %s: ignoring the tuning cache's entry: the bundle has "
                 "no variant '%s' with its configuration\n",
                 describe().c_str(), entry.variant.c_str());
  return variant;
}

std::vector<int> TunedKernel::Impl::shortlistOf(const CacheEntry &entry,
                                                const std::string &file,
                                                const int64_t *signature) const {
  std::vector<int> variants;
  std::string missing;
  for (const VariantRef &ref : entry.shortlist) {
    int v = findVariant(ref);
    if (v >= 0) {
      variants.push_back(v);
      continue;
    }
    missing += (missing.empty() ? "'" : ", '") + ref.variant + "' (" +
               formatConfig(ref.config) + ")";
  }
  if (!missing.empty())
    std::fprintf(
        stderr,
        "tuna: %s for %s: the shortlist in %s names variants that "
        "the bundle does not have (with that configuration): %s; %s\n",
        describe().c_str(), formatSignature(signature, signatureSize).c_str(),
        file.c_str(), missing.c_str(),
        variants.empty() ? "tuning every candidate" : "timing the others");
  return variants;
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
                  std::vector<int64_t>(signature, signature + signatureSize),
                  timesCold(options, backend)};
  std::optional<CacheEntry> entry;
  std::string file;
  if (!options.cacheDir.empty()) {
    TuningCache cache = TuningCache::inDirectory(options.cacheDir);
    entry = cache.lookup(key, options.versionCheck, wait);
    file = cache.path();
  }
  for (size_t d = 0; !entry && d < options.databases.size(); ++d) {
    entry = TuningCache(options.databases[d])
                .lookup(key, options.versionCheck, wait);
    file = options.databases[d];
  }
  if (!entry)
    return result;
  result.failed = entry->failed;
  if (options.mode != TuneMode::On)
    return result;
  if (options.useShortlists && !entry->shortlist.empty()) {
    result.shortlist = shortlistOf(*entry, file, signature);
    if (!result.shortlist.empty())
      return result;
  }
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
  noteNewSignatureInStep();
  // The disk cache, then the tuning databases: in TuneMode::On a persisted
  // decision replaces the tuning; a fresh one is persisted in the cache
  // (Always takes only the variants that failed from the lookups, Off
  // skips both).
  Persisted remembered = persisted(signature, /*wait=*/true);
  // Several ranks decide together (Agreement.h); in mode off each takes
  // the default.
  std::optional<Agreement> agreement;
  if (options.communicator && options.mode != TuneMode::Off)
    agreement.emplace(*this, keyValues, signature, remembered);
  // The candidates' timing spread over ranks or devices (Spread.h).
  std::optional<CandidateSpread> spread;
  bool overRanks = agreement && options.spreadOverRanks;
  if (overRanks || !options.tuningDevices.empty())
    spread.emplace(*this, stream, args, count,
                   overRanks ? options.communicator.get() : nullptr);
  CandidateSpread *spreading = spread ? &*spread : nullptr;
  auto decideHere = [&] {
    return Tuner(*this, options, stream, args, count, keyValues, signature)
        .run(remembered, /*tune=*/true, spreading);
  };
  TuningReport report =
      agreement ? agreement->decide(decideHere, spreading) : decideHere();
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
  Persisted known = persisted(signature, /*wait=*/false);
  // A shortlist is not timed now: its first variant is the tuned pick.
  if (known.variant < 0 && !known.shortlist.empty())
    known.variant = known.shortlist.front();
  TuningReport report =
      Tuner(*this, module.options, stream, args, count, keyValues, signature)
          .run(known, /*tune=*/false);
  if (module.options.verbose && !captureNoticed) {
    captureNoticed = true;
    std::fprintf(
        stderr,
        "tuna: %s for %s: the stream is capturing a graph; launching '%s' "
        "(%s) untuned; the signature is tuned at its first launch outside "
        "capture (said once per kernel)\n",
        describe().c_str(), formatSignature(signature, signatureSize).c_str(),
        report.chosenName.c_str(),
        report.source == DecisionSource::Cache ? "the tuning cache's pick"
                                               : "the default");
  }
  return report.chosen;
}

TunedKernel::Impl::LaunchKey
TunedKernel::Impl::checkedKey(const ArgValue *args, size_t count) const {
  if (!unavailable.empty())
    throw Error(ErrorCode::Unsupported, unavailable);
  LoweredArgs lowered;
  lower(args, count, lowered);
  LaunchKey key;
  computeKey(args, key.keyValues, key.signature);
  return key;
}

TuningReport TunedKernel::Impl::measure(StreamHandle stream,
                                        const ArgValue *args, size_t count,
                                        const std::vector<int> &variants,
                                        int samples) {
  LaunchKey key = checkedKey(args, count);
  std::lock_guard<std::mutex> lock(module.device.tuningMutex());
  return measureLocked(stream, args, count, key.keyValues, key.signature,
                       variants, samples);
}

TuningReport TunedKernel::Impl::measureLocked(
    StreamHandle stream, const ArgValue *args, size_t count,
    const int64_t *keyValues, const int64_t *signature,
    const std::vector<int> &variants, int samples, WorkerSession *session) {
  // More samples, each within the usual time per sample. No final round:
  // a measurement decides nothing (a search re-times its close
  // configurations itself, search::Options::retimeMax).
  Options options = module.options;
  options.finalists = 0;
  if (samples > 0) {
    double scale =
        std::max(1.0, double(samples) / std::max(1, options.minRuns));
    options.minRuns = samples;
    options.maxRuns = std::max(options.maxRuns, samples);
    options.candidateBudgetMs *= scale;
    options.totalBudgetMs *= scale;
  }
  return Tuner(*this, options, stream, args, count, keyValues, signature,
               session)
      .measureOnly(variants);
}

} // namespace tuna
