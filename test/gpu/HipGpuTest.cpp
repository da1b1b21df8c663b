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

/// The device and bundle, or the reason the tests cannot run.
struct Setup {
  std::string skip;
  std::string bundle;
  std::unique_ptr<Device> device;
};

Setup &setup() {
  static Setup s = [] {
    Setup s;
    const char *path = std::getenv("TUNA_HIP_BUNDLE");
#ifdef TUNA_HIP_TEST_BUNDLE
    if (!path || !*path)
      path = TUNA_HIP_TEST_BUNDLE;
#endif
    if (!path || !*path || !std::ifstream(path)) {
      s.skip = std::string("no AMDGCN scale bundle (") +
               (path && *path ? path : "TUNA_HIP_BUNDLE is not set") +
               "): build tuna-hip-test-bundle, or set TUNA_HIP_BUNDLE";
      return s;
    }
    s.bundle = path;
    try {
      s.device = std::make_unique<Device>(Device::hip(0));
    } catch (const Error &e) {
      s.skip = std::string("no AMD GPU: ") + e.what();
    }
    return s;
  }();
  return s;
}

#define REQUIRE_AMD_GPU()                                                      \
  do {                                                                         \
    if (!setup().skip.empty())                                                 \
      GTEST_SKIP() << setup().skip;                                            \
  } while (0)

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
  REQUIRE_AMD_GPU();
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
  REQUIRE_AMD_GPU();
  Module module = Module::load(setup().bundle, *setup().device, Options());
  for (int64_t n : {1, 1000, 4097, 1 << 20, (1 << 22) + 3}) {
    double error = runScale(module, n, 1.75f);
    EXPECT_EQ(error, 0.0) << "n = " << n;
  }
  EXPECT_EQ(module.kernel("scale").reports().size(), 5u);
  for (const TuningReport &report : module.kernel("scale").reports()) {
    EXPECT_EQ(report.candidates.size(), 15u);
    EXPECT_GE(report.chosen, 0);
    for (const CandidateResult &c : report.candidates) {
      if (c.status == CandidateStatus::Measured) {
        EXPECT_GT(c.medianMs, 0.0) << c.name << ": timed by hipEvents";
      }
    }
  }
}

TEST(HipGpuTest, EveryVariantIsCorrectWhenForced) {
  REQUIRE_AMD_GPU();
  Options options;
  options.check = true;
  options.atol = 0;
  options.rtol = 0;
  Module module = Module::load(setup().bundle, *setup().device, options);
  EXPECT_EQ(runScale(module, 123457, -3.0f), 0.0);
  const TuningReport report = module.kernel("scale").reports().back();
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  for (const CandidateResult &c : report.candidates)
    EXPECT_NE(c.status, CandidateStatus::WrongResult)
        << c.name << ": " << c.reason;
}

TEST(HipGpuTest, BadCodeObjectIsAnErrorNamingTheCall) {
  REQUIRE_AMD_GPU();
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
  REQUIRE_AMD_GPU();
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
