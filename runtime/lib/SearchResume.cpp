//===- SearchResume.cpp - The measurements a search persists --------------===//

#include "SearchResume.h"

#include "AtomicFile.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/Signature.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <unistd.h>

namespace tuna::search {

namespace {

using json = nlohmann::ordered_json;
constexpr const char *kFormat = "tuna-search";
constexpr int kVersion = 1;

/// What differs between the key a file was written for and this search's.
std::string differences(const ResumeKey &written, const ResumeKey &wanted) {
  std::string text;
  auto differ = [&](const std::string &what, const std::string &was,
                    const std::string &is) {
    if (was != is)
      text += (text.empty() ? "" : ", ") + what + " '" + was +
              "' (this search: '" + is + "')";
  };
  differ("kernel", written.kernel, wanted.kernel);
  differ("source hash", written.sourceHash, wanted.sourceHash);
  differ("device", written.device, wanted.device);
  differ("signature",
         formatSignature(written.signature.data(), written.signature.size()),
         formatSignature(wanted.signature.data(), wanted.signature.size()));
  return text;
}

json toJson(const Space &space, size_t id, const Measurement &measurement) {
  json config = json::object();
  Values values = space.values(id);
  for (size_t p = 0; p < space.rank(); ++p)
    config[space.parameters()[p].name] = values[p];
  json entry = {{"config", config}};
  if (!measurement.ok()) {
    entry["failure"] = measurement.failure;
    return entry;
  }
  entry["ms"] = measurement.ms;
  entry["min_ms"] = measurement.minMs;
  entry["max_ms"] = measurement.maxMs;
  entry["samples"] = measurement.samples;
  return entry;
}

/// Throws json::exception or a message for the caller to prefix.
std::pair<size_t, Measurement> fromJson(const Space &space, const json &entry) {
  const json &config = entry.at("config");
  if (!config.is_object() || config.size() != space.rank())
    throw std::runtime_error("config: expected one value per parameter");
  Values values;
  for (const Parameter &parameter : space.parameters())
    values.push_back(config.at(parameter.name).get<int64_t>());
  std::optional<size_t> id = space.findValues(values);
  if (!id)
    throw std::runtime_error("config " + config.dump() +
                             " is not in this search's space");
  Measurement measurement;
  if (entry.contains("failure")) {
    entry.at("failure").get_to(measurement.failure);
    if (measurement.failure.empty())
      throw std::runtime_error("failure: expected a reason");
  } else {
    entry.at("ms").get_to(measurement.ms);
    measurement.minMs = entry.value("min_ms", measurement.ms);
    measurement.maxMs = entry.value("max_ms", measurement.ms);
    measurement.samples = entry.value("samples", 0);
  }
  return {*id, measurement};
}

ResumeKey keyOf(const json &doc) {
  ResumeKey key;
  doc.at("kernel").get_to(key.kernel);
  doc.at("source_hash").get_to(key.sourceHash);
  doc.at("device").get_to(key.device);
  doc.at("signature").get_to(key.signature);
  return key;
}

} // namespace

Measured readResumeFile(const std::string &path, const ResumeKey &key,
                        const Space &space) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  auto refuse = [&](const std::string &why) {
    return Error(ErrorCode::InvalidArgument,
                 "resume file " + path + ": " + why + "; it is left as it is");
  };
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line))
    if (!in.eof()) // The last line lacks its newline: an interrupted append.
      lines.push_back(line);
  if (lines.empty())
    throw refuse(std::string("not a ") + kFormat + " file (no header line)");

  ResumeKey written;
  std::vector<std::string> names;
  try {
    json header = json::parse(lines.front());
    if (!header.is_object() || header.value("format", "") != kFormat)
      throw refuse(std::string("not a ") + kFormat + " file");
    if (int version = header.value("version", 0); version != kVersion)
      throw refuse("format version " + std::to_string(version) +
                   ", this Tuna reads version " + std::to_string(kVersion));
    written = keyOf(header);
    header.at("parameters").get_to(names);
  } catch (const json::exception &e) {
    throw refuse(std::string("line 1: ") + e.what());
  }
  if (!(written == key))
    throw refuse("it holds measurements of another search: " +
                 differences(written, key));
  std::vector<std::string> expected;
  for (const Parameter &parameter : space.parameters())
    expected.push_back(parameter.name);
  if (names != expected)
    throw refuse("its parameters are " + json(names).dump() +
                 ", this search's are " + json(expected).dump());

  Measured measured;
  std::set<size_t> seen;
  for (size_t i = 1; i < lines.size(); ++i) {
    try {
      std::pair<size_t, Measurement> entry =
          fromJson(space, json::parse(lines[i]));
      if (!seen.insert(entry.first).second)
        throw std::runtime_error("config " + space.describe(entry.first) +
                                 " is listed twice");
      measured.push_back(std::move(entry));
    } catch (const std::exception &e) { // json::exception or runtime_error.
      throw refuse("line " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return measured;
}

void appendResumeFile(const std::string &path, const ResumeKey &key,
                      const Space &space, const Measured &measured) {
  if (::access(path.c_str(), F_OK) != 0) {
    json names = json::array();
    for (const Parameter &parameter : space.parameters())
      names.push_back(parameter.name);
    json header = {{"format", kFormat},    {"version", kVersion},
                   {"kernel", key.kernel}, {"source_hash", key.sourceHash},
                   {"device", key.device}, {"signature", key.signature},
                   {"parameters", names}};
    writeFileAtomically(path, header.dump() + "\n");
  }
  std::string text;
  for (const auto &[id, measurement] : measured)
    text += toJson(space, id, measurement).dump() + "\n";
  appendToFile(path, text);
}

} // namespace tuna::search
