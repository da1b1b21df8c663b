//===- HipGpuTest.cpp - kernels-mlir/scale.mlir on an AMD GPU -------------===//
//
// The HIP backend on real AMD hardware: the compiled `scale` kernel (15
// variants, HSA code objects for gfx90a, gfx942 and gfx1100) tuned and run
// on HIP device 0, results compared with the CPU, and the launch errors the
// fake HIP runtime can only imitate. Without a ROCm driver and an AMD GPU,
// or without the bundle, every test is skipped with the reason.
//
// The bundle: $TUNA_HIP_BUNDLE, else the one this build compiled
// (tuna-hip-test-bundle). docs/runtime-api.md ("AMD GPUs") has the commands
// for an MI300X. No AMD GPU was available to this project: these tests have
// been compiled and skipped, never run.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

using namespace tuna;
using namespace tuna::gpu;

namespace {

/// $TUNA_HIP_BUNDLE, else the bundle this build compiled; null if unset.
const char *bundlePath() {
  const char *path = std::getenv("TUNA_HIP_BUNDLE");
#ifdef TUNA_HIP_TEST_BUNDLE
  if (!path || !*path)
    path = TUNA_HIP_TEST_BUNDLE;
#endif
  return path && *path ? path : nullptr;
}

const BundleSetup &setup() {
  static const BundleSetup s = [] {
    const char *path = bundlePath();
    return openBundleAndDevice(
        path && std::ifstream(path) ? path : nullptr,
        std::string("no AMDGCN scale bundle (") +
            (path ? path : "TUNA_HIP_BUNDLE is not set") +
            "): build tuna-hip-test-bundle, or set TUNA_HIP_BUNDLE",
        "no AMD GPU: ", [] { return Device::hip(0); });
  }();
  return s;
}

/// Variant 0's function, loaded from its code object for this device.
struct LoadedVariant {
  Backend &backend;
  ModuleHandle module;
  FunctionHandle function;
  explicit LoadedVariant(Backend &b) : backend(b) {
    Bundle bundle = readBundleFile(setup().bundle);
    const Variant &variant = bundle.kernels.at(0).variants.at(0);
    int code = backend.selectCode(bundle, variant);
    if (code < 0)
      throw Error(ErrorCode::Unsupported, "no code object for this device");
    module = backend.loadModule(bundle.objects[variant.code[code].object],
                                "scale variant 0");
    function = backend.getFunction(module, variant.code[code].symbol,
                                   "scale variant 0");
  }
  ~LoadedVariant() { backend.unloadModule(module); }
};

} // namespace

TEST(HipGpuTest, DeviceReportsItself) {
  REQUIRE_GPU();
  const DeviceInfo &info = setup().device->info();
  EXPECT_EQ(info.platform, "hip");
  EXPECT_EQ(info.arch.rfind("gfx", 0), 0u) << info.arch;
  EXPECT_TRUE(info.warpSize == 64 || info.warpSize == 32) << info.warpSize;
  EXPECT_GT(info.multiProcessors, 0);
  EXPECT_GE(info.maxSharedBytesPerBlock, 64 * 1024);
  EXPECT_EQ(info.maxThreadsPerBlock, 1024);
  std::printf("HIP device 0: %s, %s, driver %s\n", info.name.c_str(),
              info.arch.c_str(), info.driverVersion.c_str());
}

TEST(HipGpuTest, TunedResultsMatchTheCpuForEveryShape) {
  REQUIRE_GPU();
  for (const TuningReport &report : expectTunedScaleMatchesCpu(setup()))
    for (const CandidateResult &c : report.candidates)
      if (c.status == CandidateStatus::Measured)
        EXPECT_GT(c.medianMs, 0.0) << c.name << ": timed by hipEvents";
}

TEST(HipGpuTest, EveryVariantIsCorrectWhenForced) {
  REQUIRE_GPU();
  expectEveryScaleVariantCorrect(setup());
}

TEST(HipGpuTest, BadCodeObjectIsAnErrorNamingTheCall) {
  REQUIRE_GPU();
  Object object;
  object.target = "amdgcn:" + setup().device->info().arch;
  object.format = "hsaco";
  object.data = std::string("\x7f" "ELF", 4) + std::string(64, '\0');
  try {
    setup().device->backend().loadModule(object, "kernel 'bad'");
    FAIL() << "a broken code object loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Backend);
    EXPECT_NE(std::string(e.what()).find(
                  "kernel 'bad': hipModuleLoadData failed: hipError"),
              std::string::npos)
        << e.what();
  }
}

TEST(HipGpuTest, LaunchesOverTheLimitsAreClearErrors) {
  REQUIRE_GPU();
  Backend &backend = setup().device->backend();
  LoadedVariant scale(backend);
  DeviceBuffer x(backend, 4), y(backend, 4);
  MemRefView xv = memref(x.data(), {1});
  MemRefView yv = memref(y.data(), {1});
  float s = 1;
  int64_t n = 1;
  void *params[] = {&xv.allocated, &xv.aligned,    &xv.offset,
                    &xv.sizes[0],  &xv.strides[0], &yv.allocated,
                    &yv.aligned,   &yv.offset,     &yv.sizes[0],
                    &yv.strides[0], &s,            &n};
  LaunchDims threads;
  threads.block[0] = 2048;
  try {
    backend.launch(scale.function, nullptr, threads, params);
    backend.synchronize(nullptr);
    FAIL() << "a block of 2048 threads launched";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("hipModuleLaunchKernel failed"),
              std::string::npos)
        << e.what();
  }
  LaunchDims lds;
  lds.sharedBytes =
      static_cast<uint32_t>(setup().device->info().maxSharedBytesPerBlock + 1);
  try {
    backend.launch(scale.function, nullptr, lds, params);
    backend.synchronize(nullptr);
    FAIL() << "a launch over the LDS of a workgroup ran";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("bytes of dynamic LDS"),
              std::string::npos)
        << e.what();
  }
}
