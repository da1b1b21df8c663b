//===- Ranks.h - tuna-tune spread over the ranks of an MPI job --*- C++ -*-===//
//
// Under mpirun (when built with tuna_mpi), tuna-tune's ranks split the work:
// each (kernel, bucket) belongs to one rank, round-robin in the order the
// buckets first appear, and that rank tunes every shape of it, exactly as a
// single tuna-tune would. Rank 0 then gathers every rank's lines and
// decisions, prints them in the single run's order, and alone writes the
// database and the report. The ranks must run on one device model, with the
// same bundle, kernels and shapes (checked: the error names the ranks).
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TOOLS_TUNA_TUNE_RANKS_H
#define TUNA_TOOLS_TUNA_TUNE_RANKS_H

#include "Report.h"

#include "tuna/runtime/Communicator.h"
#include "tuna/runtime/Module.h"

#include <memory>
#include <string>
#include <vector>

namespace tuna::tune {

/// What tuna-tune did for one (kernel, shape) item.
struct ItemResult {
  size_t item = 0;    ///< Position in the single run's order.
  int rank = 0;       ///< The rank that tuned it.
  std::string output; ///< Its lines on stdout.
  bool failed = false;
  bool decided = false; ///< `decision` holds a fresh decision.
  Decision decision;
};

class Ranks {
public:
  /// Joins the MPI job that launched this process (mpirun), if tuna-tune
  /// was built with MPI and was launched so; else a job of one rank.
  Ranks(int &argc, char **&argv);
  ~Ranks();
  Ranks(const Ranks &) = delete;
  Ranks &operator=(const Ranks &) = delete;

  int rank() const { return communicator ? communicator->rank() : 0; }
  int size() const { return communicator ? communicator->size() : 1; }
  /// This process's rank among those of its host (for --device cuda:local).
  int localRank() const { return local; }

  /// Throws tuna::Error naming the ranks whose device differs from rank 0's.
  void checkSameDevice(const DeviceInfo &info);

  /// Throws tuna::Error, on every rank, naming the ranks that tune other
  /// kernels (names, source hashes), another bundle (its content) or other
  /// shapes than rank 0: the ranks split rank 0's work, and rank 0 writes
  /// the database of every rank's decisions under its bundle's hashes.
  void checkSameWork(const Module &module,
                     const std::vector<TunedKernel *> &kernels,
                     const std::vector<std::vector<int64_t>> &shapes);

  /// The rank that tunes each of `buckets` (one entry per item: an id of
  /// its kernel and bucket): round-robin over the distinct buckets.
  std::vector<int> owners(const std::vector<std::string> &buckets) const;

  /// The job's communicator; null for one rank.
  std::shared_ptr<Communicator> job() const { return communicator; }

  /// --agree: of every rank's results (gather()), rank 0's, each marked
  /// failed where another rank decided another variant; prints how many
  /// decisions all ranks share.
  std::vector<ItemResult> keepAgreed(std::vector<ItemResult> all) const;

  /// Every rank's results, in item order, at rank 0 (elsewhere: `mine`).
  /// Decisions name kernels of `module`.
  std::vector<ItemResult> gather(std::vector<ItemResult> mine,
                                 const Module &module);

private:
  std::shared_ptr<Communicator> communicator;
  int local = 0;
};

} // namespace tuna::tune

#endif // TUNA_TOOLS_TUNA_TUNE_RANKS_H
