//===- Isolation.h - Timing candidates in a worker process ------*- C++ -*-===//
//
// Isolated tuning (Options::isolate): the Tuner hands the timing of its
// candidates to a worker process (tools: tuna-worker) that loads the same
// bundle on the same device, runs the same timing loop on copies of the
// launch's buffers and reports each step over a socket, one JSON object per
// line. A worker that dies or sends nothing for Options::tuneTimeoutMs is
// ended; the candidate it was running is marked Failed and a fresh worker
// goes on with the rest.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_ISOLATION_H
#define TUNA_RUNTIME_LIB_ISOLATION_H

#include "KernelImpl.h"

#include <cmath>
#include <vector>

namespace tuna {

/// Where the timing loop starts (or resumes, in a fresh worker).
struct TimingPlan {
  std::vector<int> order; ///< Candidates, the default variant first.
  double bestMedianMs = INFINITY;
  double budgetMs = 0; ///< What is left of Options::totalBudgetMs.
};

/// Follows the timing loop step by step (the worker reports through it).
class TimingObserver {
public:
  virtual ~TimingObserver() = default;
  /// `variant` is about to run: for the reference output of the correctness
  /// check when `reference`, else to be checked and timed.
  virtual void starting(int variant, bool reference) = 0;
  /// `variant` is done; report.candidates[variant] says how it went.
  virtual void finished(const TuningReport &report, int variant) = 0;
};

/// Whether a worker can stand in for `backend`: the host, CUDA and HIP
/// devices.
bool canIsolate(const Backend &backend);

/// The parent's half: times `plan` in worker processes and fills `report`
/// (candidate results, checked, checkSkipped) as the in-process loop would.
/// Throws tuna::Error when no worker can be started or one fails outside a
/// candidate.
void timeInWorker(TunedKernel::Impl &kernel, StreamHandle stream,
                  const ArgValue *args, size_t count, const TimingPlan &plan,
                  TuningReport &report);

/// The worker's half, in Tuner.cpp: times `plan` in this process with the
/// in-process loop, reporting to `observer`; the variants in `failed` are
/// not run. Stops after a candidate that failed (the device may be
/// unusable after a fault).
void timeForWorker(TunedKernel::Impl &kernel, const ArgValue *args,
                   size_t count, const TimingPlan &plan,
                   const std::vector<int> &failed, TimingObserver &observer);

/// The worker executable's main (tools/tuna-worker): serves one request
/// read from file descriptor 3 (also its answer channel), with the bundle
/// and the buffers in the shared memory of descriptor 4.
int runTuningWorker();

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_ISOLATION_H
