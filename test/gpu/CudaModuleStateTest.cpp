//===- CudaModuleStateTest.cpp - Launches of a module with state, ordered -===//
//
// test/kernels/module-state.mlir compiled by tuna-compile (the bundle named
// by TUNA_GPU_STATE_BUNDLE, which bench/run_gpu.sh sets, else the one
// compiled with the tests): its default variant reads a counter in its
// module's global memory, waits 20 us, and writes the count plus one back
// and into out[0]. Launched alternately into two streams, launches that
// overlap read the same count and the counter loses increments. The same
// code launched straight through the driver loses some (so the kernel sees
// overlaps); launched through Tuna, whose manifest marks the object with
// module state, it loses none: the CUDA backend orders the launches.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "cuda/CudaBackend.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::gpu;

namespace {

constexpr int kLaunches = 64;
constexpr int64_t kWaitNs = 20000;

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

TEST(CudaModuleStateTest, LaunchesIntoTwoStreamsLoseNoIncrement) {
  const BundleSetup &s = setup();
  if (!s.skip.empty())
    GTEST_SKIP() << s.skip;
  auto &backend = dynamic_cast<cuda::CudaBackend &>(s.device->backend());
  Bundle bundle = readBundleFile(s.bundle);
  const Kernel &kernel = bundle.kernels.at(0);
  const Variant &counting = kernel.variants.at(kernel.defaultVariant);
  ASSERT_EQ(counting.config.at(0).second, 1) << "the default keeps state";
  const VariantCode *code = nullptr;
  for (const VariantCode &candidate : counting.code)
    if (backend.objectScore(bundle.objects[candidate.object]) >= 0)
      code = &candidate;
  ASSERT_NE(code, nullptr) << "no object of " << s.bundle << " runs here";
  ASSERT_TRUE(bundle.objects[code->object].moduleState);

  Streams streams(backend);
  DeviceBuffer out(backend, sizeof(int32_t));
  int64_t n = 1, wait = kWaitNs;

  // Straight through the driver, from a module of its own (its own
  // counter): launches of the two streams overlap.
  {
    const Object &object = bundle.objects[code->object];
    const cuda::Driver &cu = backend.driver();
    cuda::ScopedContext scope(cu, backend.context());
    cuda::Module raw(cu, backend.context(), object.data.c_str(), "raw");
    CUfunction function = nullptr;
    TUNA_CU(cu, "raw", cuModuleGetFunction, &function, raw.get(),
            code->symbol.c_str());
    void *allocated = out.data(), *aligned = out.data();
    int64_t offset = 0, size = 1, stride = 1;
    void *params[] = {&allocated, &aligned, &offset, &size,
                      &stride,    &n,       &wait};
    for (int i = 0; i <= kLaunches; ++i) {
      if (i == kLaunches)
        streams.synchronize();
      TUNA_CU(cu, "raw", cuLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0,
              streams[i], params, nullptr);
    }
    streams.synchronize();
    EXPECT_LT(readBack(backend, out), kLaunches + 1)
        << "the driver's launches did not overlap: this test cannot tell";
  }

  // Through Tuna: the default variant, ordered by the backend.
  Options options;
  options.mode = TuneMode::Off;
  Module module =
      Module::fromBundle(bundle, *s.device, "module-state.tuna", options);
  TunedKernel &count = module.kernel(kernel.name);
  MemRefView view = memref(reinterpret_cast<int32_t *>(out.data()), {1});
  for (int i = 0; i <= kLaunches; ++i) {
    if (i == kLaunches)
      streams.synchronize();
    count.launch(streams[i], view, n, wait);
  }
  streams.synchronize();
  EXPECT_EQ(readBack(backend, out), kLaunches + 1);
}
