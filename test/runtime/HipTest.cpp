//===- HipTest.cpp - The HIP device through the real libamdhip64 ----------===//
//
// The machine's own HIP runtime, where there is one: without ROCm the
// backend says so; with ROCm but no AMD GPU (CI with Debian's libamdhip64-5)
// hipInit fails and it says that; with a GPU the device reports itself.
// HipBackendTest.cpp runs the backend against a fake runtime.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Device.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace tuna;

namespace {
/// Which libamdhip64 the backend would load, or "" if none loads.
std::string hipLibrary() {
  for (const char *name :
       {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"})
    if (void *library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(library);
      return name;
    }
  return "";
}
} // namespace

TEST(HipTest, NoRocmIsAClearError) {
  if (!hipLibrary().empty())
    GTEST_SKIP() << "a HIP runtime (" << hipLibrary() << ") is present";
  try {
    makeHipBackend(0);
    FAIL() << "a HIP device without libamdhip64";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "HIP runtime (libamdhip64.so) not found (is ROCm installed?"),
              std::string::npos)
        << e.what();
  }
}

TEST(HipTest, DeviceReportsItselfOrSaysWhyNot) {
  if (hipLibrary().empty())
    GTEST_SKIP() << "libamdhip64 cannot be loaded: no ROCm here";
  try {
    std::unique_ptr<Backend> hip = makeHipBackend(0);
    EXPECT_EQ(hip->info().platform, "hip");
    EXPECT_EQ(hip->info().arch.rfind("gfx", 0), 0u) << hip->info().arch;
    EXPECT_GT(hip->info().warpSize, 0);
  } catch (const Error &e) {
    // ROCm without an AMD GPU: hipInit or hipGetDeviceCount fails.
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << e.what();
    std::string message = e.what();
    EXPECT_TRUE(message.find("hipInit failed") != std::string::npos ||
                message.find("hipGetDeviceCount failed") != std::string::npos)
        << message;
  }
}
