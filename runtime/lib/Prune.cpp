//===- Prune.cpp - Ranking and dropping candidates before timing ----------===//
//
// The model (docs/search.md, "Static pruning"):
//  - Occupancy: resident blocks per multiprocessor, limited by threads (in
//    whole warps of the device's warp size: 32 on NVIDIA, 64 or 32 on AMD),
//    blocks, registers (CUDA: allocated per warp in units of 256) and shared
//    memory or LDS (static + dynamic + the per-block reservation), each limit
//    where the device states it.
//  - Wave quantization: with equal work per block, a throughput-bound
//    multiprocessor that holds ceil(B / S) of the B blocks finishes last,
//    so the launch takes S * ceil(B / S) / B times as long as one that
//    spreads its work evenly over the S multiprocessors. This is the
//    optimistic (throughput) view: a latency-bound kernel loses more.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Prune.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace tuna {

namespace {

constexpr int64_t kWarpSize = 32; ///< When the device does not say.
constexpr int64_t kRegisterUnit = 256; ///< Registers are allocated per warp.

int64_t roundUp(int64_t value, int64_t unit) {
  return (value + unit - 1) / unit * unit;
}

int64_t threadsOf(const LaunchDims &dims) {
  return int64_t(dims.block[0]) * dims.block[1] * dims.block[2];
}

int64_t blocksOf(const LaunchDims &dims) {
  return int64_t(dims.grid[0]) * dims.grid[1] * dims.grid[2];
}

/// Spilled bytes per thread: ptxas' figure, else the driver's local memory.
int64_t spillsOf(const StaticFacts &facts) {
  return facts.spillBytes >= 0 ? facts.spillBytes : facts.localBytes;
}

std::string format(const char *pattern, double a, double b = 0) {
  char text[160];
  std::snprintf(text, sizeof(text), pattern, a, b);
  return text;
}

} // namespace

int residentBlocks(const DeviceInfo &device, const StaticFacts &facts) {
  int64_t threads = threadsOf(facts.dims);
  if (device.maxThreadsPerMultiprocessor <= 0 || threads <= 0)
    return -1;
  // Threads are scheduled in whole warps (wavefronts on AMD GPUs).
  int64_t warpSize = device.warpSize > 0 ? device.warpSize : kWarpSize;
  int64_t warps = (threads + warpSize - 1) / warpSize;
  int64_t blocks = device.maxThreadsPerMultiprocessor / (warps * warpSize);
  if (device.maxBlocksPerMultiprocessor > 0)
    blocks = std::min<int64_t>(blocks, device.maxBlocksPerMultiprocessor);
  bool complete = true;
  // Registers, where the device states its register file (CUDA).
  if (device.registersPerMultiprocessor > 0) {
    if (facts.registers >= 0) {
      int64_t perWarp =
          roundUp(int64_t(facts.registers) * warpSize, kRegisterUnit);
      if (perWarp > 0)
        blocks = std::min(blocks,
                          device.registersPerMultiprocessor / perWarp / warps);
    } else {
      complete = false;
    }
  }
  if (facts.staticSharedBytes >= 0 && device.sharedBytesPerMultiprocessor > 0) {
    int64_t shared = facts.staticSharedBytes + facts.dims.sharedBytes +
                     device.reservedSharedBytesPerBlock;
    if (shared > 0)
      blocks = std::min(blocks, device.sharedBytesPerMultiprocessor / shared);
  } else {
    complete = false;
  }
  if (blocks <= 0)
    return 0;
  return complete ? static_cast<int>(blocks) : -1;
}

namespace {

/// 1. Occupancy: each candidate's resident blocks and wave cost; one with
/// no resident block is dropped.
PruneVerdict judgeOccupancy(const DeviceInfo &device, const StaticFacts &facts,
                            int64_t sms) {
  PruneVerdict verdict;
  verdict.variant = facts.variant;
  verdict.residentBlocks = facts.residentBlocks >= 0
                               ? facts.residentBlocks
                               : residentBlocks(device, facts);
  int64_t blocks = blocksOf(facts.dims);
  if (sms > 0 && blocks > 0)
    verdict.waveCost = double(sms * ((blocks + sms - 1) / sms)) / blocks;
  if (verdict.residentBlocks == 0)
    verdict.dropped =
        "occupancy 0: no block fits on a multiprocessor (" +
        std::to_string(threadsOf(facts.dims)) + " threads, " +
        (facts.registers >= 0 ? std::to_string(facts.registers)
                              : std::string("?")) +
        " registers per thread, " +
        std::to_string(std::max<int64_t>(facts.staticSharedBytes, 0) +
                       facts.dims.sharedBytes) +
        " bytes of shared memory)";
  return verdict;
}

/// 2. Spills: drops the candidates that spill when some candidate is known
/// not to, except those that asked for more than one block a
/// multiprocessor (their spills buy the occupancy they are timed for).
void dropSpills(const std::vector<StaticFacts> &candidates,
                std::vector<PruneVerdict> &verdicts) {
  int spillFree = 0;
  for (size_t c = 0; c < candidates.size(); ++c)
    spillFree += verdicts[c].dropped.empty() && spillsOf(candidates[c]) == 0;
  for (size_t c = 0; c < candidates.size() && spillFree; ++c)
    if (verdicts[c].dropped.empty() && spillsOf(candidates[c]) > 0 &&
        candidates[c].minBlocks <= 1)
      verdicts[c].dropped =
          "spills: " + std::to_string(spillsOf(candidates[c])) + " bytes of " +
          (candidates[c].spillBytes >= 0 ? "spill stores and loads"
                                         : "local memory") +
          " per thread, where " + std::to_string(spillFree) +
          " candidate(s) have none";
}

/// 3. Wave quantization, among the candidates that fill the machine:
/// drops those estimated over `slowerThan` times the best one's time.
void dropWaveQuantization(const std::vector<StaticFacts> &candidates,
                          std::vector<PruneVerdict> &verdicts, int64_t sms,
                          double slowerThan) {
  double best = 0;
  for (size_t c = 0; c < candidates.size(); ++c)
    if (verdicts[c].dropped.empty() && verdicts[c].waveCost > 0 &&
        blocksOf(candidates[c].dims) >= sms)
      best = best > 0 ? std::min(best, verdicts[c].waveCost)
                      : verdicts[c].waveCost;
  for (size_t c = 0; c < candidates.size() && best > 0; ++c) {
    int64_t blocks = blocksOf(candidates[c].dims);
    PruneVerdict &verdict = verdicts[c];
    if (verdict.dropped.empty() && blocks >= sms &&
        verdict.waveCost > slowerThan * best)
      verdict.dropped =
          "wave quantization: " + std::to_string(blocks) + " blocks on " +
          std::to_string(sms) + " multiprocessors" +
          format(" keep them %.0f%% busy, an estimated %.2fx the best "
                 "candidate's time",
                 100.0 / verdict.waveCost, verdict.waveCost / best);
  }
}

/// The verdicts best first: kept before dropped, then by wave cost, no
/// spills, more resident blocks, and variant.
std::vector<PruneVerdict> rank(const std::vector<StaticFacts> &candidates,
                               const std::vector<PruneVerdict> &verdicts) {
  std::vector<size_t> order(candidates.size());
  for (size_t c = 0; c < order.size(); ++c)
    order[c] = c;
  auto key = [&](size_t c) {
    const PruneVerdict &v = verdicts[c];
    return std::make_tuple(!v.dropped.empty(), v.waveCost,
                           spillsOf(candidates[c]) > 0, -v.residentBlocks,
                           v.variant);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<PruneVerdict> ranked;
  for (size_t c : order)
    ranked.push_back(verdicts[c]);
  return ranked;
}

} // namespace

std::vector<PruneVerdict>
judgeCandidates(const DeviceInfo &device,
                const std::vector<StaticFacts> &candidates, double slowerThan) {
  int64_t sms = device.platform == "host" ? 0 : device.multiProcessors;
  std::vector<PruneVerdict> verdicts;
  for (const StaticFacts &facts : candidates)
    verdicts.push_back(judgeOccupancy(device, facts, sms));
  dropSpills(candidates, verdicts);
  dropWaveQuantization(candidates, verdicts, sms, slowerThan);
  return rank(candidates, verdicts);
}

} // namespace tuna
