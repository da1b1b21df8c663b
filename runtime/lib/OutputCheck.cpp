//===- OutputCheck.cpp - Keeping and comparing the check's outputs --------===//

#include "OutputCheck.h"

#include "DeviceCompare.h"

namespace tuna {

SavedOutput::~SavedOutput() {
  for (char *copy : device)
    backend.deallocate(copy);
}

OutputComparer::OutputComparer(Backend &backend, StreamHandle stream,
                               const ScratchArgs &scratch,
                               DeviceComparison *comparison, double atol,
                               double rtol)
    : backend(backend), stream(stream), scratch(scratch),
      comparison(comparison), atol(atol), rtol(rtol),
      hostCopies(scratch.buffers().size()) {}

bool OutputComparer::copyToDevice(SavedOutput &output,
                                  const std::vector<const char *> &sources,
                                  bool onDevice) {
  const std::vector<ScratchArgs::Buffer> &buffers = scratch.buffers();
  try {
    for (size_t b = 0; b < buffers.size(); ++b) {
      output.device.push_back(
          static_cast<char *>(backend.allocate(buffers[b].bytes)));
      backend.copy(output.device.back(), sources[b], buffers[b].bytes,
                   onDevice ? CopyKind::DeviceToDevice : CopyKind::HostToDevice,
                   stream);
    }
  } catch (const Error &) {
    // Out of device memory: the host keeps this output (a driver that
    // fails otherwise fails again there, and says so).
    for (char *copy : output.device)
      backend.deallocate(copy);
    output.device.clear();
    return false;
  }
  for (size_t b = 0; b < buffers.size(); ++b)
    output.scales.push_back(comparison->scale(
        buffers[b].type, output.device[b], buffers[b].bytes, stream));
  return true;
}

std::unique_ptr<SavedOutput> OutputComparer::save() {
  std::unique_ptr<SavedOutput> output(new SavedOutput(backend));
  const std::vector<ScratchArgs::Buffer> &buffers = scratch.buffers();
  std::vector<const char *> sources;
  for (const ScratchArgs::Buffer &buffer : buffers)
    sources.push_back(buffer.scratch);
  if (comparison && copyToDevice(*output, sources, /*onDevice=*/true))
    return output;
  for (const ScratchArgs::Buffer &buffer : buffers) {
    std::string copy(buffer.bytes, '\0');
    backend.copy(copy.data(), buffer.scratch, buffer.bytes,
                 CopyKind::DeviceToHost, stream);
    output->scales.push_back(
        outputScale(buffer.type, copy.data(), buffer.bytes));
    output->host.push_back(std::move(copy));
  }
  return output;
}

std::unique_ptr<SavedOutput>
OutputComparer::adopt(const std::vector<std::string> &outputs) {
  std::unique_ptr<SavedOutput> output(new SavedOutput(backend));
  const std::vector<ScratchArgs::Buffer> &buffers = scratch.buffers();
  std::vector<const char *> sources;
  for (const std::string &bytes : outputs)
    sources.push_back(bytes.data());
  if (comparison && copyToDevice(*output, sources, /*onDevice=*/false))
    return output;
  output->host = outputs;
  for (size_t b = 0; b < buffers.size(); ++b)
    output->scales.push_back(
        outputScale(buffers[b].type, outputs[b].data(), buffers[b].bytes));
  return output;
}

std::string OutputComparer::differences(const SavedOutput &reference) {
  const std::vector<ScratchArgs::Buffer> &buffers = scratch.buffers();
  for (size_t b = 0; b < buffers.size(); ++b) {
    const ScratchArgs::Buffer &buffer = buffers[b];
    Allowance allowance =
        Allowance::of(buffer.type, atol, rtol, reference.scales[b]);
    std::optional<Mismatch> mismatch;
    if (!reference.device.empty()) {
      mismatch = comparison->compare(buffer.type, buffer.scratch,
                                     reference.device[b], buffer.bytes,
                                     allowance, stream);
    } else {
      std::unique_ptr<char[]> &copy = hostCopies[b];
      if (!copy)
        copy.reset(new char[buffer.bytes]);
      backend.copy(copy.get(), buffer.scratch, buffer.bytes,
                   CopyKind::DeviceToHost, stream);
      mismatch = compareElements(buffer.type, copy.get(),
                                 reference.host[b].data(), buffer.bytes,
                                 allowance);
    }
    if (mismatch)
      return "argument " + std::to_string(buffer.arg) + ": " +
             mismatch->describe();
  }
  return "";
}

} // namespace tuna
