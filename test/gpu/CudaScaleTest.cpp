//===- CudaScaleTest.cpp - kernels-mlir/scale.mlir on a CUDA device -------===//
//
// The compiled `scale` kernel (15 variants) tuned and run on the GPU: fresh
// random inputs, a NaN-poisoned output, results compared with the CPU.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::gpu;

namespace {

const BundleSetup &setup() {
  static const BundleSetup s = openBundleAndDevice(
      std::getenv("TUNA_GPU_BUNDLE"),
      "TUNA_GPU_BUNDLE is not set (bench/run_gpu.sh sets it to the scale "
      "bundle compiled for sm_90)",
      "no CUDA device: ", [] { return Device::cuda(0); });
  return s;
}

} // namespace

TEST(CudaScaleTest, TunedResultsMatchTheCpuForEveryShape) {
  REQUIRE_GPU();
  expectTunedScaleMatchesCpu(setup());
}

TEST(CudaScaleTest, EveryVariantIsCorrectWhenForced) {
  REQUIRE_GPU();
  TuningReport report = expectEveryScaleVariantCorrect(setup());
  EXPECT_EQ(report.checkedOn, "the device");
}

// Views 4 and 8 bytes into their buffers: the 16-byte (and, at 4 bytes,
// the 8-byte) vector accesses, which claim their size as alignment
// (tuna.aligned), must not be taken; every variant is run once by the check
// and a misaligned access would fault.
TEST(CudaScaleTest, ViewsOffTheVectorSizeAreCorrectInEveryVariant) {
  REQUIRE_GPU();
  for (int64_t offset : {1, 2}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    TuningReport report = expectEveryScaleVariantCorrect(setup(), offset);
    for (const CandidateResult &c : report.candidates)
      EXPECT_TRUE(c.status != CandidateStatus::Unrunnable &&
                  c.status != CandidateStatus::Failed)
          << c.name << ": " << c.reason;
  }
}

// The bundle's sm_90 objects wait for the grid before them
// (tuna-grid-dependency), so the backend launches them with programmatic
// stream serialization: each launch may start before the one before it
// ends. A chain on one stream in which every launch reads what the one
// before wrote (y = 4^i x, exact in binary floating point) must see every
// write.
TEST(CudaScaleTest, DependentLaunchesSeeTheWritesBeforeThem) {
  REQUIRE_GPU();
  Module module = Module::load(setup().bundle, *setup().device, Options());
  Backend &backend = module.device().backend();
  const int64_t n = 1 << 22;
  ScaleVectors v(backend, n);
  DeviceBuffer z(backend, v.bytes());
  TunedKernel &scale = module.kernel("scale");
  scale.launch(nullptr, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}),
               1.0f, n); // Tunes.
  const int rounds = 40;
  for (int i = 0; i < rounds; ++i) {
    scale.launch(nullptr, memref(v.dy.data(), {n}), memref(z.data(), {n}),
                 2.0f, n);
    scale.launch(nullptr, memref(z.data(), {n}), memref(v.dy.data(), {n}),
                 2.0f, n);
  }
  backend.synchronize(nullptr);
  EXPECT_EQ(v.wrong(std::ldexp(1.0f, 2 * rounds)), 0);
}

// Vectors that fit in the L2 together stay there between back-to-back
// launches; cold timing (Options::coldTiming) evicts them before each timed
// launch, so the same kernel must read them from memory: slower. The cold
// decision is checked like any other.
TEST(CudaScaleTest, ColdTimingEvictsTheL2BeforeEachTimedLaunch) {
  REQUIRE_GPU();
  Backend &backend = setup().device->backend();
  ASSERT_TRUE(backend.evictsCache());
  ASSERT_GT(backend.info().cacheBytes, 0);
  const int64_t n = backend.info().cacheBytes / 4 / sizeof(float);
  ScaleVectors v(backend, n);
  auto pickMs = [&](bool cold) {
    Options options;
    options.coldTiming = cold;
    options.check = true;
    Module module = Module::load(setup().bundle, *setup().device, options);
    TunedKernel &scale = module.kernel("scale");
    scale.launch(nullptr, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}),
                 2.0f, n);
    backend.synchronize(nullptr);
    TuningReport report = scale.reports().back();
    EXPECT_EQ(report.coldTiming, cold);
    EXPECT_FALSE(report.defaultRejected);
    return report.candidates[report.chosen].medianMs;
  };
  double warmMs = pickMs(false), coldMs = pickMs(true);
  EXPECT_GT(coldMs, 1.2 * warmMs) << "warm " << warmMs << " ms";
  EXPECT_EQ(v.wrong(2.0f), 0);
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
