//===- Mpi.h - The ranks of an MPI job tune together ------------*- C++ -*-===//
//
// tuna_mpi, an optional library beside tuna_runtime (built when CMake finds
// MPI): tuna::Communicator on MPI. After MPI_Init, one line makes every
// module loaded afterwards launch the same variant on every rank:
//
//   tuna::mpi::enable();            // C++: MPI_COMM_WORLD
//   tunaMpiEnable(MPI_COMM_WORLD);  // C
//
// The runtime calls MPI from the thread that launches a new signature, one
// call at a time: an application that launches from threads other than the
// one that initialized MPI needs MPI_Init_thread with at least
// MPI_THREAD_SERIALIZED. docs/runtime-api.md, "Several ranks", says what
// the ranks must do.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_MPI_MPI_H
#define TUNA_MPI_MPI_H

#include "tuna/runtime/tuna.h"

#include <mpi.h>

#ifdef __cplusplus
#include "tuna/runtime/Communicator.h"

namespace tuna::mpi {

/// A Communicator over a duplicate of `comm` (so that its messages never
/// meet the application's). Collective: every rank of `comm` calls it. Its
/// allGather polls nonblocking point-to-point messages until a deadline, so
/// a rank that never joins is named in the error instead of hanging the
/// others; after such an error the communicator refuses further exchanges.
std::shared_ptr<Communicator> communicator(MPI_Comm comm = MPI_COMM_WORLD);

/// setDefaultCommunicator(communicator(comm)).
void enable(MPI_Comm comm = MPI_COMM_WORLD);

} // namespace tuna::mpi

extern "C" {
#endif

/* tuna::mpi::enable(comm); collective over `comm`. On failure (an MPI call
 * failed, with an error handler that returns errors) the message is
 * tunaLastError(). */
TunaStatus tunaMpiEnable(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif // TUNA_MPI_MPI_H
