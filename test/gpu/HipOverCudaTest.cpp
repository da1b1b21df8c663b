//===- HipOverCudaTest.cpp - The HIP backend on an NVIDIA GPU -------------===//
//
// tuna's HIP backend, unchanged, loaded as Device::hip(0) with
// TUNA_HIP_LIBRARY naming hipshim/HipOverCuda.cpp's library: every HIP call
// it makes runs on the CUDA driver, so its launches, timings and copies are
// real work on a real GPU. The code objects are PTX labelled as the shim's
// target (`hsaco` for `amdgcn:gfx1100`). The kernel, scale_lds, is y = s * x
// staged through the end of its dynamic LDS, so a launch that does not get
// the dynamic LDS its variant asks for computes garbage or faults.
//
// What passing proves and what it cannot: docs/runtime-api.md, "The
// HIP-over-CUDA shim". Without a CUDA driver and GPU, every test skips with
// the reason.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>

using namespace tuna;
using namespace tuna::gpu;
using tuna::test::constant;
using tuna::test::dim;
using tuna::test::op;
using tuna::test::TempDir;

namespace {

/// y = s * x in the memref calling convention, staged in reverse order
/// through the last 4 * blockDim.x bytes of the launch's dynamic LDS; and
/// lds_size, which writes the dynamic LDS size (after a round trip through
/// its last word) to out[0].
constexpr const char *kPtx = R"(.version 7.0
.target sm_75
.address_size 64
.extern .shared .align 16 .b8 lds[];
.visible .entry scale_lds(
    .param .u64 xAllocated, .param .u64 xAligned, .param .u64 xOffset,
    .param .u64 xSize, .param .u64 xStride,
    .param .u64 yAllocated, .param .u64 yAligned, .param .u64 yOffset,
    .param .u64 ySize, .param .u64 yStride,
    .param .f32 s, .param .u64 n) {
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [xAligned];
  ld.param.u64 %rd2, [xOffset];
  ld.param.u64 %rd3, [xStride];
  ld.param.u64 %rd4, [yAligned];
  ld.param.u64 %rd5, [yOffset];
  ld.param.u64 %rd6, [yStride];
  ld.param.f32 %f1, [s];
  ld.param.u64 %rd7, [n];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd4, %rd4;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %dynamic_smem_size;
  shl.b32 %r5, %r2, 2;
  sub.u32 %r6, %r4, %r5;
  mov.u32 %r7, lds;
  add.u32 %r8, %r7, %r6;
  mul.wide.u32 %rd8, %r3, %r2;
  cvt.u64.u32 %rd9, %r1;
  add.s64 %rd10, %rd8, %rd9;
  setp.ge.s64 %p1, %rd10, %rd7;
  @%p1 bra STAGED;
  mul.lo.s64 %rd11, %rd10, %rd3;
  add.s64 %rd11, %rd11, %rd2;
  shl.b64 %rd11, %rd11, 2;
  add.s64 %rd11, %rd1, %rd11;
  ld.global.f32 %f2, [%rd11];
  shl.b32 %r9, %r1, 2;
  add.u32 %r9, %r8, %r9;
  st.shared.f32 [%r9], %f2;
STAGED:
  bar.sync 0;
  sub.u32 %r10, %r2, %r1;
  sub.u32 %r10, %r10, 1;
  cvt.u64.u32 %rd12, %r10;
  add.s64 %rd13, %rd8, %rd12;
  setp.ge.s64 %p2, %rd13, %rd7;
  @%p2 bra DONE;
  shl.b32 %r11, %r10, 2;
  add.u32 %r11, %r8, %r11;
  ld.shared.f32 %f3, [%r11];
  mul.rn.f32 %f3, %f3, %f1;
  mul.lo.s64 %rd14, %rd13, %rd6;
  add.s64 %rd14, %rd14, %rd5;
  shl.b64 %rd14, %rd14, 2;
  add.s64 %rd14, %rd4, %rd14;
  st.global.f32 [%rd14], %f3;
DONE:
  ret;
}
.visible .entry lds_size(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %dynamic_smem_size;
  mov.u32 %r2, lds;
  add.u32 %r2, %r2, %r1;
  st.shared.u32 [%r2+-4], %r1;
  bar.sync 0;
  ld.shared.u32 %r3, [%r2+-4];
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

/// The shim's target and the object format the HIP backend loads.
Object codeObject(const std::string &target = "amdgcn:gfx1100",
                  const std::string &format = "hsaco",
                  std::string data = kPtx) {
  Object object;
  object.target = target;
  object.format = format;
  object.triple = "amdgcn-amd-amdhsa";
  object.data = std::move(data);
  return object;
}

/// A scale_lds variant: `block` threads, `lds` bytes of dynamic LDS (at
/// least 4 * block), one element per thread over `perBlock` elements a
/// block (block, unless the variant is made wrong).
Variant ldsVariant(int64_t block, int64_t lds, int64_t perBlock) {
  Variant variant;
  variant.name = "scale_lds_b" + std::to_string(block) + "_l" +
                 std::to_string(lds) + (perBlock != block ? "_wrong" : "");
  variant.config = {{"block", block}, {"lds", lds}};
  variant.grid[0] = {dim(0), constant(perBlock), op(ExprNode::Op::CeilDiv)};
  variant.block[0] = {constant(block)};
  variant.sharedMemBytes = {constant(lds)};
  VariantCode code;
  code.object = 0;
  code.symbol = "scale_lds";
  variant.code.push_back(code);
  return variant;
}

/// scaleKernel() (ScaleBundle.h) on scale_lds: 9 variants
/// of 64, 256 or 1024 threads with 4 bytes of LDS a thread, 64 KiB (over
/// CUDA's 48 KiB default) or 160 KiB (over any AMD GPU's LDS); with
/// `wrong`, a tenth that covers half of the elements.
Bundle ldsBundle(bool wrong = false) {
  Bundle bundle;
  bundle.tunaVersion = "hip-over-cuda-test";
  bundle.objects.push_back(codeObject());
  Kernel kernel = scaleKernel();
  kernel.sourceHash = "5ca1e1d5";
  kernel.params = {"block", "lds"};
  for (int64_t block : {64, 256, 1024})
    for (int64_t lds : {block * 4, int64_t(64 * 1024), int64_t(160 * 1024)}) {
      if (block == 256 && lds == block * 4)
        kernel.defaultVariant = static_cast<int>(kernel.variants.size());
      kernel.variants.push_back(ldsVariant(block, lds, block));
    }
  if (wrong)
    kernel.variants.push_back(ldsVariant(256, 2048, 512));
  bundle.kernels.push_back(std::move(kernel));
  return bundle;
}

/// The HIP device through the shim, or the reason the tests cannot run.
struct Setup {
  std::string skip;
  std::unique_ptr<Device> device;
};

Setup &setup() {
  static Setup s = [] {
    Setup s;
    // This binary's Device::hip is the shim's, as TUNA_HIP_LIBRARY makes it
    // for any application.
    setenv("TUNA_HIP_LIBRARY", TUNA_HIP_OVER_CUDA_PATH, 1);
    try {
      s.device = std::make_unique<Device>(Device::hip(0));
    } catch (const Error &e) {
      s.skip = std::string("no GPU for the HIP-over-CUDA shim: ") + e.what();
    }
    return s;
  }();
  return s;
}

Backend &backend() { return setup().device->backend(); }

/// A module loaded through the backend, unloaded when done.
struct LoadedObject {
  explicit LoadedObject(const Object &object)
      : handle(backend().loadModule(object, "hip-over-cuda test object")) {}
  ~LoadedObject() { backend().unloadModule(handle); }
  LoadedObject(const LoadedObject &) = delete;
  LoadedObject &operator=(const LoadedObject &) = delete;
  FunctionHandle function(const std::string &symbol) {
    return backend().getFunction(handle, symbol, "kernel '" + symbol + "'");
  }
  ModuleHandle handle;
};

/// Launches scale_lds directly on `v`.
void launchScaleLds(FunctionHandle function, ScaleVectors &v, float s,
                    uint32_t block, uint32_t sharedBytes,
                    StreamHandle stream = nullptr) {
  void *x = v.dx.data(), *y = v.dy.data();
  int64_t zero = 0, one = 1, n = v.n;
  void *params[] = {&x, &x, &zero, &n, &one, &y, &y, &zero, &n, &one, &s, &n};
  LaunchDims dims;
  dims.grid[0] = static_cast<uint32_t>((n + block - 1) / block);
  dims.block[0] = block;
  dims.sharedBytes = sharedBytes;
  backend().launch(function, stream, dims, params);
}

/// Launches `kernel` on n fresh random elements (y poisoned with NaN) and
/// returns how many elements differ from s * x.
int64_t wrongAfterLaunch(TunedKernel &kernel, int64_t n, float s,
                         StreamHandle stream = nullptr) {
  ScaleVectors v(backend(), n);
  kernel.launch(stream, memref(v.dx.data(), {n}), memref(v.dy.data(), {n}), s,
                n);
  backend().synchronize(stream);
  return v.wrong(s);
}

std::string messageOf(const std::function<void()> &body) {
  try {
    body();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

void expectHas(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos)
      << "'" << part << "' not in: " << text;
}

/// Runs `command` with stdout and stderr into a file; its status and output.
std::pair<int, std::string> run(const std::string &command,
                                const TempDir &dir) {
  std::string log = dir.path + "/out.txt";
  int status = std::system((command + " > " + log + " 2>&1").c_str());
  std::ifstream file(log);
  std::stringstream text;
  text << file.rdbuf();
  return {status, text.str()};
}

} // namespace

TEST(HipOverCudaTest, DeviceIsTheShimsGfx1100OverTheCudaGpu) {
  REQUIRE_GPU();
  const DeviceInfo &info = setup().device->info();
  EXPECT_EQ(info.platform, "hip");
  EXPECT_EQ(info.arch, "gfx1100");
  EXPECT_EQ(info.warpSize, 32);
  expectHas(info.name, "HIP over CUDA: ");
  expectHas(info.name, " KiB LDS, wave32)");
  EXPECT_EQ(info.fingerprint,
            "hip|" + info.name + "|gfx1100|driver " + info.driverVersion);
  // The same GPU as the CUDA backend sees it, read through HIP's attributes.
  const DeviceInfo &cuda = Device::cuda(0).info();
  expectHas(info.name, cuda.name);
  EXPECT_EQ(info.driverVersion, cuda.driverVersion + ".0");
  EXPECT_EQ(info.multiProcessors, cuda.multiProcessors);
  EXPECT_EQ(info.maxThreadsPerBlock, cuda.maxThreadsPerBlock);
  EXPECT_EQ(info.maxSharedBytesPerBlock, cuda.maxSharedBytesPerBlock);
  EXPECT_EQ(info.maxThreadsPerMultiprocessor, cuda.maxThreadsPerMultiprocessor);
  EXPECT_EQ(info.sharedBytesPerMultiprocessor,
            cuda.sharedBytesPerMultiprocessor);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(info.maxGridDim[d], cuda.maxGridDim[d]) << d;
    EXPECT_EQ(info.maxBlockDim[d], cuda.maxBlockDim[d]) << d;
  }
  std::printf("%s\n", info.fingerprint.c_str());
}

TEST(HipOverCudaTest, CodeObjectChoiceTakesTheExactProcessorsHsaco) {
  REQUIRE_GPU();
  Bundle bundle = ldsBundle();
  const std::string garbage = "not code";
  bundle.objects = {codeObject("nvptx:sm_75", "ptx"),
                    codeObject("amdgcn:gfx942", "hsaco", garbage),
                    codeObject("amdgcn:gfx11-generic"),
                    codeObject("amdgcn:gfx1100", "amdgcn-asm", garbage),
                    codeObject("amdgcn:gfx1100:xnack+", "hsaco", garbage),
                    codeObject("amdgcn:gfx1100")};
  Variant &variant = bundle.kernels[0].variants[0];
  variant.code.clear();
  for (int object = 0; object < 6; ++object) {
    VariantCode code;
    code.object = object;
    code.symbol = "scale_lds";
    variant.code.push_back(code);
  }
  EXPECT_EQ(backend().selectCode(bundle, variant), 5);
  variant.code.pop_back();
  EXPECT_EQ(backend().selectCode(bundle, variant), 2) << "the generic target";
  variant.code.erase(variant.code.begin() + 2);
  EXPECT_EQ(backend().selectCode(bundle, variant), -1);

  // Nothing that runs here: the error lists what the bundle has.
  Bundle other = ldsBundle();
  other.objects[0].target = "amdgcn:gfx942";
  Options options;
  options.mode = TuneMode::Off;
  Module module =
      Module::fromBundle(other, *setup().device, "gfx942.tuna", options);
  std::string message =
      messageOf([&] { wrongAfterLaunch(module.kernel("scale"), 100, 1); });
  expectHas(message, "has no code for this device (hip gfx1100");
  expectHas(message, "the bundle has code for: amdgcn:gfx942 (hsaco)");
}

TEST(HipOverCudaTest, DynamicLdsReachesTheKernel) {
  REQUIRE_GPU();
  LoadedObject module(codeObject());
  FunctionHandle size = module.function("lds_size");
  DeviceBuffer out(backend(), sizeof(uint32_t));
  void *outPtr = out.data();
  void *params[] = {&outPtr};
  // 160 KiB is over CUDA's 48 KiB default: the shim opts the function in,
  // as HIP needs no opt-in.
  for (uint32_t bytes : {4u, 1024u, 48u * 1024, 64u * 1024, 160u * 1024}) {
    LaunchDims dims;
    dims.sharedBytes = bytes;
    backend().launch(size, nullptr, dims, params);
    uint32_t got = 0;
    backend().copy(&got, out.data(), sizeof(got), CopyKind::DeviceToHost,
                   nullptr);
    EXPECT_EQ(got, bytes);
  }

  FunctionHandle scale = module.function("scale_lds");
  FunctionLimits limits = backend().functionLimits(scale);
  EXPECT_EQ(limits.staticSharedBytes, 0);
  EXPECT_EQ(limits.maxThreadsPerBlock, 1024);
  EXPECT_GT(limits.registers, 0);
  for (int64_t n : {1, 1000, 4097, (1 << 20) + 3}) {
    ScaleVectors v(backend(), n);
    launchScaleLds(scale, v, -2.5f, 256, 100 * 1024);
    backend().synchronize(nullptr);
    EXPECT_EQ(v.wrong(-2.5f), 0) << "n = " << n;
  }
  EXPECT_GT(backend().residentBlocksPerMultiprocessor(scale,
                                                      [] {
                                                        LaunchDims dims;
                                                        dims.block[0] = 256;
                                                        dims.sharedBytes =
                                                            100 * 1024;
                                                        return dims;
                                                      }()),
            0);
}

TEST(HipOverCudaTest, EventsTimeTheKernelsBetweenThem) {
  REQUIRE_GPU();
  LoadedObject module(codeObject());
  FunctionHandle scale = module.function("scale_lds");
  ScaleVectors v(backend(), int64_t(1) << 24);
  EventHandle start = backend().createEvent();
  EventHandle end = backend().createEvent();
  backend().recordEvent(start, nullptr);
  launchScaleLds(scale, v, 0.25f, 256, 1024);
  backend().recordEvent(end, nullptr);
  // 64 MiB read and 64 MiB written: microseconds at least, on any GPU.
  float ms = backend().elapsedMs(start, end);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  backend().destroyEvent(start);
  backend().destroyEvent(end);
  EXPECT_EQ(v.wrong(0.25f), 0);
}

TEST(HipOverCudaTest, LaunchesHipRefusesAreClearErrors) {
  REQUIRE_GPU();
  LoadedObject module(codeObject());
  FunctionHandle scale = module.function("scale_lds");
  ScaleVectors v(backend(), 4096);
  const uint32_t overLds =
      static_cast<uint32_t>(setup().device->info().maxSharedBytesPerBlock) + 4;
  std::string message =
      messageOf([&] { launchScaleLds(scale, v, 1, 256, overLds); });
  expectHas(message, "kernel 'scale_lds' (grid 16x1x1, block 256x1x1, " +
                         std::to_string(overLds) + " bytes of dynamic LDS)");
  expectHas(message, "hipModuleLaunchKernel failed: hipError");
  expectHas(message, " bytes of dynamic LDS and 0 static exceed the ");
  message = messageOf([&] { launchScaleLds(scale, v, 1, 2048, 8192); });
  expectHas(message, "hipModuleLaunchKernel failed: hipError");
  expectHas(message, "a block of 2048 threads exceeds the 1024 this function "
                     "allows on gfx1100");
  // The refused launches left the device usable.
  launchScaleLds(scale, v, 1, 256, 1024);
  backend().synchronize(nullptr);
  EXPECT_EQ(v.wrong(1), 0);

  message = messageOf([&] { module.function("scale_b96"); });
  expectHas(message, "kernel 'scale_b96': symbol 'scale_b96': "
                     "hipModuleGetFunction failed: hipErrorNotFound (500)");
  message = messageOf([&] {
    LoadedObject broken(
        codeObject("amdgcn:gfx1100", "hsaco", "not a code object"));
  });
  expectHas(message, "hip-over-cuda test object: hipModuleLoadData failed: "
                     "hipError");
  expectHas(message, "(code object for amdgcn:gfx1100, device gfx1100)");
}

TEST(HipOverCudaTest, FirstCallsTuneOnFreshInputsAndTheCacheKeepsThePicks) {
  REQUIRE_GPU();
  TempDir dir;
  Options options;
  options.cacheDir = dir.path;
  const std::vector<int64_t> sizes = {1, 1000, 4097, (1 << 20) + 3};
  {
    Module module =
        Module::fromBundle(ldsBundle(), *setup().device, "lds.tuna", options);
    TunedKernel &kernel = module.kernel("scale");
    for (int64_t n : sizes) {
      EXPECT_EQ(wrongAfterLaunch(kernel, n, 1.75f), 0) << "n = " << n;
      EXPECT_EQ(wrongAfterLaunch(kernel, n, -3.0f), 0)
          << "n = " << n << ", decided";
    }
    const std::vector<TuningReport> reports = kernel.reports();
    ASSERT_EQ(reports.size(), sizes.size());
    for (const TuningReport &report : reports) {
      EXPECT_EQ(report.source, DecisionSource::Tuned);
      ASSERT_EQ(report.candidates.size(), 9u);
      ASSERT_GE(report.chosen, 0);
      int measured = 0;
      for (const CandidateResult &c : report.candidates) {
        EXPECT_TRUE(c.status == CandidateStatus::Measured ||
                    c.status == CandidateStatus::Eliminated ||
                    c.status == CandidateStatus::Pruned)
            << c.name << ": " << candidateStatusName(c.status) << " "
            << c.reason;
        if (c.status == CandidateStatus::Measured) {
          ++measured;
          EXPECT_GT(c.medianMs, 0.0) << c.name << ": timed by hipEvents";
        }
      }
      EXPECT_GE(measured, 1);
    }
  }

  const DeviceInfo &info = setup().device->info();
  std::vector<CacheEntry> entries =
      TuningCache::inDirectory(dir.path).entries();
  ASSERT_EQ(entries.size(), sizes.size());
  for (const CacheEntry &entry : entries) {
    EXPECT_EQ(entry.key.device, info.name);
    EXPECT_EQ(entry.key.arch, "gfx1100");
    EXPECT_EQ(entry.key.driver, info.driverVersion);
    EXPECT_EQ(entry.key.kernel, "scale");
  }

  // Another module on the same cache decides every shape without timing.
  Module again =
      Module::fromBundle(ldsBundle(), *setup().device, "lds.tuna", options);
  for (int64_t n : sizes)
    EXPECT_EQ(wrongAfterLaunch(again.kernel("scale"), n, 0.5f), 0);
  for (const TuningReport &report : again.kernel("scale").reports())
    EXPECT_EQ(report.source, DecisionSource::Cache);
}

TEST(HipOverCudaTest, TheCheckRejectsAWrongVariant) {
  REQUIRE_GPU();
  Options options;
  options.check = true;
  options.atol = 0;
  options.rtol = 0;
  options.prune = false;
  Module module = Module::fromBundle(ldsBundle(/*wrong=*/true), *setup().device,
                                     "lds.tuna", options);
  EXPECT_EQ(wrongAfterLaunch(module.kernel("scale"), 100003, 1.5f), 0);
  const TuningReport report = module.kernel("scale").reports().at(0);
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  ASSERT_EQ(report.candidates.size(), 10u);
  EXPECT_EQ(report.candidates.back().status, CandidateStatus::WrongResult)
      << report.candidates.back().reason;
  for (size_t i = 0; i + 1 < report.candidates.size(); ++i)
    EXPECT_NE(report.candidates[i].status, CandidateStatus::WrongResult)
        << report.candidates[i].name << ": " << report.candidates[i].reason;
}

TEST(HipOverCudaTest, AnApplicationsStreamCarriesTuningAndLaunches) {
  REQUIRE_GPU();
  // The application's own hipStream_t, from the same library.
  void *library = dlopen(TUNA_HIP_OVER_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  using Create = int (*)(void **, unsigned);
  using Destroy = int (*)(void *);
  auto create =
      reinterpret_cast<Create>(dlsym(library, "hipStreamCreateWithFlags"));
  auto destroy = reinterpret_cast<Destroy>(dlsym(library, "hipStreamDestroy"));
  ASSERT_TRUE(create && destroy);
  void *stream = nullptr;
  ASSERT_EQ(create(&stream, /*hipStreamNonBlocking=*/1), 0);
  {
    Module module =
        Module::fromBundle(ldsBundle(), *setup().device, "lds.tuna", Options());
    TunedKernel &kernel = module.kernel("scale");
    EXPECT_EQ(wrongAfterLaunch(kernel, 300000, 2.0f, stream), 0);
    EXPECT_EQ(wrongAfterLaunch(kernel, 300000, 4.0f, stream), 0);
    EXPECT_EQ(kernel.reports().size(), 1u);
    EXPECT_FALSE(backend().isCapturing(stream));
  }
  EXPECT_EQ(destroy(stream), 0);
  dlclose(library);
}

TEST(HipOverCudaTest, TunaTuneTunesThroughTheShim) {
  REQUIRE_GPU();
  TempDir dir;
  const std::string bundle = dir.path + "/lds.tuna";
  writeBundleFile(ldsBundle(/*wrong=*/true), bundle);
  auto [status, output] =
      run(std::string("TUNA_HIP_LIBRARY=") + TUNA_HIP_OVER_CUDA_PATH + " " +
              TUNA_TUNE_PATH + " " + bundle +
              " --device hip --kernel scale --shape d0=1000,1048576 "
              "--check --no-prune --no-cache -o " +
              dir.path + "/db.json",
          dir);
  ASSERT_EQ(status, 0) << output;
  expectHas(output, "rejected scale_lds_b256_l2048_wrong");
  std::vector<CacheEntry> entries = readCacheFile(dir.path + "/db.json");
  ASSERT_EQ(entries.size(), 2u) << output;
  for (const CacheEntry &entry : entries) {
    EXPECT_EQ(entry.key.device, setup().device->info().name);
    EXPECT_EQ(entry.key.arch, "gfx1100");
    EXPECT_EQ(entry.variant.find("_wrong"), std::string::npos)
        << entry.variant << " was picked: " << output;
  }
}

// test/gpu/HipGpuTest.cpp, written for AMD GPUs, run as it is through the
// shim on the nvcc-made scale variants labelled gfx1100.
TEST(HipOverCudaTest, TheAmdGpuTestsPassThroughTheShim) {
  REQUIRE_GPU();
  std::string ptx;
  try {
    ptx = readScalePtx();
  } catch (const Error &e) {
    GTEST_SKIP() << e.what();
  }
  Bundle bundle = makeScaleBundle(ptx);
  bundle.objects[0].target = "amdgcn:gfx1100";
  bundle.objects[0].format = "hsaco";
  TempDir dir;
  writeBundleFile(bundle, dir.path + "/scale-gfx1100.tuna");
  auto [status, output] =
      run(std::string("TUNA_HIP_LIBRARY=") + TUNA_HIP_OVER_CUDA_PATH +
              " TUNA_HIP_BUNDLE=" + dir.path + "/scale-gfx1100.tuna " +
              TUNA_GPU_TESTS_PATH + " --gtest_filter='HipGpuTest.*'",
          dir);
  EXPECT_EQ(status, 0) << output;
  expectHas(output, "[  PASSED  ] 5 tests.");
  EXPECT_EQ(output.find("SKIPPED"), std::string::npos) << output;
}
