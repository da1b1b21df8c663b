//===- Prune.h - Ranking and dropping candidates before timing --*- C++ -*-===//
//
// Static pruning (docs/search.md, "Static pruning"): what is known of a
// candidate without running it (its launch geometry, the resources the
// compiler or the driver reports, its occupancy) feeds a simple analytic
// model that ranks the candidates and drops those that cannot be
// competitive, before anything is timed. The model is deliberately
// optimistic: it drops only what it can argue is clearly behind, and says
// why for each candidate it drops.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_PRUNE_H
#define TUNA_RUNTIME_PRUNE_H

#include "tuna/runtime/Backend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tuna {

/// What is known of one candidate of one launch without timing it; -1 means
/// unknown.
struct StaticFacts {
  int variant = -1;
  LaunchDims dims;
  int registers = -1;      ///< Per thread.
  int64_t spillBytes = -1; ///< Spill stores and loads per thread (ptxas).
  /// Local memory per thread (the driver's LOCAL_SIZE_BYTES: spills and
  /// stack frame), used when spillBytes is unknown.
  int64_t localBytes = -1;
  int64_t staticSharedBytes = -1;
  /// Resident blocks per multiprocessor, from the driver; -1: computed from
  /// the figures above and the device's limits (residentBlocks()).
  int residentBlocks = -1;
  /// Blocks a multiprocessor the variant asked its compiler to fit
  /// (Variant::minBlocks): more than 1 keeps its spills from dropping it.
  int minBlocks = 1;
};

/// The model's view of one candidate.
struct PruneVerdict {
  int variant = -1;
  /// Resident blocks per multiprocessor, -1 when unknown.
  int residentBlocks = -1;
  /// Estimated time relative to a launch that keeps every multiprocessor
  /// busy to the end (1 = no wave quantization loss); 0 when not estimated
  /// (no multiprocessor count, or a host device).
  double waveCost = 0;
  /// Why it is dropped; empty when it is kept.
  std::string dropped;
};

/// Resident blocks per multiprocessor of `facts`' launch on `device`,
/// computed from threads (rounded up to whole warps of `device.warpSize`),
/// blocks, registers and shared memory (LDS), each limit where the device
/// states it (the driver's occupancy calculator does the same with the
/// exact allocation granularities; HIP devices state no register file, so
/// VGPRs do not limit this figure): 0 when one block does not fit, -1 when
/// a figure it needs is unknown.
int residentBlocks(const DeviceInfo &device, const StaticFacts &facts);

/// Judges `candidates` (one launch's candidates, every one runnable as far
/// as the launch limits go) and returns their verdicts, best estimate first
/// (ties: no spills first, more resident blocks first, then variant index).
/// A candidate is dropped when
///  1. no block of it fits on a multiprocessor (occupancy 0);
///  2. it spills registers while another candidate is known not to;
///  3. the grid fills the machine at least once and its wave cost is over
///     `slowerThan` times the best wave cost among such candidates.
/// Each rule names its figures in `dropped`. Deterministic: the same facts
/// give the same verdicts.
std::vector<PruneVerdict> judgeCandidates(const DeviceInfo &device,
                                          const std::vector<StaticFacts> &candidates,
                                          double slowerThan);

} // namespace tuna

#endif // TUNA_RUNTIME_PRUNE_H
