//===- PruneTest.cpp - The static model that ranks and drops candidates ---===//
//
// judgeCandidates() and residentBlocks() on an H100's figures (132 SMs,
// 64K registers, 2048 threads, 32 blocks, 228 KiB of shared memory and
// 1 KiB reserved per block per SM): exact verdicts, since the model is
// deterministic.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Options.h"
#include "tuna/runtime/Prune.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tuna;

namespace {

DeviceInfo h100() {
  DeviceInfo info;
  info.platform = "cuda";
  info.multiProcessors = 132;
  info.maxThreadsPerMultiprocessor = 2048;
  info.maxBlocksPerMultiprocessor = 32;
  info.registersPerMultiprocessor = 65536;
  info.sharedBytesPerMultiprocessor = 233472;
  info.reservedSharedBytesPerBlock = 1024;
  return info;
}

StaticFacts launch(int variant, uint32_t blocks, uint32_t threads,
                   int registers = 32, int64_t staticShared = 0,
                   uint32_t dynamicShared = 0) {
  StaticFacts facts;
  facts.variant = variant;
  facts.dims.grid[0] = blocks;
  facts.dims.block[0] = threads;
  facts.dims.sharedBytes = dynamicShared;
  facts.registers = registers;
  facts.staticSharedBytes = staticShared;
  facts.spillBytes = 0;
  return facts;
}

} // namespace

TEST(PruneTest, ResidentBlocksFollowTheScarcestResource) {
  DeviceInfo info = h100();
  // Threads: 2048 / 256.
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 256, 32)), 8);
  // Registers: 128 x 32 per warp, 16 warps, 8 per block.
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 256, 128)), 2);
  // 255 registers round up to 8192 per warp: 8 warps, one block of 8.
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 256, 255)), 1);
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 1024, 255)), 0);
  // Shared memory: 100 KiB + 10 KiB dynamic + 1 KiB reserved, twice.
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 128, 32, 102400, 10240)), 2);
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 128, 32, 0, 233472)), 0);
  // Blocks: 32 at most.
  EXPECT_EQ(residentBlocks(info, launch(0, 1, 32, 16)), 32);
  // Unknown registers: no answer unless something else already gives 0.
  StaticFacts unknown = launch(0, 1, 128, -1);
  EXPECT_EQ(residentBlocks(info, unknown), -1);
  unknown.dims.sharedBytes = 300000;
  EXPECT_EQ(residentBlocks(info, unknown), 0);
  EXPECT_EQ(residentBlocks(DeviceInfo(), launch(0, 1, 128)), -1);
}

TEST(PruneTest, WaveQuantizationDropsOnlyClearLossesAmongFullLaunches) {
  // 1056 blocks = 8 full waves (cost 1); 1024: 1056/1024 = 1.03; 133:
  // 264/133 = 1.98 (dropped at 1.5); 200: 264/200 = 1.32 (kept); 64 blocks
  // do not fill the machine: not compared, ranked by their cost 2.06.
  std::vector<StaticFacts> candidates = {
      launch(0, 133, 128), launch(1, 1024, 128), launch(2, 1056, 128),
      launch(3, 200, 128), launch(4, 64, 128)};
  std::vector<PruneVerdict> verdicts =
      judgeCandidates(h100(), candidates, 1.5);
  ASSERT_EQ(verdicts.size(), 5u);
  std::vector<int> order;
  for (const PruneVerdict &v : verdicts)
    order.push_back(v.variant);
  EXPECT_EQ(order, (std::vector<int>{2, 1, 3, 4, 0}));
  EXPECT_DOUBLE_EQ(verdicts[0].waveCost, 1.0);
  EXPECT_NEAR(verdicts[1].waveCost, 1056.0 / 1024, 1e-12);
  EXPECT_EQ(verdicts[2].dropped, "");
  EXPECT_EQ(verdicts[3].dropped, "");
  EXPECT_EQ(verdicts[4].dropped,
            "wave quantization: 133 blocks on 132 multiprocessors keep them "
            "50% busy, an estimated 1.98x the best candidate's time");
  EXPECT_EQ(verdicts[0].residentBlocks, 16);

  // A looser bound keeps it; the same facts give the same verdicts.
  EXPECT_EQ(judgeCandidates(h100(), candidates, 2.0)[4].dropped, "");
  std::vector<PruneVerdict> again = judgeCandidates(h100(), candidates, 1.5);
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].variant, verdicts[i].variant);
    EXPECT_EQ(again[i].dropped, verdicts[i].dropped);
  }
}

TEST(PruneTest, SpillsAreDroppedOnlyWhereSomeCandidateHasNone) {
  std::vector<StaticFacts> candidates = {launch(0, 1056, 128),
                                         launch(1, 1056, 128)};
  candidates[1].spillBytes = 24;
  std::vector<PruneVerdict> verdicts = judgeCandidates(h100(), candidates, 1.5);
  EXPECT_EQ(verdicts[0].variant, 0);
  EXPECT_EQ(verdicts[1].dropped,
            "spills: 24 bytes of spill stores and loads per thread, where 1 "
            "candidate(s) have none");

  // Every candidate spills: none is dropped for it. Unknown spills (no
  // ptxas figure, no driver figure) drop nothing either.
  candidates[0].spillBytes = 8;
  for (const PruneVerdict &v : judgeCandidates(h100(), candidates, 1.5))
    EXPECT_EQ(v.dropped, "");
  candidates[0].spillBytes = -1;
  candidates[0].localBytes = -1;
  for (const PruneVerdict &v : judgeCandidates(h100(), candidates, 1.5))
    EXPECT_EQ(v.dropped, "");
}

// A variant that asked its compiler for more blocks a multiprocessor
// (min_blocks) spills by design: it is timed next to spill-free ones.
TEST(PruneTest, SpillsBoughtForMoreBlocksAreKept) {
  std::vector<StaticFacts> candidates = {launch(0, 1056, 1024),
                                         launch(1, 1056, 1024)};
  candidates[1].spillBytes = 32;
  candidates[1].minBlocks = 2;
  for (const PruneVerdict &v : judgeCandidates(h100(), candidates, 1.5))
    EXPECT_EQ(v.dropped, "");
  candidates[1].minBlocks = 1;
  EXPECT_NE(judgeCandidates(h100(), candidates, 1.5)[1].dropped, "");
}

TEST(PruneTest, OccupancyZeroIsDroppedAndTheDriversFigureWins) {
  std::vector<StaticFacts> candidates = {launch(0, 1056, 1024, 255),
                                         launch(1, 1056, 256, 64)};
  std::vector<PruneVerdict> verdicts = judgeCandidates(h100(), candidates, 1.5);
  EXPECT_EQ(verdicts[0].variant, 1);
  EXPECT_EQ(verdicts[1].dropped,
            "occupancy 0: no block fits on a multiprocessor (1024 threads, 255 "
            "registers per thread, 0 bytes of shared memory)");
  // The driver says a block fits after all: its figure is used.
  candidates[0].residentBlocks = 1;
  EXPECT_EQ(judgeCandidates(h100(), candidates, 1.5)[1].dropped, "");
}

TEST(PruneTest, TheHostGetsNoWaveModel) {
  DeviceInfo host;
  host.platform = "host";
  host.multiProcessors = 2;
  std::vector<StaticFacts> candidates = {launch(0, 3, 1), launch(1, 2, 1)};
  for (const PruneVerdict &v : judgeCandidates(host, candidates, 1.0)) {
    EXPECT_EQ(v.dropped, "");
    EXPECT_EQ(v.waveCost, 0);
  }
}

// Whatever the environment the tests run in (bench/run_gpu.sh may be run
// with TUNA_PRUNE=0): unset, pruning and shortlists are on.
TEST(PruneTest, TheEnvironmentTurnsPruningAndShortlistsOff) {
  ::unsetenv("TUNA_PRUNE");
  ::unsetenv("TUNA_SHORTLISTS");
  EXPECT_TRUE(Options::fromEnvironment().prune);
  EXPECT_TRUE(Options::fromEnvironment().useShortlists);
  ::setenv("TUNA_PRUNE", "0", 1);
  ::setenv("TUNA_SHORTLISTS", "0", 1);
  Options options = Options::fromEnvironment();
  EXPECT_FALSE(options.prune);
  EXPECT_FALSE(options.useShortlists);
  ::setenv("TUNA_PRUNE", "maybe", 1);
  EXPECT_THROW(Options::fromEnvironment(), Error);
  ::unsetenv("TUNA_PRUNE");
  ::unsetenv("TUNA_SHORTLISTS");
}
