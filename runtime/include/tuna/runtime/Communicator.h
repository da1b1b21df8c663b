//===- Communicator.h - The ranks of a job that tune together --*- C++ -*-===//
//
// In a job of several processes (ranks: one per GPU, under mpirun or a
// launcher of the application's own), every rank must launch the same
// variant for a signature, or the ranks disagree (non-reproducible runs,
// collectives that stall on the slowest rank). The application hands the
// runtime its communicator through this interface (Options::communicator,
// or setDefaultCommunicator() for every module loaded afterwards); the
// runtime then agrees on every new signature across the ranks
// (docs/runtime-api.md, "Several ranks"). The runtime does not depend on
// MPI: the optional tuna_mpi library implements this interface on MPI
// (tuna/mpi/Mpi.h), and an application can implement it on anything that
// gathers bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_COMMUNICATOR_H
#define TUNA_RUNTIME_COMMUNICATOR_H

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tuna {

/// The ranks of a job. The runtime calls it from the thread that launches
/// a new signature, one call at a time in a process (also with several
/// devices), never concurrently.
class Communicator {
public:
  virtual ~Communicator();

  /// This process's rank, in [0, size()).
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Every rank passes `bytes` bytes (the same count on every rank); on
  /// return `all` holds size() * bytes bytes, rank r's at r * bytes. Throws
  /// tuna::Error, naming the ranks that did not take part, when they have
  /// not all joined within `timeoutMs`; it must return or throw by then,
  /// never hang. After a throw the communicator may be unusable.
  virtual void allGather(const void *mine, size_t bytes, void *all,
                         double timeoutMs) = 0;

  /// Held by the runtime through each agreement, so that tunings on several
  /// devices of one process never interleave their exchanges.
  std::mutex &agreementMutex() { return agreement; }

private:
  std::mutex agreement;
};

/// Every rank's `mine` (of any length), in rank order: two allGather calls,
/// the lengths and then the padded contents, each within `timeoutMs`.
std::vector<std::string> allGatherStrings(Communicator &communicator,
                                          const std::string &mine,
                                          double timeoutMs);

/// The communicator Options::fromEnvironment() puts into every Options it
/// makes (so Module::load(path, device) and the C API use it); null, the
/// initial value, means a job of one rank. Set it once, before loading
/// modules, e.g. with tuna::mpi::enable().
void setDefaultCommunicator(std::shared_ptr<Communicator> communicator);
std::shared_ptr<Communicator> defaultCommunicator();

} // namespace tuna

#endif // TUNA_RUNTIME_COMMUNICATOR_H
