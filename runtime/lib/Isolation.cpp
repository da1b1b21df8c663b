//===- Isolation.cpp - Timing candidates in a worker process --------------===//
//
// The parent writes the bundle and the contents of every memref argument
// into one shared memory file (memfd) once per WorkerSession (one launch's
// arguments: a first call's tuning, or every batch of a search), starts the
// worker with a socket on descriptor 3 and the memory on descriptor 4, and
// sends one request line per plan; the first also says what to load:
//
//   {"kernel": "scale", "device": {"platform": "cuda", "ordinal": 0,
//    "fingerprint": "..."}, "bundle": {"at": 0, "bytes": N},
//    "args": [{"scalar": ...} |
//    {"memref": {"type": "f32", "rank": 1, "sizes": [..], "strides": [..],
//                "low": 0, "at": N, "bytes": 4096}}, ...],
//    "options": {...timing options...}, "order": [0, 3, 5], "failed": [2],
//    "best_median_ms": null, "budget_ms": 2000, "voters": []}
//
// Later requests carry only "options" to "voters". With the check on,
// "voters" may list the default variant and, for an application's
// reference, the request has "reference": {"name": "...", "outputs":
// [{"at": N, "bytes": N}, ...]} (its outputs in the same shared memory).
//
// The worker answers {"ready": true} once, then per request one line per
// step: {"start": v, "checking": true} and {"result": {...}} per candidate
// the check runs and rejects, {"check": {"checked": true, "against": "...",
// "default_rejected": false, "skipped": "", "on": "the device", "ms":
// 1.5}}, {"start": v, "checking": false}, {"result": {...}}, ..., and
// {"done": true}; or {"error": "..."}. It waits for the next request after
// "done", unless a candidate failed (then it exits: the device may be
// unusable), and exits when the parent closes the socket.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"

#include "Scratch.h"
#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/ScalarType.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

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
using Clock = std::chrono::steady_clock;

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
  for (size_t sent = 0; sent < line.size();) {
    ssize_t n = ::send(fd, line.data() + sent, line.size() - sent,
                       MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    sent += static_cast<size_t>(n);
  }
  return true;
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
  Mapping(int fd, size_t bytes, int protection) : bytes(bytes) {
    if (bytes == 0)
      return;
    void *address = ::mmap(nullptr, bytes, protection, MAP_SHARED, fd, 0);
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
  fn("eliminate_after", options.eliminateAfter);
  fn("eliminate_factor", options.eliminateFactor);
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

json resultToJson(const CandidateResult &result) {
  return {{"variant", result.variant},
          {"status", static_cast<int>(result.status)},
          {"reason", result.reason},
          {"median_ms", result.medianMs},
          {"min_ms", result.minMs},
          {"max_ms", result.maxMs},
          {"samples", result.samples}};
}

/// Copies a worker's result into the parent's `report`.
int resultFromJson(const json &value, TuningReport &report) {
  int v = value.at("variant").get<int>();
  if (v < 0 || static_cast<size_t>(v) >= report.candidates.size())
    throw Error(ErrorCode::Internal,
                "tuning worker: result for unknown variant " +
                    std::to_string(v));
  CandidateResult &result = report.candidates[v];
  result.status = static_cast<CandidateStatus>(value.at("status").get<int>());
  value.at("reason").get_to(result.reason);
  value.at("median_ms").get_to(result.medianMs);
  value.at("min_ms").get_to(result.minMs);
  value.at("max_ms").get_to(result.maxMs);
  value.at("samples").get_to(result.samples);
  return v;
}

uint64_t floatBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

double bitsFloat(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// The bundle and the contents of every memref argument, in one shared
/// memory file, with the request's description of the arguments. Memrefs
/// whose extents are identical (the same buffer passed twice) share one
/// copy.
class SharedInputs {
public:
  /// `extra` (the reference's outputs) follows the arguments; `placed`
  /// describes where.
  SharedInputs(TunedKernel::Impl &kernel, StreamHandle stream,
               const ArgValue *args, size_t count,
               const std::vector<std::string> &extra)
      : fd(::memfd_create("tuna-tuning-inputs", MFD_CLOEXEC)) {
    if (fd.get() < 0)
      throw Error(ErrorCode::Backend,
                  systemError("isolated tuning: memfd_create"));
    std::string bundle = writeBundle(kernel.module.bundle);
    struct Region {
      const char *first;
      size_t at, bytes;
    };
    std::vector<Region> regions;
    size_t end = bundle.size();
    auto align = [](size_t at) { return (at + 63) / 64 * 64; };
    for (size_t i = 0; i < count; ++i) {
      const ArgValue &arg = args[i];
      if (arg.kind == ArgSpec::Kind::Scalar) {
        described.push_back(
            {{"scalar",
              {{"type", scalarTypeName(arg.type)},
               {"int", arg.intValue},
               {"float_bits", floatBits(arg.floatValue)}}}});
        continue;
      }
      const MemRefView &view = arg.memref;
      ViewExtent extent = viewExtent(view);
      auto same = std::find_if(regions.begin(), regions.end(), [&](auto &r) {
        return r.first == extent.first && r.bytes == extent.bytes;
      });
      size_t at = same != regions.end() ? same->at : align(end);
      if (same == regions.end() && extent.bytes) {
        regions.push_back({extent.first, at, extent.bytes});
        end = at + extent.bytes;
      }
      described.push_back(
          {{"memref",
            {{"type", scalarTypeName(view.type)},
             {"rank", view.rank},
             {"sizes", std::vector<int64_t>(view.sizes,
                                            view.sizes + view.rank)},
             {"strides", std::vector<int64_t>(view.strides,
                                              view.strides + view.rank)},
             {"low", extent.low},
             {"at", at},
             {"bytes", extent.bytes}}}});
    }
    std::vector<size_t> extraAt;
    for (const std::string &bytes : extra) {
      extraAt.push_back(align(end));
      end = extraAt.back() + bytes.size();
      placed.push_back({{"at", extraAt.back()}, {"bytes", bytes.size()}});
    }
    if (::ftruncate(fd.get(), static_cast<off_t>(end)) != 0)
      throw Error(ErrorCode::Backend,
                  systemError("isolated tuning: cannot size shared memory"));
    Mapping mapping(fd.get(), end, PROT_READ | PROT_WRITE);
    std::memcpy(mapping.data, bundle.data(), bundle.size());
    bundleBytes = bundle.size();
    for (const Region &region : regions)
      kernel.backend.copy(mapping.data + region.at, region.first, region.bytes,
                          CopyKind::DeviceToHost, stream);
    for (size_t i = 0; i < extra.size(); ++i)
      std::memcpy(mapping.data + extraAt[i], extra[i].data(), extra[i].size());
  }

  Descriptor fd;
  size_t bundleBytes = 0;
  json described = json::array();
  json placed = json::array();
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
  Worker(const std::string &path, int memory) {
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
  ~Worker() { end(); }
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

  /// Ends the worker (if it still runs) and says how it ended. Called once
  /// it answered "done", closed its socket or timed out, or on an error:
  /// nothing it does after that is needed.
  std::string end() {
    if (pid < 0)
      return "ended";
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

private:
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
};

/// What a fresh worker loads: the kernel, the device, the bundle and the
/// arguments.
json loadRequest(const TunedKernel::Impl &kernel, const SharedInputs &inputs) {
  const DeviceInfo &info = kernel.backend.info();
  return {{"kernel", kernel.spec.name},
          {"origin", kernel.module.origin},
          {"device",
           {{"platform", info.platform},
            {"ordinal", info.ordinal},
            {"fingerprint", info.fingerprint}}},
          {"bundle", {{"at", 0}, {"bytes", inputs.bundleBytes}}},
          {"args", inputs.described}};
}

/// The parts of a request that every worker of one plan gets: the options,
/// the voters and what the check compares with.
json planRequest(const SharedInputs &inputs, const TimingPlan &plan,
                 const Options &options) {
  json request = {{"options", optionsToJson(options)},
                  {"voters", plan.voters}};
  if (!plan.referenceOutputs.empty())
    request["reference"] = {{"name", plan.referenceName},
                            {"outputs", inputs.placed}};
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

struct WorkerSession::State {
  TunedKernel::Impl &kernel;
  StreamHandle stream;
  const ArgValue *args;
  size_t count;
  std::string path;
  /// Made by the first plan (with its reference's outputs).
  std::unique_ptr<SharedInputs> inputs;
  /// Up and waiting for a request, or null.
  std::unique_ptr<Worker> worker;
};

WorkerSession::WorkerSession(TunedKernel::Impl &kernel, StreamHandle stream,
                             const ArgValue *args, size_t count)
    : state(new State{kernel, stream, args, count,
                      workerPath(kernel.module.options), nullptr, nullptr}) {}

WorkerSession::~WorkerSession() = default;

void WorkerSession::time(const TimingPlan &plan, const Options &options,
                         TuningReport &report) {
  TunedKernel::Impl &kernel = state->kernel;
  if (!state->inputs)
    state->inputs = std::make_unique<SharedInputs>(
        kernel, state->stream, state->args, state->count,
        plan.referenceOutputs);
  json request = planRequest(*state->inputs, plan, options);

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
    request["budget_ms"] =
        plan.budgetMs -
        (std::chrono::duration<double, std::milli>(Clock::now() - start)
             .count() -
         checkMs);

    bool reused = state->worker != nullptr;
    json message = request;
    if (!reused) {
      state->worker =
          std::make_unique<Worker>(state->path, state->inputs->fd.get());
      ++started;
      message.update(loadRequest(kernel, *state->inputs));
    }
    Worker &worker = *state->worker;
    worker.send(message);
    size_t before = remaining.size();
    WorkerRun run =
        readWorker(worker, kernel, report, remaining, bestMedian, checkMs);
    if (run.done && remaining.size() == before)
      throw Error(ErrorCode::Internal,
                  kernel.describe() + ": the tuning worker timed nothing");
    if (run.done) {
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
    answer({{"result", resultToJson(result)}});
  }

  /// Whether a candidate failed (the device may be unusable since).
  bool anyFailed = false;
};

/// The next request; nothing when the parent closed the socket after
/// `served` requests (none: the worker was not started by the runtime).
std::optional<json> readRequest(int served) {
  std::string line;
  char c;
  for (;;) {
    ssize_t n = ::read(kWorkerSocket, &c, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 && served > 0 && line.empty())
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

/// The plan of `request`, whose reference's outputs are in `memory`.
TimingPlan planFromJson(const json &request, const char *memory) {
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
      plan.referenceOutputs.emplace_back(
          memory + output.at("at").get<size_t>(),
          output.at("bytes").get<size_t>());
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

/// The launch's arguments, with each memref in a device copy of its
/// contents.
class WorkerArgs {
public:
  WorkerArgs(Backend &backend, const json &described, const char *memory)
      : backend(backend) {
    std::map<size_t, char *> copies; // By offset in the shared memory.
    for (const json &value : described) {
      ArgValue arg;
      if (value.contains("scalar")) {
        const json &scalar = value.at("scalar");
        arg.type = *parseScalarType(scalar.at("type").get<std::string>());
        arg.intValue = scalar.at("int").get<int64_t>();
        arg.floatValue = bitsFloat(scalar.at("float_bits").get<uint64_t>());
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
      size_t at = memref.at("at").get<size_t>();
      size_t bytes = memref.at("bytes").get<size_t>();
      if (bytes) {
        char *&copy = copies[at];
        if (!copy) {
          copy = static_cast<char *>(backend.allocate(bytes));
          buffers.push_back(copy);
          backend.copy(copy, memory + at, bytes, CopyKind::HostToDevice,
                       nullptr);
        }
        view.allocated = view.aligned = copy;
      }
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
  Backend &backend;
  std::vector<void *> buffers;
};

void serve() {
  json request = *readRequest(/*served=*/0);
  struct stat info;
  if (::fstat(kWorkerMemory, &info) != 0)
    throw Error(ErrorCode::InvalidArgument,
                systemError("no shared memory on descriptor 4"));
  Mapping memory(kWorkerMemory, static_cast<size_t>(info.st_size), PROT_READ);
  Device device = openDevice(request.at("device"));
  std::string origin = request.at("origin").get<std::string>();
  const json &bundle = request.at("bundle");
  Module::Impl module(
      readBundle(std::string_view(memory.data + bundle.at("at").get<size_t>(),
                                  bundle.at("bytes").get<size_t>()),
                 origin),
      origin, device, optionsFromJson(request.at("options")));
  std::string name = request.at("kernel").get<std::string>();
  auto spec = std::find_if(
      module.bundle.kernels.begin(), module.bundle.kernels.end(),
      [&](const Kernel &kernel) { return kernel.name == name; });
  if (spec == module.bundle.kernels.end())
    throw Error(ErrorCode::NotFound, "the bundle has no kernel '" + name + "'");
  TunedKernel::Impl kernel(module, *spec);
  WorkerArgs args(device.backend(), request.at("args"), memory.data);
  answer({{"ready", true}});

  for (int served = 1;; ++served) {
    Reporter reporter;
    timeForWorker(kernel, optionsFromJson(request.at("options")),
                  args.values.data(), args.values.size(),
                  planFromJson(request, memory.data),
                  request.at("failed").get<std::vector<int>>(), reporter);
    answer({{"done", true}});
    if (reporter.anyFailed)
      return;
    std::optional<json> next = readRequest(served);
    if (!next)
      return;
    request = std::move(*next);
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
  } catch (const std::exception &e) { // tuna::Error or json::exception.
    answer({{"error", e.what()}});
    return 1;
  }
}

} // namespace tuna
