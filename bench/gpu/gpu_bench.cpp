//===- gpu_bench.cpp - Tuna on a CUDA device, against its references ------===//
//
// For the scale kernel (y = s * x, f32) of a bundle file (kernels-mlir/
// scale.mlir compiled for sm_90 by tuna-compile), or, without an argument, of
// the in-memory bundle of nvcc-made PTX variants (test/gpu/ScaleBundle.h):
//  - correctness per shape (fresh random x, NaN-poisoned y, CPU reference);
//  - the variant picked per shape and the first-call tuning time;
//  - the host cost of a cached launch, against a raw cuLaunchKernel of the
//    chosen variant's function (loaded here from the same code) with a
//    prebuilt parameter array, in this run;
//  - bandwidth of the tuned and the default variant, against a
//    device-to-device copy (raw cuMemcpyDtoDAsync, events) in this run.
// Prints one `TUNA {json}` line per measurement for bench/run_gpu.sh.
//
//===----------------------------------------------------------------------===//

#include "ScaleBundle.h"
#include "cuda/CudaBackend.h"
#include "tuna/runtime/Expr.h"
#include "Measure.h"
#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::bench;
using Clock = std::chrono::steady_clock;

namespace {

/// Median host time per call of each of `calls`, in microseconds. Batches
/// of `batch` calls are timed on the host, the stream is drained outside the
/// timed region (so the queue never fills), and the callers take turns, so
/// that a drift of the machine affects them alike. 5000 batches of 20:
/// 10^5 timed calls of each.
std::vector<double>
hostUsPerCall(Backend &backend, const std::vector<std::function<void()>> &calls,
              int batch = 20, int batches = 5000) {
  std::vector<std::vector<double>> samples(calls.size());
  for (int b = -50; b < batches; ++b) // the first 50 rounds warm up
    for (size_t c = 0; c < calls.size(); ++c) {
      auto t0 = Clock::now();
      for (int i = 0; i < batch; ++i)
        calls[c]();
      auto t1 = Clock::now();
      backend.synchronize(nullptr);
      if (b >= 0)
        samples[c].push_back(
            std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
    }
  std::vector<double> medians;
  for (auto &s : samples)
    medians.push_back(median(s));
  return medians;
}

/// One launch dimension of `variant` for the key value n.
uint32_t evaluate(const Expr &expr, int64_t n, const char *what) {
  int64_t value = 0;
  if (!CompiledExpr::compile(expr, 1, 1, what).evaluate(&n, value))
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": division by zero");
  return static_cast<uint32_t>(value);
}

/// The bundle under test: a file, or the nvcc-made PTX variants.
struct Source {
  std::string path; ///< Empty for the nvcc-made PTX.
  std::string ptx;

  const char *name() const { return path.empty() ? "nvcc-ptx" : "bundle"; }
  Module open(const Device &device, const Options &options) const {
    if (path.empty())
      return Module::fromBundle(gpu::makeScaleBundle(ptx), device,
                                "nvcc PTX of scale_variants.cu", options);
    return Module::load(path, device, options);
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc > 2) {
    std::fprintf(stderr,
                 "usage: %s [scale.tuna]\n(without a bundle: the nvcc-made "
                 "PTX variants of test/gpu/scale_variants.cu)\n",
                 argv[0]);
    return 2;
  }
  const float s = 1.75f;
  bool allCorrect = true;
  try {
    Source source;
    if (argc == 2)
      source.path = argv[1];
    else
      source.ptx = gpu::readScalePtx();
    Device device = Device::cuda(0);
    auto &backend = dynamic_cast<cuda::CudaBackend &>(device.backend());
    const cuda::Driver &driver = backend.driver();
    // An application's thread: the device's context is current.
    TUNA_CU(driver, "tuna-gpu-bench", cuCtxSetCurrent, backend.context());
    std::printf("device: %s (%s), driver %s, code: %s\n",
                device.info().name.c_str(), device.info().arch.c_str(),
                device.info().driverVersion.c_str(), source.name());
    Options off;
    off.mode = TuneMode::Off;
    Module tuned = source.open(device, Options::fromEnvironment());
    Module fixed = source.open(device, off);
    TunedKernel &kernel = tuned.kernel("scale");
    TunedKernel &byDefault = fixed.kernel("scale");

    const int64_t maxN = int64_t(1) << 26;
    cuda::DeviceMemory xMemory(driver, backend.context(), maxN * 4);
    cuda::DeviceMemory yMemory(driver, backend.context(), maxN * 4);
    auto *x = reinterpret_cast<float *>(xMemory.get());
    auto *y = reinterpret_cast<float *>(yMemory.get());
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);

    for (int64_t n : {int64_t(1) << 12, int64_t(1) << 16, int64_t(1) << 20,
                      int64_t(1) << 24, maxN}) {
      std::vector<float> hx(n), hy(n, std::numeric_limits<float>::quiet_NaN());
      for (float &v : hx)
        v = dist(rng);
      backend.copy(x, hx.data(), n * 4, CopyKind::HostToDevice, nullptr);
      backend.copy(y, hy.data(), n * 4, CopyKind::HostToDevice, nullptr);
      auto launchTuned = [&] {
        kernel.launch(nullptr, memref(x, {n}), memref(y, {n}), s, n);
      };
      auto t0 = Clock::now();
      launchTuned(); // first call with this shape: tunes, then launches
      backend.synchronize(nullptr);
      double firstCallMs =
          std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      backend.copy(hy.data(), y, n * 4, CopyKind::DeviceToHost, nullptr);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i)
        wrong += !(hy[i] == s * hx[i]);
      allCorrect &= wrong == 0;

      const TuningReport report = kernel.reports().back();
      double tunedMs = deviceMs(backend, launchTuned);
      double defaultMs = deviceMs(backend, [&] {
        byDefault.launch(nullptr, memref(x, {n}), memref(y, {n}), s, n);
      });
      double copyMs = deviceMs(backend, [&] {
        TUNA_CU(driver, "copy reference", cuMemcpyDtoDAsync, yMemory.get(),
                xMemory.get(), n * 4, nullptr);
      });
      auto gbps = [&](double ms) { return 2.0 * n * 4 / (ms * 1e6); };
      std::printf(
          "TUNA {\"source\": \"%s\", \"n\": %lld, \"wrong\": %lld, "
          "\"pick\": \"%s\", \"default\": \"%s\", \"variants\": %zu, "
          "\"first_call_ms\": %.2f, \"tuning_ms\": %.2f, \"from_cache\": %d, "
          "\"tuned_gbps\": %.1f, \"default_gbps\": %.1f, "
          "\"copy_gbps\": %.1f}\n",
          source.name(), (long long)n, (long long)wrong,
          configOf(kernel, report.chosen).c_str(),
          configOf(kernel, kernel.spec().defaultVariant).c_str(),
          kernel.spec().variants.size(), firstCallMs, report.wallMs,
          report.source == DecisionSource::Cache ? 1 : 0, gbps(tunedMs),
          gbps(defaultMs), gbps(copyMs));
      std::fflush(stdout);
    }

    // The same first call with the correctness check on: the price of
    // reading every candidate's output back.
    {
      Options checking = Options::fromEnvironment();
      checking.check = true;
      checking.mode = TuneMode::Always; // Tune again despite the disk cache.
      Module checked = source.open(device, checking);
      TunedKernel &k = checked.kernel("scale");
      k.launch(nullptr, memref(x, {maxN}), memref(y, {maxN}), s, maxN);
      backend.synchronize(nullptr);
      const TuningReport report = k.reports().back();
      int rejected = 0;
      for (const CandidateResult &c : report.candidates)
        rejected += c.status == CandidateStatus::WrongResult;
      std::printf("TUNA {\"check_n\": %lld, \"check_tuning_ms\": %.2f, "
                  "\"checked\": %d, \"rejected\": %d}\n",
                  (long long)maxN, report.wallMs, report.checked ? 1 : 0,
                  rejected);
      allCorrect &= report.checked && rejected == 0;
    }

    // Cached dispatch cost on a small shape, against raw cuLaunchKernel of
    // the function the tuner chose, loaded here from the same code.
    const int64_t n = 1 << 12;
    const TuningReport first = kernel.reports().front();
    const Variant &variant = kernel.spec().variants[first.chosen];
    int code = backend.selectCode(tuned.bundle(), variant);
    const Object &object = tuned.bundle().objects[variant.code[code].object];
    cuda::Module rawModule(driver, backend.context(), object.data.c_str(),
                           "raw reference");
    CUfunction rawFunction = nullptr;
    TUNA_CU(driver, "raw reference", cuModuleGetFunction, &rawFunction,
            rawModule.get(), variant.code[code].symbol.c_str());
    uint32_t grid = evaluate(variant.grid[0], n, "grid.x");
    uint32_t block = evaluate(variant.block[0], n, "block.x");
    void *xp = x, *yp = y;
    int64_t zero = 0, one = 1, size = n;
    float scale = s;
    void *params[] = {&xp, &xp,   &zero, &size, &one,   &yp,
                      &yp, &zero, &size, &one,  &scale, &size};
    ArgValue prebuilt[] = {toArg(memref(x, {n})), toArg(memref(y, {n})),
                           toArg(s), toArg(n)};
    std::vector<double> us = hostUsPerCall(
        backend,
        {[&] {
           TUNA_CU(driver, "raw reference", cuLaunchKernel, rawFunction, grid,
                   1, 1, block, 1, 1, 0, nullptr, params, nullptr);
         },
         [&] { kernel.launch(nullptr, memref(x, {n}), memref(y, {n}), s, n); },
         [&] { kernel.launch(nullptr, prebuilt, 4); }});
    double rawUs = us[0], tunaUs = us[1], untypedUs = us[2];
    std::printf("TUNA {\"dispatch_n\": %lld, \"dispatch_pick\": \"%s\", "
                "\"raw_launch_us\": %.3f, \"tuna_launch_us\": %.3f, "
                "\"tuna_untyped_us\": %.3f, \"overhead_us\": %.3f}\n",
                (long long)n, first.chosenName.c_str(), rawUs, tunaUs,
                untypedUs, tunaUs - rawUs);
  } catch (const Error &e) {
    std::fprintf(stderr, "tuna-gpu-bench: %s\n", e.what());
    return 1;
  }
  return allCorrect ? 0 : 1;
}
