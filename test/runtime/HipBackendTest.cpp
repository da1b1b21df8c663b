//===- HipBackendTest.cpp - The HIP backend against a fake HIP runtime ----===//
//
// fakehip/FakeHip.cpp is a HIP runtime without a GPU: the backend loads it
// (makeHipBackend's `library`, or TUNA_HIP_LIBRARY) as it loads
// libamdhip64.so, so these tests run the backend's real code: loading and
// identity, code-object choice, argument packing, limits, timing, capture,
// every error path, and the whole tuning protocol. What the fake cannot
// show (real AMDGCN code running) is test/gpu/HipGpuTest.cpp's.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "hip/HipBackend.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Cache.h"
#include "tuna/runtime/Prune.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/tuna.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace tuna;
using namespace tuna::test;

namespace {

/// The fake library's control functions, reached through the same handle
/// the backend's dlopen gets.
struct FakeHip {
  explicit FakeHip(const char *path) : path(path) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw std::runtime_error(dlerror());
    resolve(reset, "tunaFakeHipReset");
    resolve(fail, "tunaFakeHipFail");
    resolve(calls, "tunaFakeHipCalls");
    resolve(setCapturing, "tunaFakeHipSetCapturing");
    resolve(callsDuringCapture, "tunaFakeHipCallsDuringCapture");
    resolve(live, "tunaFakeHipLive");
    resolve(lastLaunch, "tunaFakeHipLastLaunch");
    resolve(currentDevice, "tunaFakeHipCurrentDevice");
    resolve(setVersions, "tunaFakeHipSetVersions");
    resolve(lastWait, "tunaFakeHipLastWait");
    resolve(lastMemset, "tunaFakeHipLastMemset");
  }
  template <typename F> void resolve(F &f, const char *name) {
    f = reinterpret_cast<F>(dlsym(handle, name));
    if (!f)
      throw std::runtime_error(name);
  }

  std::string path;
  void *handle;
  void (*reset)(const char *, int, int, int);
  void (*fail)(const char *, int, int);
  int (*calls)(const char *);
  void (*setCapturing)(int);
  int (*callsDuringCapture)();
  void (*live)(long *, long *, long *);
  void (*lastLaunch)(unsigned *, void **, int *);
  int (*currentDevice)();
  void (*setVersions)(int, int);
  void (*lastWait)(void **, void **);
  void (*lastMemset)(size_t *, void **);
};

FakeHip &rocm6() {
  static FakeHip fake(TUNA_FAKE_HIP_PATH);
  return fake;
}

FakeHip &rocm5() {
  static FakeHip fake(TUNA_FAKE_HIP_ROCM5_PATH);
  return fake;
}

/// One fake function per line: symbol, cost (ms), max threads, static LDS.
std::string fakeCodeObject(const std::string &target) {
  return "TUNA-FAKE-HSACO " + target +
         "\n"
         "axpy_b64 3 1024 0 16\n"
         "axpy_b256 1 1024 0 32\n"
         "axpy_b1024 2.5 1024 0 64\n"
         "axpy_wrong 0.5 1024 0 16\n"
         "axpy_lds 0.25 1024 40000 16\n"
         "axpy_b512 0.25 256 0 128\n";
}

Variant blockVariant(const std::string &name, int64_t block, int64_t lds) {
  Variant variant;
  variant.name = name;
  variant.config = {{"BLOCK", block}, {"LDS", lds}};
  variant.grid[0] = {dim(0), constant(block), op(ExprNode::Op::CeilDiv)};
  variant.block[0] = {constant(block)};
  variant.sharedMemBytes = {constant(lds)};
  VariantCode code;
  code.object = 0;
  code.symbol = name;
  variant.code.push_back(code);
  return variant;
}

/// The fake hsaco of fakeCodeObject for `target`, as a bundle object.
Object hsacoObject(const std::string &target = "gfx942") {
  Object object;
  object.target = "amdgcn:" + target;
  object.format = "hsaco";
  object.triple = "amdgcn-amd-amdhsa";
  object.data = fakeCodeObject(target);
  return object;
}

/// hsacoObject() marked as keeping state in its module
/// (Object::moduleState).
Object hsacoObjectWithState() {
  Object object = hsacoObject();
  object.moduleState = true;
  return object;
}

/// axpy with BLOCK and dynamic LDS as parameters, one hsaco for `target`.
Bundle hipBundle(const std::string &target = "gfx942") {
  Bundle bundle;
  bundle.objects.push_back(hsacoObject(target));
  Kernel kernel = axpyKernel();
  kernel.params = {"BLOCK", "LDS"};
  kernel.variants = {blockVariant("axpy_b64", 64, 256),
                     blockVariant("axpy_b256", 256, 1024),
                     blockVariant("axpy_b1024", 1024, 0),
                     blockVariant("axpy_wrong", 128, 0),
                     blockVariant("axpy_lds", 64, 32768),
                     blockVariant("axpy_b512", 512, 0)};
  bundle.kernels.push_back(kernel);
  return bundle;
}

Options simulatedClock() {
  Options options;
  options.minSampleMs = 0; // One launch per sample on the fake clock.
  options.check = true;
  return options;
}

class HipBackendTest : public testing::Test {
protected:
  void SetUp() override { fake().reset("gfx942:sramecc+:xnack-", 1, 65536, 64); }
  void TearDown() override {
    long allocations, events, modules;
    fake().live(&allocations, &events, &modules);
    EXPECT_EQ(allocations, 0) << "device memory leaked";
    EXPECT_EQ(events, 0) << "events leaked";
    EXPECT_EQ(modules, 0) << "modules leaked";
  }
  virtual FakeHip &fake() { return rocm6(); }

  std::shared_ptr<Backend> backend(int ordinal = 0) {
    return std::shared_ptr<Backend>(makeHipBackend(ordinal, fake().path));
  }

  /// The message of the tuna::Error `body` throws; fails if none.
  template <typename Body>
  std::string errorOf(Body body, ErrorCode code = ErrorCode::Backend) {
    try {
      body();
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), code) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }

  void launchAxpy(TunedKernel &kernel, StreamHandle stream = nullptr,
                  int64_t n = 1000) {
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    kernel.launch(stream, memref(x.data(), {n}), memref(y.data(), {n}), 3.0f,
                  n);
    EXPECT_EQ(y, std::vector<float>(n, 3.0f));
  }
};

class HipRocm5Test : public HipBackendTest {
protected:
  FakeHip &fake() override { return rocm5(); }
};

std::string lastGeometry(FakeHip &fake, void **stream = nullptr,
                         int *device = nullptr) {
  unsigned g[7];
  void *s;
  int d;
  fake.lastLaunch(g, stream ? stream : &s, device ? device : &d);
  return "grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
         std::to_string(g[2]) + " block " + std::to_string(g[3]) + "x" +
         std::to_string(g[4]) + "x" + std::to_string(g[5]) + " lds " +
         std::to_string(g[6]);
}

/// The arguments of a one-element axpy launch, packed as a launch takes
/// them.
struct OneElementAxpy {
  std::vector<float> x = std::vector<float>(1), y = std::vector<float>(1);
  MemRefView xv = memref(x.data(), {1}), yv = memref(y.data(), {1});
  float alpha = 1;
  int64_t n = 1;
  void *params[12] = {&xv.allocated, &xv.aligned, &xv.offset, &xv.sizes[0],
                      &xv.strides[0], &yv.allocated, &yv.aligned, &yv.offset,
                      &yv.sizes[0], &yv.strides[0], &alpha, &n};
};

} // namespace

//===----------------------------------------------------------------------===//
// Device identity
//===----------------------------------------------------------------------===//

TEST_F(HipBackendTest, DeviceIdentityFromRocm6Properties) {
  auto hip = backend();
  const DeviceInfo &info = hip->info();
  EXPECT_EQ(info.platform, "hip");
  EXPECT_EQ(info.arch, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(info.name, "AMD Instinct MI300X (fake) (304 CUs, 64 KiB LDS, "
                       "wave64)");
  EXPECT_EQ(info.warpSize, 64);
  EXPECT_EQ(info.multiProcessors, 304);
  EXPECT_EQ(info.maxSharedBytesPerBlock, 65536);
  EXPECT_EQ(info.maxThreadsPerBlock, 1024);
  EXPECT_EQ(info.maxGridDim[1], 65536);
  EXPECT_EQ(info.maxBlockDim[2], 1024);
  EXPECT_EQ(info.driverVersion, "6.3.42134");
  EXPECT_EQ(info.fingerprint,
            "hip|AMD Instinct MI300X (fake) (304 CUs, 64 KiB LDS, wave64)|"
            "gfx942:sramecc+:xnack-|driver 6.3.42134");
  EXPECT_EQ(fake().calls("hipGetDevicePropertiesR0600"), 1);
  EXPECT_EQ(fake().calls("hipGetDeviceProperties"), 0);
  int inits = fake().calls("hipInit");
  backend();
  EXPECT_EQ(fake().calls("hipInit"), inits) << "initialized once per process";
}

TEST_F(HipRocm5Test, DeviceIdentityFromRocm5Properties) {
  fake().reset("gfx90a:sramecc+:xnack-", 1, 65536, 64);
  auto hip = backend();
  EXPECT_EQ(hip->info().arch, "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(hip->info().driverVersion, "5.2.21153");
  EXPECT_EQ(fake().calls("hipGetDeviceProperties"), 1);
}

TEST_F(HipBackendTest, RuntimeVersionJoinsTheDriverVersionWhenItDiffers) {
  // A ROCm 6.4 runtime (the HIP library) on a 6.3 driver: another pick may
  // be fastest, so another fingerprint and another cache key.
  std::string same = backend()->info().fingerprint;
  fake().setVersions(60342134, 60443483);
  auto hip = backend();
  EXPECT_EQ(hip->info().driverVersion, "6.3.42134 (runtime 6.4.43483)");
  EXPECT_EQ(hip->info().fingerprint,
            "hip|AMD Instinct MI300X (fake) (304 CUs, 64 KiB LDS, wave64)|"
            "gfx942:sramecc+:xnack-|driver 6.3.42134 (runtime 6.4.43483)");
  EXPECT_NE(hip->info().fingerprint, same);
}

TEST_F(HipBackendTest, Wave32DeviceIsAnotherFingerprint) {
  std::string wave64 = backend()->info().fingerprint;
  fake().reset("gfx1100", 1, 65536, 32);
  auto rdna = backend();
  EXPECT_EQ(rdna->info().warpSize, 32);
  EXPECT_EQ(rdna->info().arch, "gfx1100");
  EXPECT_EQ(rdna->info().name, "AMD Instinct MI300X (fake) (304 CUs, 64 KiB "
                               "LDS, wave32)");
  EXPECT_NE(rdna->info().fingerprint, wave64);
}

//===----------------------------------------------------------------------===//
// Occupancy for pruning
//===----------------------------------------------------------------------===//

/// The facts of a launch of `threads` threads with `lds` bytes of dynamic
/// LDS, as the bundle states them (no static LDS, 40 VGPRs).
StaticFacts hipLaunch(uint32_t threads, uint32_t lds = 0) {
  StaticFacts facts;
  facts.dims.grid[0] = 1000;
  facts.dims.block[0] = threads;
  facts.dims.sharedBytes = lds;
  facts.registers = 40;
  facts.staticSharedBytes = 0;
  return facts;
}

TEST_F(HipBackendTest, PruningCountsWavefrontsAndLdsOfTheDevice) {
  auto mi300 = backend();
  const DeviceInfo &info = mi300->info();
  EXPECT_EQ(info.warpSize, 64);
  EXPECT_EQ(info.maxThreadsPerMultiprocessor, 2048);
  EXPECT_EQ(info.sharedBytesPerMultiprocessor, 65536);
  EXPECT_EQ(info.reservedSharedBytesPerBlock, 0);
  // 96 threads are two wavefronts of 64: 16 blocks fill a CU's 2048 threads
  // (a warp of 32 would give 21); VGPRs do not limit the model on HIP.
  EXPECT_EQ(residentBlocks(info, hipLaunch(96)), 16);
  EXPECT_EQ(residentBlocks(info, hipLaunch(1024)), 2);
  // LDS per CU: 40000 bytes leave room for one block, 70000 for none.
  EXPECT_EQ(residentBlocks(info, hipLaunch(64, 40000)), 1);
  EXPECT_EQ(residentBlocks(info, hipLaunch(64, 70000)), 0);

  fake().reset("gfx1100", 1, 65536, 32);
  auto rdna = backend();
  EXPECT_EQ(residentBlocks(rdna->info(), hipLaunch(96)), 21);
}

TEST_F(HipBackendTest, LoadedVariantsAskHipForTheirOccupancy) {
  auto hip = backend();
  Bundle bundle = hipBundle();
  ModuleHandle module = hip->loadModule(bundle.objects[0], "axpy");
  FunctionHandle b256 = hip->getFunction(module, "axpy_b256", "axpy_b256");
  FunctionHandle lds = hip->getFunction(module, "axpy_lds", "axpy_lds");
  LaunchDims dims;
  dims.block[0] = 256;
  EXPECT_EQ(hip->residentBlocksPerMultiprocessor(b256, dims), 8);
  // 40000 bytes of static LDS and 20000 dynamic: one block; 30000: none.
  dims.block[0] = 64;
  dims.sharedBytes = 20000;
  EXPECT_EQ(hip->residentBlocksPerMultiprocessor(lds, dims), 1);
  dims.sharedBytes = 30000;
  EXPECT_EQ(hip->residentBlocksPerMultiprocessor(lds, dims), 0);
  EXPECT_EQ(fake().calls("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"),
            3);

  fake().fail("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", 1, 0);
  std::string message =
      errorOf([&] { hip->residentBlocksPerMultiprocessor(b256, dims); });
  EXPECT_EQ(message, "axpy_b256: hipModuleOccupancyMaxActiveBlocksPerMultiprocessor "
                     "failed: hipErrorInvalidValue (1): invalid argument");
  hip->unloadModule(module);
}

TEST_F(HipBackendTest, UnreadableArchNameIsAnError) {
  fake().reset("", 1, 65536, 64);
  std::string message = errorOf([&] { backend(); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find("HIP device 0: the device properties from " +
                         fake().path +
                         " have no gcnArchName starting with 'gfx' where "
                         "hipDeviceProp_tR0600 has it"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Loading the library, finding the device
//===----------------------------------------------------------------------===//

TEST_F(HipBackendTest, MissingLibraryIsAClearError) {
  std::string message = errorOf(
      [] { makeHipBackend(0, "/nonexistent/libamdhip64.so"); },
      ErrorCode::Unsupported);
  EXPECT_EQ(message.rfind("HIP runtime '/nonexistent/libamdhip64.so' not "
                          "found: ",
                          0),
            0u)
      << message;
}

TEST_F(HipBackendTest, LibraryWithoutHipIsAClearError) {
  std::string message =
      errorOf([] { makeHipBackend(0, "libm.so.6"); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find("HIP runtime (libm.so.6) lacks hipGetErrorName, "
                         "hipGetErrorString, hipInit"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ROCm 5.2 or newer is needed"), std::string::npos);
}

TEST_F(HipBackendTest, FailingInitIsAClearErrorAndRetried) {
  // Another name for the fake: loaded (and initialized) afresh.
  TempDir dir;
  std::string link = dir.path + "/libamdhip64.so.6";
  ASSERT_EQ(symlink(fake().path.c_str(), link.c_str()), 0);
  fake().fail("hipInit", 100, 0);
  std::string message =
      errorOf([&] { makeHipBackend(0, link); }, ErrorCode::Unsupported);
  EXPECT_EQ(message, "initializing the HIP runtime (" + link +
                         "; is there an AMD GPU with its driver?): hipInit "
                         "failed: hipErrorNoDevice (100): no ROCm-capable "
                         "device is detected");
  fake().reset("gfx942:sramecc+:xnack-", 1, 65536, 64);
  EXPECT_EQ(makeHipBackend(0, link)->info().arch, "gfx942:sramecc+:xnack-");
}

TEST_F(HipBackendTest, NoDeviceAndBadOrdinalAreClearErrors) {
  fake().reset("gfx942", 0, 65536, 64);
  EXPECT_EQ(errorOf([&] { backend(); }, ErrorCode::Unsupported),
            "HIP device 0: hipGetDeviceCount failed: hipErrorNoDevice (100): "
            "no ROCm-capable device is detected");
  fake().reset("gfx942", 2, 65536, 64);
  EXPECT_EQ(errorOf([&] { backend(2); }, ErrorCode::Unsupported),
            "HIP device 2 requested, but " + fake().path +
                " reports 2 device(s)");
  EXPECT_EQ(errorOf([&] { backend(-1); }, ErrorCode::Unsupported),
            "HIP device -1 requested, but " + fake().path +
                " reports 2 device(s)");
}

TEST_F(HipBackendTest, EveryIdentityCallIsChecked) {
  for (const char *call :
       {"hipDeviceGet", "hipDeviceGetName", "hipGetDevicePropertiesR0600",
        "hipDriverGetVersion", "hipRuntimeGetVersion",
        "hipDeviceGetAttribute"}) {
    fake().reset("gfx942", 1, 65536, 64);
    fake().fail(call, 101, 0);
    std::string message = errorOf([&] { backend(); });
    EXPECT_EQ(message, std::string("HIP device 0: ") + call +
                           " failed: hipErrorInvalidDevice (101): invalid "
                           "device ordinal");
  }
}

//===----------------------------------------------------------------------===//
// Code-object choice
//===----------------------------------------------------------------------===//

TEST(HipTargetIdTest, ProcessorAndFeaturesMustMatch) {
  using hip::targetIdScore;
  const char *mi300 = "gfx942:sramecc+:xnack-";
  EXPECT_GT(targetIdScore("gfx942", mi300), 0);
  EXPECT_GT(targetIdScore("gfx942:sramecc+:xnack-", mi300),
            targetIdScore("gfx942:xnack-", mi300));
  EXPECT_GT(targetIdScore("gfx942:xnack-", mi300),
            targetIdScore("gfx942", mi300));
  EXPECT_EQ(targetIdScore("gfx942:xnack+", mi300), -1);
  EXPECT_EQ(targetIdScore("gfx942:sramecc-", mi300), -1);
  EXPECT_EQ(targetIdScore("gfx90a", mi300), -1);
  EXPECT_EQ(targetIdScore("gfx94", mi300), -1);
  EXPECT_EQ(targetIdScore("gfx9420", mi300), -1);
  // A feature the device does not have cannot be requested.
  EXPECT_EQ(targetIdScore("gfx1100:xnack-", "gfx1100"), -1);
  EXPECT_GT(targetIdScore("gfx1100", "gfx1100"), 0);
  // Generic targets run on their family, below the exact processor.
  EXPECT_GT(targetIdScore("gfx9-4-generic", mi300), 0);
  EXPECT_GT(targetIdScore("gfx942", mi300),
            targetIdScore("gfx9-4-generic:xnack-", mi300));
  EXPECT_EQ(targetIdScore("gfx9-generic", "gfx90a"), -1);
  EXPECT_GT(targetIdScore("gfx11-generic", "gfx1100"), 0);
  EXPECT_EQ(targetIdScore("gfx11-generic", "gfx942"), -1);
}

TEST_F(HipBackendTest, ObjectScoreTakesCodeObjectsForThisDevice) {
  auto hip = backend();
  auto score = [&](const std::string &target, const std::string &format) {
    Object object;
    object.target = target;
    object.format = format;
    return hip->objectScore(object);
  };
  EXPECT_GT(score("amdgcn:gfx942", "hsaco"), 0);
  EXPECT_GT(score("amdgcn:gfx942:sramecc+:xnack-", "hsaco"),
            score("amdgcn:gfx942", "hsaco"));
  EXPECT_EQ(score("amdgcn:gfx942", "amdgcn-asm"), -1);
  EXPECT_EQ(score("amdgcn:gfx90a", "hsaco"), -1);
  EXPECT_EQ(score("nvptx:sm_90", "ptx"), -1);
  EXPECT_EQ(score("host", "elf-so"), -1);
}

TEST_F(HipBackendTest, BundleWithoutCodeForThisDeviceIsAClearError) {
  Bundle bundle = hipBundle("gfx90a");
  Object ptx;
  ptx.target = "nvptx:sm_90";
  ptx.format = "ptx";
  ptx.data = "//";
  bundle.objects.push_back(ptx);
  std::string message = errorOf(
      [&] {
        Module module =
            Module::fromBundle(bundle, Device(backend()), "k.tuna", Options());
        std::vector<float> x(4), y(4);
        module.kernel("axpy").launch(nullptr, memref(x.data(), {4}),
                                     memref(y.data(), {4}), 1.0f, int64_t(4));
      },
      ErrorCode::Unsupported);
  EXPECT_EQ(message, "kernel 'axpy' in 'k.tuna' has no code for this device "
                     "(hip gfx942:sramecc+:xnack-, AMD Instinct MI300X (fake) "
                     "(304 CUs, 64 KiB LDS, wave64)); the bundle has code "
                     "for: amdgcn:gfx90a (hsaco) nvptx:sm_90 (ptx)");
  EXPECT_EQ(fake().calls("hipModuleLoadData"), 0);
}

TEST_F(HipBackendTest, BundleWithoutAmdCodeIsAClearError) {
  // NVIDIA code and AMDGCN assembly (for reading, not loading) only, as a
  // bundle compiled for another GPU, or with --emit-asm alone, has: the
  // same error from the library and from tuna-tune, and nothing loaded.
  Bundle bundle = hipBundle();
  bundle.objects[0].target = "nvptx:sm_90";
  bundle.objects[0].format = "ptx";
  Object assembly;
  assembly.target = "amdgcn:gfx942";
  assembly.format = "amdgcn-asm";
  assembly.data = "; assembly";
  bundle.objects.push_back(assembly);
  for (Variant &variant : bundle.kernels[0].variants) {
    VariantCode code = variant.code[0];
    code.object = 1;
    variant.code.push_back(code);
  }
  const std::string expected =
      "kernel 'axpy' in 'k.tuna' has no code for this device (hip "
      "gfx942:sramecc+:xnack-, AMD Instinct MI300X (fake) (304 CUs, 64 KiB "
      "LDS, wave64)); the bundle has code for: nvptx:sm_90 (ptx) "
      "amdgcn:gfx942 (amdgcn-asm)";
  std::string message = errorOf(
      [&] {
        Module module =
            Module::fromBundle(bundle, Device(backend()), "k.tuna", Options());
        std::vector<float> x(4), y(4);
        module.kernel("axpy").launch(nullptr, memref(x.data(), {4}),
                                     memref(y.data(), {4}), 1.0f, int64_t(4));
      },
      ErrorCode::Unsupported);
  EXPECT_EQ(message, expected);

  TempDir dir;
  std::string path = dir.path + "/k.tuna", out = dir.path + "/out.txt";
  writeBundleFile(bundle, path);
  std::string run = "TUNA_HIP_LIBRARY=" + fake().path + " " + TUNA_TUNE_PATH +
                    " " + path + " --shape d0=1000 --no-cache --device hip > " +
                    out + " 2>&1";
  int status = std::system(run.c_str());
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 1) << text.str();
  EXPECT_NE(text.str().find("has no code for this device (hip "
                            "gfx942:sramecc+:xnack-"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(fake().calls("hipModuleLoadData"), 0);
}

TEST_F(HipBackendTest, LoadFailuresNameTheKernelAndTheCall) {
  auto hip = backend();
  Object object;
  object.target = "amdgcn:gfx942";
  object.format = "hsaco";
  object.data = "not a code object";
  EXPECT_EQ(errorOf([&] { hip->loadModule(object, "kernel 'axpy'"); }),
            "kernel 'axpy': hipModuleLoadData failed: hipErrorInvalidImage "
            "(200): device kernel image is invalid (code object for "
            "amdgcn:gfx942, device gfx942:sramecc+:xnack-)");
  // An hsaco for another gfx, loaded anyway: ROCm's own refusal, named.
  object.data = fakeCodeObject("gfx1100");
  object.target = "amdgcn:gfx1100";
  std::string message =
      errorOf([&] { hip->loadModule(object, "kernel 'axpy'"); });
  EXPECT_NE(message.find("hipErrorNoBinaryForGpu (209)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("code object for amdgcn:gfx1100, device "
                         "gfx942:sramecc+:xnack-"),
            std::string::npos)
      << message;

  object.data = fakeCodeObject("gfx942");
  ModuleHandle module = hip->loadModule(object, "kernel 'axpy'");
  EXPECT_EQ(errorOf([&] {
              hip->getFunction(module, "axpy_nope", "kernel 'axpy' variant 'v'");
            }),
            "kernel 'axpy' variant 'v': symbol 'axpy_nope': "
            "hipModuleGetFunction failed: hipErrorNotFound (500): named "
            "symbol not found");
  FunctionHandle f = hip->getFunction(module, "axpy_lds", "kernel 'axpy'");
  FunctionLimits limits = hip->functionLimits(f);
  EXPECT_EQ(limits.maxThreadsPerBlock, 1024);
  EXPECT_EQ(limits.staticSharedBytes, 40000);
  EXPECT_EQ(limits.registers, 16);
  fake().fail("hipFuncGetAttribute", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->functionLimits(f); }),
            "kernel 'axpy': hipFuncGetAttribute failed: hipErrorInvalidValue "
            "(1): invalid argument");
  hip->unloadModule(module);
}

//===----------------------------------------------------------------------===//
// Launch, limits, memory, timing
//===----------------------------------------------------------------------===//

TEST_F(HipBackendTest, LaunchPacksArgumentsAndGeometry) {
  auto hip = backend();
  Object object = hsacoObject();
  ModuleHandle module = hip->loadModule(object, "axpy");
  FunctionHandle f = hip->getFunction(module, "axpy_b256", "axpy");

  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  MemRefView xv = memref(x.data(), {4}), yv = memref(y.data(), {4});
  float alpha = 2;
  int64_t n = 3;
  void *params[] = {&xv.allocated, &xv.aligned, &xv.offset,
                    &xv.sizes[0],  &xv.strides[0], &yv.allocated,
                    &yv.aligned,   &yv.offset,  &yv.sizes[0],
                    &yv.strides[0], &alpha,     &n};
  LaunchDims dims;
  dims.grid[0] = 3;
  dims.grid[1] = 2;
  dims.block[0] = 256;
  dims.sharedBytes = 1024;
  auto stream = reinterpret_cast<StreamHandle>(0x5eed);
  hip->launch(f, stream, dims, params);
  EXPECT_EQ(y, (std::vector<float>{12, 24, 36, 40}));
  void *launchedOn = nullptr;
  EXPECT_EQ(lastGeometry(fake(), &launchedOn), "grid 3x2x1 block 256x1x1 lds 1024");
  EXPECT_EQ(launchedOn, stream) << "the application's hipStream_t";

  // Over the function's threads, and over the LDS of a workgroup.
  LaunchDims big = dims;
  big.block[0] = 2048;
  EXPECT_EQ(errorOf([&] { hip->launch(f, stream, big, params); }),
            "axpy (grid 3x2x1, block 2048x1x1, 1024 bytes of dynamic LDS): "
            "hipModuleLaunchKernel failed: hipErrorInvalidConfiguration (9): "
            "invalid configuration argument; a block of 2048 threads exceeds "
            "the 1024 this function allows on gfx942:sramecc+:xnack-");
  FunctionHandle lds = hip->getFunction(module, "axpy_lds", "axpy_lds");
  LaunchDims over = dims;
  over.sharedBytes = 32768;
  EXPECT_EQ(errorOf([&] { hip->launch(lds, stream, over, params); }),
            "axpy_lds (grid 3x2x1, block 256x1x1, 32768 bytes of dynamic "
            "LDS): hipModuleLaunchKernel failed: hipErrorInvalidConfiguration "
            "(9): invalid configuration argument; 32768 bytes of dynamic LDS "
            "and 40000 static exceed the 65536 bytes a workgroup has on "
            "gfx942:sramecc+:xnack-");
  hip->unloadModule(module);
}

// A module with state (Object::moduleState): a launch into another stream
// than its module's last one waits for an event recorded after that one;
// launches into a capturing stream are neither ordered nor recorded; a
// module without state makes neither call.
TEST_F(HipBackendTest, LaunchesOfAModuleWithStateAreOrderedAcrossStreams) {
  auto hip = backend();
  ModuleHandle module = hip->loadModule(hsacoObjectWithState(), "axpy");
  FunctionHandle f = hip->getFunction(module, "axpy_b64", "axpy");
  FunctionHandle g = hip->getFunction(module, "axpy_b256", "axpy");
  OneElementAxpy axpy;
  void **params = axpy.params;
  auto a = reinterpret_cast<StreamHandle>(0xa);
  auto b = reinterpret_cast<StreamHandle>(0xb);
  auto waits = [&] { return fake().calls("hipStreamWaitEvent"); };
  auto records = [&] { return fake().calls("hipEventRecord"); };

  hip->launch(f, a, LaunchDims(), params);
  hip->launch(f, a, LaunchDims(), params);
  EXPECT_EQ(waits(), 0) << "one stream needs no wait";
  EXPECT_EQ(records(), 2);
  hip->launch(g, b, LaunchDims(), params);
  EXPECT_EQ(waits(), 1) << "another function of the same module";
  void *waiting = nullptr, *recordedOn = nullptr;
  fake().lastWait(&waiting, &recordedOn);
  EXPECT_EQ(waiting, b);
  EXPECT_EQ(recordedOn, a);
  hip->launch(f, b, LaunchDims(), params);
  EXPECT_EQ(waits(), 1);
  hip->launch(f, a, LaunchDims(), params);
  EXPECT_EQ(waits(), 2);
  fake().lastWait(&waiting, &recordedOn);
  EXPECT_EQ(waiting, a);
  EXPECT_EQ(recordedOn, b);

  fake().setCapturing(1);
  hip->launch(f, b, LaunchDims(), params);
  fake().setCapturing(0);
  EXPECT_EQ(fake().callsDuringCapture(), 0);
  EXPECT_EQ(waits(), 2);
  EXPECT_EQ(records(), 5) << "the captured launch is not recorded";
  hip->launch(f, b, LaunchDims(), params);
  EXPECT_EQ(waits(), 3) << "still after the last launch recorded, into a";

  fake().fail("hipStreamWaitEvent", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->launch(f, a, LaunchDims(), params); }),
            "axpy: waiting for its module's last launch: hipStreamWaitEvent "
            "failed: hipErrorInvalidValue (1): invalid argument");
  hip->unloadModule(module);

  Object stateless = hsacoObject();
  ModuleHandle plain = hip->loadModule(stateless, "axpy");
  FunctionHandle h = hip->getFunction(plain, "axpy_b64", "axpy");
  int before = records();
  hip->launch(h, a, LaunchDims(), params);
  hip->launch(h, b, LaunchDims(), params);
  EXPECT_EQ(records(), before);
  EXPECT_EQ(waits(), 4) << "only the failed wait above";
  hip->unloadModule(plain);
}

// hipStreamPerThread (2) is another stream in each thread that names it:
// a launch into it always waits for the module's last launch.
TEST_F(HipBackendTest, LaunchesIntoThePerThreadStreamAlwaysWait) {
  auto hip = backend();
  ModuleHandle module = hip->loadModule(hsacoObjectWithState(), "axpy");
  FunctionHandle f = hip->getFunction(module, "axpy_b64", "axpy");
  OneElementAxpy axpy;
  auto perThread = reinterpret_cast<StreamHandle>(2);
  for (int i = 0; i < 3; ++i)
    hip->launch(f, perThread, LaunchDims(), axpy.params);
  EXPECT_EQ(fake().calls("hipStreamWaitEvent"), 2);
  hip->unloadModule(module);
}

TEST_F(HipBackendTest, LaunchFromAnotherDevicesThreadSwitchesAndRestores) {
  fake().reset("gfx942:sramecc+:xnack-", 2, 65536, 64);
  auto hip = backend(1);
  Object object = hsacoObject();
  ModuleHandle module = hip->loadModule(object, "axpy");
  FunctionHandle f = hip->getFunction(module, "axpy_b64", "axpy");
  EXPECT_EQ(fake().currentDevice(), 0) << "restored after loading";
  OneElementAxpy axpy;
  void **params = axpy.params;
  hip->launch(f, nullptr, LaunchDims(), params);
  int device = -1;
  lastGeometry(fake(), nullptr, &device);
  EXPECT_EQ(device, 1) << "launched on the backend's device";
  EXPECT_EQ(fake().currentDevice(), 0) << "the thread's device restored";
  hip->unloadModule(module);
}

TEST_F(HipBackendTest, MemoryAndTimingCallsAreChecked) {
  auto hip = backend();
  fake().fail("hipMalloc", 2, 0);
  EXPECT_EQ(errorOf([&] { hip->allocate(4096); }),
            "allocating 4096 bytes on the device: hipMalloc failed: "
            "hipErrorOutOfMemory (2): out of memory");

  fake().reset("gfx942:sramecc+:xnack-", 1, 65536, 64);
  void *buffer = hip->allocate(16);
  float host[4] = {1, 2, 3, 4}, back[4] = {};
  hip->copy(buffer, host, sizeof(host), CopyKind::HostToDevice, nullptr);
  hip->copy(back, buffer, sizeof(back), CopyKind::DeviceToHost, nullptr);
  EXPECT_EQ(back[3], 4.0f);
  fake().fail("hipMemcpyAsync", 1, 0);
  EXPECT_EQ(errorOf([&] {
              hip->copy(back, buffer, 16, CopyKind::DeviceToHost, nullptr);
            }),
            "copying 16 bytes: hipMemcpyAsync failed: hipErrorInvalidValue "
            "(1): invalid argument");
  hip->deallocate(buffer);

  EventHandle start = hip->createEvent(), end = hip->createEvent();
  hip->recordEvent(start, nullptr);
  hip->recordEvent(end, nullptr);
  EXPECT_EQ(hip->elapsedMs(start, end), 0.0f);
  for (const char *call :
       {"hipEventSynchronize", "hipEventElapsedTime", "hipEventRecord"}) {
    fake().reset("gfx942:sramecc+:xnack-", 1, 65536, 64);
    fake().fail(call, 1, 0);
    std::string message = errorOf([&] {
      hip->recordEvent(end, nullptr);
      hip->elapsedMs(start, end);
    });
    EXPECT_EQ(message, std::string("timing a kernel: ") + call +
                           " failed: hipErrorInvalidValue (1): invalid "
                           "argument");
  }
  fake().fail("hipStreamSynchronize", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->synchronize(nullptr); }),
            "synchronizing a stream: hipStreamSynchronize failed: "
            "hipErrorInvalidValue (1): invalid argument");
  hip->destroyEvent(start);
  hip->destroyEvent(end);
  fake().fail("hipEventCreate", 2, 0);
  EXPECT_EQ(errorOf([&] { hip->createEvent(); }),
            "creating a timing event: hipEventCreate failed: "
            "hipErrorOutOfMemory (2): out of memory");
  fake().fail("hipStreamIsCapturing", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->isCapturing(nullptr); }),
            "asking whether a stream captures: hipStreamIsCapturing failed: "
            "hipErrorInvalidValue (1): invalid argument");
}

TEST_F(HipBackendTest, AFailedDeviceSwitchIsAnErrorNotAnotherDevice) {
  // HIP device 1 used from a thread whose current device is 0: if the
  // switch failed unnoticed, the call would run on device 0.
  fake().reset("gfx942:sramecc+:xnack-", 2, 65536, 64);
  auto hip = backend(1);
  Object object = hsacoObject();
  ModuleHandle module = hip->loadModule(object, "kernel 'axpy'");
  FunctionHandle f =
      hip->getFunction(module, "axpy_b64", "kernel 'axpy' variant 'axpy_b64'");
  void *buffer = hip->allocate(16);
  EventHandle event = hip->createEvent();

  fake().fail("hipSetDevice", 101, 0);
  const std::string failed =
      "hipSetDevice failed: hipErrorInvalidDevice (101): invalid device "
      "ordinal";
  EXPECT_EQ(errorOf([&] { hip->allocate(16); }),
            "allocating 16 bytes on the device: " + failed);
  EXPECT_EQ(errorOf([&] { hip->loadModule(object, "kernel 'axpy'"); }),
            "kernel 'axpy': " + failed);
  std::vector<float> x(1), y(1);
  MemRefView xv = memref(x.data(), {1}), yv = memref(y.data(), {1});
  float alpha = 1;
  int64_t n = 1;
  void *params[] = {&xv.allocated,  &xv.aligned,    &xv.offset,  &xv.sizes[0],
                    &xv.strides[0], &yv.allocated,  &yv.aligned, &yv.offset,
                    &yv.sizes[0],   &yv.strides[0], &alpha,      &n};
  int launches = fake().calls("hipModuleLaunchKernel");
  EXPECT_EQ(errorOf([&] { hip->launch(f, nullptr, LaunchDims(), params); }),
            "kernel 'axpy' variant 'axpy_b64': " + failed);
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), launches)
      << "nothing launched on device 0";
  EXPECT_EQ(errorOf([&] {
              hip->copy(buffer, x.data(), 4, CopyKind::HostToDevice, nullptr);
            }),
            "copying 4 bytes: " + failed);
  EXPECT_EQ(errorOf([&] { hip->synchronize(nullptr); }),
            "synchronizing a stream: " + failed);
  EXPECT_EQ(errorOf([&] { hip->recordEvent(event, nullptr); }),
            "timing a kernel: " + failed);
  EXPECT_EQ(errorOf([&] { hip->functionLimits(f); }),
            "kernel 'axpy' variant 'axpy_b64': " + failed);
  EXPECT_EQ(fake().currentDevice(), 0);

  fake().fail("hipGetDevice", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->createEvent(); }),
            "creating a timing event: hipGetDevice failed: "
            "hipErrorInvalidValue (1): invalid argument");

  // Cleanup goes ahead regardless (TearDown counts what is left).
  hip->destroyEvent(event);
  hip->deallocate(buffer);
  hip->unloadModule(module);
}

TEST_F(HipBackendTest, ImplicitCaptureCountsAsCapturing) {
  auto hip = backend();
  EXPECT_FALSE(hip->isCapturing(nullptr));
  fake().setCapturing(1);
  EXPECT_TRUE(hip->isCapturing(nullptr));
  fake().setCapturing(0);
  fake().fail("hipStreamIsCapturing", 906, 0);
  EXPECT_TRUE(hip->isCapturing(nullptr));
}

//===----------------------------------------------------------------------===//
// The tuning protocol
//===----------------------------------------------------------------------===//

TEST_F(HipBackendTest, TunesPicksAndLaunchesTheWinner) {
  Module module = Module::fromBundle(hipBundle("gfx942:sramecc+:xnack-"),
                                     Device(backend()), "hip.tuna",
                                     simulatedClock());
  TunedKernel &kernel = module.kernel("axpy");
  auto stream = reinterpret_cast<StreamHandle>(0xabc);
  launchAxpy(kernel, stream);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_TRUE(report.checked);
  EXPECT_DOUBLE_EQ(report.candidates[0].medianMs, 3.0);
  EXPECT_DOUBLE_EQ(report.candidates[1].medianMs, 1.0);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  EXPECT_EQ(report.candidates[4].status, CandidateStatus::Unrunnable);
  EXPECT_EQ(report.candidates[4].reason,
            "72768 bytes of shared memory, the device has 65536");
  EXPECT_EQ(report.candidates[5].reason,
            "512 threads per block, the device allows 256 for this function");
  void *launchedOn = nullptr;
  EXPECT_EQ(lastGeometry(fake(), &launchedOn),
            "grid 4x1x1 block 256x1x1 lds 1024");
  EXPECT_EQ(launchedOn, stream);
  EXPECT_GT(fake().calls("hipEventElapsedTime"), 0);
  // Pruning asked HIP for the loaded candidates' occupancy.
  EXPECT_GT(fake().calls("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"),
            0);

  // A known signature: one launch, nothing else.
  int launches = fake().calls("hipModuleLaunchKernel");
  int events = fake().calls("hipEventRecord");
  launchAxpy(kernel, stream);
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), launches + 1);
  EXPECT_EQ(fake().calls("hipEventRecord"), events);
}

TEST_F(HipBackendTest, EvictingTheCacheWritesTwiceTheL2OnTheStream) {
  auto hip = backend();
  EXPECT_EQ(hip->info().cacheBytes, 4 << 20);
  ASSERT_TRUE(hip->evictsCache());
  auto stream = reinterpret_cast<StreamHandle>(0xabc);
  hip->evictCache(stream);
  hip->evictCache(stream);
  EXPECT_EQ(fake().calls("hipMemsetAsync"), 2);
  EXPECT_EQ(fake().calls("hipMalloc"), 1) << "one buffer, kept";
  EXPECT_EQ(fake().calls("hipStreamSynchronize"), 0) << "nothing waits";
  size_t bytes = 0;
  void *on = nullptr;
  fake().lastMemset(&bytes, &on);
  EXPECT_EQ(bytes, size_t(8) << 20);
  EXPECT_EQ(on, stream);
  fake().fail("hipMemsetAsync", 1, 0);
  EXPECT_EQ(errorOf([&] { hip->evictCache(stream); }),
            "evicting the L2 cache: hipMemsetAsync failed: "
            "hipErrorInvalidValue (1): invalid argument");
}

TEST_F(HipBackendTest, ColdTimingEvictsBeforeEachTimedLaunchAndIsCachedApart) {
  TempDir dir;
  Options cold = simulatedClock();
  cold.cacheDir = dir.path;
  cold.coldTiming = true;
  auto stream = reinterpret_cast<StreamHandle>(0xabc);
  {
    Module module =
        Module::fromBundle(hipBundle(), Device(backend()), "hip.tuna", cold);
    launchAxpy(module.kernel("axpy"), stream);
    TuningReport report = module.kernel("axpy").reports().at(0);
    EXPECT_TRUE(report.coldTiming);
    EXPECT_EQ(report.chosenName, "axpy_b256");
  }
  // One eviction before each timed launch, each timed alone.
  EXPECT_GT(fake().calls("hipMemsetAsync"), 0);
  EXPECT_EQ(fake().calls("hipMemsetAsync"), fake().calls("hipEventElapsedTime"));
  std::vector<CacheEntry> entries =
      TuningCache::inDirectory(dir.path).entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].key.coldTiming);

  // A process that times back to back does not take the cold decision.
  Options warm = cold;
  warm.coldTiming = false;
  int evictions = fake().calls("hipMemsetAsync");
  Module module =
      Module::fromBundle(hipBundle(), Device(backend()), "hip.tuna", warm);
  launchAxpy(module.kernel("axpy"), stream);
  EXPECT_FALSE(module.kernel("axpy").reports().at(0).coldTiming);
  EXPECT_EQ(module.kernel("axpy").reports().at(0).source,
            DecisionSource::Tuned);
  EXPECT_EQ(fake().calls("hipMemsetAsync"), evictions);
  EXPECT_EQ(TuningCache::inDirectory(dir.path).entries().size(), 2u);

  // A search times cold too, and its report says so (tuna-tune --strategy
  // stores its decision under that report's key).
  Module searched =
      Module::fromBundle(hipBundle(), Device(backend()), "hip.tuna", cold);
  std::vector<float> x(1000, 1.0f), y(1000, 0.0f);
  const ArgValue args[] = {toArg(memref(x.data(), {1000})),
                           toArg(memref(y.data(), {1000})), toArg(3.0f),
                           toArg(int64_t(1000))};
  search::SearchOptions exhaustive;
  exhaustive.strategy = "exhaustive";
  SearchOutcome outcome =
      searched.kernel("axpy").search(stream, args, 4, exhaustive);
  EXPECT_TRUE(outcome.report.coldTiming);
  EXPECT_GT(fake().calls("hipMemsetAsync"), evictions);
}

TEST_F(HipBackendTest, LaunchesOverTheLimitsNeverReachHipAndSayWhy) {
  // Untuned, a default variant over the LDS of a workgroup (40000 static +
  // 32768 dynamic bytes) or over the 256 threads its code allows is never
  // handed to HIP: the first variant within the limits runs instead.
  Options untuned;
  untuned.mode = TuneMode::Off;
  for (int variant : {4, 5}) {
    Bundle bundle = hipBundle();
    bundle.kernels[0].defaultVariant = variant;
    Module module =
        Module::fromBundle(bundle, Device(backend()), "hip.tuna", untuned);
    launchAxpy(module.kernel("axpy"));
    EXPECT_EQ(lastGeometry(fake()), "grid 16x1x1 block 64x1x1 lds 256")
        << "axpy_b64, not " << bundle.kernels[0].variants[variant].name;
  }
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), 2);

  // Tuned or not, with no variant within the limits: an error naming the
  // kernel and each variant's reason.
  Bundle bundle = hipBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants = {variants[4], variants[5]};
  for (const Options &options : {simulatedClock(), untuned}) {
    Module module =
        Module::fromBundle(bundle, Device(backend()), "hip.tuna", options);
    std::vector<float> x(1000, 1.0f), y(1000, 0.0f);
    std::string message = errorOf(
        [&] {
          module.kernel("axpy").launch(nullptr, memref(x.data(), {1000}),
                                       memref(y.data(), {1000}), 3.0f,
                                       int64_t(1000));
        },
        ErrorCode::Unsupported);
    EXPECT_EQ(message,
              "kernel 'axpy' in 'hip.tuna' for [d0=1000]: no variant can run "
              "on AMD Instinct MI300X (fake) (304 CUs, 64 KiB LDS, wave64):\n"
              "  axpy_lds: 72768 bytes of shared memory, the device has 65536\n"
              "  axpy_b512: 512 threads per block, the device allows 256 for "
              "this function");
    EXPECT_EQ(y, std::vector<float>(1000, 0.0f));
  }
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), 2) << "none of these";
}

TEST_F(HipBackendTest, CacheKeepsThePickUnderTheHipFingerprint) {
  TempDir dir;
  Options options = simulatedClock();
  options.cacheDir = dir.path;
  {
    Module module = Module::fromBundle(hipBundle(), Device(backend()),
                                       "hip.tuna", options);
    launchAxpy(module.kernel("axpy"));
  }
  std::vector<CacheEntry> entries =
      TuningCache::inDirectory(dir.path).entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key.device, backend()->info().name);
  EXPECT_EQ(entries[0].key.arch, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(entries[0].key.driver, "6.3.42134");
  EXPECT_EQ(entries[0].variant, "axpy_b256");

  int timed = fake().calls("hipEventElapsedTime");
  Module again =
      Module::fromBundle(hipBundle(), Device(backend()), "hip.tuna", options);
  launchAxpy(again.kernel("axpy"));
  EXPECT_EQ(fake().calls("hipEventElapsedTime"), timed) << "a cache hit";
  EXPECT_EQ(lastGeometry(fake()), "grid 4x1x1 block 256x1x1 lds 1024");

  // Another device (a gfx90a) does not take the gfx942's pick.
  fake().reset("gfx90a:sramecc+:xnack-", 1, 65536, 64);
  Module other = Module::fromBundle(hipBundle("gfx90a"), Device(backend()),
                                    "hip.tuna", options);
  launchAxpy(other.kernel("axpy"));
  EXPECT_GT(fake().calls("hipEventElapsedTime"), 0) << "tuned anew";
}

TEST_F(HipBackendTest, CaptureLaunchesTheDefaultUntunedThenTunesOutside) {
  Module module = Module::fromBundle(hipBundle(), Device(backend()),
                                     "hip.tuna", simulatedClock());
  TunedKernel &kernel = module.kernel("axpy");
  fake().setCapturing(1);
  launchAxpy(kernel);
  EXPECT_EQ(fake().callsDuringCapture(), 0)
      << "no allocation, copy, synchronization, event or module load";
  EXPECT_EQ(lastGeometry(fake()), "grid 16x1x1 block 64x1x1 lds 256")
      << "the default, axpy_b64";
  EXPECT_TRUE(kernel.reports().empty());

  fake().setCapturing(0);
  launchAxpy(kernel);
  ASSERT_EQ(kernel.reports().size(), 1u);
  EXPECT_EQ(kernel.reports()[0].chosenName, "axpy_b256");
}

TEST_F(HipBackendTest, FailingLoadsLeaveNoVariantAndSayWhy) {
  Module module = Module::fromBundle(hipBundle(), Device(backend()),
                                     "hip.tuna", simulatedClock());
  fake().fail("hipModuleLoadData", 200, 0);
  std::string message = errorOf([&] { launchAxpy(module.kernel("axpy")); },
                                ErrorCode::Unsupported);
  EXPECT_NE(message.find("kernel 'axpy' in 'hip.tuna' for [d0=1000]: no "
                         "variant can run on AMD Instinct MI300X (fake)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("\n  axpy_b256: kernel 'axpy' in 'hip.tuna' variant "
                         "'axpy_b256': hipModuleLoadData failed: "
                         "hipErrorInvalidImage (200): device kernel image is "
                         "invalid (code object for amdgcn:gfx942, device "
                         "gfx942:sramecc+:xnack-)"),
            std::string::npos)
      << message;
}

TEST_F(HipBackendTest, IsolatedTuningTimesInAWorkerOnTheSameHipDevice) {
  // The worker opens Device::hip(0) through TUNA_HIP_LIBRARY, as inherited.
  setenv("TUNA_HIP_LIBRARY", fake().path.c_str(), 1);
  Options options = simulatedClock();
  options.isolate = true;
  Module module =
      Module::fromBundle(hipBundle(), Device::hip(0), "hip.tuna", options);
  int launches = fake().calls("hipModuleLaunchKernel");
  launchAxpy(module.kernel("axpy"));
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.chosenName, "axpy_b256");
  EXPECT_DOUBLE_EQ(report.candidates[0].medianMs, 3.0);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), launches + 1)
      << "timed in the worker; this process launched the winner once";
}

//===----------------------------------------------------------------------===//
// Device::hip, the C API
//===----------------------------------------------------------------------===//

TEST_F(HipBackendTest, DeviceHipAndTheCApiUseTunaHipLibrary) {
  // Device::hip(n) keeps its device for the process: every test that uses
  // it must agree on the library.
  setenv("TUNA_HIP_LIBRARY", fake().path.c_str(), 1);
  Device device = Device::hip(0);
  EXPECT_EQ(device.info().platform, "hip");
  EXPECT_TRUE(Device::hip(0) == device);

  Bundle bundle = hipBundle();
  // The C API takes its options from the environment: no check, so no
  // variant that computes a wrong result.
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.erase(variants.begin() + 3);
  std::string bytes = writeBundle(bundle);
  TunaModule *module = nullptr;
  ASSERT_EQ(tunaModuleLoadMemory(bytes.data(), bytes.size(), "c.tuna",
                                 TUNA_DEVICE_HIP, 0, &module),
            TUNA_SUCCESS)
      << tunaLastError();
  TunaKernel *kernel = nullptr;
  ASSERT_EQ(tunaModuleGetKernel(module, "axpy", &kernel), TUNA_SUCCESS);
  std::vector<float> x(100, 1.0f), y(100, 0.0f);
  TunaArg args[4] = {};
  args[0].kind = args[1].kind = TUNA_ARG_MEMREF;
  args[0].type = args[1].type = TUNA_F32;
  args[0].memref.allocated = args[0].memref.aligned = x.data();
  args[1].memref.allocated = args[1].memref.aligned = y.data();
  for (TunaArg *arg : {&args[0], &args[1]}) {
    arg->memref.rank = 1;
    arg->memref.sizes[0] = 100;
    arg->memref.strides[0] = 1;
  }
  args[2].kind = args[3].kind = TUNA_ARG_SCALAR;
  args[2].type = TUNA_F32;
  args[2].floatValue = 2.0;
  args[3].type = TUNA_INDEX;
  args[3].intValue = 100;
  ASSERT_EQ(tunaKernelLaunch(kernel, nullptr, args, 4), TUNA_SUCCESS)
      << tunaLastError();
  EXPECT_EQ(y, std::vector<float>(100, 2.0f));
  tunaModuleFree(module);

  EXPECT_EQ(tunaModuleLoadMemory(bytes.data(), bytes.size(), "c.tuna",
                                 TUNA_DEVICE_HIP, 7, &module),
            TUNA_ERROR_UNSUPPORTED);
  EXPECT_EQ(std::string(tunaLastError()),
            "HIP device 7 requested, but " + fake().path +
                " reports 1 device(s)");
}

TEST_F(HipBackendTest, TunaTuneTunesOnAHipDevice) {
  TempDir dir;
  std::string bundle = dir.path + "/hip.tuna";
  writeBundleFile(hipBundle(), bundle);
  std::string run = "TUNA_HIP_LIBRARY=" + fake().path + " " + TUNA_TUNE_PATH +
                    " " + bundle + " --shape d0=1000 --check --cache-dir " +
                    dir.path + " -o " + dir.path + "/db.json --device ";
  std::string out = " > " + dir.path + "/out.txt 2>&1";
  auto said = [&] {
    std::ifstream file(dir.path + "/out.txt");
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  };
  ASSERT_EQ(std::system((run + "hip:0" + out).c_str()), 0) << said();
  std::vector<CacheEntry> entries = readCacheFile(dir.path + "/db.json");
  ASSERT_EQ(entries.size(), 1u) << said();
  EXPECT_EQ(entries[0].variant, "axpy_b256");
  EXPECT_EQ(entries[0].key.arch, "gfx942:sramecc+:xnack-");

  // --cold on a device that can evict its L2: a second entry, cold, and
  // the report says how the launches were timed.
  std::string cold = run + "hip:0 --cold --report " + dir.path + "/r.html";
  ASSERT_EQ(std::system((cold + out).c_str()), 0) << said();
  entries = readCacheFile(dir.path + "/db.json");
  ASSERT_EQ(entries.size(), 2u) << said();
  EXPECT_NE(entries[0].key.coldTiming, entries[1].key.coldTiming);
  std::ifstream report(dir.path + "/r.html");
  std::stringstream html;
  html << report.rdbuf();
  EXPECT_NE(html.str().find("; each launch timed alone after an L2 eviction"),
            std::string::npos)
      << html.str();

  for (const char *device : {"hip:", "hip:x", "hip:-1", "hipp", "hip:99"}) {
    EXPECT_NE(std::system((run + device + out).c_str()), 0) << device;
    std::string message = said();
    EXPECT_TRUE(message.find("expected host, cuda, cuda:N, hip, hip:N or cuda:local") !=
                    std::string::npos ||
                message.find("HIP device 99 requested") != std::string::npos)
        << device << ": " << message;
  }
}

TEST_F(HipBackendTest, TunaTuneWithoutRocmSaysSo) {
  // No HIP runtime where the backend looks: an error, not a crash.
  TempDir dir;
  std::string bundle = dir.path + "/hip.tuna";
  writeBundleFile(hipBundle(), bundle);
  std::string out = dir.path + "/out.txt";
  std::string run = std::string("TUNA_HIP_LIBRARY=") + dir.path +
                    "/libamdhip64.so.6 " + TUNA_TUNE_PATH + " " + bundle +
                    " --shape d0=1000 --no-cache --device hip > " + out +
                    " 2>&1";
  int status = std::system(run.c_str());
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 1) << text.str();
  EXPECT_NE(text.str().find("HIP runtime '" + dir.path +
                            "/libamdhip64.so.6' not found: "),
            std::string::npos)
      << text.str();
}

TEST_F(HipBackendTest, TunaTuneRunsItsReferenceOnTheHipDevice) {
  // The reference bundle's kernel runs on a HIP device of its own, not on
  // the host (where it has no code, and where device pointers mean nothing).
  TempDir dir;
  std::string bundle = dir.path + "/hip.tuna";
  writeBundleFile(hipBundle(), bundle);
  std::string out = dir.path + "/out.txt";
  std::string run = "TUNA_HIP_LIBRARY=" + fake().path + " " + TUNA_TUNE_PATH +
                    " " + bundle + " --shape d0=1000 --no-cache --device hip " +
                    "--reference " + bundle + " > " + out + " 2>&1";
  int status = std::system(run.c_str());
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_EQ(status, 0) << text.str();
  EXPECT_NE(text.str().find("checked against the reference kernel 'axpy' of " +
                            bundle),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("rejected axpy_wrong"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find(": axpy_b256 (BLOCK=256"), std::string::npos)
      << text.str();
}
