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
#include <memory>
#include <string>
#include <vector>

namespace tuna {

/// Where the timing loop starts (or resumes, in a fresh worker).
struct TimingPlan {
  std::vector<int> order; ///< Candidates, the default variant first.
  /// Variants that take part in the check (Options::check) but are not
  /// timed: the default variant when measuring others.
  std::vector<int> voters;
  /// The output of TunedKernel::setReference's function per written buffer
  /// (ScratchArgs::buffers() order), and its name; empty: the check trusts
  /// the output most candidates agree on.
  std::vector<std::string> referenceOutputs;
  std::string referenceName;
  double bestMedianMs = INFINITY;
  /// What is left of Options::totalBudgetMs; the check does not count.
  double budgetMs = 0;
};

/// Follows the timing loop step by step (the worker reports through it).
class TimingObserver {
public:
  virtual ~TimingObserver() = default;
  /// `variant` is about to run: once for the correctness check when
  /// `checking`, else to be timed.
  virtual void starting(int variant, bool checking) = 0;
  /// The check is over (report.checked, checkedAgainst, defaultRejected,
  /// checkSkipped say how) after `ms` milliseconds; the candidates it
  /// rejected were reported finished before.
  virtual void checked(const TuningReport &report, double ms) = 0;
  /// `variant` is done; report.candidates[variant] says how it went.
  virtual void finished(const TuningReport &report, int variant) = 0;
};

/// Whether a worker can stand in for `backend`: the host, CUDA and HIP
/// devices.
bool canIsolate(const Backend &backend);

/// A worker started before any tuning needs it, for a module that will
/// tune (Options::isolate in TuneMode::Always: every new signature is
/// tuned): it opens the device and reads `manifest` (the bundle's head,
/// BundleParts.h) while the application goes on, and the module's first
/// WorkerSession takes it. Null when it cannot be started: the session that
/// needs a worker then says why.
StartedWorkerPtr startWorkerEarly(const Device &device, const Options &options,
                                  std::string_view origin,
                                  std::string_view manifest);

/// The parent's half over one launch's arguments: starts a worker at once
/// (or takes the module's idle one),
/// which opens the device and reads the bundle's manifest while the caller
/// prepares its first plan; shares the arguments' contents (and the
/// reference's outputs of the first plan) with it once, and with each
/// request the code of the variants it has not seen; times each plan given
/// to time() in that worker, which stays up between plans (the batches of a
/// search) unless a candidate failed in it (the device may be unusable):
/// then, or when it crashed or hung, a fresh worker goes on with the rest.
/// A worker idle and well when the session ends waits for the module's next
/// session (Module::Impl::idleWorker), which then skips a worker's start
/// and finds the code it was sent loaded. It ends with the thread that
/// started it (PR_SET_PDEATHSIG): a session that finds it gone starts
/// another.
class WorkerSession {
public:
  /// Throws tuna::Error when the worker cannot be started.
  WorkerSession(TunedKernel::Impl &kernel, StreamHandle stream,
                const ArgValue *args, size_t count);
  /// Leaves an idle, well worker to the module, or ends it.
  ~WorkerSession();
  WorkerSession(const WorkerSession &) = delete;
  WorkerSession &operator=(const WorkerSession &) = delete;

  /// Times `plan` with `options` (the timing options of this measurement)
  /// and fills `report` (candidate results, checked, checkSkipped) as the
  /// in-process loop would. Throws tuna::Error when no worker can be
  /// started or one fails outside a candidate.
  void time(const TimingPlan &plan, const Options &options,
            TuningReport &report);

  /// Workers started so far.
  int workersStarted() const { return started; }

private:
  struct State;
  std::unique_ptr<State> state;
  int started = 0;
};

/// The worker's half, in Tuner.cpp: times `plan` in this process with the
/// in-process loop and `options`, reporting to `observer`; the variants in
/// `failed` are not run. Stops after a candidate that failed (the device
/// may be unusable after a fault).
void timeForWorker(TunedKernel::Impl &kernel, const Options &options,
                   const ArgValue *args, size_t count, const TimingPlan &plan,
                   const std::vector<int> &failed, TimingObserver &observer);

/// The worker executable's main (tools/tuna-worker): serves the requests
/// read from file descriptor 3 (also its answer channel), with the bundle's
/// manifest, the buffers and the code in the shared memory of descriptor 4,
/// until the parent closes the socket or a candidate failed.
int runTuningWorker();

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_ISOLATION_H
