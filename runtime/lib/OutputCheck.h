//===- OutputCheck.h - Keeping and comparing the check's outputs -*- C++ -*-===//
//
// The correctness check (Options::check) keeps a few outputs of the written
// buffers, the application's reference and the first output of each group
// of candidates that agree, and compares each candidate's scratch buffers
// with them. Where the device compares (DeviceComparison: CUDA) the kept
// outputs stay in device memory and only a summary comes back; elsewhere
// (the host, HIP) they are host copies, and the candidate's buffers are
// copied into one reused host buffer per written buffer before
// compareElements runs.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_OUTPUTCHECK_H
#define TUNA_RUNTIME_LIB_OUTPUTCHECK_H

#include "Compare.h"
#include "Scratch.h"

#include <memory>
#include <string>
#include <vector>

namespace tuna {

class DeviceComparison;

/// A copy of every written scratch buffer, with the scale of each
/// (outputScale). Owns its device memory.
class SavedOutput {
public:
  ~SavedOutput();
  SavedOutput(const SavedOutput &) = delete;
  SavedOutput &operator=(const SavedOutput &) = delete;

private:
  friend class OutputComparer;
  explicit SavedOutput(Backend &backend) : backend(backend) {}

  Backend &backend;
  /// Per buffer: device memory, or (when `device` is empty) host bytes.
  std::vector<char *> device;
  std::vector<std::string> host;
  std::vector<double> scales;
};

/// Compares the current contents of `scratch`'s buffers, on the device
/// when `comparison` is given, else on the host. Lives within one tuning
/// (the device's tuning mutex held).
class OutputComparer {
public:
  OutputComparer(Backend &backend, StreamHandle stream,
                 const ScratchArgs &scratch, DeviceComparison *comparison,
                 double atol, double rtol);

  /// The scratch buffers' current contents.
  std::unique_ptr<SavedOutput> save();
  /// Host bytes per written buffer, in ScratchArgs::buffers() order (the
  /// outputs of TunedKernel::setReference's function).
  std::unique_ptr<SavedOutput> adopt(const std::vector<std::string> &outputs);

  /// How the scratch buffers' current contents differ from `reference`:
  /// "argument 1: 3 of 4096 elements differ; ..." for the first buffer
  /// that does; empty when none does.
  std::string differences(const SavedOutput &reference);

  /// "the device" or "the host".
  const char *where() const { return comparison ? "the device" : "the host"; }

private:
  /// Device copies of `sources` (device memory when `onDevice`, else host
  /// bytes); false, with nothing allocated, when the device is out of
  /// memory for them.
  bool copyToDevice(SavedOutput &output, const std::vector<const char *> &sources,
                    bool onDevice);

  Backend &backend;
  StreamHandle stream;
  const ScratchArgs &scratch;
  DeviceComparison *comparison;
  double atol, rtol;
  /// Host copies of the scratch buffers, reused by every host comparison.
  std::vector<std::unique_ptr<char[]>> hostCopies;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_OUTPUTCHECK_H
