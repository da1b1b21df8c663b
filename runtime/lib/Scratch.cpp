//===- Scratch.cpp - Private copies of the buffers a kernel writes --------===//

#include "Scratch.h"

#include "tuna/runtime/ScalarType.h"

namespace tuna {

ViewExtent viewExtent(const MemRefView &view) {
  // The elements the view can reach: [offset + low, offset + high].
  int64_t low = 0, high = 0;
  for (int d = 0; d < view.rank; ++d) {
    if (view.sizes[d] == 0)
      return {};
    int64_t reach = (view.sizes[d] - 1) * view.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  size_t elementSize = scalarTypeSize(view.type);
  const char *first = static_cast<const char *>(view.aligned) +
                      (view.offset + low) * static_cast<int64_t>(elementSize);
  return {first, low, static_cast<size_t>(high - low + 1) * elementSize};
}

ScratchArgs::ScratchArgs(Backend &backend, StreamHandle stream,
                         const Kernel &spec, const ArgValue *args, size_t count)
    : backend(backend), stream(stream), copies(args, args + count) {
  try {
    for (size_t i = 0; i < count; ++i) {
      if (!spec.args[i].written)
        continue;
      MemRefView &view = copies[i].memref;
      ViewExtent extent = viewExtent(view);
      if (!extent.bytes)
        continue;
      char *buffer = static_cast<char *>(backend.allocate(extent.bytes));
      scratch.push_back({i, view.type, extent.first, buffer, extent.bytes});
      view.allocated = view.aligned = buffer;
      view.offset = -extent.low;
    }
  } catch (...) {
    for (const Buffer &buffer : scratch)
      backend.deallocate(buffer.scratch);
    throw;
  }
}

ScratchArgs::~ScratchArgs() {
  for (const Buffer &buffer : scratch)
    backend.deallocate(buffer.scratch);
}

void ScratchArgs::reset() {
  for (const Buffer &buffer : scratch)
    backend.copy(buffer.scratch, buffer.source, buffer.bytes,
                 CopyKind::DeviceToDevice, stream);
}

std::vector<std::string> ScratchArgs::readBack() {
  std::vector<std::string> contents;
  for (const Buffer &buffer : scratch) {
    std::string host(buffer.bytes, '\0');
    backend.copy(host.data(), buffer.scratch, buffer.bytes,
                 CopyKind::DeviceToHost, stream);
    contents.push_back(std::move(host));
  }
  return contents;
}

} // namespace tuna
