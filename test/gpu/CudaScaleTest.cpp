//===- CudaScaleTest.cpp - kernels-mlir/scale.mlir on a CUDA device -------===//
//
// The compiled `scale` kernel (15 variants) tuned and run on the GPU: fresh
// random inputs, a NaN-poisoned output, results compared with the CPU.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
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
    const char *path = std::getenv("TUNA_GPU_BUNDLE");
    if (!path || !*path) {
      s.skip = "TUNA_GPU_BUNDLE is not set (bench/run_gpu.sh sets it to the "
               "scale bundle compiled for sm_90)";
      return s;
    }
    s.bundle = path;
    try {
      s.device = std::make_unique<Device>(Device::cuda(0));
    } catch (const Error &e) {
      s.skip = std::string("no CUDA device: ") + e.what();
    }
    return s;
  }();
  return s;
}


} // namespace

TEST(CudaScaleTest, TunedResultsMatchTheCpuForEveryShape) {
  REQUIRE_GPU();
  Options options;
  Module module = Module::load(setup().bundle, *setup().device, options);
  for (int64_t n : {1, 1000, 4097, 1 << 20, (1 << 22) + 3}) {
    double error = runScale(module, n, 1.75f);
    EXPECT_EQ(error, 0.0) << "n = " << n;
  }
  // One decision per power-of-two bucket: 1, 1024, 8192, 2^20, 2^23.
  EXPECT_EQ(module.kernel("scale").reports().size(), 5u);
  for (const TuningReport &report : module.kernel("scale").reports()) {
    EXPECT_EQ(report.candidates.size(), 15u);
    EXPECT_GE(report.chosen, 0);
  }
}

TEST(CudaScaleTest, EveryVariantIsCorrectWhenForced) {
  REQUIRE_GPU();
  // With the check on, a candidate that differs from the default variant is
  // rejected and reported: none may be.
  Options options;
  options.check = true;
  options.atol = 0;
  options.rtol = 0;
  Module module = Module::load(setup().bundle, *setup().device, options);
  EXPECT_EQ(runScale(module, 123457, -3.0f), 0.0);
  const TuningReport report = module.kernel("scale").reports().back();
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  EXPECT_EQ(report.checkedOn, "the device");
  for (const CandidateResult &c : report.candidates)
    EXPECT_NE(c.status, CandidateStatus::WrongResult)
        << c.name << ": " << c.reason;
}

TEST(CudaScaleTest, TuningOffLaunchesTheDefault) {
  REQUIRE_GPU();
  Options options;
  options.mode = TuneMode::Off;
  Module module = Module::load(setup().bundle, *setup().device, options);
  EXPECT_EQ(runScale(module, 50000, 2.0f), 0.0);
  const TunedKernel &kernel = module.kernel("scale");
  EXPECT_EQ(kernel.reports().back().chosen, kernel.spec().defaultVariant);
}

TEST(CudaScaleTest, BadCodeIsAnErrorNamingTheCall) {
  REQUIRE_GPU();
  Object garbage;
  garbage.target = "nvptx:sm_90";
  garbage.format = "ptx";
  garbage.data = ".version 8.0\n.target sm_90\nthis is not ptx\n";
  try {
    setup().device->backend().loadModule(garbage, "kernel 'bogus'");
    FAIL() << "garbage PTX loaded";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("kernel 'bogus'"), std::string::npos) << message;
    EXPECT_NE(message.find("cuModuleLoadDataEx"), std::string::npos) << message;
  }
}
