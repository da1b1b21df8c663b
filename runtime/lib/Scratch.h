//===- Scratch.h - Private copies of the buffers a kernel writes -*- C++
//-*-===//
//
// Tuning launches candidates on scratch copies of every memref the kernel
// may write, so the application's data is never touched by a candidate.
// Memrefs the kernel only reads are passed as they are.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_SCRATCH_H
#define TUNA_RUNTIME_LIB_SCRATCH_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/MemRef.h"

#include <string>
#include <vector>

namespace tuna {

/// The memory a view can reach: `bytes` from `first`, the element at
/// view.offset + low; bytes is 0 for a view with no elements.
struct ViewExtent {
  const char *first = nullptr;
  int64_t low = 0;
  size_t bytes = 0;
};
ViewExtent viewExtent(const MemRefView &view);

class ScratchArgs {
public:
  struct Buffer {
    size_t arg;         ///< Argument index.
    ScalarType type;    ///< Element type.
    const char *source; ///< First byte the view can reach in user memory.
    char *scratch;      ///< Device memory of the same size.
    size_t bytes;
  };

  /// Allocates the scratch buffers; call reset() before launching.
  ScratchArgs(Backend &backend, StreamHandle stream, const Kernel &spec,
              const ArgValue *args, size_t count);
  ~ScratchArgs();
  ScratchArgs(const ScratchArgs &) = delete;
  ScratchArgs &operator=(const ScratchArgs &) = delete;

  /// The arguments with written memrefs redirected to scratch.
  const ArgValue *args() const { return copies.data(); }
  size_t size() const { return copies.size(); }
  const std::vector<Buffer> &buffers() const { return scratch; }

  /// Copies the user's contents into every scratch buffer.
  void reset();
  /// Host copies of every scratch buffer, in buffers() order.
  std::vector<std::string> readBack();

private:
  Backend &backend;
  StreamHandle stream;
  std::vector<ArgValue> copies;
  std::vector<Buffer> scratch;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_SCRATCH_H
