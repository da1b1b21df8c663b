//===- GpuBackend.h - What the CUDA and HIP backends share -----*- C++ -*-===//
//
// The CUDA (cuda/) and HIP (hip/) backends drive two APIs of one shape: the
// same device limits under other attribute IDs, the same question whether a
// stream captures, the same launch geometry to report when a launch fails.
// How they ask and what they say about these lives here, once.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_GPUBACKEND_H
#define TUNA_RUNTIME_LIB_GPUBACKEND_H

#include "tuna/runtime/Backend.h"

#include <mutex>
#include <string>
#include <string_view>

namespace tuna::gpu {

/// The message of a failed API call: "<what>: <call> failed: <name>
/// (<code>): <text>", without ": <text>" when `text` is empty.
std::string callFailure(std::string_view what, const char *call,
                        const char *name, long code, const char *text);

/// The device limits every GPU backend reads, by its API's attribute IDs:
/// those of a block and launch, and those of one multiprocessor (CU) that
/// the pruning model's occupancy needs on every API (Prune.h).
template <typename Attribute> struct LimitAttributes {
  Attribute maxThreadsPerBlock;
  Attribute maxSharedBytesPerBlock;
  Attribute multiProcessors;
  Attribute warpSize;
  Attribute maxGridDim[3];
  Attribute maxBlockDim[3];
  Attribute maxThreadsPerMultiprocessor;
  Attribute sharedBytesPerMultiprocessor;
  Attribute cacheBytes;
};

/// Sets the limits of `info` that `attributes` names, each read by
/// `read(attribute)` (which throws when the API fails).
template <typename Attribute, typename Read>
void readLimits(DeviceInfo &info, const LimitAttributes<Attribute> &attributes,
                Read read) {
  info.maxThreadsPerBlock = read(attributes.maxThreadsPerBlock);
  info.maxSharedBytesPerBlock = read(attributes.maxSharedBytesPerBlock);
  info.multiProcessors = read(attributes.multiProcessors);
  info.warpSize = read(attributes.warpSize);
  for (int d = 0; d < 3; ++d) {
    info.maxGridDim[d] = read(attributes.maxGridDim[d]);
    info.maxBlockDim[d] = read(attributes.maxBlockDim[d]);
  }
  info.maxThreadsPerMultiprocessor =
      read(attributes.maxThreadsPerMultiprocessor);
  info.sharedBytesPerMultiprocessor =
      read(attributes.sharedBytesPerMultiprocessor);
  info.cacheBytes = read(attributes.cacheBytes);
}

/// What Backend::evictCache writes: twice the device's L2 (as
/// bench/gpu/compare.py's cold samples do), 64 MiB where the device does not
/// say how large its L2 is.
inline size_t evictionBytes(const DeviceInfo &info) {
  return info.cacheBytes > 0 ? size_t(info.cacheBytes) * 2 : size_t(64) << 20;
}

/// The threads of one block of `dims`.
inline uint64_t threadsPerBlock(const LaunchDims &dims) {
  return uint64_t(dims.block[0]) * dims.block[1] * dims.block[2];
}

/// Whether a stream captures, from the API's answer: `result` of its
/// is-capturing call (checked by `api.check`, named `call`) and whether the
/// status it reported is a capture. The legacy (null) stream while a
/// blocking stream captures answers `implicitCapture`: using it would
/// invalidate that capture, so it counts as capturing.
template <typename Api, typename Result>
bool isCapturing(const Api &api, const char *call, Result result,
                 Result implicitCapture, bool capturing) {
  if (result == implicitCapture)
    return true;
  api.check(result, call, "asking whether a stream captures");
  return capturing;
}

/// " (grid 8x1x1, block 128x1x1, 0 bytes of dynamic <sharedMemory>)": the
/// geometry of a failed launch, for its message.
std::string launchGeometry(const LaunchDims &dims,
                           std::string_view sharedMemory);

/// "; a block of 2048 threads exceeds the 1024 this function allows on
/// <device>" when the block of `dims` has more threads than `maxThreads`,
/// else "": which limit a failed launch broke, where the API does not say.
std::string blockLimitExceeded(const LaunchDims &dims, int maxThreads,
                               std::string_view device);

/// The launches of one module whose kernels keep state in its globals
/// (Object::moduleState), so that no two run at once: a launch into another
/// stream than the module's last one first waits for an event recorded
/// after that one. A launch into a capturing stream is neither ordered nor
/// recorded (a graph's replays are the application's to order;
/// docs/runtime-api.md, "Kernels with module state"). `Stream` and `Event`
/// are the API's handles; the event belongs to the caller. `perThread` is
/// the API's handle of the calling thread's default stream, which names
/// another stream in each thread: a launch into it always waits.
template <typename Stream, typename Event> class LaunchOrder {
public:
  LaunchOrder(Event event, Stream perThread)
      : event(event), perThread(perThread) {}

  /// Launches into `stream` in order. `calls` has `bool capturing(Stream)`,
  /// `void wait(Stream, Event)`, `void launch()` and `void record(Event,
  /// Stream)`, which throw when the API fails.
  template <typename Calls> void launch(Stream stream, Calls &&calls) {
    std::lock_guard<std::mutex> lock(mutex);
    if (calls.capturing(stream)) {
      calls.launch();
      return;
    }
    if (recorded && (stream != last || stream == perThread))
      calls.wait(stream, event);
    calls.launch();
    calls.record(event, stream);
    last = stream;
    recorded = true;
  }

private:
  std::mutex mutex;
  Event event;
  Stream perThread;
  Stream last{};
  bool recorded = false; ///< `event` follows the last launch, into `last`.
};

} // namespace tuna::gpu

#endif // TUNA_RUNTIME_LIB_GPUBACKEND_H
