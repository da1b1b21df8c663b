//===- GpuBackendTest.cpp - What the CUDA and HIP backends share ----------===//
//
// runtime/lib/GpuBackend.h without a GPU: the limits read through an API's
// attribute IDs, the capture question's answers, and the messages of a
// failed call and a failed launch, in the CUDA backend's wording (the HIP
// backend's are checked end to end against the fake HIP in HipBackendTest).
//
//===----------------------------------------------------------------------===//

#include "GpuBackend.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

using namespace tuna;

namespace {

TEST(GpuBackendTest, ReadLimitsAsksForEveryAttributeByItsId) {
  gpu::LimitAttributes<int> ids{1, 2, 3, 4, {10, 11, 12}, {20, 21, 22}, 5, 6, 7};
  std::map<int, int> asked;
  DeviceInfo info;
  gpu::readLimits(info, ids, [&](int id) {
    ++asked[id];
    return id * 100;
  });
  EXPECT_EQ(asked.size(), 13u);
  EXPECT_EQ(info.maxThreadsPerBlock, 100);
  EXPECT_EQ(info.maxSharedBytesPerBlock, 200);
  EXPECT_EQ(info.multiProcessors, 300);
  EXPECT_EQ(info.warpSize, 400);
  EXPECT_EQ(info.maxThreadsPerMultiprocessor, 500);
  EXPECT_EQ(info.sharedBytesPerMultiprocessor, 600);
  EXPECT_EQ(info.cacheBytes, 700);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(info.maxGridDim[d], (10 + d) * 100);
    EXPECT_EQ(info.maxBlockDim[d], (20 + d) * 100);
  }
}

/// An API whose check throws the call's name, as Driver::check does.
struct FakeApi {
  void check(int result, const char *call, std::string_view what) const {
    if (result != 0)
      throw std::runtime_error(std::string(what) + ": " + call);
  }
};

TEST(GpuBackendTest, ImplicitCaptureCountsAsCapturingAndFailuresThrow) {
  FakeApi api;
  constexpr int kImplicit = 906;
  EXPECT_TRUE(gpu::isCapturing(api, "isCapturing", kImplicit, kImplicit,
                               /*capturing=*/false));
  EXPECT_TRUE(gpu::isCapturing(api, "isCapturing", 0, kImplicit, true));
  EXPECT_FALSE(gpu::isCapturing(api, "isCapturing", 0, kImplicit, false));
  try {
    gpu::isCapturing(api, "isCapturing", 1, kImplicit, false);
    FAIL() << "a failed call answered";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "asking whether a stream captures: isCapturing");
  }
}

TEST(GpuBackendTest, MessagesOfAFailedCallAndLaunch) {
  EXPECT_EQ(gpu::callFailure("kernel 'scale'", "cuModuleLoadDataEx",
                             "CUDA_ERROR_INVALID_PTX", 218,
                             "a PTX JIT compilation failed"),
            "kernel 'scale': cuModuleLoadDataEx failed: "
            "CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed");
  EXPECT_EQ(gpu::callFailure("x", "hipInit", "hipErrorNoDevice", 100, ""),
            "x: hipInit failed: hipErrorNoDevice (100)");

  LaunchDims dims;
  dims.grid[0] = 4294967295u;
  dims.grid[1] = 4294967295u;
  dims.grid[2] = 4294967295u;
  dims.block[0] = 2048;
  dims.block[1] = 4294967295u;
  dims.block[2] = 4294967295u;
  dims.sharedBytes = 4294967295u;
  EXPECT_EQ(gpu::launchGeometry(dims, "shared memory"),
            " (grid 4294967295x4294967295x4294967295, block "
            "2048x4294967295x4294967295, 4294967295 bytes of dynamic shared "
            "memory)");

  LaunchDims block;
  block.block[0] = 512;
  block.block[1] = 2;
  EXPECT_EQ(gpu::blockLimitExceeded(block, 1024, "NVIDIA H100"), "");
  EXPECT_EQ(gpu::blockLimitExceeded(block, 256, "NVIDIA H100"),
            "; a block of 1024 threads exceeds the 256 this function allows "
            "on NVIDIA H100");
}

} // namespace
