//===- PhaseTimes.cpp - Where a process spends its wall time --------------===//

#include "tuna/runtime/PhaseTimes.h"

#include "Clock.h"

#include <cstdio>
#include <functional>

namespace tuna {

namespace {
/// The phase this thread has open, or -1.
thread_local int openPhase = -1;
} // namespace

PhaseTimes &PhaseTimes::process() {
  static PhaseTimes times;
  return times;
}

int PhaseTimes::find(const std::string &name, int parent) {
  std::lock_guard<std::mutex> lock(mutex);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].parent == parent && list[i].name == name)
      return static_cast<int>(i);
  list.push_back({name, parent, 0, 0});
  return static_cast<int>(list.size() - 1);
}

void PhaseTimes::add(int index, double ms) {
  std::lock_guard<std::mutex> lock(mutex);
  list[index].runs += 1;
  list[index].ms += ms;
}

void PhaseTimes::addOverlapping(const std::string &name, double ms) {
  if (recording())
    add(find(name, -1), ms);
}

void PhaseTimes::merge(const std::vector<PhaseTime> &phases, int parent) {
  std::vector<int> here; // Index in this record of each of `phases`.
  for (const PhaseTime &phase : phases) {
    int enclosing = phase.parent >= 0 && phase.parent < int(here.size())
                        ? here[phase.parent]
                        : parent;
    here.push_back(find(phase.name, enclosing));
    std::lock_guard<std::mutex> lock(mutex);
    list[here.back()].runs += phase.runs;
    list[here.back()].ms += phase.ms;
  }
}

std::vector<PhaseTime> PhaseTimes::phases() const {
  std::lock_guard<std::mutex> lock(mutex);
  return list;
}

std::string PhaseTimes::format(const std::vector<PhaseTime> &phases) {
  std::string text;
  std::function<void(int, int)> print = [&](int parent, int depth) {
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseTime &phase = phases[i];
      if (phase.parent != parent)
        continue;
      std::string name = std::string(2 * depth, ' ') + phase.name;
      char line[160];
      if (phase.runs)
        std::snprintf(line, sizeof(line), "  %-44s %10.1f ms", name.c_str(),
                      phase.ms);
      else
        std::snprintf(line, sizeof(line), "  %s", name.c_str());
      text += line;
      if (phase.runs > 1)
        text += "  (" + std::to_string(phase.runs) + " runs)";
      text += "\n";
      print(static_cast<int>(i), depth + 1);
    }
  };
  print(-1, 0);
  return text;
}

TimedPhase::TimedPhase(const char *name) {
  PhaseTimes &times = PhaseTimes::process();
  if (!times.recording())
    return;
  enclosing = openPhase;
  slot = times.find(name, enclosing);
  openPhase = slot;
  running = true;
  begin = Clock::now();
}

void TimedPhase::stop() {
  if (!running)
    return;
  PhaseTimes::process().add(slot, msSince(begin));
  openPhase = enclosing;
  running = false;
}

} // namespace tuna
