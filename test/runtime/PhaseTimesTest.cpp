//===- PhaseTimesTest.cpp - Where a process spends its wall time ----------===//

#include "tuna/runtime/PhaseTimes.h"

#include <gtest/gtest.h>

using namespace tuna;

TEST(PhaseTimesTest, RunsOfAPhaseAddUpUnderThePhaseTheyRanIn) {
  PhaseTimes times;
  int search = times.find("search", -1);
  int batch = times.find("batch", search);
  times.add(search, 10);
  times.add(batch, 2);
  times.add(batch, 3);
  EXPECT_EQ(times.find("batch", search), batch);
  // The same name elsewhere is another phase.
  EXPECT_NE(times.find("batch", -1), batch);
  std::vector<PhaseTime> phases = times.phases();
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[batch].parent, search);
  EXPECT_EQ(phases[batch].runs, 2);
  EXPECT_DOUBLE_EQ(phases[batch].ms, 5);
}

TEST(PhaseTimesTest, AnotherProcesssPhasesMergeUnderAHeading) {
  PhaseTimes times;
  int workers = times.find("in the tuning workers", -1);
  // Two workers' records: their phases add up, each under its parent.
  std::vector<PhaseTime> worker = {{"request", -1, 2, 8}, {"timing", 0, 2, 6}};
  times.merge(worker, workers);
  times.merge(worker, workers);
  std::vector<PhaseTime> phases = times.phases();
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[1].name, "request");
  EXPECT_EQ(phases[1].parent, workers);
  EXPECT_EQ(phases[1].runs, 4);
  EXPECT_DOUBLE_EQ(phases[1].ms, 16);
  EXPECT_EQ(phases[2].parent, 1);
  EXPECT_EQ(PhaseTimes::format(phases),
            "  in the tuning workers\n"
            "    request                                          16.0 ms"
            "  (4 runs)\n"
            "      timing                                         12.0 ms"
            "  (4 runs)\n");
}

TEST(PhaseTimesTest, ScopesNestAndRecordNothingWhileOff) {
  PhaseTimes &times = PhaseTimes::process();
  if (!times.recording()) {
    TimedPhase ignored("PhaseTimesTest off");
    EXPECT_EQ(ignored.index(), -1);
  }
  times.start();
  int outer, inner;
  {
    TimedPhase a("PhaseTimesTest outer");
    {
      TimedPhase b("PhaseTimesTest inner");
      inner = b.index();
    }
    outer = a.index();
  }
  TimedPhase after("PhaseTimesTest after");
  after.stop();
  std::vector<PhaseTime> phases = times.phases();
  ASSERT_GE(outer, 0);
  EXPECT_EQ(phases[inner].parent, outer);
  EXPECT_EQ(phases[outer].runs, 1);
  EXPECT_GE(phases[outer].ms, phases[inner].ms);
  // Closed scopes leave no phase open.
  EXPECT_EQ(phases[after.index()].parent, -1);
  for (const PhaseTime &phase : phases)
    EXPECT_NE(phase.name, "PhaseTimesTest off");
}
