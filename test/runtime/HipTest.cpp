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
#include <sys/wait.h>
#include <unistd.h>

using namespace tuna;

namespace {
/// What loading the machine's libamdhip64 does.
struct HipProbe {
  std::string library; ///< The one the backend would load, or "".
  std::string broken;  ///< Why loading it ends the process, or "".
};

/// Loads each libamdhip64 in a child process first: a ROCm whose
/// initializers abort (seen on the H100 machine: "CommandLine Error: Option
/// 'disassemble' registered more than once", two LLVMs in one process)
/// would otherwise end the test binary.
const HipProbe &probeHip() {
  static const HipProbe probe = [] {
    HipProbe result;
    for (const char *name :
         {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"}) {
      pid_t child = ::fork();
      if (child == 0) {
        void *library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
        ::_exit(library ? 0 : 1);
      }
      int status = 0;
      if (child < 0 || ::waitpid(child, &status, 0) != child)
        continue;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
        continue;
      result.library = name;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        result.broken = std::string("loading ") + name +
                        " ends the process (the machine's ROCm is broken)";
      return result;
    }
    return result;
  }();
  return probe;
}

std::string hipLibrary() { return probeHip().library; }
} // namespace

TEST(HipTest, NoRocmIsAClearError) {
  if (!probeHip().broken.empty())
    GTEST_SKIP() << probeHip().broken;
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
  if (!probeHip().broken.empty())
    GTEST_SKIP() << probeHip().broken;
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
