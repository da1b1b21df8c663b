//===- CudaModuleStateTest.cpp - Launches of a module with state, ordered -===//
//
// test/kernels/module-state.mlir compiled by tuna-compile (the bundle named
// by TUNA_GPU_STATE_BUNDLE, which bench/run_gpu.sh sets, else the one
// compiled with the tests): its default variant reads a counter in its
// module's global memory, waits 200 us, and writes the count plus one back
// and into out[0]. Launched alternately into two streams, launches that
// overlap read the same count and the counter loses increments. The same
// code launched straight through the driver loses some (so the kernel sees
// overlaps); launched through Tuna, whose manifest marks the object with
// module state, it loses none: the CUDA backend orders the launches. The
// same with two threads launching into their per-thread default streams
// (CU_STREAM_PER_THREAD: one handle, another stream in each thread).
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "cuda/CudaBackend.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tuna;
using namespace tuna::gpu;

namespace {

constexpr int kLaunches = 64;
// Long against a launch's host cost (a few us), so that launches made one
// after another overlap on the GPU however slowly the host enqueues them.
constexpr int64_t kWaitNs = 200000;

#ifndef TUNA_GPU_STATE_TEST_BUNDLE
#define TUNA_GPU_STATE_TEST_BUNDLE nullptr
#endif

const BundleSetup &setup() {
  static const BundleSetup s = openBundleAndDevice(
      bundleFromEnvironment("TUNA_GPU_STATE_BUNDLE",
                            TUNA_GPU_STATE_TEST_BUNDLE),
      "TUNA_GPU_STATE_BUNDLE is not set (bench/run_gpu.sh sets it to "
      "test/kernels/module-state.mlir compiled for sm_90)",
      "no CUDA device: ", [] { return Device::cuda(0); });
  return s;
}

/// Two non-blocking streams of the backend's context (the runtime's driver
/// table has no stream creation: it takes the application's streams).
class Streams {
public:
  explicit Streams(cuda::CudaBackend &backend) : backend(backend) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    create = reinterpret_cast<decltype(create)>(
        library ? dlsym(library, "cuStreamCreate") : nullptr);
    destroy = reinterpret_cast<decltype(destroy)>(
        library ? dlsym(library, "cuStreamDestroy_v2") : nullptr);
    if (!create || !destroy)
      throw Error(ErrorCode::Unsupported, "libcuda.so.1 lacks cuStreamCreate");
    cuda::ScopedContext scope(backend.driver(), backend.context());
    for (CUstream &stream : streams)
      backend.driver().check(create(&stream, CU_STREAM_NON_BLOCKING),
                             "cuStreamCreate", "creating a stream");
  }
  ~Streams() {
    cuda::ScopedContext scope(backend.driver(), backend.context());
    for (CUstream stream : streams)
      destroy(stream);
  }
  Streams(const Streams &) = delete;
  Streams &operator=(const Streams &) = delete;

  CUstream operator[](int i) const { return streams[i % 2]; }
  void synchronize() {
    for (CUstream stream : streams)
      backend.synchronize(stream);
  }

private:
  cuda::CudaBackend &backend;
  CUresult (*create)(CUstream *, unsigned) = nullptr;
  CUresult (*destroy)(CUstream) = nullptr;
  CUstream streams[2] = {};
};

/// out[0] on the host.
int32_t readBack(Backend &backend, DeviceBuffer &out) {
  int32_t value = -1;
  backend.copy(&value, out.data(), sizeof(value), CopyKind::DeviceToHost,
               nullptr);
  return value;
}

} // namespace

/// The counting variant of the bundle, a raw launch of its code straight
/// through the driver (from a module of its own: its own counter), and the
/// same variant through Tuna; `out` receives the counts.
class CudaModuleStateTest : public testing::Test {
protected:
  void SetUp() override {
    const BundleSetup &s = setup();
    if (!s.skip.empty())
      GTEST_SKIP() << s.skip;
    backend = &dynamic_cast<cuda::CudaBackend &>(s.device->backend());
    bundle = readBundleFile(s.bundle);
    const Kernel &kernel = bundle.kernels.at(0);
    const Variant &counting = kernel.variants.at(kernel.defaultVariant);
    ASSERT_EQ(counting.config.at(0).second, 1) << "the default keeps state";
    const VariantCode *code = nullptr;
    for (const VariantCode &candidate : counting.code)
      if (backend->objectScore(bundle.objects[candidate.object]) >= 0)
        code = &candidate;
    ASSERT_NE(code, nullptr) << "no object of " << s.bundle << " runs here";
    const Object &object = bundle.objects[code->object];
    ASSERT_TRUE(object.moduleState);

    out = std::make_unique<DeviceBuffer>(*backend, sizeof(int32_t));
    const cuda::Driver &cu = backend->driver();
    raw = std::make_unique<cuda::Module>(cu, backend->context(),
                                         object.data.c_str(), "raw");
    TUNA_CU(cu, "raw", cuModuleGetFunction, &rawFunction, raw->get(),
            code->symbol.c_str());
    Options options;
    options.mode = TuneMode::Off;
    module = std::make_unique<Module>(Module::fromBundle(
        bundle, *s.device, "module-state.tuna", options));
    count = &module->kernel(kernel.name);
  }

public:
  /// A launch of the counting kernel into `stream`: straight through the
  /// driver, or through Tuna.
  void launchRaw(CUstream stream) {
    cuda::ScopedContext scope(backend->driver(), backend->context());
    void *allocated = out->data(), *aligned = out->data();
    int64_t offset = 0, size = 1, stride = 1, n = 1, wait = kWaitNs;
    void *params[] = {&allocated, &aligned, &offset, &size,
                      &stride,    &n,       &wait};
    TUNA_CU(backend->driver(), "raw", cuLaunchKernel, rawFunction, 1, 1, 1, 1,
            1, 1, 0, stream, params, nullptr);
  }
  void launchTuna(CUstream stream) {
    MemRefView view = memref(reinterpret_cast<int32_t *>(out->data()), {1});
    count->launch(stream, view, int64_t(1), kWaitNs);
  }

protected:
  cuda::CudaBackend *backend = nullptr;
  Bundle bundle;
  std::unique_ptr<DeviceBuffer> out;
  std::unique_ptr<cuda::Module> raw;
  CUfunction rawFunction = nullptr;
  std::unique_ptr<Module> module;
  TunedKernel *count = nullptr;
};

TEST_F(CudaModuleStateTest, LaunchesIntoTwoStreamsLoseNoIncrement) {
  Streams streams(*backend);
  // kLaunches alternately into the two streams, then one more after both
  // finished: its count is the number of increments kept.
  auto counted = [&](void (CudaModuleStateTest::*launch)(CUstream)) {
    for (int i = 0; i < kLaunches; ++i)
      (this->*launch)(streams[i]);
    streams.synchronize();
    (this->*launch)(streams[0]);
    streams.synchronize();
    return readBack(*backend, *out);
  };
  EXPECT_LT(counted(&CudaModuleStateTest::launchRaw), kLaunches + 1)
      << "the driver's launches did not overlap: this test cannot tell";
  EXPECT_EQ(counted(&CudaModuleStateTest::launchTuna), kLaunches + 1);
}

// CU_STREAM_PER_THREAD is another stream in each thread: two threads that
// launch into theirs at once overlap, unless the backend orders them.
TEST_F(CudaModuleStateTest, PerThreadStreamsOfTwoThreadsLoseNoIncrement) {
  auto counted = [&](void (CudaModuleStateTest::*launch)(CUstream)) {
    auto work = [&] {
      for (int i = 0; i < kLaunches / 2; ++i)
        (this->*launch)(CU_STREAM_PER_THREAD);
      backend->synchronize(CU_STREAM_PER_THREAD);
    };
    std::thread first(work), second(work);
    first.join();
    second.join();
    (this->*launch)(CU_STREAM_PER_THREAD);
    backend->synchronize(CU_STREAM_PER_THREAD);
    return readBack(*backend, *out);
  };
  EXPECT_LT(counted(&CudaModuleStateTest::launchRaw), kLaunches + 1)
      << "the two threads' launches did not overlap: this test cannot tell";
  EXPECT_EQ(counted(&CudaModuleStateTest::launchTuna), kLaunches + 1);
}
