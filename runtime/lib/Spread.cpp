//===- Spread.cpp - A tuning's candidates timed on several devices --------===//

#include "Spread.h"

#include "Isolation.h"
#include "Scratch.h"
#include "TuningJson.h"

#include "tuna/runtime/Communicator.h"
#include "tuna/runtime/PhaseTimes.h"
#include "tuna/runtime/SearchVariants.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <numeric>

namespace tuna {

namespace {
std::string model(const DeviceInfo &info) {
  return info.name + " (" + info.arch + ")";
}

/// Device memory on `backend`, freed with it.
class DeviceBuffer {
public:
  DeviceBuffer(Backend &backend, size_t bytes)
      : backend(backend), data(backend.allocate(bytes)) {}
  ~DeviceBuffer() { backend.deallocate(data); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  Backend &backend;
  void *data;
};

/// splitmix64's finalizer: a fixed order unrelated to its inputs'.
uint64_t scramble(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Which of `ranks` ranks times each of `count` positions: every rank
/// `count / ranks` or one more, in an order fixed by the positions alone
/// (every rank computes the same) and unrelated to them, so that the
/// values of no parameter gather on one rank.
std::vector<int> dealOut(size_t count, int ranks) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return scramble(a) < scramble(b); });
  std::vector<int> owners(count);
  for (size_t i = 0; i < count; ++i)
    owners[order[i]] = static_cast<int>(i % ranks);
  return owners;
}

} // namespace

struct CandidateSpread::DeviceState {
  bool copied = false;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<ArgValue> args;
  std::unique_ptr<WorkerSession> session;
};

void checkTuningDevices(const Device &device, const Options &options) {
  for (size_t d = 0; d < options.tuningDevices.size(); ++d) {
    const Device &other = options.tuningDevices[d];
    std::string which = "Options::tuningDevices[" + std::to_string(d) + "]";
    if (other == device)
      throw Error(ErrorCode::InvalidArgument,
                  which + " is the module's own device; list the other "
                          "devices that share its tunings");
    for (size_t e = 0; e < d; ++e)
      if (options.tuningDevices[e] == other)
        throw Error(ErrorCode::InvalidArgument,
                    which + " is Options::tuningDevices[" + std::to_string(e) +
                        "] again: list each device once (each times one "
                        "share of the candidates)");
    if (model(other.info()) != model(device.info()) ||
        other.info().platform != device.info().platform)
      throw Error(ErrorCode::InvalidArgument,
                  which + " is a " + model(other.info()) +
                      ", the module's device a " + model(device.info()) +
                      ": a tuning is spread over devices of one model only");
  }
}

void mergeRankResult(CandidateResult timed, int rank, TuningReport &report) {
  CandidateResult &merged = report.candidates.at(timed.variant);
  merged = std::move(timed);
  merged.timedOn = "rank " + std::to_string(rank) +
                   (merged.timedOn.empty() ? "" : ", " + merged.timedOn);
}

CandidateSpread::CandidateSpread(TunedKernel::Impl &kernel, StreamHandle stream,
                                 const ArgValue *args, size_t count,
                                 Communicator *communicator)
    : kernel(kernel), stream(stream), args(args, args + count),
      communicator(communicator) {
  // The other devices get the arguments and start their workers now, while
  // this device's first batch is prepared.
  size_t devices = kernel.module.options.tuningDevices.size();
  if (!devices)
    return;
  copyArguments();
  deviceStates.resize(devices);
  for (size_t d = 0; d < devices; ++d) {
    TunedKernel::Impl &other = *helperKernel(d).impl;
    deviceStates[d] = std::make_unique<DeviceState>();
    threadOf(d).start([this, d, &other] {
      try {
        startWorkerOn(d, other);
      } catch (const std::exception &) {
        // The device's first share says why (run()).
      }
    });
  }
}

CandidateSpread::~CandidateSpread() {
  // Every device's jobs, its first (the worker's start) too.
  for (size_t d = 0; d < deviceStates.size(); ++d)
    if (deviceStates[d])
      threadOf(d).wait();
}

void CandidateSpread::time(
    const std::vector<int> &candidates, TuningReport &report,
    const std::function<void(const std::vector<int> &)> &timeHere,
    int samples, size_t chunk) {
  for (std::vector<int> share = begin(candidates, report, samples, chunk);
       !share.empty(); share = take(0))
    timeHere(share);
  std::vector<int> back = end(report);
  if (!back.empty())
    timeHere(back);
}

std::vector<int> CandidateSpread::begin(const std::vector<int> &candidates,
                                        TuningReport &report, int samples,
                                        size_t chunk) {
  join();
  all = candidates;
  mine.clear();
  this->samples = samples;
  int ranks = communicator ? communicator->size() : 1;
  int rank = communicator ? communicator->rank() : 0;
  std::vector<int> owners = dealOut(candidates.size(), ranks);
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (owners[k] == rank)
      mine.push_back(candidates[k]);
    else
      report.candidates[candidates[k]].reason =
          "timed on rank " + std::to_string(owners[k]);
  }
  size_t devices = 1 + kernel.module.options.tuningDevices.size();
  // Each variant is first offered to the same device in every batch (a
  // scrambled choice, so that no parameter's values gather on one device):
  // a device then loads the code of about its share of the variants, not
  // of most of them, when a search's batches (or a run's shapes) follow
  // each other.
  queues.assign(devices, {});
  for (int v : mine)
    queues[scramble(static_cast<uint64_t>(v)) % devices].push_back(v);
  left = mine.size();
  // Never more than an even share: a small batch still keeps every device
  // busy.
  size_t share = (mine.size() + devices - 1) / devices;
  this->chunk = std::max<size_t>(1, chunk ? std::min(chunk, share) : share);
  helpers.clear();
  // Each device takes from its own queue, then from the fullest other one.
  std::vector<int> first = take(0);
  for (size_t h = 0; h + 1 < devices && left > 0; ++h) {
    Helper &helper = helpers.emplace_back();
    helper.device = static_cast<int>(h + 1);
    helper.first = take(h + 1);
  }
  if (helpers.empty())
    return first;
  // The helpers load code from the module's bundle: a provider's bytes are
  // asked for now, by this thread, which holds the device's tuning mutex.
  std::vector<int> objects;
  for (size_t j = first.size(); j < mine.size(); ++j) {
    const VariantState &variant = kernel.variants[mine[j]];
    if (variant.code >= 0)
      objects.push_back(variant.spec->code[variant.code].object);
  }
  kernel.module.prepare(objects);
  if (!copied)
    copyArguments();
  for (Helper &helper : helpers) {
    helper.kernel = &helperKernel(helper.device - 1);
    threadOf(helper.device - 1).start([this, &helper] { run(helper); });
  }
  return first;
}

std::vector<int> CandidateSpread::take(size_t device) {
  std::lock_guard<std::mutex> lock(chunks);
  size_t size = chunk;
  // In a batch of several chunks a device, the last chunks shrink to an
  // even share of what is left, so that the devices end the batch together
  // rather than one of them waiting for the other's last chunk.
  size_t devices = queues.size();
  if (chunk * devices < mine.size() && left < chunk * devices)
    size = std::max<size_t>(1, std::min(chunk, (left + devices - 1) / devices));
  // The device's own queue first; what it lacks of a chunk, from the
  // fullest other queue's back, which its owner reaches last (so that a
  // device whose queue the scramble left short still takes its share).
  std::deque<int> &own = queues[device];
  size_t fromOwn = std::min(size, own.size());
  std::vector<int> taken(own.begin(), own.begin() + fromOwn);
  own.erase(own.begin(), own.begin() + fromOwn);
  while (taken.size() < size) {
    std::deque<int> *fullest = &own;
    for (std::deque<int> &other : queues)
      if (other.size() > fullest->size())
        fullest = &other;
    if (fullest->empty())
      break;
    size_t more = std::min(size - taken.size(), fullest->size());
    taken.insert(taken.end(), fullest->end() - more, fullest->end());
    fullest->erase(fullest->end() - more, fullest->end());
  }
  left -= taken.size();
  return taken;
}

void CandidateSpread::copyArguments() {
  // The other devices copy the buffers after what is queued on `stream`.
  kernel.backend.synchronize(stream);
  copied = true;
}

JobThread &CandidateSpread::threadOf(size_t index) {
  return kernel.module.tuningThread(index);
}

TunedKernel &CandidateSpread::helperKernel(size_t index) {
  return kernel.module.tuningHelper(index).kernel(kernel.spec.name);
}

void CandidateSpread::startWorkerOn(size_t index, TunedKernel::Impl &other) {
  copyArgumentsTo(index);
  DeviceState &state = *deviceStates[index];
  // One worker serves every batch of a search on this device.
  if (!state.session && other.module.options.isolate &&
      canIsolate(other.backend))
    state.session = std::make_unique<WorkerSession>(
        other, nullptr, state.args.data(), state.args.size());
}

void CandidateSpread::copyArgumentsTo(size_t index) {
  DeviceState &state = *deviceStates[index];
  if (state.copied)
    return;
  state.copied = true;
  TimedPhase phase("arguments to a tuning device");
  Backend &backend = kernel.module.options.tuningDevices[index].backend();
  state.args = args;
  for (ArgValue &arg : state.args) {
    if (arg.kind != ArgSpec::Kind::MemRef)
      continue;
    MemRefView &view = arg.memref;
    ViewExtent extent = viewExtent(view);
    if (!extent.bytes)
      continue;
    state.buffers.push_back(
        std::make_unique<DeviceBuffer>(backend, extent.bytes));
    void *copy = state.buffers.back()->data;
    try {
      // Device to device where the driver copies between the two.
      backend.copy(copy, extent.first, extent.bytes, CopyKind::DeviceToDevice,
                   nullptr);
    } catch (const Error &) {
      std::unique_ptr<char[]> staged(new char[extent.bytes]);
      kernel.backend.copy(staged.get(), extent.first, extent.bytes,
                          CopyKind::DeviceToHost, nullptr);
      backend.copy(copy, staged.get(), extent.bytes, CopyKind::HostToDevice,
                   nullptr);
    }
    view.allocated = view.aligned = copy;
    view.offset = -extent.low;
  }
}

void CandidateSpread::run(Helper &helper) {
  try {
    TunedKernel::Impl &other = *helper.kernel->impl;
    std::unique_lock<std::mutex> lock(other.module.device.tuningMutex(),
                                      std::try_to_lock);
    if (!lock.owns_lock()) {
      helper.busy = true;
      return;
    }
    startWorkerOn(helper.device - 1, other);
    DeviceState &state = *deviceStates[helper.device - 1];
    std::vector<ArgValue> &copies = state.args;
    LoweredArgs lowered;
    other.lower(copies.data(), copies.size(), lowered);
    int64_t keyValues[kMaxKey];
    int64_t signature[kMaxSignature];
    other.computeKey(copies.data(), keyValues, signature);
    helper.report.candidates.resize(kernel.variants.size());
    for (std::vector<int> share = helper.first; !share.empty();
         share = take(helper.device)) {
      helper.taken.insert(helper.taken.end(), share.begin(), share.end());
      TuningReport timed =
          other.measureLocked(nullptr, copies.data(), copies.size(), keyValues,
                              signature, share, samples, state.session.get());
      for (int v : share)
        helper.report.candidates[v] = std::move(timed.candidates[v]);
      addCheck(timed, helper.report);
      helper.timed = helper.taken.size();
    }
  } catch (const std::exception &e) {
    helper.error = e.what();
  }
}

void CandidateSpread::join() {
  for (Helper &helper : helpers)
    threadOf(helper.device - 1).wait();
}

std::vector<int> CandidateSpread::end(TuningReport &report) {
  join();
  std::vector<int> back;
  for (const Helper &helper : helpers) {
    if (helper.busy) {
      back.insert(back.end(), helper.first.begin(), helper.first.end());
      continue;
    }
    const Device &device =
        kernel.module.options.tuningDevices[helper.device - 1];
    std::string where = "device " + std::to_string(helper.device) + " (" +
                        device.info().name + ")";
    for (size_t k = 0; k < helper.taken.size(); ++k) {
      int v = helper.taken[k];
      CandidateResult &result = report.candidates[v];
      if (k < helper.timed) {
        result = helper.report.candidates[v];
      } else {
        result.status = CandidateStatus::Unrunnable;
        result.reason = "on tuning " + where + ": " + helper.error;
      }
      result.timedOn = where;
    }
    addCheck(helper.report, report);
  }
  helpers.clear();
  return back;
}

void CandidateSpread::gatherRanks(TuningReport &report,
                                  const std::string &error, double timeoutMs) {
  using Json = nlohmann::json;
  int me = communicator->rank();
  std::string where = kernel.describe() + " for " +
                      formatSignature(report.signature.data(),
                                      report.signature.size()) +
                      " on rank " + std::to_string(me) + " of " +
                      std::to_string(communicator->size()) +
                      ", timing candidates spread over the ranks";
  Json message = {{"candidates", all}};
  if (error.empty()) {
    TuningReport share;
    addCheck(report, share);
    for (int v : mine)
      share.candidates.push_back(report.candidates[v]);
    message["share"] = reportJson(share);
  } else {
    message["error"] = error;
  }
  std::vector<std::string> texts;
  try {
    texts = allGatherStrings(*communicator, message.dump(), timeoutMs);
  } catch (const Error &e) {
    throw Error(e.code(), where + ": " + e.what());
  }
  std::string failures, differences;
  std::vector<TuningReport> shares;
  for (size_t r = 0; r < texts.size(); ++r) {
    Json other = Json::parse(texts[r]);
    if (other.contains("error"))
      failures += "\n  rank " + std::to_string(r) + ": " +
                  other["error"].get<std::string>();
    else if (other["candidates"] != message["candidates"])
      differences += "\n  rank " + std::to_string(r) + " has " +
                     other["candidates"].dump() + ", rank " +
                     std::to_string(me) + " " + message["candidates"].dump();
    else
      shares.push_back(reportFromJson(other["share"]));
  }
  if (!failures.empty())
    throw Error(ErrorCode::Unsupported,
                where + ": some ranks could not time their share:" + failures);
  if (!differences.empty())
    throw Error(ErrorCode::InvalidArgument,
                where + ": the ranks split different candidates (they must "
                        "tune the same launches in the same order):" +
                    differences);
  TuningReport checks;
  for (size_t r = 0; r < shares.size(); ++r) {
    addCheck(shares[r], checks);
    if (static_cast<int>(r) != me)
      for (CandidateResult &timed : shares[r].candidates)
        mergeRankResult(std::move(timed), static_cast<int>(r), report);
  }
  report.checked = checks.checked;
  report.checkedAgainst = checks.checkedAgainst;
  report.checkedOn = checks.checkedOn;
  report.checkSkipped = checks.checkSkipped;
  report.defaultRejected = checks.defaultRejected;
  report.checkMs = checks.checkMs;
}

} // namespace tuna
