//===- Spread.h - A tuning's candidates on several devices ----*- C++ -*-===//
//
// Options::spreadOverRanks and Options::tuningDevices split the candidates
// of one new signature (docs/runtime-api.md, "Tuning spread over devices"):
//
//  - over the ranks of a job: the candidate list (which every rank computes
//    alike) is dealt out in a fixed pseudo-random order, evenly, so that no
//    parameter's values gather on one rank (with position k % size, a
//    parameter of two values would give every odd position, and its cost,
//    to rank 1); each rank times its share and the Agreement's outcome
//    exchange gathers every rank's times (Agreement.h), so all decide from
//    the same numbers;
//  - over the devices of this process: the devices take this rank's share
//    a chunk at a time, each its own first chunk, then each the next chunk
//    as soon as it is free, so a slow chunk or device delays nobody else.
//    Each variant is offered first to one device, the same in every batch
//    (a device takes its own variants, then the rest of the fullest
//    other queue), so that a device loads the code of about its share.
//    Device 0 is the module's own and is timed by the tuning thread
//    itself, the others each by a thread of their own, on copies of the
//    launch's arguments, through TunedKernel::measure of a module of the
//    same bundle on that device.
//
// A search (TunedKernel::search) splits each batch of its visits so, one
// time() per batch, and gathers the ranks' results after each with
// gatherRanks(): every rank's strategy sees the same measurements.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_SPREAD_H
#define TUNA_RUNTIME_LIB_SPREAD_H

#include "KernelImpl.h"

#include <deque>
#include <functional>
#include <mutex>

namespace tuna {

/// Throws tuna::Error when `options.tuningDevices` holds `device` itself, a
/// device twice or a device of another model than `device`'s, naming it.
void checkTuningDevices(const Device &device, const Options &options);

/// Writes `timed`, a result that rank `rank` sent, into `report`, marked
/// as timed there.
void mergeRankResult(CandidateResult timed, int rank, TuningReport &report);

class CandidateSpread {
public:
  /// Spreads over the ranks of `communicator` when it is not null, and over
  /// the kernel's Options::tuningDevices, which get the arguments and start
  /// their workers at once.
  CandidateSpread(TunedKernel::Impl &kernel, StreamHandle stream,
                  const ArgValue *args, size_t count,
                  Communicator *communicator);
  /// Joins the threads still running.
  ~CandidateSpread();
  CandidateSpread(const CandidateSpread &) = delete;
  CandidateSpread &operator=(const CandidateSpread &) = delete;

  /// Splits `candidates` over the ranks and times this rank's share on
  /// the devices, which take it `chunk` candidates at a time (at most an
  /// even share; 0: one chunk per device), each timed with at least
  /// `samples` samples (0: the usual number): every device its first
  /// chunk, then each the next one as soon as it is free. `timeHere` times
  /// the module's device's chunks on this thread, then the chunks of the
  /// devices that were busy tuning for another module (they never wait:
  /// modules whose devices list each other cannot deadlock). Writes the
  /// other devices' results into `report` (a device that failed makes the
  /// chunk it was timing Unrunnable, saying why, and takes no more); the
  /// candidates other ranks time stay NotTimed, their reason says where.
  void time(const std::vector<int> &candidates, TuningReport &report,
            const std::function<void(const std::vector<int> &)> &timeHere,
            int samples = 0, size_t chunk = 0);

  /// Over the ranks, after time(): sends the results of this rank's share of
  /// time()'s candidates and what its check did, or `error` (why this rank
  /// could not time its share), and writes every other rank's results into
  /// `report` (CandidateResult::timedOn "rank R"), its check's the sum of
  /// every rank's (addCheck, in rank order): every rank ends with the same
  /// results. Throws tuna::Error naming the ranks that failed, split other
  /// candidates or did not join within `timeoutMs`.
  void gatherRanks(TuningReport &report, const std::string &error,
                   double timeoutMs);

  /// Whether other ranks time some candidates (the decision is then the
  /// Agreement's).
  bool overRanks() const { return communicator != nullptr; }
  /// The candidate list time() split.
  const std::vector<int> &candidates() const { return all; }

private:
  /// time()'s steps: the split, starting the other devices, returns the
  /// module's device's first chunk; the next chunk of device `device` (0:
  /// the module's); the wait for the other devices, which returns the busy
  /// devices' first chunks.
  std::vector<int> begin(const std::vector<int> &candidates,
                         TuningReport &report, int samples, size_t chunk);
  std::vector<int> take(size_t device);
  std::vector<int> end(TuningReport &report);

  struct Helper {
    int device = 0; ///< 1-based position: tuningDevices[device - 1].
    TunedKernel *kernel = nullptr; ///< Of the bundle, on that device.
    std::vector<int> first;        ///< Its first chunk.
    bool busy = false;             ///< Its device was tuning: it timed nothing.
    std::vector<int> taken;        ///< The candidates of the chunks it took.
    size_t timed = 0;              ///< How many of `taken` it timed.
    TuningReport report;           ///< Their results and its checks.
    std::string error;
  };
  /// What tuningDevices[index] keeps for every batch of the spread: the
  /// launch's arguments copied there and, when isolated, its worker
  /// session (whose worker waits for the next spread when it ends well).
  struct DeviceState;
  /// Module::Impl::tuningThread(index).
  JobThread &threadOf(size_t index);
  /// The kernel in Module::Impl::tuningHelper(index).
  TunedKernel &helperKernel(size_t index);
  /// Copies the launch's arguments to tuningDevices[index] on first need.
  void copyArgumentsTo(size_t index);
  /// The arguments copied to tuningDevices[index] and, when isolated, its
  /// worker started (`other`: the kernel there); on that device's thread.
  void startWorkerOn(size_t index, TunedKernel::Impl &other);
  void run(Helper &helper);
  void join();
  void copyArguments();

  TunedKernel::Impl &kernel;
  StreamHandle stream;
  std::vector<ArgValue> args;
  Communicator *communicator;
  std::vector<int> all;
  std::vector<int> mine; ///< This rank's share of `all`.
  int samples = 0;
  std::mutex chunks; ///< Guards `queues` and `left`.
  /// Per device, the candidates of `mine` offered to it first, not taken.
  std::vector<std::deque<int>> queues;
  size_t left = 0; ///< Candidates in `queues`.
  size_t chunk = 1;
  /// Whether the work queued on `stream` before the spread is done, so that
  /// the other devices can copy the buffers.
  bool copied = false;
  std::vector<Helper> helpers;
  /// Per tuning device, made when it first gets a share; kept across
  /// batches.
  std::vector<std::unique_ptr<DeviceState>> deviceStates;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_SPREAD_H
