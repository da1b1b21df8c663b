//===- TunerSearch.cpp - Searching the candidates of a launch -------------===//
//
// TunedKernel::search (tuna-tune --strategy) and a first call with
// Options::useSearch: instead of timing every candidate, a search strategy
// (docs/search.md) visits some of them, each visit timed by the usual
// protocol (TunedKernel::Impl::measureLocked), every visit of one search in
// one tuning worker when isolated.
//
// With Options::spreadOverRanks (and a communicator) or
// Options::tuningDevices, each batch of visits is split over the ranks and
// devices as a first call's candidates are (Spread.h), and the ranks'
// results are gathered after each batch: every rank's strategy sees the
// same history, so the ranks visit and pick alike, and as one rank would
// given the same measurements (the batches do not depend on the ranks).
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"
#include "KernelImpl.h"
#include "Spread.h"

#include "tuna/runtime/PhaseTimes.h"

#include <chrono>
#include <limits>
#include <mutex>
#include <optional>

namespace tuna {

namespace {

/// How many chunks of a search's batch size each device gets in one batch
/// of a spread search.
constexpr int kChunksPerDevice = 8;

/// Times `variants` with `spread`: this rank's share here and on the
/// tuning devices, `chunk` at a time, the others' gathered. Every rank
/// returns the same results.
TuningReport measureSpread(TunedKernel::Impl &kernel, CandidateSpread &spread,
                           StreamHandle stream, const ArgValue *args,
                           size_t count, const int64_t *keyValues,
                           const int64_t *signature,
                           const std::vector<int> &variants, int samples,
                           size_t chunk, WorkerSession *worker) {
  TuningReport report;
  size_t keySize = kernel.spec.key.size();
  report.keyValues.assign(keyValues, keyValues + keySize);
  report.signature.assign(signature, signature + kernel.signatureSize);
  report.candidates.resize(kernel.spec.variants.size());
  auto timeHere = [&](const std::vector<int> &share) {
    TuningReport timed = kernel.measureLocked(
        stream, args, count, keyValues, signature, share, samples, worker);
    for (int v : share)
      report.candidates[v] = timed.candidates[v];
    addCheck(timed, report);
  };
  std::string error;
  try {
    spread.time(variants, report, timeHere, samples, chunk);
  } catch (const Error &e) {
    if (!spread.overRanks())
      throw;
    error = e.what();
  }
  if (spread.overRanks())
    spread.gatherRanks(report, error, kernel.module.options.agreeTimeoutMs);
  return report;
}

} // namespace

SearchOutcome TunedKernel::Impl::searchCandidates(
    StreamHandle stream, const ArgValue *args, size_t count,
    const int64_t *keyValues, const int64_t *signature,
    const std::vector<int> &candidates, const search::SearchOptions &options,
    TuningReport report) {
  VariantSpace space = makeVariantSpace(spec, candidates);
  // Started now, the worker gets ready while the first batch is prepared.
  std::optional<WorkerSession> session;
  if (module.options.isolate && canIsolate(backend))
    session.emplace(*this, stream, args, count);
  WorkerSession *worker = session ? &*session : nullptr;
  const Options &settings = module.options;
  Communicator *ranks = settings.spreadOverRanks && settings.communicator
                            ? settings.communicator.get()
                            : nullptr;
  std::optional<CandidateSpread> spread;
  search::SearchOptions batches = options;
  size_t chunk = 0;
  if (ranks || !settings.tuningDevices.empty()) {
    spread.emplace(*this, stream, args, count, ranks);
    // The devices take a batch's worth (`chunk`) at a time, as one device
    // alone would, and a spread batch holds several for each: a device
    // that ends a chunk takes the next one, and waits for the others only
    // at the spread batch's end.
    chunk = static_cast<size_t>(options.batchSize);
    batches.batchSize *= kChunksPerDevice * (ranks ? ranks->size() : 1) *
                         static_cast<int>(1 + settings.tuningDevices.size());
    // Without a time budget to look at or a resume file to write between
    // batches, a spread batch is the strategy's whole proposal: the devices
    // wait for each other once a proposal, not every few chunks.
    if (!options.budgetSeconds && options.resumeFile.empty())
      batches.batchSize = std::numeric_limits<int>::max();
  }
  VariantEvaluator evaluator(
      space, [&](const std::vector<int> &variants, int samples) {
        if (spread)
          return measureSpread(*this, *spread, stream, args, count, keyValues,
                               signature, variants, samples, chunk, worker);
        return measureLocked(stream, args, count, keyValues, signature,
                             variants, samples, worker);
      });
  search::SearchResult result = search::run(space.space, evaluator, batches);
  try {
    applySearchResult(space, result, evaluator.timed, report);
  } catch (const Error &e) {
    throw Error(e.code(), describe() + ": " + e.what());
  }
  evaluator.reportCheck(report);
  return {std::move(report), std::move(space), std::move(result)};
}

SearchOutcome TunedKernel::Impl::search(StreamHandle stream,
                                        const ArgValue *args, size_t count,
                                        const search::SearchOptions &options) {
  TimedPhase phase("search");
  auto start = std::chrono::steady_clock::now();
  LaunchKey key = checkedKey(args, count);
  const int64_t *keyValues = key.keyValues, *signature = key.signature;
  std::lock_guard<std::mutex> lock(module.device.tuningMutex());
  // A search spread over the ranks exchanges as an agreement does (after
  // the tuning mutex, as there).
  std::unique_lock<std::mutex> exchanges;
  if (module.options.spreadOverRanks && module.options.communicator)
    exchanges = std::unique_lock<std::mutex>(
        module.options.communicator->agreementMutex());
  // Classification only: which variants can run for these key values.
  TuningReport classified = measureLocked(stream, args, count, keyValues,
                                          signature, {}, /*samples=*/0);
  std::vector<int> runnable;
  std::string why;
  for (const CandidateResult &candidate : classified.candidates) {
    if (candidate.status == CandidateStatus::NotTimed)
      runnable.push_back(candidate.variant);
    why += "\n  " + candidate.name + ": " + candidate.reason;
  }
  if (runnable.empty())
    throw Error(ErrorCode::Unsupported,
                describe() + " for " +
                    formatSignature(signature, signatureSize) +
                    ": no variant can run:" + why);
  SearchOutcome outcome =
      searchCandidates(stream, args, count, keyValues, signature, runnable,
                       options, std::move(classified));
  TuningReport &report = outcome.report;
  report.chosenName = spec.variants[report.chosen].name;
  report.source = DecisionSource::Tuned;
  report.wallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return outcome;
}

} // namespace tuna
