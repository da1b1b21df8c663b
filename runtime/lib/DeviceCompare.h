//===- DeviceCompare.h - The check's comparison on the GPU ------*- C++ -*-===//
//
// Options::check on a CUDA device compares a candidate's output with the
// reference where both are, in device memory, and reads back a summary of a
// few bytes: the kernels of cuda/CompareKernels.mlir, embedded as the PTX
// that Tuna's NVPTX pipeline compiles them to (CompareKernels.ptx, sm_75),
// loaded through the Backend interface like any bundle object. The rule is
// compareElements' (Compare.h), element for element.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_DEVICECOMPARE_H
#define TUNA_RUNTIME_LIB_DEVICECOMPARE_H

#include "Compare.h"

#include "tuna/runtime/Backend.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuna {

class DeviceComparison {
public:
  /// Loads the kernels on `backend`; nullptr when it cannot run NVIDIA PTX
  /// (the host, HIP) or loading them failed (a driver older than PTX ISA
  /// 8.0), with the reason in `whyNot`.
  static std::unique_ptr<DeviceComparison> load(Backend &backend,
                                                std::string &whyNot);
  ~DeviceComparison();
  DeviceComparison(const DeviceComparison &) = delete;
  DeviceComparison &operator=(const DeviceComparison &) = delete;

  /// outputScale of `bytes` of float `type` at `want` (device memory).
  double scale(ScalarType type, const void *want, size_t bytes,
               StreamHandle stream);

  /// compareElements of `bytes` of `type` at `got` and `want` (device
  /// memory): the counting and the search for the worst element run on the
  /// device; the worst element's two values are read back for the report.
  std::optional<Mismatch> compare(ScalarType type, const void *got,
                                  const void *want, size_t bytes,
                                  const Allowance &allowance,
                                  StreamHandle stream);

private:
  struct Kernels;
  /// What a kernel found: how many elements failed, the worst ratio (or
  /// the scale) and the worst element's index.
  struct Record {
    uint64_t count = 0;
    double ratio = 0;
    uint64_t index = 0;
  };

  explicit DeviceComparison(Backend &backend);
  /// Launches `kernel` over `elements` with `params` and the partials,
  /// folds its blocks' records with `summarize` and reads the result back.
  Record run(FunctionHandle kernel, std::vector<void *> params,
             size_t elements, StreamHandle stream);

  Backend &backend;
  ModuleHandle module = nullptr;
  std::unique_ptr<Kernels> kernels;
  /// Per block records, and the summary.
  void *partials = nullptr;
  void *summary = nullptr;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_DEVICECOMPARE_H
