//===- CudaTest.cpp - The CUDA device, where a driver is present ----------===//

#include "tuna/runtime/Device.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace tuna;

namespace {
bool haveCudaDriver() {
  void *driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver)
    ::dlclose(driver);
  return driver != nullptr;
}

/// True if this tuna_runtime has no CUDA backend (runtime/lib/cuda/).
bool builtWithoutCuda() {
  try {
    Device::cuda(0);
  } catch (const Error &e) {
    return std::string(e.what()).find("built without CUDA support") !=
           std::string::npos;
  }
  return false;
}
} // namespace

TEST(CudaTest, DeviceReportsItself) {
  if (!haveCudaDriver())
    GTEST_SKIP() << "libcuda.so.1 cannot be loaded: no NVIDIA driver here";
  if (builtWithoutCuda())
    GTEST_SKIP() << "tuna_runtime was built without the CUDA backend";
  Device device = Device::cuda(0);
  EXPECT_EQ(device.info().platform, "cuda");
  EXPECT_EQ(device.info().arch.rfind("sm_", 0), 0u) << device.info().arch;
  EXPECT_GT(device.info().maxThreadsPerBlock, 0);
  EXPECT_TRUE(Device::cuda(0) == device);
}

TEST(CudaTest, MissingDeviceIsAClearError) {
  if (!haveCudaDriver())
    GTEST_SKIP() << "libcuda.so.1 cannot be loaded: no NVIDIA driver here";
  if (builtWithoutCuda())
    GTEST_SKIP() << "tuna_runtime was built without the CUDA backend";
  EXPECT_THROW(Device::cuda(1 << 20), Error);
}

TEST(CudaTest, NoDriverIsAClearError) {
  if (haveCudaDriver())
    GTEST_SKIP() << "a CUDA driver is present";
  try {
    Device::cuda(0);
    FAIL() << "Device::cuda(0) worked without libcuda.so.1";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos)
        << e.what();
  }
}
