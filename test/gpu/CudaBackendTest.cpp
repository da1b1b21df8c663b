//===- CudaBackendTest.cpp - The CUDA backend on nvcc-made PTX ------------===//
//
// The backend alone (load, launch, limits, errors) and the whole tuning loop
// on an in-memory bundle of the 15 scale variants of scale_variants.cu.
// Results are compared with the CPU on fresh random inputs, the output
// poisoned with NaN first. Every test skips, saying why, without a CUDA
// driver and device or without the nvcc-made PTX.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "ScaleBundle.h"

#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Prune.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace tuna;

namespace {

const gpu::PtxSetup &setup() {
  static const gpu::PtxSetup s = [] {
    gpu::PtxSetup s;
    gpu::openDeviceAndPtx(s);
    return s;
  }();
  return s;
}

Backend &backend() { return setup().device->backend(); }

Object ptxObject(std::string text) {
  Object object;
  object.target = gpu::ptxTarget(setup().ptx);
  object.format = "ptx";
  object.data = std::move(text);
  return object;
}

/// A loaded module that unloads itself.
class LoadedPtx {
public:
  explicit LoadedPtx(const std::string &ptx)
      : handle(backend().loadModule(ptxObject(ptx), "scale_variants.ptx")) {}
  ~LoadedPtx() { backend().unloadModule(handle); }
  LoadedPtx(const LoadedPtx &) = delete;
  LoadedPtx &operator=(const LoadedPtx &) = delete;
  FunctionHandle function(const std::string &symbol) {
    return backend().getFunction(handle, symbol, "kernel '" + symbol + "'");
  }

private:
  ModuleHandle handle;
};

/// Scale inputs on the test's device; wrong() waits for the device first.
struct Vectors : gpu::ScaleVectors {
  explicit Vectors(int64_t n) : ScaleVectors(backend(), n) {}
  int64_t wrong(float s) {
    backend().synchronize(nullptr);
    return ScaleVectors::wrong(s);
  }
};

/// Launches one variant directly, with the lowered parameter array of the
/// memref calling convention.
void launchScale(FunctionHandle function, Vectors &v, float s, uint32_t block,
                 uint32_t ept, uint32_t sharedBytes = 0) {
  void *x = v.dx.data(), *y = v.dy.data();
  int64_t zero = 0, one = 1, n = v.n;
  void *params[] = {&x, &x, &zero, &n, &one, &y, &y, &zero, &n, &one, &s, &n};
  LaunchDims dims;
  dims.grid[0] = static_cast<uint32_t>((n + block * ept - 1) / (block * ept));
  dims.block[0] = block;
  dims.sharedBytes = sharedBytes;
  backend().launch(function, nullptr, dims, params);
}

Module scaleModule(TuneMode mode = TuneMode::On) {
  Options options; // No cache directory: every process tunes afresh.
  options.mode = mode;
  return Module::fromBundle(gpu::makeScaleBundle(setup().ptx), *setup().device,
                            "scale_variants.ptx", options);
}

void expectMessageHas(const std::string &message, const std::string &part) {
  EXPECT_NE(message.find(part), std::string::npos)
      << "'" << part << "' not in: " << message;
}

} // namespace

TEST(CudaBackendTest, ReportsTheDevice) {
  REQUIRE_GPU();
  const DeviceInfo &info = backend().info();
  EXPECT_EQ(info.platform, "cuda");
  EXPECT_EQ(info.arch.rfind("sm_", 0), 0u) << info.arch;
  EXPECT_NE(info.fingerprint.find(info.name), std::string::npos);
  EXPECT_NE(info.fingerprint.find(info.driverVersion), std::string::npos);
  EXPECT_GE(info.maxThreadsPerBlock, 1024);
  EXPECT_GE(info.maxSharedBytesPerBlock, 48 * 1024);
  EXPECT_GT(info.multiProcessors, 0);
  EXPECT_EQ(info.warpSize, 32);
}

TEST(CudaBackendTest, ChoosesCubinForItsChipElsePtxNoNewerThanTheDevice) {
  REQUIRE_GPU();
  std::string sm = backend().info().arch; // "sm_90"
  int number = std::stoi(sm.substr(3));
  auto score = [&](const std::string &chip, const char *format) {
    Object object;
    object.target = "nvptx:" + chip;
    object.format = format;
    return backend().objectScore(object);
  };
  std::string older = "sm_" + std::to_string(number - 10);
  std::string newer = "sm_" + std::to_string(number + 10);
  EXPECT_GT(score(sm, "cubin"), score(sm, "ptx"));
  EXPECT_GT(score(sm, "ptx"), score(older, "ptx"));
  EXPECT_GE(score(older, "ptx"), 0);
  EXPECT_EQ(score(older, "cubin"), -1);
  EXPECT_EQ(score(newer, "ptx"), -1);
  EXPECT_EQ(score(newer, "cubin"), -1);
  EXPECT_GE(score(sm + "a", "cubin"), 0);
  EXPECT_EQ(score(older + "a", "ptx"), -1);
  EXPECT_EQ(score(sm, "hsaco"), -1);
  Object host;
  host.target = "host";
  host.format = "elf-so";
  EXPECT_EQ(backend().objectScore(host), -1);
}

TEST(CudaBackendTest, PtxLaunchMatchesTheCpu) {
  REQUIRE_GPU();
  LoadedPtx module(setup().ptx);
  FunctionHandle function = module.function("scale_b128_e4");
  FunctionLimits limits = backend().functionLimits(function);
  EXPECT_EQ(limits.maxThreadsPerBlock, 128); // __launch_bounds__(128)
  EXPECT_EQ(limits.staticSharedBytes, 0);
  EXPECT_GT(limits.registers, 0);
  for (int64_t n : {1, 511, 512, 4097, (1 << 20) + 3}) {
    Vectors v(n);
    launchScale(function, v, -2.5f, 128, 4);
    EXPECT_EQ(v.wrong(-2.5f), 0) << "n = " << n;
  }
}

TEST(CudaBackendTest, DynamicSharedMemoryAbove48KiBIsOptedInto) {
  REQUIRE_GPU();
  LoadedPtx module(setup().ptx);
  FunctionHandle function = module.function("scale_b256_e1");
  Vectors v(10000);
  launchScale(function, v, 3.0f, 256, 1, 64 * 1024);
  EXPECT_EQ(v.wrong(3.0f), 0);
}

// Static and dynamic shared memory count together against the 48 KiB a
// function gets without opting in: 1 KiB static plus 47.5 KiB dynamic needs
// the opt-in although the dynamic part alone is below 48 KiB.
TEST(CudaBackendTest, StaticSharedMemoryCountsTowardsTheOptIn) {
  REQUIRE_GPU();
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.shared .align 4 .b8 fixed[1024];
.extern .shared .align 16 .b8 dynamic[];
.visible .entry static_and_dynamic(.param .u64 out) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.shared.u32 [fixed+1020], %r1;
  mov.u32 %r2, 5;
  st.shared.u32 [dynamic+48636], %r2;
  bar.sync 0;
  ld.shared.u32 %r1, [fixed+1020];
  ld.shared.u32 %r2, [dynamic+48636];
  add.u32 %r1, %r1, %r2;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  LoadedPtx module(ptx);
  FunctionHandle function = module.function("static_and_dynamic");
  ASSERT_EQ(backend().functionLimits(function).staticSharedBytes, 1024);
  gpu::DeviceBuffer out(backend(), sizeof(float));
  void *outPtr = out.data();
  void *params[] = {&outPtr};
  LaunchDims dims;
  dims.sharedBytes = 48 * 1024 - 512;
  backend().launch(function, nullptr, dims, params);
  backend().synchronize(nullptr);
  uint32_t got = 0;
  backend().copy(&got, out.data(), sizeof(got), CopyKind::DeviceToHost,
                 nullptr);
  EXPECT_EQ(got, 12u);
}

// A function compiled with a cluster of 16 blocks, over the portable 8,
// launches: the backend allows its non-portable cluster when it loads it
// (without that, CUDA_ERROR_INVALID_CLUSTER_SIZE). Each block writes its
// rank in its cluster.
TEST(CudaBackendTest, AClusterOf16BlocksLaunches) {
  REQUIRE_GPU();
  if (std::stoi(backend().info().arch.substr(3)) < 90)
    GTEST_SKIP() << "thread block clusters need sm_90 (this is "
                 << backend().info().arch << ")";
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry ranks(.param .u64 out) .explicitcluster .reqnctapercluster 1, 1, 16
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %ctaid.z;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";
  LoadedPtx module(ptx);
  FunctionHandle function = module.function("ranks");
  constexpr int kBlocks = 32;
  gpu::DeviceBuffer out(backend(), kBlocks * sizeof(uint32_t));
  void *outPtr = out.data();
  void *params[] = {&outPtr};
  LaunchDims dims;
  dims.grid[2] = kBlocks;
  dims.block[0] = 32;
  backend().launch(function, nullptr, dims, params);
  backend().synchronize(nullptr);
  std::vector<uint32_t> ranks(kBlocks);
  backend().copy(ranks.data(), out.data(), kBlocks * sizeof(uint32_t),
                 CopyKind::DeviceToHost, nullptr);
  for (int z = 0; z < kBlocks; ++z)
    EXPECT_EQ(ranks[z], uint32_t(z % 16)) << "block " << z;
}

TEST(CudaBackendTest, BadPtxIsAnErrorNamingTheKernelAndTheCall) {
  REQUIRE_GPU();
  std::string bad = setup().ptx.substr(0, setup().ptx.find(".visible")) +
                    ".visible .entry broken() { this is not ptx; }\n";
  try {
    backend().loadModule(ptxObject(bad), "kernel 'broken' variant 'v0'");
    FAIL() << "broken PTX loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Backend);
    expectMessageHas(e.what(), "kernel 'broken' variant 'v0'");
    expectMessageHas(e.what(), "cuModuleLoadDataEx failed");
    expectMessageHas(e.what(), "CUDA_ERROR_INVALID_PTX");
    expectMessageHas(e.what(), "JIT log:");
  }
}

TEST(CudaBackendTest, MissingSymbolIsAnErrorNamingIt) {
  REQUIRE_GPU();
  LoadedPtx module(setup().ptx);
  try {
    module.function("scale_b96_e3");
    FAIL() << "found a symbol that does not exist";
  } catch (const Error &e) {
    expectMessageHas(e.what(), "'scale_b96_e3'");
    expectMessageHas(e.what(), "cuModuleGetFunction failed");
    expectMessageHas(e.what(), "CUDA_ERROR_NOT_FOUND");
  }
}

TEST(CudaBackendTest, TooManyThreadsIsAClearError) {
  REQUIRE_GPU();
  LoadedPtx module(setup().ptx);
  Vectors v(4096);
  struct Case {
    const char *symbol;
    uint32_t block;
    const char *limit;
  };
  // Over the function's __launch_bounds__, and over any block's limit.
  for (Case c : {Case{"scale_b256_e1", 512, "exceeds the 256"},
                 Case{"scale_b1024_e1", 2048, "exceeds the 1024"}}) {
    try {
      launchScale(module.function(c.symbol), v, 1.0f, c.block, 1);
      backend().synchronize(nullptr);
      FAIL() << c.symbol << " launched with " << c.block << " threads";
    } catch (const Error &e) {
      expectMessageHas(e.what(), std::string("kernel '") + c.symbol + "'");
      expectMessageHas(e.what(), "cuLaunchKernel failed");
      expectMessageHas(e.what(), "block " + std::to_string(c.block) + "x1x1");
      expectMessageHas(e.what(), c.limit);
    }
  }
  // The failed launches left the device usable.
  launchScale(module.function("scale_b256_e1"), v, 1.0f, 256, 1);
  EXPECT_EQ(v.wrong(1.0f), 0);
}

TEST(CudaBackendTest, TuningLoopPicksAVariantPerShapeAndIsCorrect) {
  REQUIRE_GPU();
  Module module = scaleModule();
  TunedKernel &kernel = module.kernel("scale");
  const float s = 1.25f;
  const std::vector<int64_t> sizes = {1000, 1 << 16, (1 << 22) + 3};
  for (int64_t n : sizes) {
    Vectors v(n);
    kernel.launch(nullptr, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}),
                  s, n);
    EXPECT_EQ(v.wrong(s), 0) << "n = " << n;
    // The decided shape again: the cached path, on fresh inputs.
    Vectors again(n);
    kernel.launch(nullptr, memref(again.dx.data(), {n}),
                  memref(again.dy.data(), {n}), s, n);
    EXPECT_EQ(again.wrong(s), 0) << "n = " << n << ", cached";
  }
  const std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), sizes.size());
  for (const TuningReport &report : reports) {
    EXPECT_EQ(report.source, DecisionSource::Tuned);
    ASSERT_EQ(report.candidates.size(), 15u);
    ASSERT_GE(report.chosen, 0);
    EXPECT_GT(report.candidates[report.chosen].medianMs, 0);
    for (const CandidateResult &c : report.candidates)
      EXPECT_TRUE(c.status == CandidateStatus::Measured ||
                  c.status == CandidateStatus::Eliminated)
          << c.name << ": " << candidateStatusName(c.status) << " " << c.reason;
  }
}

TEST(CudaBackendTest, StridedViewsFollowTheMemrefConvention) {
  REQUIRE_GPU();
  Module module = scaleModule();
  const int64_t n = 3000, offset = 7, stride = 3;
  Vectors v(offset + n * stride);
  MemRefView x = memref(v.dx.data(), {n}), y = memref(v.dy.data(), {n});
  x.offset = y.offset = offset;
  x.strides[0] = y.strides[0] = stride;
  module.kernel("scale").launch(nullptr, x, y, 0.5f, n);
  backend().synchronize(nullptr);
  backend().copy(v.y.data(), v.dy.data(), v.bytes(), CopyKind::DeviceToHost,
                 nullptr);
  for (int64_t i = 0; i < v.n; ++i) {
    bool inView = i >= offset && (i - offset) % stride == 0;
    if (inView)
      EXPECT_EQ(v.y[i], 0.5f * v.x[i]) << "element " << i;
    else
      EXPECT_TRUE(std::isnan(v.y[i])) << "element " << i << " was written";
  }
}

TEST(CudaBackendTest, TuningOffLaunchesTheDefault) {
  REQUIRE_GPU();
  Module module = scaleModule(TuneMode::Off);
  TunedKernel &kernel = module.kernel("scale");
  Vectors v(50000);
  kernel.launch(nullptr, memref(v.dx.data(), {v.n}), memref(v.dy.data(), {v.n}),
                2.0f, v.n);
  EXPECT_EQ(v.wrong(2.0f), 0);
  const std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].chosenName, "scale_b256_e1");
}

TEST(CudaBackendTest, ThreadsWithoutAContextLaunch) {
  REQUIRE_GPU();
  Module module = scaleModule();
  TunedKernel &kernel = module.kernel("scale");
  Vectors first(1 << 14), second(1 << 14);
  auto run = [&](Vectors &v) {
    kernel.launch(nullptr, memref(v.dx.data(), {v.n}),
                  memref(v.dy.data(), {v.n}), 4.0f, v.n);
  };
  // Fresh threads have no current context: one tunes the shape, the next
  // takes the cached path.
  for (Vectors *v : {&first, &second}) {
    std::string failure;
    std::thread([&] {
      try {
        run(*v);
      } catch (const Error &e) {
        failure = e.what();
      }
    }).join();
    EXPECT_EQ(failure, "");
  }
  EXPECT_EQ(first.wrong(4.0f), 0);
  EXPECT_EQ(second.wrong(4.0f), 0);
}

//===----------------------------------------------------------------------===//
// Isolated tuning: variants that trap, fault and hang
//===----------------------------------------------------------------------===//

namespace {

/// Hand-written PTX with the scale ABI: `scale_trap` executes trap,
/// `scale_illegal_address` stores to address 0, `scale_spin` never ends.
std::string faultyPtx() {
  const std::string &ptx = setup().ptx;
  auto line = [&](const std::string &directive) {
    size_t at = ptx.find(directive);
    return ptx.substr(at, ptx.find('\n', at) - at) + "\n";
  };
  std::string params = "(.param .u64 a0, .param .u64 a1, .param .u64 a2, "
                       ".param .u64 a3, .param .u64 a4, .param .u64 a5, "
                       ".param .u64 a6, .param .u64 a7, .param .u64 a8, "
                       ".param .u64 a9, .param .f32 a10, .param .u64 a11)\n";
  return line(".version") + line(".target") + ".address_size 64\n\n" +
         ".visible .entry scale_trap" + params + "{\n  trap;\n  ret;\n}\n\n" +
         ".visible .entry scale_illegal_address" + params +
         "{\n  .reg .u64 %rd<2>;\n  .reg .u32 %r<2>;\n"
         "  mov.u64 %rd1, 0;\n  mov.u32 %r1, 1;\n"
         "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n\n" +
         ".visible .entry scale_spin" + params +
         "{\n  .reg .u64 %rd<2>;\n  .reg .u32 %r<2>;\n"
         "  ld.param.u64 %rd1, [a6];\n  cvta.to.global.u64 %rd1, %rd1;\n"
         "LOOP:\n  ld.volatile.global.u32 %r1, [%rd1];\n  bra.uni LOOP;\n}\n";
}

const std::vector<std::string> kFaultyGpuVariants = {
    "scale_trap", "scale_illegal_address", "scale_spin"};

/// The 15 scale variants with the faulty ones among them.
Bundle faultyScaleBundle() {
  Bundle bundle = gpu::makeScaleBundle(setup().ptx);
  bundle.objects.push_back(ptxObject(faultyPtx()));
  Kernel &kernel = bundle.kernels[0];
  std::string defaultName = kernel.variants[kernel.defaultVariant].name;
  for (size_t f = 0; f < kFaultyGpuVariants.size(); ++f) {
    Variant variant = kernel.variants[0]; // block 64, ept 1: its geometry.
    variant.name = kFaultyGpuVariants[f];
    variant.config = {{"block", 64}, {"ept", -1 - static_cast<int64_t>(f)}};
    variant.code[0].object = 1;
    variant.code[0].symbol = variant.name;
    kernel.variants.insert(kernel.variants.begin() + 2 + 5 * f, variant);
  }
  for (size_t v = 0; v < kernel.variants.size(); ++v)
    if (kernel.variants[v].name == defaultName)
      kernel.defaultVariant = static_cast<int>(v);
  return bundle;
}

Options isolatedOptions() {
  Options options; // No cache directory: every process tunes afresh.
  options.isolate = true;
  options.check = true;
  options.tuneTimeoutMs = 5000;
  return options;
}

/// Wall time of the first launch of a fresh module (tuning included).
double firstCallMs(const Bundle &bundle, const Options &options, int64_t n,
                   TuningReport &report) {
  Module module = Module::fromBundle(bundle, *setup().device, "scale.tuna",
                                     options);
  TunedKernel &kernel = module.kernel("scale");
  Vectors v(n);
  auto start = std::chrono::steady_clock::now();
  kernel.launch(nullptr, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}),
                1.5f, n);
  backend().synchronize(nullptr);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  EXPECT_EQ(v.wrong(1.5f), 0);
  report = kernel.reports().at(0);
  return ms;
}
} // namespace

TEST(CudaBackendTest, IsolatedTuningSurvivesTrapsFaultsAndHangs) {
  REQUIRE_GPU();
  Module module = Module::fromBundle(faultyScaleBundle(), *setup().device,
                                     "faulty.tuna", isolatedOptions());
  TunedKernel &kernel = module.kernel("scale");
  const int64_t n = 1 << 20;
  Vectors v(n);
  kernel.launch(nullptr, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}),
                2.0f, n);
  EXPECT_EQ(v.wrong(2.0f), 0);

  TuningReport report = kernel.reports().at(0);
  ASSERT_EQ(report.candidates.size(), 18u);
  for (const CandidateResult &c : report.candidates) {
    bool faulty = std::find(kFaultyGpuVariants.begin(),
                            kFaultyGpuVariants.end(),
                            c.name) != kFaultyGpuVariants.end();
    if (faulty) {
      EXPECT_EQ(c.status, CandidateStatus::Failed) << c.name << ": " << c.reason;
      std::printf("%s: %s\n", c.name.c_str(), c.reason.c_str());
    }
    if (c.variant == report.chosen)
      EXPECT_FALSE(faulty) << c.name;
  }
  // This process's context is intact: the pick runs on fresh data.
  Vectors again(n);
  kernel.launch(nullptr, memref(again.dx.data(), {n}),
                memref(again.dy.data(), {n}), 3.0f, n);
  EXPECT_EQ(again.wrong(3.0f), 0);
}

TEST(CudaBackendTest, FirstCallCostOfIsolatedTuning) {
  REQUIRE_GPU();
  // The cost of a first call (one tuning of the 15 variants) in this process
  // and in a worker, on the same shapes; printed for docs/runtime-api.md.
  Bundle bundle = gpu::makeScaleBundle(setup().ptx);
  Options inProcess;
  Options isolated = inProcess;
  isolated.isolate = true;
  for (int64_t n : {int64_t(1) << 16, int64_t(1) << 24}) {
    TuningReport here, worker;
    double hereMs = firstCallMs(bundle, inProcess, n, here);
    double workerMs = firstCallMs(bundle, isolated, n, worker);
    std::printf("first call, n = %lld: in-process %.1f ms (tuning %.1f ms), "
                "isolated %.1f ms (tuning %.1f ms); picks %s, %s\n",
                static_cast<long long>(n), hereMs, here.wallMs, workerMs,
                worker.wallMs, here.chosenName.c_str(),
                worker.chosenName.c_str());
    EXPECT_EQ(worker.source, DecisionSource::Tuned);
  }
}

namespace {
/// An isolated, checked first call of scale whose buffers begin 4 KiB into
/// their allocations, checked against s * x computed on the host from this
/// process's x: the candidates the worker times match it only if the worker
/// read the same x. Returns the report; EXPECTs a correct output.
TuningReport isolatedFirstCallAgainstTheHost(Options options) {
  options.isolate = true;
  options.check = true;
  Module module = Module::fromBundle(gpu::makeScaleBundle(setup().ptx),
                                     *setup().device, "scale.tuna", options);
  TunedKernel &kernel = module.kernel("scale");
  kernel.setReference(
      [](StreamHandle stream, const ArgValue *args, size_t) {
        const MemRefView &x = args[0].memref, &y = args[1].memref;
        std::vector<float> values(x.sizes[0]);
        size_t bytes = values.size() * sizeof(float);
        backend().copy(values.data(), static_cast<float *>(x.aligned) + x.offset,
                       bytes, CopyKind::DeviceToHost, stream);
        for (float &value : values)
          value *= static_cast<float>(args[2].floatValue);
        backend().copy(static_cast<float *>(y.aligned) + y.offset,
                       values.data(), bytes, CopyKind::HostToDevice, stream);
      },
      "s * x on the host");
  const int64_t n = 1 << 22, head = 1024;
  Vectors v(head + n);
  kernel.launch(nullptr, memref(v.dx.data() + head, {n}),
                memref(v.dy.data() + head, {n}), 1.5f, n);
  v.readBack();
  int64_t wrong = 0;
  for (int64_t i = head; i < head + n; ++i)
    wrong += !(v.y[i] == 1.5f * v.x[i]);
  EXPECT_EQ(wrong, 0);
  return kernel.reports().at(0);
}

void expectEveryCandidateMatchedTheHost(const TuningReport &report) {
  EXPECT_TRUE(report.checked);
  expectMessageHas(report.checkedAgainst, "s * x on the host");
  for (const CandidateResult &c : report.candidates)
    EXPECT_TRUE(c.status == CandidateStatus::Measured ||
                c.status == CandidateStatus::Eliminated)
        << c.name << ": " << candidateStatusName(c.status) << ": " << c.reason;
}
} // namespace

TEST(CudaBackendTest, AnIsolatedTuningReadsTheApplicationsBuffersOnTheDevice) {
  REQUIRE_GPU();
  // The worker maps this process's buffers (CUDA IPC) and copies them on
  // the device.
  Options options;
  options.verbose = true;
  testing::internal::CaptureStderr();
  TuningReport report = isolatedFirstCallAgainstTheHost(options);
  std::string err = testing::internal::GetCapturedStderr();
  expectEveryCandidateMatchedTheHost(report);
  EXPECT_EQ(err.find("sending copies instead"), std::string::npos) << err;
}

TEST(CudaBackendTest, AWorkerThatCannotMapTheBuffersIsSentCopies) {
  REQUIRE_GPU();
  // TUNA_IMPORT_BUFFERS=0: the worker refuses the exported buffers, as
  // where CUDA IPC is unavailable; the tuning goes on with copies.
  ::setenv("TUNA_IMPORT_BUFFERS", "0", 1);
  Options options;
  options.verbose = true;
  testing::internal::CaptureStderr();
  TuningReport report = isolatedFirstCallAgainstTheHost(options);
  std::string err = testing::internal::GetCapturedStderr();
  ::unsetenv("TUNA_IMPORT_BUFFERS");
  expectEveryCandidateMatchedTheHost(report);
  expectMessageHas(err, "could not map the application's buffers: "
                        "TUNA_IMPORT_BUFFERS=0; sending copies instead");
}

TEST(CudaBackendTest, ExportedMemorySaysWhereThePointerLies) {
  REQUIRE_GPU();
  gpu::DeviceBuffer buffer(backend(), 1 << 20);
  std::optional<ExportedMemory> start = backend().exportMemory(buffer.data());
  std::optional<ExportedMemory> inside =
      backend().exportMemory(buffer.data() + 1000);
  ASSERT_TRUE(start && inside);
  EXPECT_EQ(start->offset, 0u);
  EXPECT_EQ(inside->offset, 4000u);
  EXPECT_EQ(inside->handle, start->handle);
  EXPECT_EQ(start->handle.size(), 64u); // CU_IPC_HANDLE_SIZE
  // Host memory is not the device's to export.
  std::vector<float> host(16);
  EXPECT_FALSE(backend().exportMemory(host.data()));
}

TEST(CudaBackendTest, ShortlistedFirstCallTimesOnlyTheShortlist) {
  REQUIRE_GPU();
  // tuna-tune -o's part: an exhaustive decision at n = 2^20, its shortlist
  // of 4 in a database. Then an application's first call at another n of
  // the bucket times those 4 only. Prints both wall times.
  Bundle bundle = gpu::makeScaleBundle(setup().ptx);
  const size_t k = 4;
  TuningReport exhaustive;
  double exhaustiveMs = firstCallMs(bundle, Options(), 1 << 20, exhaustive);
  ASSERT_EQ(exhaustive.source, DecisionSource::Tuned);
  CacheEntry entry =
      makeCacheEntry(setup().device->info(), bundle.kernels[0], exhaustive, k);
  ASSERT_EQ(entry.shortlist.size(), k) << "fewer than 4 measured candidates";
  char dir[] = "/tmp/tuna-gpu-shortlist-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string database = std::string(dir) + "/db.json";
  writeCacheFile(database, {entry});

  Options options;
  options.databases = {database};
  TuningReport first;
  double firstMs = firstCallMs(bundle, options, (1 << 20) - 5, first);
  std::remove(database.c_str());
  ::rmdir(dir);
  EXPECT_EQ(first.source, DecisionSource::Tuned);
  EXPECT_EQ(first.signature, exhaustive.signature);
  size_t timed = 0;
  for (const CandidateResult &c : first.candidates) {
    bool listed = std::any_of(
        entry.shortlist.begin(), entry.shortlist.end(),
        [&](const VariantRef &ref) { return ref.variant == c.name; });
    if (listed) {
      ++timed;
      EXPECT_TRUE(c.status == CandidateStatus::Measured ||
                  c.status == CandidateStatus::Eliminated)
          << c.name << ": " << candidateStatusName(c.status) << " "
          << c.reason;
    } else {
      EXPECT_EQ(c.status, CandidateStatus::NotTimed) << c.name;
      EXPECT_EQ(c.reason, "not on the shortlist") << c.name;
    }
  }
  EXPECT_EQ(timed, k);
  std::printf("first call at n = 2^20 - 5: %zu of %zu candidates timed "
              "(shortlist) in %.1f ms (tuning %.1f ms), pick %s; every "
              "candidate at n = 2^20: %.1f ms (tuning %.1f ms), pick %s\n",
              timed, first.candidates.size(), firstMs, first.wallMs,
              first.chosenName.c_str(), exhaustiveMs, exhaustive.wallMs,
              exhaustive.chosenName.c_str());
}

TEST(CudaBackendTest, PruningFiguresComeFromTheDriver) {
  REQUIRE_GPU();
  const DeviceInfo &info = backend().info();
  EXPECT_GT(info.maxThreadsPerMultiprocessor, 0);
  EXPECT_GT(info.maxBlocksPerMultiprocessor, 0);
  EXPECT_GT(info.registersPerMultiprocessor, 0);
  EXPECT_GT(info.sharedBytesPerMultiprocessor, 0);
  LoadedPtx ptx(setup().ptx);
  FunctionHandle function = ptx.function("scale_b256_e1");
  FunctionLimits limits = backend().functionLimits(function);
  EXPECT_GT(limits.registers, 0);
  EXPECT_EQ(limits.localBytes, 0) << "scale spills nothing";
  LaunchDims dims;
  dims.grid[0] = 1024;
  dims.block[0] = 256;
  int driver = backend().residentBlocksPerMultiprocessor(function, dims);
  StaticFacts facts;
  facts.dims = dims;
  facts.registers = limits.registers;
  facts.staticSharedBytes = limits.staticSharedBytes;
  int model = residentBlocks(info, facts);
  std::printf("scale_b256_e1: %d registers, resident blocks per SM: driver "
              "%d, model %d\n",
              limits.registers, driver, model);
  EXPECT_GT(driver, 0);
  EXPECT_EQ(model, driver) << "the model's occupancy differs from the driver's";
}
