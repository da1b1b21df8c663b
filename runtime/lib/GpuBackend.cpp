//===- GpuBackend.cpp - What the CUDA and HIP backends share --------------===//

#include "GpuBackend.h"

#include <cstdio>

namespace tuna::gpu {

std::string callFailure(std::string_view what, const char *call,
                        const char *name, long code, const char *text) {
  return std::string(what) + ": " + call + " failed: " + name + " (" +
         std::to_string(code) + ")" + (*text ? ": " : "") + text;
}

std::string launchGeometry(const LaunchDims &dims,
                           std::string_view sharedMemory) {
  char geometry[128];
  std::snprintf(geometry, sizeof(geometry),
                " (grid %ux%ux%u, block %ux%ux%u, %u bytes of dynamic ",
                dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0],
                dims.block[1], dims.block[2], dims.sharedBytes);
  return geometry + std::string(sharedMemory) + ")";
}

std::string blockLimitExceeded(const LaunchDims &dims, int maxThreads,
                               std::string_view device) {
  uint64_t threads = threadsPerBlock(dims);
  if (threads <= static_cast<uint64_t>(maxThreads))
    return "";
  return "; a block of " + std::to_string(threads) + " threads exceeds the " +
         std::to_string(maxThreads) + " this function allows on " +
         std::string(device);
}

} // namespace tuna::gpu
