//===- HitPathBench.cpp - Cost of a launch with a known signature ---------===//
//
// Compares, on the host backend, calling a variant's function directly with
// a hand-built parameter array against TunedKernel::launch (typed and
// untyped) and the C API for the same tiny launch (n = 1). The difference is
// the dispatcher's overhead: argument checks, lowering, key, table lookup.
//
//===----------------------------------------------------------------------===//

#include "../TestBundles.h"

#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/tuna.h"

#include <benchmark/benchmark.h>

#include <dlfcn.h>

using namespace tuna;
using namespace tuna::test;

namespace {
float x[1] = {1.0f};
float y[1] = {0.0f};

Options modeOff() {
  Options options;
  options.mode = TuneMode::Off;
  return options;
}

void BM_DirectCall(benchmark::State &state) {
  void *library = ::dlopen(kernelLibraryPath(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    state.SkipWithError(::dlerror());
    return;
  }
  auto function =
      reinterpret_cast<void (*)(void **)>(::dlsym(library, "axpy_work4"));
  MemRefView xs = memref(x, {1}), ys = memref(y, {1});
  float alpha = 1.0f;
  int64_t n = 1;
  void *params[] = {&xs.allocated,  &xs.aligned,    &xs.offset,  &xs.sizes[0],
                    &xs.strides[0], &ys.allocated,  &ys.aligned, &ys.offset,
                    &ys.sizes[0],   &ys.strides[0], &alpha,      &n};
  for (auto _ : state)
    function(params);
  ::dlclose(library);
}
BENCHMARK(BM_DirectCall);

void BM_TypedLaunch(benchmark::State &state) {
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", modeOff());
  TunedKernel &kernel = module.kernel("axpy");
  for (auto _ : state)
    kernel.launch(nullptr, memref(x, {1}), memref(y, {1}), 1.0f, int64_t(1));
}
BENCHMARK(BM_TypedLaunch);

void BM_UntypedLaunch(benchmark::State &state) {
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", modeOff());
  TunedKernel &kernel = module.kernel("axpy");
  const ArgValue args[] = {toArg(memref(x, {1})), toArg(memref(y, {1})),
                           toArg(1.0f), toArg(int64_t(1))};
  for (auto _ : state)
    kernel.launch(nullptr, args, 4);
}
BENCHMARK(BM_UntypedLaunch);

void BM_CApiLaunch(benchmark::State &state) {
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", modeOff());
  auto *kernel = reinterpret_cast<TunaKernel *>(&module.kernel("axpy"));
  TunaArg args[4] = {};
  for (int i = 0; i < 2; ++i) {
    args[i].kind = TUNA_ARG_MEMREF;
    args[i].type = TUNA_F32;
    args[i].memref.allocated = args[i].memref.aligned = i ? y : x;
    args[i].memref.rank = 1;
    args[i].memref.sizes[0] = 1;
    args[i].memref.strides[0] = 1;
  }
  args[2] = {TUNA_ARG_SCALAR, TUNA_F32, 0, 1.0, {}};
  args[3] = {TUNA_ARG_SCALAR, TUNA_INDEX, 1, 0, {}};
  for (auto _ : state)
    if (tunaKernelLaunch(kernel, nullptr, args, 4) != TUNA_SUCCESS)
      state.SkipWithError(tunaLastError());
}
BENCHMARK(BM_CApiLaunch);

/// Kernel "tile" on the simulated map GPU (TestBundles.h), decided for a
/// 64-byte aligned 16 x 64 buffer (`shift` 0: the variant that takes a
/// tensor map) or the same shifted by one element (the variant without).
/// The difference is what a map costs a known signature: evaluating the
/// box, the encoding's key, the cache's hash and compare, copying the map.
void tileLaunch(benchmark::State &state, int64_t shift) {
  auto gpu = std::make_shared<MapGpu>();
  Options options; // Tuned on the simulated clock: "tma" wins where it runs.
  options.minSampleMs = 0;
  options.minRuns = options.maxRuns = 3;
  Module module =
      Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna", options);
  TunedKernel &kernel = module.kernel("tile");
  alignas(64) static float data[16 * 64 + 16];
  MemRefView a = memref(data, {16, 64});
  a.offset = shift;
  const ArgValue args[] = {toArg(a), toArg(int64_t(1))};
  for (auto _ : state)
    kernel.launch(nullptr, args, 2);
  if (gpu->seen().back().tma != (shift == 0))
    state.SkipWithError("not the expected variant");
}
void BM_TileWithTensorMap(benchmark::State &state) { tileLaunch(state, 0); }
BENCHMARK(BM_TileWithTensorMap);
void BM_TileWithoutTensorMap(benchmark::State &state) { tileLaunch(state, 1); }
BENCHMARK(BM_TileWithoutTensorMap);
} // namespace

BENCHMARK_MAIN();
