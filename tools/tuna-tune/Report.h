//===- Report.h - An HTML page of a tuning run ------------------*- C++ -*-===//
#ifndef TUNA_TOOLS_TUNA_TUNE_REPORT_H
#define TUNA_TOOLS_TUNA_TUNE_REPORT_H

#include "Shapes.h"

#include "tuna/runtime/Tuning.h"

#include <string>
#include <vector>

namespace tuna::tune {

/// One shape of one kernel, as tuna-tune decided it.
struct Decision {
  const Kernel *kernel = nullptr;
  Shape keyValues;
  TuningReport report;
};

/// Writes a self-contained HTML page: per decision, an SVG bar chart of
/// every timed candidate's median (the winner marked) and the status of the
/// others. Throws tuna::Error if `path` cannot be written.
void writeHtmlReport(const std::string &path, const std::string &bundle,
                     const DeviceInfo &device,
                     const std::vector<Decision> &decisions);

} // namespace tuna::tune

#endif // TUNA_TOOLS_TUNA_TUNE_REPORT_H
