//===- CudaGraphCaptureTest.cpp - Tuned kernels inside CUDA graph capture -===//
//
// A first launch of a new signature inside stream capture, in each capture
// mode, records one kernel node (the default variant, untuned) without
// breaking the capture; the graph replays with correct results, and the
// next launch outside capture tunes. Tuning in one thread while another
// thread captures in global mode must not break that capture either. The
// graph calls go to the driver directly (dlopen, as the runtime does).
// Every test skips, saying why, without a CUDA driver and device or without
// the nvcc-made PTX.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "ScaleBundle.h"

#include "tuna/runtime/Runtime.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <limits>
#include <random>
#include <thread>
#include <vector>

using namespace tuna;

namespace {

#define TUNA_TEST_STRINGIFY(x) #x
#define TUNA_TEST_SYMBOL(name) TUNA_TEST_STRINGIFY(name)

#define TUNA_TEST_GRAPH_FUNCTIONS(X)                                           \
  X(cuGetErrorName)                                                            \
  X(cuDeviceGet)                                                               \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphGetNodes)                                                           \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)

/// The driver calls this test makes itself.
struct GraphDriver {
#define TUNA_TEST_DECLARE(name) decltype(&::name) name = nullptr;
  TUNA_TEST_GRAPH_FUNCTIONS(TUNA_TEST_DECLARE)
#undef TUNA_TEST_DECLARE
  CUcontext context = nullptr;
};

/// The device, the PTX and the driver, or the reason the tests cannot run.
struct Setup : gpu::PtxSetup {
  GraphDriver cu;
};

const Setup &setup() {
  static const Setup s = [] {
    Setup s;
    gpu::openDeviceAndPtx(s);
    if (!s.skip.empty())
      return s;
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
#define TUNA_TEST_RESOLVE(name)                                                \
  s.cu.name = reinterpret_cast<decltype(s.cu.name)>(                           \
      library ? dlsym(library, TUNA_TEST_SYMBOL(name)) : nullptr);             \
  if (!s.cu.name)                                                              \
    s.skip = "libcuda.so.1 lacks " TUNA_TEST_SYMBOL(name);
    TUNA_TEST_GRAPH_FUNCTIONS(TUNA_TEST_RESOLVE)
#undef TUNA_TEST_RESOLVE
    CUdevice device = 0;
    if (s.skip.empty() &&
        (s.cu.cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
         s.cu.cuDevicePrimaryCtxRetain(&s.cu.context, device) != CUDA_SUCCESS))
      s.skip = "cannot retain the primary context of CUDA device 0";
    return s;
  }();
  return s;
}

const GraphDriver &cu() { return setup().cu; }
Backend &backend() { return setup().device->backend(); }

/// Fails the test with the driver's name for `result` unless it succeeded.
#define EXPECT_CU(call)                                                        \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    const char *name_ = "?";                                                   \
    cu().cuGetErrorName(result_, &name_);                                      \
    EXPECT_EQ(result_, CUDA_SUCCESS) << #call << ": " << name_;                \
  } while (0)

/// Scale inputs on the test's device, launched through a TunedKernel.
struct Vectors : gpu::ScaleVectors {
  explicit Vectors(int64_t n) : ScaleVectors(backend(), n) {}

  void launch(TunedKernel &kernel, CUstream stream, float s) {
    kernel.launch(stream, memref(dx.data(), {n}), memref(dy.data(), {n}), s, n);
  }
};

Module scaleModule() {
  Options options; // No cache directory: nothing decided before the test.
  return Module::fromBundle(gpu::makeScaleBundle(setup().ptx), *setup().device,
                            "scale_variants.ptx", options);
}

/// A non-blocking stream of the primary context, current on this thread.
class Stream {
public:
  Stream() {
    EXPECT_CU(cu().cuCtxSetCurrent(cu().context));
    EXPECT_CU(cu().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  }
  ~Stream() { cu().cuStreamDestroy(stream); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  CUstream get() const { return stream; }

private:
  CUstream stream = nullptr;
};

/// Instantiates `graph`, replays it once on `stream` and waits.
void replay(CUgraph graph, CUstream stream) {
  CUgraphExec exec = nullptr;
  EXPECT_CU(cu().cuGraphInstantiate(&exec, graph, 0));
  EXPECT_CU(cu().cuGraphLaunch(exec, stream));
  EXPECT_CU(cu().cuStreamSynchronize(stream));
  cu().cuGraphExecDestroy(exec);
}

class CudaGraphCaptureTest
    : public testing::TestWithParam<CUstreamCaptureMode> {};

} // namespace

TEST_P(CudaGraphCaptureTest, FirstLaunchIsCapturedUntunedAndTunedAfter) {
  REQUIRE_GPU();
  Module module = scaleModule();
  TunedKernel &kernel = module.kernel("scale");
  const int64_t n = (1 << 20) + 5;
  const float s = 1.5f;
  Vectors captured(n);
  Stream stream;

  EXPECT_CU(cu().cuStreamBeginCapture(stream.get(), GetParam()));
  std::string failure;
  try {
    captured.launch(kernel, stream.get(), s);
  } catch (const Error &e) {
    failure = e.what();
  }
  CUgraph graph = nullptr;
  EXPECT_CU(cu().cuStreamEndCapture(stream.get(), &graph));
  ASSERT_EQ(failure, "");
  ASSERT_NE(graph, nullptr) << "the capture was invalidated";
  size_t nodes = 0;
  EXPECT_CU(cu().cuGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 1u);
  EXPECT_TRUE(kernel.reports().empty());
  EXPECT_EQ(kernel.chosenVariant({int64_t(1) << 21}), -1);

  replay(graph, stream.get());
  cu().cuGraphDestroy(graph);
  EXPECT_EQ(captured.wrong(s), 0);

  // Outside capture the same signature is tuned, and correct.
  Vectors after(n);
  after.launch(kernel, stream.get(), s);
  EXPECT_CU(cu().cuStreamSynchronize(stream.get()));
  EXPECT_EQ(after.wrong(s), 0);
  ASSERT_EQ(kernel.reports().size(), 1u);
  EXPECT_EQ(kernel.reports()[0].source, DecisionSource::Tuned);
  EXPECT_GE(kernel.chosenVariant({int64_t(1) << 21}), 0);
}

// The scale bundle tuna-compile makes for sm_90 launches with programmatic
// stream serialization (docs/runtime-api.md, "Programmatic dependent
// launch"); captured, a chain of dependent launches replays in order.
TEST(CudaGraphCaptureDependentTest, DependentLaunchesReplayInOrder) {
  REQUIRE_GPU();
  const char *path = std::getenv("TUNA_GPU_BUNDLE");
  if (!path)
    GTEST_SKIP() << "TUNA_GPU_BUNDLE is not set (bench/run_gpu.sh sets it "
                    "to the scale bundle compiled for sm_90)";
  Module module = Module::load(path, *setup().device, Options());
  TunedKernel &kernel = module.kernel("scale");
  const int64_t n = 1 << 20;
  Vectors v(n);
  gpu::DeviceBuffer z(backend(), v.bytes());
  Stream stream;
  v.launch(kernel, stream.get(), 1.0f); // Tuned outside the capture.
  EXPECT_CU(cu().cuStreamSynchronize(stream.get()));
  EXPECT_CU(cu().cuStreamBeginCapture(stream.get(),
                                      CU_STREAM_CAPTURE_MODE_GLOBAL));
  const int rounds = 8;
  for (int i = 0; i < rounds; ++i) {
    kernel.launch(stream.get(), memref(v.dy.data(), {n}),
                  memref(z.data(), {n}), 2.0f, n);
    kernel.launch(stream.get(), memref(z.data(), {n}),
                  memref(v.dy.data(), {n}), 2.0f, n);
  }
  CUgraph graph = nullptr;
  EXPECT_CU(cu().cuStreamEndCapture(stream.get(), &graph));
  ASSERT_NE(graph, nullptr) << "the capture was invalidated";
  replay(graph, stream.get());
  cu().cuGraphDestroy(graph);
  EXPECT_EQ(v.wrong(std::ldexp(1.0f, 2 * rounds)), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CudaGraphCaptureTest,
    testing::Values(CU_STREAM_CAPTURE_MODE_GLOBAL,
                    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                    CU_STREAM_CAPTURE_MODE_RELAXED),
    [](const testing::TestParamInfo<CUstreamCaptureMode> &info) {
      switch (info.param) {
      case CU_STREAM_CAPTURE_MODE_GLOBAL:
        return std::string("Global");
      case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
        return std::string("ThreadLocal");
      default:
        return std::string("Relaxed");
      }
    });

TEST(CudaGraphCaptureTest, TuningBesideAGlobalCaptureKeepsTheCapture) {
  REQUIRE_GPU();
  Module module = scaleModule();
  TunedKernel &kernel = module.kernel("scale");
  const float s = 3.0f;
  Vectors decided(4096), captured(4096), tuned(1 << 16);
  Stream stream, other;
  decided.launch(kernel, stream.get(), s); // Decides [4096] outside capture.
  EXPECT_CU(cu().cuStreamSynchronize(stream.get()));

  EXPECT_CU(
      cu().cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL));
  captured.launch(kernel, stream.get(), s);
  // Another thread tunes a new signature (loading code, allocating,
  // synchronizing and timing on its own stream) while this thread's global
  // capture is open; it makes no driver call of its own.
  std::string failure;
  std::thread([&] {
    try {
      tuned.launch(kernel, other.get(), s);
    } catch (const Error &e) {
      failure = e.what();
    }
  }).join();
  CUgraph graph = nullptr;
  EXPECT_CU(cu().cuStreamEndCapture(stream.get(), &graph));
  EXPECT_EQ(failure, "");
  ASSERT_NE(graph, nullptr) << "the capture was invalidated";
  replay(graph, stream.get());
  cu().cuGraphDestroy(graph);
  EXPECT_CU(cu().cuStreamSynchronize(other.get()));
  EXPECT_EQ(captured.wrong(s), 0);
  EXPECT_EQ(tuned.wrong(s), 0);
  EXPECT_EQ(kernel.reports().size(), 2u);
}
