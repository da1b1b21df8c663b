//===- MpiCommunicator.cpp - tuna::Communicator on MPI --------------------===//
//
// allGather sends this rank's block to every other rank and receives
// theirs, all nonblocking, tagged with the call's sequence number, and
// tests the requests until they complete or the deadline passes: MPI's
// blocking collectives cannot be abandoned, and a rank that never joins
// would hang every other. Point-to-point receives also tell which ranks are
// missing. The job is small (ranks of one tuning decision) and so are the
// blocks (a few hundred bytes), so size - 1 messages per rank cost nothing
// next to a tuning.
//
//===----------------------------------------------------------------------===//

#include "tuna/mpi/Mpi.h"

#include "CApiError.h"

#include "tuna/runtime/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace tuna::mpi {

namespace {
std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

void check(int code, const char *call) {
  if (code != MPI_SUCCESS)
    throw Error(ErrorCode::Backend,
                std::string(call) + " failed: " + mpiError(code));
}

class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(MPI_Comm comm) {
    check(MPI_Comm_dup(comm, &own), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    MPI_Comm_rank(own, &me);
    MPI_Comm_size(own, &ranks);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&own);
  }

  int rank() const override { return me; }
  int size() const override { return ranks; }

  void allGather(const void *mine, size_t bytes, void *all,
                 double timeoutMs) override {
    if (!broken.empty())
      throw Error(ErrorCode::Backend,
                  "an earlier exchange between the ranks failed (" + broken +
                      "); the ranks can no longer agree");
    if (bytes > static_cast<size_t>(INT32_MAX))
      throw Error(ErrorCode::InvalidArgument,
                  "allGather of " + std::to_string(bytes) + " bytes");
    // The messages go from and into buffers of the communicator's own: an
    // exchange abandoned at its deadline leaves requests that MPI may still
    // complete (a cancel that comes too late, a send in progress), and they
    // must never touch the caller's memory, gone by then (`failed` keeps
    // the buffers for the communicator's life).
    std::vector<char> outgoing(static_cast<const char *>(mine),
                               static_cast<const char *>(mine) + bytes);
    std::vector<char> incoming(bytes * ranks);
    // Tags 1..32767: every MPI allows them.
    int tag = static_cast<int>(calls++ % 32767) + 1;
    int count = static_cast<int>(bytes);
    std::vector<MPI_Request> receives(ranks, MPI_REQUEST_NULL);
    std::vector<MPI_Request> sends(ranks, MPI_REQUEST_NULL);
    auto failed = [&](const std::string &why) {
      abandoned.push_back(std::move(outgoing));
      abandoned.push_back(std::move(incoming));
      fail(receives, sends, why);
    };
    for (int r = 0; r < ranks; ++r) {
      if (r == me)
        continue;
      int code = MPI_Irecv(incoming.data() + r * bytes, count, MPI_BYTE, r, tag,
                           own, &receives[r]);
      if (code == MPI_SUCCESS)
        code =
            MPI_Isend(outgoing.data(), count, MPI_BYTE, r, tag, own, &sends[r]);
      if (code != MPI_SUCCESS)
        failed("exchanging with rank " + std::to_string(r) + ": " +
               mpiError(code));
    }
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration<double, std::milli>(timeoutMs);
    auto pause = std::chrono::microseconds(20);
    for (;;) {
      bool pending = false;
      for (int r = 0; r < ranks; ++r) {
        // MPI_Test, unlike MPI_Testall, frees each request that completes,
        // so the ones left name the ranks still missing.
        int done = 0;
        MPI_Status status;
        if (receives[r] != MPI_REQUEST_NULL) {
          int code = MPI_Test(&receives[r], &done, &status);
          if (code != MPI_SUCCESS)
            failed("receiving from rank " + std::to_string(r) + ": " +
                   mpiError(code));
          pending |= !done;
        }
        if (sends[r] != MPI_REQUEST_NULL) {
          int code = MPI_Test(&sends[r], &done, MPI_STATUS_IGNORE);
          if (code != MPI_SUCCESS)
            failed("sending to rank " + std::to_string(r) + ": " +
                   mpiError(code));
          pending |= !done;
        }
      }
      if (!pending) {
        char *out = static_cast<char *>(all);
        for (int r = 0; r < ranks && bytes; ++r)
          std::memcpy(out + r * bytes,
                      r == me ? outgoing.data() : incoming.data() + r * bytes,
                      bytes);
        return;
      }
      if (std::chrono::steady_clock::now() >= deadline)
        failed(missing(receives, sends, timeoutMs));
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }

private:
  /// The ranks whose block has not arrived or that have not taken ours.
  std::string missing(const std::vector<MPI_Request> &receives,
                      const std::vector<MPI_Request> &sends,
                      double timeoutMs) const {
    std::string list;
    int count = 0;
    for (int r = 0; r < ranks; ++r)
      if (receives[r] != MPI_REQUEST_NULL || sends[r] != MPI_REQUEST_NULL)
        list += (count++ ? ", " : "") + std::to_string(r);
    char limit[32];
    std::snprintf(limit, sizeof(limit), "%g", timeoutMs);
    return (count == 1 ? "rank " : "ranks ") + list + " of " +
           std::to_string(ranks) + " did not join within " + limit +
           " ms (stopped, died or busy elsewhere)";
  }

  /// Abandons the exchange and every later one.
  [[noreturn]] void fail(std::vector<MPI_Request> &receives,
                         std::vector<MPI_Request> &sends, std::string why) {
    for (MPI_Request &request : receives)
      if (request != MPI_REQUEST_NULL) {
        MPI_Cancel(&request);
        MPI_Request_free(&request);
      }
    for (MPI_Request &request : sends)
      if (request != MPI_REQUEST_NULL)
        MPI_Request_free(&request);
    broken = why;
    throw Error(ErrorCode::Backend, why);
  }

  MPI_Comm own = MPI_COMM_NULL;
  int me = 0, ranks = 1;
  unsigned long long calls = 0;
  std::string broken; ///< Why an exchange failed; then all fail.
  /// The buffers of failed exchanges, which MPI may still read or write.
  std::vector<std::vector<char>> abandoned;
};
} // namespace

std::shared_ptr<Communicator> communicator(MPI_Comm comm) {
  return std::make_shared<MpiCommunicator>(comm);
}

void enable(MPI_Comm comm) { setDefaultCommunicator(communicator(comm)); }

} // namespace tuna::mpi

extern "C" TunaStatus tunaMpiEnable(MPI_Comm comm) {
  try {
    tuna::mpi::enable(comm);
    return TUNA_SUCCESS;
  } catch (const tuna::Error &e) {
    return tuna::failCApi(static_cast<TunaStatus>(e.code()),
                          std::string("tunaMpiEnable: ") + e.what());
  } catch (const std::exception &e) {
    return tuna::failCApi(TUNA_ERROR_INTERNAL,
                          std::string("tunaMpiEnable: ") + e.what());
  }
}
