//===- gpu_bench.cpp - Tuna on a CUDA device, against its references ------===//
//
// For kernels-mlir/scale.mlir compiled for sm_90 (15 variants):
//  - correctness per shape (fresh random x, NaN-poisoned y, CPU reference);
//  - the variant picked per shape and the first-call tuning time;
//  - the host cost of a cached launch, against a raw cuLaunchKernel of the
//    same chosen function with a prebuilt parameter array, in this run;
//  - bandwidth of the tuned and the default variant, against a
//    device-to-device copy (raw cuMemcpyDtoDAsync, events) in this run.
// Prints one `TUNA {json}` line per measurement for bench/run_gpu.sh.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"
#include "tuna/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tuna;
using Clock = std::chrono::steady_clock;

namespace {

struct Buffer {
  Backend &backend;
  void *ptr;
  Buffer(Backend &b, size_t bytes) : backend(b), ptr(b.allocate(bytes)) {}
  ~Buffer() { backend.deallocate(ptr); }
  float *f() const { return static_cast<float *>(ptr); }
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Median host time per call of each of `calls`, in microseconds. Batches
/// of `batch` calls are timed on the host, the stream is drained outside the
/// timed region (so the queue never fills), and the callers take turns, so
/// that a drift of the machine affects them alike.
std::vector<double>
hostUsPerCall(Backend &backend, const std::vector<std::function<void()>> &calls,
              int batch = 20, int batches = 400) {
  std::vector<std::vector<double>> samples(calls.size());
  for (int b = -10; b < batches; ++b) // the first 10 rounds warm up
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

/// Median device time of one call in ms, with events around `reps` calls.
double deviceMs(Backend &backend, const std::function<void()> &call,
                int reps = 20, int samples = 15) {
  EventHandle start = backend.createEvent(), end = backend.createEvent();
  call();
  backend.synchronize(nullptr);
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    backend.recordEvent(start, nullptr);
    for (int i = 0; i < reps; ++i)
      call();
    backend.recordEvent(end, nullptr);
    times.push_back(backend.elapsedMs(start, end) / reps);
  }
  backend.destroyEvent(start);
  backend.destroyEvent(end);
  return median(times);
}

std::string configOf(const TunedKernel &kernel, int variant) {
  std::string s;
  for (const auto &[name, value] : kernel.spec().variants[variant].config)
    s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

int64_t configValue(const Variant &variant, const std::string &name) {
  for (const auto &[param, value] : variant.config)
    if (param == name)
      return value;
  throw Error(ErrorCode::NotFound, "variant has no parameter " + name);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s scale.tuna\n", argv[0]);
    return 2;
  }
  const float s = 1.75f;
  bool allCorrect = true;
  try {
    Device device = Device::cuda(0);
    Backend &backend = device.backend();
    std::printf("device: %s (%s), driver %s\n", device.info().name.c_str(),
                device.info().arch.c_str(),
                device.info().driverVersion.c_str());
    Options off;
    off.mode = TuneMode::Off;
    Module tuned = Module::load(argv[1], device, Options::fromEnvironment());
    Module fixed = Module::load(argv[1], device, off);
    TunedKernel &kernel = tuned.kernel("scale");
    TunedKernel &byDefault = fixed.kernel("scale");
    const cuda::CudaDriver &driver = cuda::CudaDriver::get();

    const int64_t maxN = int64_t(1) << 26;
    Buffer x(backend, maxN * 4), y(backend, maxN * 4);
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);

    for (int64_t n : {int64_t(1) << 12, int64_t(1) << 16, int64_t(1) << 20,
                      int64_t(1) << 24, maxN}) {
      std::vector<float> hx(n), hy(n, std::numeric_limits<float>::quiet_NaN());
      for (float &v : hx)
        v = dist(rng);
      backend.copy(x.ptr, hx.data(), n * 4, CopyKind::HostToDevice, nullptr);
      backend.copy(y.ptr, hy.data(), n * 4, CopyKind::HostToDevice, nullptr);
      auto launchTuned = [&] {
        kernel.launch(nullptr, memref(x.f(), {n}), memref(y.f(), {n}), s, n);
      };
      auto t0 = Clock::now();
      launchTuned(); // first call with this shape: tunes, then launches
      backend.synchronize(nullptr);
      double firstCallMs =
          std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      backend.copy(hy.data(), y.ptr, n * 4, CopyKind::DeviceToHost, nullptr);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i)
        wrong += !(hy[i] == s * hx[i]);
      allCorrect &= wrong == 0;

      const TuningReport report = kernel.reports().back();
      double tunedMs = deviceMs(backend, launchTuned);
      double defaultMs = deviceMs(backend, [&] {
        byDefault.launch(nullptr, memref(x.f(), {n}), memref(y.f(), {n}), s, n);
      });
      double copyMs = deviceMs(backend, [&] {
        driver.check(
            driver.cuMemcpyDtoDAsync(reinterpret_cast<cuda::CUdeviceptr>(y.ptr),
                                     reinterpret_cast<cuda::CUdeviceptr>(x.ptr),
                                     n * 4, nullptr),
            "cuMemcpyDtoDAsync", "copy reference");
      });
      auto gbps = [&](double ms) { return 2.0 * n * 4 / (ms * 1e6); };
      std::printf(
          "TUNA {\"n\": %lld, \"wrong\": %lld, \"pick\": \"%s\", "
          "\"first_call_ms\": %.2f, \"tuning_ms\": %.2f, \"from_cache\": %d, "
          "\"tuned_gbps\": %.1f, \"default_gbps\": %.1f, "
          "\"copy_gbps\": %.1f}\n",
          (long long)n, (long long)wrong,
          configOf(kernel, report.chosen).c_str(), firstCallMs, report.wallMs,
          report.source == DecisionSource::Cache ? 1 : 0, gbps(tunedMs),
          gbps(defaultMs), gbps(copyMs));
    }

    // The same first call with the correctness check on: the price of
    // reading every candidate's output back.
    {
      Options checking = Options::fromEnvironment();
      checking.check = true;
      checking.mode = TuneMode::Always; // Tune again despite the disk cache.
      Module checked = Module::load(argv[1], device, checking);
      TunedKernel &k = checked.kernel("scale");
      k.launch(nullptr, memref(x.f(), {maxN}), memref(y.f(), {maxN}), s, maxN);
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
    // the very function the tuner chose, loaded here from the same cubin.
    const int64_t n = 1 << 12;
    int chosen = kernel.reports().front().chosen;
    const Bundle &bundle = tuned.bundle();
    const Variant &variant = kernel.spec().variants[chosen];
    int code = backend.selectCode(bundle, variant);
    const Object &object = bundle.objects[variant.code[code].object];
    cuda::CUmodule rawModule = nullptr;
    cuda::CUfunction rawFunction = nullptr;
    driver.check(driver.cuModuleLoadDataEx(&rawModule, object.data.c_str(), 0,
                                           nullptr, nullptr),
                 "cuModuleLoadDataEx", "raw reference");
    driver.check(driver.cuModuleGetFunction(&rawFunction, rawModule,
                                            variant.code[code].symbol.c_str()),
                 "cuModuleGetFunction", "raw reference");
    int64_t block = configValue(variant, "block");
    int64_t perBlock = block * configValue(variant, "vec");
    unsigned grid = static_cast<unsigned>((n + perBlock - 1) / perBlock);
    void *xp = x.ptr, *yp = y.ptr;
    int64_t zero = 0, one = 1, size = n;
    float scale = s;
    void *params[] = {&xp, &xp,   &zero, &size, &one,   &yp,
                      &yp, &zero, &size, &one,  &scale, &size};
    ArgValue prebuilt[] = {toArg(memref(x.f(), {n})), toArg(memref(y.f(), {n})),
                           toArg(s), toArg(n)};
    std::vector<double> us = hostUsPerCall(
        backend,
        {[&] {
           driver.check(driver.cuLaunchKernel(rawFunction, grid, 1, 1,
                                              static_cast<unsigned>(block), 1,
                                              1, 0, nullptr, params, nullptr),
                        "cuLaunchKernel", "raw reference");
         },
         [&] {
           kernel.launch(nullptr, memref(x.f(), {n}), memref(y.f(), {n}), s, n);
         },
         [&] { kernel.launch(nullptr, prebuilt, 4); }});
    double rawUs = us[0], tunaUs = us[1], untypedUs = us[2];
    driver.cuModuleUnload(rawModule);
    std::printf("TUNA {\"dispatch_n\": %lld, \"raw_launch_us\": %.3f, "
                "\"tuna_launch_us\": %.3f, \"tuna_untyped_us\": %.3f, "
                "\"overhead_us\": %.3f}\n",
                (long long)n, rawUs, tunaUs, untypedUs, tunaUs - rawUs);
  } catch (const Error &e) {
    std::fprintf(stderr, "tuna-gpu-bench: %s\n", e.what());
    return 1;
  }
  return allCorrect ? 0 : 1;
}
