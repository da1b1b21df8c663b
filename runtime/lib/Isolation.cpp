//===- Isolation.cpp - Timing candidates in a worker process --------------===//
//
// A WorkerSession (one launch's arguments: a first call's tuning, or every
// batch of a search) makes one shared memory file (memfd) and starts a
// worker at once, with a socket on descriptor 3 and the memory on
// descriptor 4, or takes the one the module's last session left idle
// (with its memory: see "A second session" below). The memory holds the bundle's header and manifest (no code,
// BundleParts.h); the first line says what to load:
//
//   {"origin": "k.tuna", "check": true, "device": {"platform": "cuda",
//    "ordinal": 0, "fingerprint": "..."}, "manifest": {"at": 0, "bytes": N},
//    "timings": false}
//
// The worker opens the device, parses the manifest and, with "check", loads
// the device's comparison kernels while the parent prepares its first plan
// (a module that will tune starts it even before it parses the bundle
// itself), and answers {"ready": true}. Then one request
// per plan:
//
//   {"options": {...timing options...}, "order": [0, 3, 5], "failed": [2],
//    "best_median_ms": null, "budget_ms": 2000, "voters": [],
//    "session": {"kernel": "scale", "args": [{"scalar": ...} |
//      {"memref": {"type": "f32", "rank": 1, "sizes": [..], "strides": [..],
//                  "low": 0, "at": N, "bytes": 4096}} |
//      {"memref": {..., "bytes": 4096, "exported": {"handle": [bytes],
//                  "offset": N}}}, ...]},
//    "objects": [{"index": 4, "at": N, "bytes": N}, ...]}
//
// "session" comes in a session's first request to a worker: the kernel,
// and the arguments: a buffer the parent's backend can export
// (Backend::exportMemory) by its handle, which the worker maps, copies on
// its device and unmaps; the contents of the others the parent appends to
// the memory before the request. A worker that cannot map a handle answers
// {"not_imported": "why"} and exits; the parent then appends copies of
// every buffer and starts another, and the module sends copies from then
// on.
// "objects" are the bundle objects (code) of the variants of "order" and
// "voters" that this worker was not sent yet, appended to the memory once
// per session; the worker checks each against the manifest's size and
// content hash, and refuses a request that names a variant whose object it
// lacks. With the check on, "voters" may list the default variant and, for
// an application's reference, the request has "reference": {"name": "...",
// "outputs": [{"at": N, "bytes": N}, ...]} (its outputs in the same memory).
//
// Per request, the worker answers one line per step: {"start": v,
// "checking": true} and {"result": {...}} per candidate the check runs and
// rejects, {"check": {"checked": true, "against": "...", "default_rejected":
// false, "skipped": "", "on": "the device", "ms": 1.5}}, {"start": v,
// "checking": false}, {"result": {...}}, ..., and {"done": true}; or
// {"error": "..."}. With "timings", "ready" and "done" carry the worker's
// phase times ("phases", PhaseTimes.h). It waits for the next request after
// "done", unless a candidate failed (then it exits: the device may be
// unusable), and exits when the parent closes the socket.
//
// A second session: a worker idle at the end of a session (it served its
// requests, none failed) is sent {"release": true}, on which it frees the
// session's kernel and buffers (no answer), and waits, with its memory and
// the code it was sent, for the module's next session
// (Module::Impl::idleWorker). That session frees the pages of the last
// one's arguments (the offsets go on growing), appends its own and sends
// its "session" with its first request.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"

#include "AtomicFile.h"
#include "BitCast.h"
#include "BundleParts.h"
#include "Clock.h"
#include "Scratch.h"
#include "TuningJson.h"
#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Options.h"
#include "tuna/runtime/PhaseTimes.h"
#include "tuna/runtime/ScalarType.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tuna {

namespace {
using json = nlohmann::json;

/// The descriptors the worker finds its socket and its shared memory on.
constexpr int kWorkerSocket = 3;
constexpr int kWorkerMemory = 4;
/// How long a worker may take to start before it counts as hung.
constexpr double kStartupMs = 60000;

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

/// Writes `message` and a newline to the socket `fd`; false if the other
/// end is gone (never SIGPIPE).
bool sendLine(int fd, const json &message) {
  std::string line = message.dump() + "\n";
  return writeFully(line.size(), [&](size_t sent) {
    return ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
  });
}

/// An owned file descriptor.
class Descriptor {
public:
  explicit Descriptor(int fd = -1) : fd(fd) {}
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
  Descriptor(Descriptor &&other) noexcept : fd(other.fd) { other.fd = -1; }
  Descriptor &operator=(Descriptor &&other) noexcept {
    std::swap(fd, other.fd);
    return *this;
  }
  int get() const { return fd; }

private:
  int fd;
};

/// A read-write mapping of a shared memory file.
class Mapping {
public:
  /// `offset` is a multiple of the page size.
  Mapping(int fd, size_t bytes, int protection, off_t offset = 0)
      : bytes(bytes) {
    if (bytes == 0)
      return;
    void *address = ::mmap(nullptr, bytes, protection, MAP_SHARED, fd, offset);
    if (address == MAP_FAILED)
      throw Error(ErrorCode::Backend,
                  systemError("tuning worker: cannot map shared memory"));
    data = static_cast<char *>(address);
  }
  ~Mapping() {
    if (data)
      ::munmap(data, bytes);
  }
  Mapping(const Mapping &) = delete;
  Mapping &operator=(const Mapping &) = delete;

  char *data = nullptr;
  size_t bytes;
};

/// Calls fn(name, field) for every option a worker needs, with its name in
/// a request: one list for both directions.
template <typename OptionsT, typename Fn>
void forEachWorkerOption(OptionsT &options, Fn fn) {
  fn("check", options.check);
  fn("atol", options.atol);
  fn("rtol", options.rtol);
  fn("warmup_runs", options.warmupRuns);
  fn("min_runs", options.minRuns);
  fn("max_runs", options.maxRuns);
  fn("stable_tolerance", options.stableTolerance);
  fn("min_sample_ms", options.minSampleMs);
  fn("cold_timing", options.coldTiming);
  fn("eliminate_after", options.eliminateAfter);
  fn("eliminate_factor", options.eliminateFactor);
  fn("finalists", options.finalists);
  fn("final_margin", options.finalMargin);
  fn("final_rounds", options.finalRounds);
  fn("candidate_budget_ms", options.candidateBudgetMs);
  fn("total_budget_ms", options.totalBudgetMs);
}

json optionsToJson(const Options &options) {
  json value = json::object();
  forEachWorkerOption(options, [&](const char *name, const auto &field) {
    value[name] = field;
  });
  return value;
}

Options optionsFromJson(const json &value) {
  Options options;
  options.mode = TuneMode::Always;
  forEachWorkerOption(options, [&](const char *name, auto &field) {
    value.at(name).get_to(field);
  });
  return options;
}

/// Copies a worker's result into the parent's `report`.
int resultFromJson(const json &value, TuningReport &report) {
  CandidateResult result = candidateFromJson(value);
  int v = result.variant;
  if (v < 0 || static_cast<size_t>(v) >= report.candidates.size())
    throw Error(ErrorCode::Internal,
                "tuning worker: result for unknown variant " +
                    std::to_string(v));
  report.candidates[v] = std::move(result);
  return v;
}

/// A process's phase times (PhaseTimes::phases) in a message.
json phasesToJson(const std::vector<PhaseTime> &phases) {
  json value = json::array();
  for (const PhaseTime &phase : phases)
    value.push_back({phase.name, phase.parent, phase.runs, phase.ms});
  return value;
}

std::vector<PhaseTime> phasesFromJson(const json &value) {
  std::vector<PhaseTime> phases;
  for (const json &phase : value)
    phases.push_back({phase.at(0).get<std::string>(), phase.at(1).get<int>(),
                      phase.at(2).get<int>(), phase.at(3).get<double>()});
  return phases;
}

/// The shared memory of one WorkerSession, which every worker of the
/// session gets on descriptor 4: the bundle's manifest at 0, then what the
/// requests need, appended as they need it: the launch's arguments and the
/// reference's outputs (the first plan's), and the objects of the variants
/// they time.
class SharedMemory {
public:
  explicit SharedMemory(std::string_view manifest)
      : fd(::memfd_create("tuna-tuning-inputs", MFD_CLOEXEC)) {
    if (fd.get() < 0)
      throw Error(ErrorCode::Backend,
                  systemError("isolated tuning: memfd_create"));
    append(manifest);
    manifestBytes = manifest.size();
  }

  /// Writes `bytes` after what is there; returns where.
  size_t append(std::string_view bytes) {
    size_t at = grow(bytes.size(), 64);
    if (!writeFully(bytes.size(), [&](size_t done) {
          return ::pwrite(fd.get(), bytes.data() + done, bytes.size() - done,
                          static_cast<off_t>(at + done));
        }))
      throw Error(ErrorCode::Backend,
                  systemError("isolated tuning: cannot write shared memory"));
    return at;
  }

  /// Describes every memref argument in `described` and `extra` (the
  /// reference's outputs) in `placed`: with `exportBuffers`, a buffer the
  /// backend can export is described by its handle (the worker maps it and
  /// copies it on its device: Backend::exportMemory); the contents of the
  /// others and `extra` are written here. Memrefs whose extents are
  /// identical (the same buffer passed twice) share one copy.
  void appendArguments(TunedKernel::Impl &kernel, StreamHandle stream,
                       const ArgValue *args, size_t count,
                       const std::vector<std::string> &extra,
                       bool exportBuffers) {
    TimedPhase phase("shared arguments");
    struct Region {
      const char *first;
      size_t at, bytes;
      std::optional<ExportedMemory> exported;
    };
    std::vector<Region> regions;
    bool exported = false;
    // The copies from the device go to one mapping of whole pages.
    size_t first = grow(0, static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
    argumentsBegin = first;
    size_t last = first;
    for (size_t i = 0; i < count; ++i) {
      const ArgValue &arg = args[i];
      if (arg.kind == ArgSpec::Kind::Scalar) {
        described.push_back(
            {{"scalar",
              {{"type", scalarTypeName(arg.type)},
               {"int", arg.intValue},
               {"float_bits", bitCast<uint64_t>(arg.floatValue)}}}});
        continue;
      }
      const MemRefView &view = arg.memref;
      ViewExtent extent = viewExtent(view);
      auto same = std::find_if(regions.begin(), regions.end(), [&](auto &r) {
        return r.first == extent.first && r.bytes == extent.bytes;
      });
      if (same == regions.end()) {
        std::optional<ExportedMemory> handle;
        if (exportBuffers && extent.bytes)
          handle = kernel.backend.exportMemory(extent.first);
        size_t at = handle ? 0 : grow(extent.bytes, 64);
        if (!handle && extent.bytes)
          last = at + extent.bytes;
        exported |= handle.has_value();
        same = regions.insert(regions.end(), {extent.first, at, extent.bytes,
                                              std::move(handle)});
      }
      json memref = {{"type", scalarTypeName(view.type)},
                     {"rank", view.rank},
                     {"sizes",
                      std::vector<int64_t>(view.sizes, view.sizes + view.rank)},
                     {"strides", std::vector<int64_t>(
                                     view.strides, view.strides + view.rank)},
                     {"low", extent.low},
                     {"bytes", extent.bytes}};
      if (same->exported)
        memref["exported"] = {
            {"handle", std::vector<uint8_t>(same->exported->handle.begin(),
                                            same->exported->handle.end())},
            {"offset", same->exported->offset}};
      else
        memref["at"] = same->at;
      described.push_back({{"memref", std::move(memref)}});
    }
    // The worker reads exported buffers after what is queued here.
    if (exported)
      kernel.backend.synchronize(stream);
    if (last > first) {
      if (::ftruncate(fd.get(), static_cast<off_t>(last)) != 0)
        throw Error(ErrorCode::Backend,
                    systemError("isolated tuning: cannot size shared memory"));
      Mapping mapping(fd.get(), last - first, PROT_READ | PROT_WRITE,
                      static_cast<off_t>(first));
      for (const Region &region : regions)
        if (!region.exported && region.bytes)
          kernel.backend.copy(mapping.data + (region.at - first), region.first,
                              region.bytes, CopyKind::DeviceToHost, stream);
    }
    for (const std::string &bytes : extra)
      placed.push_back({{"at", append(bytes)}, {"bytes", bytes.size()}});
    argumentsEnd = end;
  }

  /// Makes room for another session's arguments: the pages of the last
  /// session's arguments and reference outputs are freed (a hole in the
  /// file; were that refused, they would only stay allocated), the objects
  /// stay, as the worker that goes on was sent them.
  void forgetArguments() {
    if (argumentsEnd > argumentsBegin)
      ::fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  static_cast<off_t>(argumentsBegin),
                  static_cast<off_t>(argumentsEnd - argumentsBegin));
    argumentsBegin = argumentsEnd = 0;
    described = json::array();
    placed = json::array();
  }

  /// Where object `index` of `module`'s bundle is, written on first use.
  const json &object(Module::Impl &module, int index) {
    auto it = objects.find(index);
    if (it != objects.end())
      return it->second;
    const std::string &data = module.bundle.objects[index].data;
    if (data.empty())
      throw Error(ErrorCode::Internal,
                  "isolated tuning: object #" + std::to_string(index) +
                      " of " + module.origin + " has no code to send");
    json placement = {
        {"index", index}, {"at", append(data)}, {"bytes", data.size()}};
    return objects.emplace(index, std::move(placement)).first->second;
  }

  Descriptor fd;
  size_t manifestBytes = 0;
  json described = json::array(); ///< The arguments, once written.
  json placed = json::array();    ///< The reference's outputs.

private:
  /// Reserves `bytes` at the next multiple of `alignment`; returns where.
  size_t grow(size_t bytes, size_t alignment) {
    size_t at = (end + alignment - 1) / alignment * alignment;
    end = at + bytes;
    return at;
  }

  size_t end = 0;
  /// The bytes appendArguments wrote last.
  size_t argumentsBegin = 0, argumentsEnd = 0;
  std::map<int, json> objects; ///< By index: {"index", "at", "bytes"}.
};

/// The worker executable: Options::workerPath, else `tuna-worker` beside
/// the binary that contains this function, else the installed one. For the
/// main program dladdr names argv[0], which has no slash when the program
/// was found on PATH (`tuna-tune` of an installed tree): /proc/self/exe
/// says where it is.
std::string workerPath(const Options &options) {
  if (!options.workerPath.empty())
    return options.workerPath;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&workerPath), &info) &&
      info.dli_fname) {
    std::string self = info.dli_fname;
    if (self.find('/') == std::string::npos) {
      char exe[4096];
      ssize_t length = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
      if (length > 0)
        self.assign(exe, length);
    }
    size_t slash = self.rfind('/');
    std::string beside = self.substr(0, slash + 1) + "tuna-worker";
    if (slash != std::string::npos && ::access(beside.c_str(), X_OK) == 0)
      return beside;
  }
  return TUNA_INSTALLED_WORKER;
}

/// One worker process and its socket; ends it (SIGKILL) when done.
class Worker {
public:
  Worker(const std::string &path, int memory) : spawned(Clock::now()) {
    if (::access(path.c_str(), X_OK) != 0)
      throw Error(ErrorCode::NotFound,
                  "isolated tuning: cannot run the worker '" + path + "' (" +
                      std::strerror(errno) +
                      "); set TUNA_WORKER or Options::workerPath to "
                      "tuna-worker");
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      throw Error(ErrorCode::Backend, systemError("isolated tuning: socket"));
    socket = Descriptor(pair[0]);
    // Above the worker's fixed descriptors, so that dup2 never maps one of
    // them onto itself (and keeps its close-on-exec flag).
    Descriptor child(::fcntl(pair[1], F_DUPFD_CLOEXEC, 10));
    Descriptor shared(::fcntl(memory, F_DUPFD_CLOEXEC, 10));
    ::close(pair[1]);
    if (child.get() < 0 || shared.get() < 0)
      throw Error(ErrorCode::Backend, systemError("isolated tuning: dup"));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child.get(), kWorkerSocket);
    posix_spawn_file_actions_adddup2(&actions, shared.get(), kWorkerMemory);
    char *argv[] = {const_cast<char *>(path.c_str()), nullptr};
    int error = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv,
                              environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
      pid = -1;
      throw Error(ErrorCode::Backend, "isolated tuning: cannot start '" +
                                          path + "': " + std::strerror(error));
    }
  }
  ~Worker() { dismiss(); }
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  /// Sends one message; false if the worker is gone.
  bool send(const json &message) { return sendLine(socket.get(), message); }

  /// The next message, or nothing when the worker closed its socket or sent
  /// nothing for `timeoutMs` (then hung() is true).
  std::optional<json> receive(double timeoutMs) {
    Clock::time_point deadline =
        Clock::now() + std::chrono::microseconds(
                           static_cast<int64_t>(timeoutMs * 1000));
    for (;;) {
      if (size_t newline = pending.find('\n'); newline != std::string::npos) {
        std::string line = pending.substr(0, newline);
        pending.erase(0, newline + 1);
        try {
          return json::parse(line);
        } catch (const json::exception &e) {
          throw Error(ErrorCode::Internal,
                      std::string("tuning worker: malformed message: ") +
                          e.what());
        }
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
      if (left <= 0) {
        timedOut = true;
        return std::nullopt;
      }
      pollfd poller = {socket.get(), POLLIN, 0};
      int ready = ::poll(&poller, 1, static_cast<int>(std::min<int64_t>(
                                         left, INT32_MAX)));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready <= 0)
        continue; // The deadline check above ends the wait.
      char buffer[4096];
      ssize_t n = ::read(socket.get(), buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return std::nullopt;
      pending.append(buffer, static_cast<size_t>(n));
    }
  }

  bool hung() const { return timedOut; }

  /// Requests it answered to the end.
  int served = 0;
  /// Whether it was sent the session (the kernel and the arguments).
  bool hasSession = false;
  /// The objects it was sent.
  std::set<int> objectsSent;

  Clock::time_point spawned;
  /// The worker's phase times so far (its latest report), added to this
  /// process's record when it ends.
  std::vector<PhaseTime> phases;

  /// Ends the worker (if it still runs) and says how it ended. Called once
  /// it answered "done", closed its socket or timed out, or on an error:
  /// nothing it does after that is needed.
  std::string end() {
    if (pid < 0)
      return "ended";
    mergePhases();
    // A worker that already died keeps its status: a signal to a zombie
    // changes nothing.
    ::kill(pid, SIGKILL);
    int status = 0;
    pid_t waited;
    do
      waited = ::waitpid(pid, &status, 0);
    while (waited < 0 && errno == EINTR);
    pid = -1;
    if (waited < 0)
      return "ended (" + systemError("waitpid") + ")";
    if (timedOut)
      return "ended";
    if (WIFSIGNALED(status))
      return "was killed by signal " + std::to_string(WTERMSIG(status)) +
             " (" + strsignal(WTERMSIG(status)) + ")";
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }

  /// Ends the worker (if it still runs) without waiting for the end: a
  /// GPU worker's exit takes a tenth of a second or more (the driver tears
  /// its context down), which nobody needs to wait for when its status is
  /// not asked for. A thread of its own reaps it.
  void dismiss() {
    if (pid < 0)
      return;
    mergePhases();
    ::kill(pid, SIGKILL);
    auto reap = [pid = pid] {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    };
    try {
      std::thread(reap).detach();
    } catch (const std::system_error &) {
      reap(); // No thread to be had: wait here.
    }
    pid = -1;
  }

private:
  void mergePhases() {
    PhaseTimes &times = PhaseTimes::process();
    if (times.recording())
      times.merge(phases, times.find("in the tuning workers", -1));
  }

  pid_t pid = -1;
  Descriptor socket;
  std::string pending;
  bool timedOut = false;
};
} // namespace

bool canIsolate(const Backend &backend) {
  const std::string &platform = backend.info().platform;
  return platform == "host" || platform == "cuda" || platform == "hip";
}

namespace {
/// What a worker said before it ended.
struct WorkerRun {
  int running = -1;       ///< The candidate it was timing, or -1.
  bool checking = false;  ///< Whether it was checking the candidate's output.
  bool done = false;      ///< Whether it said it was done.
  /// Why it could not map the exported buffers; empty when it did.
  std::string notImported;
};

/// What a fresh worker loads first, while the parent goes on: the device,
/// the bundle's manifest and, for the check, the device's comparison.
json loadRequest(const DeviceInfo &info, const Options &options,
                 std::string_view origin, const SharedMemory &memory) {
  return {{"origin", origin},
          {"check", options.check},
          {"device",
           {{"platform", info.platform},
            {"ordinal", info.ordinal},
            {"fingerprint", info.fingerprint}}},
          {"manifest", {{"at", 0}, {"bytes", memory.manifestBytes}}},
          {"timings", PhaseTimes::process().recording()}};
}

/// The parts of a request that every worker of one plan gets: the options,
/// the voters and what the check compares with.
json planRequest(const SharedMemory &memory, const TimingPlan &plan,
                 const Options &options) {
  json request = {{"options", optionsToJson(options)},
                  {"voters", plan.voters}};
  if (!plan.referenceOutputs.empty())
    request["reference"] = {{"name", plan.referenceName},
                            {"outputs", memory.placed}};
  return request;
}

/// Reads `worker`'s messages until it is done, ends or stays silent past the
/// timeout. Every result goes into `report`, leaves `remaining` and may
/// lower `bestMedian`; the check's time adds to `checkMs`.
WorkerRun readWorker(Worker &worker, const TunedKernel::Impl &kernel,
                     TuningReport &report, std::vector<int> &remaining,
                     double &bestMedian, double &checkMs) {
  const Options &options = kernel.module.options;
  WorkerRun run;
  // Starting (the device, the bundle, the buffers) is not a candidate's
  // fault and may be slow: it gets at least kStartupMs.
  double timeoutMs = std::max(options.tuneTimeoutMs, kStartupMs);
  while (std::optional<json> message = worker.receive(timeoutMs)) {
    timeoutMs = options.tuneTimeoutMs;
    if (message->contains("phases"))
      worker.phases = phasesFromJson(message->at("phases"));
    if (message->contains("not_imported")) {
      run.notImported = message->at("not_imported").get<std::string>();
      break;
    }
    if (message->contains("error"))
      throw Error(ErrorCode::Backend,
                  kernel.describe() + ": tuning worker: " +
                      message->at("error").get<std::string>());
    if (message->contains("start")) {
      run.running = message->at("start").get<int>();
      run.checking = message->at("checking").get<bool>();
    } else if (message->contains("check")) {
      const json &check = message->at("check");
      report.checked = check.at("checked").get<bool>();
      report.checkedAgainst = check.at("against").get<std::string>();
      report.defaultRejected |= check.at("default_rejected").get<bool>();
      report.checkSkipped = check.at("skipped").get<std::string>();
      report.checkedOn = check.at("on").get<std::string>();
      checkMs += check.at("ms").get<double>();
      report.checkMs += check.at("ms").get<double>();
    } else if (message->contains("result")) {
      int v = resultFromJson(message->at("result"), report);
      remaining.erase(std::remove(remaining.begin(), remaining.end(), v),
                      remaining.end());
      if (report.candidates[v].status == CandidateStatus::Measured)
        bestMedian = std::min(bestMedian, report.candidates[v].medianMs);
      run.running = -1;
    } else if (message->contains("ready")) {
      PhaseTimes::process().addOverlapping(
          "tuning worker start (spawn until ready; overlaps the above)",
          msSince(worker.spawned));
    } else if (message->contains("done")) {
      run.done = true;
      break;
    }
  }
  return run;
}

/// A worker that crashed or hung: the candidate it was timing fails and
/// leaves `remaining`; outside any candidate, the tuning fails.
void failRunningCandidate(Worker &worker, const WorkerRun &run,
                          const TunedKernel::Impl &kernel,
                          const std::string &path, TuningReport &report,
                          std::vector<int> &remaining) {
  bool hung = worker.hung();
  std::string how = worker.end();
  std::string what =
      hung ? "hung (no answer from the tuning worker within " +
                 std::to_string(
                     static_cast<int64_t>(kernel.module.options.tuneTimeoutMs)) +
                 " ms)"
           : "crashed: the tuning worker " + how;
  if (run.running < 0)
    throw Error(ErrorCode::Backend, kernel.describe() +
                                        ": isolated tuning: the worker '" +
                                        path + "' " + (hung ? "hung" : how) +
                                        " outside any candidate");
  CandidateResult &result = report.candidates[run.running];
  result.status = CandidateStatus::Failed;
  result.reason =
      run.checking ? what + " while checking its output" : what;
  remaining.erase(std::remove(remaining.begin(), remaining.end(), run.running),
                  remaining.end());
}

/// The variants that failed so far (the worker never runs them again).
std::vector<int> failedVariants(const TuningReport &report) {
  std::vector<int> failed;
  for (const CandidateResult &result : report.candidates)
    if (result.status == CandidateStatus::Failed)
      failed.push_back(result.variant);
  return failed;
}
} // namespace

/// A worker that opens the device and reads the manifest in `memory` while
/// this process goes on.
class StartedWorker {
public:
  StartedWorker(const DeviceInfo &device, const Options &options,
                std::string_view origin, std::string_view manifest)
      : memory(manifest),
        worker(std::make_unique<Worker>(workerPath(options),
                                        memory.fd.get())) {
    worker->send(loadRequest(device, options, origin, memory));
  }
  /// An idle worker of an ended session, with its memory.
  StartedWorker(SharedMemory &&memory, std::unique_ptr<Worker> worker)
      : memory(std::move(memory)), worker(std::move(worker)) {}

  SharedMemory memory;
  std::unique_ptr<Worker> worker;
};

void StartedWorkerDeleter::operator()(StartedWorker *started) const {
  delete started;
}

StartedWorkerPtr startWorkerEarly(const Device &device, const Options &options,
                                  std::string_view origin,
                                  std::string_view manifest) {
  try {
    return StartedWorkerPtr(
        new StartedWorker(device.backend().info(), options, origin, manifest));
  } catch (const Error &) {
    return nullptr; // The session that needs a worker says why.
  }
}

struct WorkerSession::State {
  State(TunedKernel::Impl &kernel, StreamHandle stream, const ArgValue *args,
        size_t count, StartedWorker &&started)
      : kernel(kernel), stream(stream), args(args), count(count),
        path(workerPath(kernel.module.options)),
        memory(std::move(started.memory)), worker(std::move(started.worker)) {
    memory.forgetArguments();
    if (worker)
      worker->hasSession = false;
  }

  /// Leaves an idle, well worker to the module's next session, its device
  /// buffers freed, when no other worker waits there.
  void leaveWorkerToTheModule() {
    StartedWorkerPtr &slot = kernel.module.idleWorker;
    if (!worker || !workerIdle || slot || !worker->send({{"release", true}}))
      return;
    slot = StartedWorkerPtr(
        new StartedWorker(std::move(memory), std::move(worker)));
  }

  TunedKernel::Impl &kernel;
  StreamHandle stream;
  const ArgValue *args;
  size_t count;
  std::string path;
  SharedMemory memory;
  /// Whether the arguments (and the first plan's reference outputs) are in
  /// `memory`.
  bool argumentsWritten = false;
  /// Up and waiting for a request (or still starting), or null.
  std::unique_ptr<Worker> worker;
  /// False while time() runs: a worker it left behind by an error may be
  /// mid-request.
  bool workerIdle = true;

  /// Starts a worker, which opens the device and reads the manifest while
  /// this process goes on.
  void startWorker() {
    worker = std::make_unique<Worker>(path, memory.fd.get());
    worker->send(loadRequest(kernel.backend.info(), kernel.module.options,
                             kernel.module.origin, memory));
  }

  /// What `worker` needs on top of `request` to run `variants`: the kernel
  /// and the arguments once, and the objects it has not been sent.
  json newToWorker(const std::vector<int> &variants) {
    json extra = json::object();
    if (!worker->hasSession)
      extra["session"] = {{"kernel", kernel.spec.name},
                          {"args", memory.described}};
    json objects = json::array();
    for (int v : variants) {
      const VariantState &variant = kernel.variants[v];
      if (variant.code < 0)
        continue;
      int index = variant.spec->code[variant.code].object;
      if (worker->objectsSent.insert(index).second)
        objects.push_back(memory.object(kernel.module, index));
    }
    if (!objects.empty())
      extra["objects"] = std::move(objects);
    return extra;
  }
};

namespace {
/// The module's idle worker if it has one, else one started now.
StartedWorker takeOrStartWorker(TunedKernel::Impl &kernel) {
  Module::Impl &module = kernel.module;
  if (StartedWorkerPtr idle = std::move(module.idleWorker))
    return std::move(*idle);
  return StartedWorker(kernel.backend.info(), module.options, module.origin,
                       module.workerManifest());
}
} // namespace

WorkerSession::WorkerSession(TunedKernel::Impl &kernel, StreamHandle stream,
                             const ArgValue *args, size_t count)
    : state(std::make_unique<State>(kernel, stream, args, count,
                                    takeOrStartWorker(kernel))) {
  ++started;
}

WorkerSession::~WorkerSession() {
  try {
    state->leaveWorkerToTheModule();
  } catch (const std::exception &) {
    // Out of memory for the hand-over: the worker ends, as without it.
  }
}

void WorkerSession::time(const TimingPlan &plan, const Options &options,
                         TuningReport &report) {
  TunedKernel::Impl &kernel = state->kernel;
  state->workerIdle = false;
  auto writeArguments = [&] {
    state->memory.appendArguments(kernel, state->stream, state->args,
                                  state->count, plan.referenceOutputs,
                                  !kernel.module.workersCopyBuffers);
    state->argumentsWritten = true;
  };
  if (!state->argumentsWritten)
    writeArguments();
  json request = planRequest(state->memory, plan, options);

  std::vector<int> remaining = plan.order;
  double bestMedian = plan.bestMedianMs;
  Clock::time_point start = Clock::now();
  double checkMs = 0; // Not the timing budget's.
  while (!remaining.empty()) {
    std::vector<int> failed = failedVariants(report);
    request["order"] = remaining;
    request["failed"] = failed;
    request["best_median_ms"] = std::isfinite(bestMedian) ? json(bestMedian)
                                                          : json(nullptr);
    request["budget_ms"] = plan.budgetMs - (msSince(start) - checkMs);

    if (!state->worker) {
      state->startWorker();
      ++started;
    }
    Worker &worker = *state->worker;
    bool reused = worker.served > 0;
    std::vector<int> needed = remaining;
    needed.insert(needed.end(), plan.voters.begin(), plan.voters.end());
    json message = request;
    message.update(state->newToWorker(needed));
    TimedPhase phase("worker request");
    worker.hasSession = true;
    worker.send(message);
    size_t before = remaining.size();
    WorkerRun run =
        readWorker(worker, kernel, report, remaining, bestMedian, checkMs);
    phase.stop();
    if (!run.notImported.empty()) {
      // This and the module's next sessions send copies.
      if (kernel.module.options.verbose)
        std::fprintf(stderr, "tuna: %s: %s; sending copies instead\n",
                     kernel.describe().c_str(), run.notImported.c_str());
      kernel.module.workersCopyBuffers = true;
      state->worker.reset();
      state->memory.forgetArguments();
      writeArguments();
      request = planRequest(state->memory, plan, options);
      continue;
    }
    if (run.done && remaining.size() == before)
      throw Error(ErrorCode::Internal,
                  kernel.describe() + ": the tuning worker timed nothing");
    if (run.done) {
      ++worker.served;
      // A worker stops after a failed candidate; resume the rest in a
      // fresh one.
      if (!remaining.empty() || failedVariants(report).size() > failed.size())
        state->worker.reset();
      continue;
    }
    if (reused && run.running < 0) {
      // It ended while waiting for this request: not this plan's fault.
      state->worker.reset();
      continue;
    }
    failRunningCandidate(worker, run, kernel, state->path, report, remaining);
    state->worker.reset();
  }
  state->workerIdle = true;
}

//===----------------------------------------------------------------------===//
// The worker
//===----------------------------------------------------------------------===//

namespace {
/// Writes a message to the parent; ends the worker if the parent is gone.
void answer(const json &message) {
  if (!sendLine(kWorkerSocket, message))
    std::_Exit(1);
}

class Reporter final : public TimingObserver {
public:
  void starting(int variant, bool checking) override {
    answer({{"start", variant}, {"checking", checking}});
  }
  void checked(const TuningReport &report, double ms) override {
    answer({{"check",
             {{"checked", report.checked},
              {"against", report.checkedAgainst},
              {"default_rejected", report.defaultRejected},
              {"skipped", report.checkSkipped},
              {"on", report.checkedOn},
              {"ms", ms}}}});
  }
  void finished(const TuningReport &report, int variant) override {
    const CandidateResult &result = report.candidates[variant];
    anyFailed |= result.status == CandidateStatus::Failed;
    answer({{"result", candidateToJson(result)}});
  }

  /// Whether a candidate failed (the device may be unusable since).
  bool anyFailed = false;
};

/// `message` with this process's phase times when they are recorded.
json withPhases(json message) {
  PhaseTimes &times = PhaseTimes::process();
  if (times.recording())
    message["phases"] = phasesToJson(times.phases());
  return message;
}

/// The next request; nothing when the parent closed the socket after the
/// load request (none: the worker was not started by the runtime).
std::optional<json> readRequest(bool loaded) {
  std::string line;
  char c;
  for (;;) {
    ssize_t n = ::read(kWorkerSocket, &c, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 && loaded && line.empty())
      return std::nullopt;
    if (n <= 0)
      throw Error(ErrorCode::InvalidArgument,
                  "no request on descriptor 3 (tuna-worker is started by "
                  "the runtime for isolated tuning, not by hand)");
    if (c == '\n')
      return json::parse(line);
    line += c;
  }
}

/// `bytes` bytes at `at` of the shared memory.
std::string readShared(size_t at, size_t bytes) {
  std::string data(bytes, '\0');
  for (size_t done = 0; done < bytes;) {
    ssize_t n = ::pread(kWorkerMemory, data.data() + done, bytes - done,
                        static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw Error(ErrorCode::Backend,
                  systemError("cannot read the shared memory"));
    if (n == 0)
      throw Error(ErrorCode::InvalidArgument,
                  "the shared memory ends before byte " +
                      std::to_string(at + bytes) + " of a request");
    done += static_cast<size_t>(n);
  }
  return data;
}

/// The plan of `request`, whose reference's outputs are in the shared
/// memory.
TimingPlan planFromJson(const json &request) {
  TimingPlan plan;
  request.at("order").get_to(plan.order);
  const json &best = request.at("best_median_ms");
  plan.bestMedianMs = best.is_null() ? INFINITY : best.get<double>();
  request.at("budget_ms").get_to(plan.budgetMs);
  request.at("voters").get_to(plan.voters);
  if (request.contains("reference")) {
    const json &reference = request.at("reference");
    reference.at("name").get_to(plan.referenceName);
    for (const json &output : reference.at("outputs"))
      plan.referenceOutputs.push_back(readShared(
          output.at("at").get<size_t>(), output.at("bytes").get<size_t>()));
  }
  return plan;
}

Device openDevice(const json &value) {
  std::string platform = value.at("platform").get<std::string>();
  Device device = platform == "cuda"  ? Device::cuda(value.at("ordinal"))
                  : platform == "hip" ? Device::hip(value.at("ordinal"))
                                      : Device::host();
  if (device.info().fingerprint != value.at("fingerprint").get<std::string>())
    throw Error(ErrorCode::Unsupported,
                "the worker's device '" + device.info().fingerprint +
                    "' is not the application's '" +
                    value.at("fingerprint").get<std::string>() + "'");
  return device;
}

/// A buffer the parent exported that this worker could not map: the
/// parent sends copies instead.
class NotImported : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The start of the parent's exported allocation `exported` ({"handle"}),
/// mapped here; throws NotImported when it cannot be, or when
/// TUNA_IMPORT_BUFFERS=0 says not to try.
void *importBuffer(Backend &backend, const json &exported) {
  if (!environmentFlag("TUNA_IMPORT_BUFFERS", true))
    throw NotImported("TUNA_IMPORT_BUFFERS=0");
  try {
    std::vector<uint8_t> handle =
        exported.at("handle").get<std::vector<uint8_t>>();
    return backend.importMemory(std::string(handle.begin(), handle.end()));
  } catch (const Error &e) {
    throw NotImported(e.what());
  }
}

/// The launch's arguments, with each memref in a device copy of its
/// contents: from the shared memory, or from the parent's buffer when it
/// was exported.
class WorkerArgs {
public:
  WorkerArgs(Backend &backend, const json &described, const char *memory)
      : backend(backend) {
    for (const json &value : described) {
      ArgValue arg;
      if (value.contains("scalar")) {
        const json &scalar = value.at("scalar");
        arg.type = *parseScalarType(scalar.at("type").get<std::string>());
        arg.intValue = scalar.at("int").get<int64_t>();
        arg.floatValue =
            bitCast<double>(scalar.at("float_bits").get<uint64_t>());
        values.push_back(arg);
        continue;
      }
      const json &memref = value.at("memref");
      arg.kind = ArgSpec::Kind::MemRef;
      arg.type = *parseScalarType(memref.at("type").get<std::string>());
      MemRefView &view = arg.memref;
      view.type = arg.type;
      view.rank = memref.at("rank").get<int>();
      for (int d = 0; d < view.rank; ++d) {
        view.sizes[d] = memref.at("sizes").at(d).get<int64_t>();
        view.strides[d] = memref.at("strides").at(d).get<int64_t>();
      }
      view.offset = -memref.at("low").get<int64_t>();
      size_t bytes = memref.at("bytes").get<size_t>();
      if (bytes)
        view.allocated = view.aligned = copyOf(memref, bytes, memory);
      values.push_back(arg);
    }
  }
  ~WorkerArgs() {
    for (void *buffer : buffers)
      backend.deallocate(buffer);
  }
  WorkerArgs(const WorkerArgs &) = delete;
  WorkerArgs &operator=(const WorkerArgs &) = delete;

  std::vector<ArgValue> values;

private:
  /// The device copy of `memref`'s `bytes`, made once per region.
  char *copyOf(const json &memref, size_t bytes, const char *memory) {
    const json &exported = memref.value("exported", json());
    std::string region = exported.is_null()
                             ? std::to_string(memref.at("at").get<size_t>())
                             : exported.dump();
    char *&copy = copies[region];
    if (copy)
      return copy;
    copy = static_cast<char *>(backend.allocate(bytes));
    buffers.push_back(copy);
    if (exported.is_null()) {
      backend.copy(copy, memory + memref.at("at").get<size_t>(), bytes,
                   CopyKind::HostToDevice, nullptr);
      return copy;
    }
    char *base = static_cast<char *>(importBuffer(backend, exported));
    try {
      backend.copy(copy, base + exported.at("offset").get<size_t>(), bytes,
                   CopyKind::DeviceToDevice, nullptr);
    } catch (...) {
      backend.closeImportedMemory(base);
      throw;
    }
    backend.closeImportedMemory(base);
    return copy;
  }

  Backend &backend;
  std::vector<void *> buffers;
  std::map<std::string, char *> copies; ///< By region.
};

/// What a worker holds: the device and the bundle's manifest from the load
/// request, the kernel and the arguments from the session, and the objects
/// the requests carried.
class WorkerState {
public:
  explicit WorkerState(const json &load)
      : origin(load.at("origin").get<std::string>()),
        device(openDeviceTimed(load.at("device"))),
        module(readBundleManifest(
                   readShared(load.at("manifest").at("at").get<size_t>(),
                              load.at("manifest").at("bytes").get<size_t>()),
                   origin, blobs),
               origin, device, moduleOptions(), objectNotSent) {
    // Loaded now, while the parent prepares the first request.
    if (load.value("check", false))
      module.deviceComparison();
  }

  /// Takes what `request` brings (the session, objects) and checks that it
  /// can time the variants it names.
  void accept(const json &request) {
    if (request.contains("session"))
      startSession(request.at("session"));
    if (!kernel)
      throw Error(ErrorCode::InvalidArgument,
                  "a request before the session (the kernel and the "
                  "arguments)");
    if (request.contains("objects")) {
      TimedPhase phase("objects");
      for (const json &object : request.at("objects"))
        receiveObject(object);
    }
    std::vector<int> variants = request.at("order").get<std::vector<int>>();
    for (int v : request.at("voters").get<std::vector<int>>())
      variants.push_back(v);
    for (int v : variants)
      checkCode(v);
  }

  /// Frees the session's buffers and kernel; the code stays loaded.
  void release() {
    args.reset();
    kernel.reset();
  }

  TunedKernel::Impl &tunedKernel() { return *kernel; }
  const std::vector<ArgValue> &arguments() const { return args->values; }

private:
  static Device openDeviceTimed(const json &value) {
    TimedPhase phase("device open");
    return openDevice(value);
  }

  static Options moduleOptions() {
    Options options;
    options.mode = TuneMode::Always;
    return options;
  }

  [[noreturn]] static std::vector<std::string>
  objectNotSent(const std::vector<int> &objects) {
    throw Error(ErrorCode::Internal,
                "object #" + std::to_string(objects.front()) +
                    " was not sent to the tuning worker");
  }

  /// The kernel and arguments of `session`, in place of the last
  /// session's.
  void startSession(const json &session) {
    release();
    std::string name = session.at("kernel").get<std::string>();
    auto spec = std::find_if(
        module.bundle.kernels.begin(), module.bundle.kernels.end(),
        [&](const Kernel &kernel) { return kernel.name == name; });
    if (spec == module.bundle.kernels.end())
      throw Error(ErrorCode::NotFound,
                  "the bundle has no kernel '" + name + "'");
    TimedPhase setup("kernel setup");
    kernel = std::make_unique<TunedKernel::Impl>(module, *spec);
    setup.stop();
    TimedPhase phase("arguments");
    struct stat info;
    if (::fstat(kWorkerMemory, &info) != 0)
      throw Error(ErrorCode::InvalidArgument,
                  systemError("no shared memory on descriptor 4"));
    Mapping memory(kWorkerMemory, static_cast<size_t>(info.st_size),
                   PROT_READ);
    args = std::make_unique<WorkerArgs>(device.backend(), session.at("args"),
                                        memory.data);
  }

  /// Object {"index", "at", "bytes"} of the shared memory, checked against
  /// the manifest (whose size is 0 for code compiled on demand).
  void receiveObject(const json &placement) {
    int index = placement.at("index").get<int>();
    if (index < 0 || static_cast<size_t>(index) >= blobs.size())
      throw Error(ErrorCode::InvalidArgument,
                  "object #" + std::to_string(index) + ": the bundle has " +
                      std::to_string(blobs.size()) + " objects");
    std::string data = readShared(placement.at("at").get<size_t>(),
                                  placement.at("bytes").get<size_t>());
    const BlobPlacement &blob = blobs[index];
    if (blob.size && (data.size() != blob.size || fnv1a64(data) != blob.hash))
      throw Error(ErrorCode::InvalidArgument,
                  "object #" + std::to_string(index) +
                      " is not the one the manifest describes");
    module.bundle.objects[index].data = std::move(data);
  }

  /// Variant `v` must be the kernel's, and its code (if the device has
  /// any) loaded or sent.
  void checkCode(int v) const {
    if (v < 0 || static_cast<size_t>(v) >= kernel->variants.size())
      throw Error(ErrorCode::InvalidArgument,
                  "the request names variant " + std::to_string(v) +
                      "; kernel '" + kernel->spec.name + "' has " +
                      std::to_string(kernel->variants.size()));
    const VariantState &variant = kernel->variants[v];
    if (variant.code < 0 || variant.function)
      return;
    int index = variant.spec->code[variant.code].object;
    if (module.bundle.objects[index].data.empty())
      throw Error(ErrorCode::InvalidArgument,
                  "the request names variant '" + variant.spec->name +
                      "', whose object #" + std::to_string(index) +
                      " no request carried");
  }

  std::string origin;
  Device device;
  std::vector<BlobPlacement> blobs;
  Module::Impl module;
  std::unique_ptr<TunedKernel::Impl> kernel;
  std::unique_ptr<WorkerArgs> args;
};

void serve() {
  json load = *readRequest(/*loaded=*/false);
  if (load.value("timings", false))
    PhaseTimes::process().start();
  WorkerState state(load);
  answer(withPhases({{"ready", true}}));
  while (std::optional<json> request = readRequest(/*loaded=*/true)) {
    if (request->value("release", false)) {
      state.release();
      continue;
    }
    Reporter reporter;
    TimedPhase phase("request");
    state.accept(*request);
    TunedKernel::Impl &kernel = state.tunedKernel();
    timeForWorker(kernel, optionsFromJson(request->at("options")),
                  state.arguments().data(), state.arguments().size(),
                  planFromJson(*request),
                  request->at("failed").get<std::vector<int>>(), reporter);
    phase.stop();
    answer(withPhases({{"done", true}}));
    if (reporter.anyFailed)
      return;
  }
}
} // namespace

int runTuningWorker() {
  // Never outlive the application; a candidate that crashes leaves no core
  // file.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_DUMPABLE, 0);
  try {
    serve();
    return 0;
  } catch (const NotImported &e) {
    answer({{"not_imported", std::string("could not map the application's "
                                         "buffers: ") +
                                 e.what()}});
    return 1;
  } catch (const std::exception &e) { // tuna::Error or json::exception.
    answer({{"error", e.what()}});
    return 1;
  }
}

} // namespace tuna
