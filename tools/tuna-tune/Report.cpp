//===- Report.cpp - An HTML page of a tuning run --------------------------===//

#include "Report.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Signature.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace tuna::tune {

namespace {

std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string number(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

constexpr int kLabelWidth = 320, kBarWidth = 420, kValueWidth = 130;
constexpr int kRowHeight = 22;

/// What the chart says after a timed candidate's median.
const char *timingNote(const CandidateResult &c) {
  if (c.status == CandidateStatus::Eliminated)
    return " (eliminated)";
  if (c.finalist)
    return " (finalist)";
  if (c.behindFinalists)
    return " (behind the finalists)";
  return "";
}

/// A horizontal bar per timed candidate, fastest first; the pick in another
/// colour with a star.
std::string chart(const TuningReport &report) {
  std::vector<const CandidateResult *> timed;
  for (const CandidateResult &c : report.candidates)
    if (c.status == CandidateStatus::Measured ||
        c.status == CandidateStatus::Eliminated)
      timed.push_back(&c);
  if (timed.empty())
    return "<p>Nothing was timed.</p>\n";
  std::stable_sort(timed.begin(), timed.end(),
                   [](auto *a, auto *b) { return a->medianMs < b->medianMs; });
  double slowest = 0;
  for (const CandidateResult *c : timed)
    slowest = std::max(slowest, c->medianMs);
  int width = kLabelWidth + kBarWidth + kValueWidth;
  int height = kRowHeight * static_cast<int>(timed.size()) + 4;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(width) + "\" height=\"" +
                    std::to_string(height) + "\">\n";
  for (size_t i = 0; i < timed.size(); ++i) {
    const CandidateResult &c = *timed[i];
    bool pick = c.variant == report.chosen;
    int y = static_cast<int>(i) * kRowHeight + 2;
    double bar = slowest > 0 ? c.medianMs / slowest * kBarWidth : 0;
    std::string label =
        (pick ? "\u2605 " : "") + c.name + " (" + c.config + ")";
    std::string value = number("%.4f ms", c.medianMs) + timingNote(c);
    svg += "<g class=\"" + std::string(pick ? "pick" : "other") + "\">";
    svg += "<title>" + escape(c.name) + ": median " +
           number("%.4f", c.medianMs) + " ms, fastest " +
           number("%.4f", c.minMs) + " ms, " + std::to_string(c.samples) +
           " samples</title>";
    svg += "<text x=\"0\" y=\"" + std::to_string(y + 15) + "\">" +
           escape(label) + "</text>";
    svg += "<rect x=\"" + std::to_string(kLabelWidth) + "\" y=\"" +
           std::to_string(y + 3) + "\" width=\"" + number("%.1f", bar) +
           "\" height=\"" + std::to_string(kRowHeight - 6) + "\"/>";
    svg += "<text x=\"" + number("%.1f", kLabelWidth + bar + 6) + "\" y=\"" +
           std::to_string(y + 15) + "\">" + value + "</text></g>\n";
  }
  return svg + "</svg>\n";
}

/// The variants that were not timed, and why.
std::string others(const TuningReport &report) {
  std::string rows;
  for (const CandidateResult &c : report.candidates)
    if (c.status != CandidateStatus::Measured &&
        c.status != CandidateStatus::Eliminated)
      rows += "<tr><td>" + escape(c.name) + "</td><td>" + escape(c.config) +
              "</td><td>" + candidateStatusName(c.status) + "</td><td>" +
              escape(c.reason) + "</td></tr>\n";
  if (rows.empty())
    return "";
  return "<table><tr><th>variant</th><th>config</th><th>status</th>"
         "<th>why</th></tr>\n" +
         rows + "</table>\n";
}

} // namespace

void writeHtmlReport(const std::string &path, const std::string &bundle,
                     const DeviceInfo &device,
                     const std::vector<Decision> &decisions) {
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
      "<title>Tuna tuning report: " +
      escape(bundle) +
      "</title>\n<style>\n"
      "body { font-family: sans-serif; margin: 2em; }\n"
      "svg text { font: 12px monospace; }\n"
      ".pick rect { fill: #2a9d8f; } .other rect { fill: #a8b8c8; }\n"
      ".pick text { font-weight: bold; }\n"
      "table { border-collapse: collapse; font-size: 12px; }\n"
      "td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }\n"
      "</style></head><body>\n<h1>Tuning report</h1>\n<p>Bundle " +
      escape(bundle) + " on " + escape(device.name) + " (" +
      escape(device.arch) + ", " + escape(device.driverVersion) + "), Tuna " +
      tunaVersion() +
      ". Bars: median time per launch of each timed candidate; " +
      "\u2605 marks the pick. A finalist's median is its final round's; "
      "the candidates behind the finalists were timed before that round, "
      "when the device ran at another speed, and are not picked.</p>\n";
  for (const Decision &decision : decisions) {
    const TuningReport &report = decision.report;
    const CandidateResult &pick = report.candidates[report.chosen];
    html +=
        "<h2>" + escape(decision.kernel->name) + " " +
        formatSignature(report.signature.data(), report.signature.size()) +
        "</h2>\n<p>Key values " +
        formatSignature(decision.keyValues.data(), decision.keyValues.size()) +
        "; " + decisionSourceName(report.source) + " in " +
        number("%.1f", report.wallMs) + " ms; pick " + escape(pick.name) +
        " (" + escape(pick.config) + "); " +
        (report.coldTiming ? "each launch timed alone after an L2 eviction"
                           : "launches timed back to back");
    if (report.checked)
      html += "; outputs checked against " + escape(report.checkedAgainst) +
              ", compared on " + escape(report.checkedOn) + " in " +
              number("%.1f", report.checkMs) + " ms";
    else if (!report.checkSkipped.empty())
      html += "; outputs not checked: " + escape(report.checkSkipped);
    html += ".</p>\n" + chart(report) + others(report);
  }
  html += "</body></html>\n";
  std::ofstream out(path, std::ios::binary);
  if (!(out << html) || !out.flush())
    throw Error(ErrorCode::InvalidArgument, "cannot write " + path);
}

} // namespace tuna::tune
