//===- PhaseTimes.h - Where a process spends its wall time -----*- C++ -*-===//
//
// The wall time of each phase of a tuning run (tuna-tune --timings): reading
// the bundle, opening the device, making the inputs, starting the tuning
// worker, each batch of a search, loading code, the check, writing the
// database... in this process and in its tuning workers, which send theirs
// to the parent. Phases are timed by TimedPhase scopes in the runtime and in
// tuna-tune; a phase opened inside another is recorded under it. Recording
// is off until PhaseTimes::process().start(): then a scope costs one atomic
// load. No phase is on the launch path of a decided signature.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_PHASETIMES_H
#define TUNA_RUNTIME_PHASETIMES_H

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace tuna {

/// One phase: its wall time summed over its runs.
struct PhaseTime {
  std::string name;
  /// The phase it ran in (an index into the same list), or -1.
  int parent = -1;
  int runs = 0;
  double ms = 0;
};

/// The phases recorded in one process, in the order they first started
/// (a phase comes before the phases run inside it). Thread-safe.
class PhaseTimes {
public:
  /// This process's record.
  static PhaseTimes &process();

  /// Records from now on.
  void start() { recording_.store(true, std::memory_order_relaxed); }
  bool recording() const {
    return recording_.load(std::memory_order_relaxed);
  }

  /// The index of phase `name` inside phase `parent` (-1: at the top),
  /// added with no run if new.
  int find(const std::string &name, int parent);
  /// Adds one run of `ms` to phase `index`.
  void add(int index, double ms);
  /// Adds one run of `ms` to phase `name` at the top: a phase that no scope
  /// spans, which overlaps others (a worker starting while this process
  /// works); nothing while the record is off.
  void addOverlapping(const std::string &name, double ms);
  /// Adds every phase of `phases` (another process's record, e.g. a tuning
  /// worker's) under phase `parent` of this one, summing with those of the
  /// same name.
  void merge(const std::vector<PhaseTime> &phases, int parent);
  std::vector<PhaseTime> phases() const;

  /// `phases` as a table, one line per phase, indented under the phase it
  /// ran in, with its runs when more than one; a phase with no run of its
  /// own (a heading, such as the tuning workers' merged phases) shows no
  /// time.
  static std::string format(const std::vector<PhaseTime> &phases);

private:
  std::atomic<bool> recording_{false};
  mutable std::mutex mutex;
  std::vector<PhaseTime> list;
};

/// Times its scope as the phase `name` of PhaseTimes::process(), inside the
/// phase this thread has open (if any); does nothing while the record is
/// off. `name` must outlive the scope.
class TimedPhase {
public:
  explicit TimedPhase(const char *name);
  ~TimedPhase() { stop(); }
  TimedPhase(const TimedPhase &) = delete;
  TimedPhase &operator=(const TimedPhase &) = delete;

  /// Ends the phase before the scope does.
  void stop();
  /// The recorded phase's index, or -1 while the record is off.
  int index() const { return slot; }

private:
  int slot = -1;
  int enclosing = -1;
  bool running = false;
  std::chrono::steady_clock::time_point begin;
};

} // namespace tuna

#endif // TUNA_RUNTIME_PHASETIMES_H
