//===- step_bench.cpp - A step tuned jointly against kernel by kernel -----===//
//
//   tuna-step-bench BUNDLES [M,K,N ...]
//
// One step of three kernels of kernels-mlir/ (bundles layernorm.tuna,
// matmul.tuna and softmax.tuna in BUNDLES, from bench/make_bundles.sh):
// layernorm of an M x K input, matmul_f32 of that by a K x N weight, softmax
// of the M x N product. For each shape (default 4096,1024,1024 and
// 2048,4096,2048), in one run and on fresh random inputs (the seed is
// printed):
//  1. kernel by kernel: modules of their own tune each kernel on its first
//     launch, as an application does; the wall time of that first step;
//  2. jointly: other modules of the same bundles, a tuna::TunedStep
//     (coordinate descent) over the same step; the wall time of its first
//     run, which includes each kernel's own tuning (its starting point);
//  3. the default configurations (TuneMode::Off);
// then the step's device time with each of the three choices, in one
// harness (Measure.h), in three interleaved rounds (the median is kept),
// and the output of each checked against a double reference of sampled
// rows (the step's rows are independent). Nothing is persisted: no cache,
// no steps.json. Prints one `STEP {json}` line per shape; exit status 1
// when an output is wrong, 2 without a CUDA device or bundle.
//
//===----------------------------------------------------------------------===//

#include "Measure.h"
#include "reference/RelativeError.h"
#include "reference/RowKernels.h"
#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/Step.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::bench;

namespace {

struct Shape {
  int64_t m, k, n;
};

constexpr float kEps = 1e-5f;
constexpr double kTolerance = 1e-4;

/// Device memory, freed with it.
struct Buffer {
  Backend &backend;
  void *ptr;
  size_t count;
  Buffer(Backend &backend, size_t count)
      : backend(backend), ptr(backend.allocate(count * 4)), count(count) {}
  ~Buffer() { backend.deallocate(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  float *f() const { return static_cast<float *>(ptr); }
  void upload(const std::vector<float> &data) {
    backend.copy(ptr, data.data(), count * 4, CopyKind::HostToDevice, nullptr);
    backend.synchronize(nullptr); // `data` may go away.
  }
  std::vector<float> download() {
    std::vector<float> data(count);
    backend.copy(data.data(), ptr, count * 4, CopyKind::DeviceToHost, nullptr);
    backend.synchronize(nullptr);
    return data;
  }
};

/// The step's inputs (on the host and the device) and its buffers.
struct StepData {
  StepData(Backend &backend, const Shape &s, std::mt19937 &rng)
      : x(backend, s.m * s.k), gamma(backend, s.k), beta(backend, s.k),
        w(backend, s.k * s.n), h(backend, s.m * s.k), c(backend, s.m * s.n),
        y(backend, s.m * s.n) {
    auto fill = [&](std::vector<float> &v, size_t n, float lo, float hi) {
      std::uniform_real_distribution<float> dist(lo, hi);
      v.resize(n);
      for (float &value : v)
        value = dist(rng);
    };
    fill(hostX, x.count, 2, 6);
    fill(hostGamma, s.k, 0.5f, 1.5f);
    fill(hostBeta, s.k, -0.5f, 0.5f);
    // Logits of a few units: softmax's output is neither flat nor one-hot.
    float scale = 3.0f / std::sqrt(static_cast<float>(s.k));
    fill(hostW, w.count, -scale, scale);
    x.upload(hostX);
    gamma.upload(hostGamma);
    beta.upload(hostBeta);
    w.upload(hostW);
  }
  Buffer x, gamma, beta, w, h, c, y;
  std::vector<float> hostX, hostGamma, hostBeta, hostW;
};

/// The three kernels, each in a module of its own bundle.
struct StepKernels {
  StepKernels(const std::string &bundles, const Device &device,
              const Options &options) {
    for (const char *name : {"layernorm", "matmul", "softmax"})
      modules.push_back(std::make_unique<Module>(
          Module::load(bundles + "/" + name + ".tuna", device, options)));
    layernorm = &modules[0]->kernel("layernorm");
    matmul = &modules[1]->kernel("matmul_f32");
    softmax = &modules[2]->kernel("softmax");
  }
  std::vector<std::unique_ptr<Module>> modules;
  TunedKernel *layernorm, *matmul, *softmax;
};

void runStep(StepKernels &k, StepData &d, const Shape &s, StreamHandle stream) {
  k.layernorm->launch(stream, memref(d.x.f(), {s.m * s.k}),
                      memref(d.gamma.f(), {s.k}), memref(d.beta.f(), {s.k}),
                      memref(d.h.f(), {s.m * s.k}), kEps, s.m, s.k);
  k.matmul->launch(stream, memref(d.h.f(), {s.m * s.k}),
                   memref(d.w.f(), {s.k * s.n}), memref(d.c.f(), {s.m * s.n}),
                   s.m, s.n, s.k);
  k.softmax->launch(stream, memref(d.c.f(), {s.m * s.n}),
                    memref(d.y.f(), {s.m * s.n}), s.m, s.n);
}

/// The step's output for `rows`, in double, from the host inputs.
std::vector<double> referenceRows(const StepData &d, const Shape &s,
                                  const std::vector<int64_t> &rows) {
  std::vector<double> out;
  for (int64_t r : rows) {
    std::vector<double> normed = reference::layernorm(
        &d.hostX[r * s.k], d.hostGamma.data(), d.hostBeta.data(), kEps, 1, s.k);
    std::vector<double> logits(s.n, 0.0);
    for (int64_t kk = 0; kk < s.k; ++kk)
      for (int64_t j = 0; j < s.n; ++j)
        logits[j] += normed[kk] * d.hostW[kk * s.n + j];
    double top = *std::max_element(logits.begin(), logits.end()), sum = 0;
    for (double v : logits)
      sum += std::exp(v - top);
    for (double v : logits)
      out.push_back(std::exp(v - top) / sum);
  }
  return out;
}

/// Runs the step once with `kernels` on outputs poisoned with NaN; the
/// relative L2 error of `rows` against `want`.
double stepError(StepKernels &kernels, StepData &d, const Shape &s,
                 const std::vector<int64_t> &rows,
                 const std::vector<double> &want) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Buffer *out : {&d.h, &d.c, &d.y})
    out->upload(std::vector<float>(out->count, nan));
  runStep(kernels, d, s, nullptr);
  std::vector<float> all = d.y.download(), got;
  for (int64_t r : rows)
    got.insert(got.end(), all.begin() + r * s.n, all.begin() + (r + 1) * s.n);
  return reference::relativeError(got, want);
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

std::string pickOf(const TunedKernel &kernel, int variant) {
  return kernel.spec().name + "(" + configOf(kernel, variant) + ")";
}

bool benchShape(const std::string &bundles, Device &device, const Shape &s,
                unsigned seed) {
  Backend &backend = device.backend();
  std::mt19937 rng(seed);
  StepData data(backend, s, rng);
  Options tuned = Options::fromEnvironment();
  tuned.mode = TuneMode::Always;
  tuned.cacheDir.clear();
  tuned.databases.clear();
  Options off = tuned;
  off.mode = TuneMode::Off;

  // 1. Kernel by kernel: each kernel tunes on its own first launch.
  StepKernels alone(bundles, device, tuned);
  auto start = std::chrono::steady_clock::now();
  runStep(alone, data, s, nullptr);
  backend.synchronize(nullptr);
  double aloneWallMs = msSince(start);

  // 2. Jointly: a TunedStep over other modules of the same bundles.
  StepKernels joint(bundles, device, tuned);
  StepOptions stepOptions;
  stepOptions.always = true;
  TunedStep step(
      "layernorm-matmul-softmax",
      [&](StreamHandle stream) { runStep(joint, data, s, stream); },
      stepOptions);
  start = std::chrono::steady_clock::now();
  step.run(nullptr);
  backend.synchronize(nullptr);
  double jointWallMs = msSince(start);
  const StepReport &report = step.reports().back();

  // 3. The default configurations.
  StepKernels defaults(bundles, device, off);
  runStep(defaults, data, s, nullptr);

  std::vector<int64_t> rows(16);
  std::uniform_int_distribution<int64_t> pick(0, s.m - 1);
  for (int64_t &r : rows)
    r = pick(rng);
  rows.back() = s.m - 1;
  std::vector<double> want = referenceRows(data, s, rows);
  double aloneError = stepError(alone, data, s, rows, want);
  double jointError = stepError(joint, data, s, rows, want);
  double defaultError = stepError(defaults, data, s, rows, want);

  std::vector<double> aloneMs, jointMs, defaultMs;
  for (int round = 0; round < 3; ++round) {
    aloneMs.push_back(deviceMs(
        backend, [&] { runStep(alone, data, s, nullptr); }, 10, 15));
    jointMs.push_back(deviceMs(
        backend, [&] { runStep(joint, data, s, nullptr); }, 10, 15));
    defaultMs.push_back(deviceMs(
        backend, [&] { runStep(defaults, data, s, nullptr); }, 10, 15));
  }
  double aloneStep = median(aloneMs), jointStep = median(jointMs),
         defaultStep = median(defaultMs);

  std::string alonePicks, jointPicks;
  const TunedKernel *kernels[] = {alone.layernorm, alone.matmul, alone.softmax};
  for (size_t i = 0; i < report.launches.size(); ++i) {
    const StepLaunch &launch = report.launches[i];
    const TunedKernel &kernel = *kernels[i];
    alonePicks +=
        (i ? " " : "") + pickOf(kernel, kernel.reports().back().chosen);
    jointPicks += (i ? " " : "") + pickOf(kernel, launch.chosen);
  }
  bool ok = aloneError <= kTolerance && jointError <= kTolerance &&
            defaultError <= kTolerance;
  std::printf(
      "STEP {\"shape\": \"M=%lld,K=%lld,N=%lld\", \"seed\": %u, \"ok\": %d, "
      "\"err_kernel_by_kernel\": %.3g, \"err_joint\": %.3g, "
      "\"err_default\": %.3g, \"step_us_kernel_by_kernel\": %.2f, "
      "\"step_us_joint\": %.2f, \"step_us_default\": %.2f, "
      "\"joint_over_kernel_by_kernel\": %.4f, "
      "\"tuning_wall_ms_kernel_by_kernel\": %.1f, "
      "\"tuning_wall_ms_joint\": %.1f, \"joint_evaluations\": %d, "
      "\"tuner_kernel_by_kernel_us\": %.2f, \"tuner_joint_us\": %.2f, "
      "\"picks_kernel_by_kernel\": \"%s\", \"picks_joint\": \"%s\"}\n",
      static_cast<long long>(s.m), static_cast<long long>(s.k),
      static_cast<long long>(s.n), seed, ok ? 1 : 0, aloneError, jointError,
      defaultError, aloneStep * 1e3, jointStep * 1e3, defaultStep * 1e3,
      jointStep / aloneStep, aloneWallMs, jointWallMs, report.evaluations,
      report.kernelByKernelMs * 1e3, report.jointMs * 1e3, alonePicks.c_str(),
      jointPicks.c_str());
  std::fflush(stdout);
  return ok;
}

std::vector<Shape> parseShapes(int argc, char **argv) {
  std::vector<Shape> shapes;
  for (int i = 2; i < argc; ++i) {
    long long m, k, n;
    char end;
    if (std::sscanf(argv[i], "%lld,%lld,%lld%c", &m, &k, &n, &end) != 3 ||
        m <= 0 || k <= 0 || n <= 0) {
      std::fprintf(stderr, "tuna-step-bench: shape '%s': expected M,K,N\n",
                   argv[i]);
      std::exit(2);
    }
    shapes.push_back({m, k, n});
  }
  if (shapes.empty())
    shapes = {{4096, 1024, 1024}, {2048, 4096, 2048}};
  return shapes;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tuna-step-bench BUNDLES [M,K,N ...]\n");
    return 2;
  }
  std::vector<Shape> shapes = parseShapes(argc, argv);
  std::optional<Device> device;
  try {
    device.emplace(Device::cuda(0));
    device->info();
  } catch (const Error &e) {
    std::fprintf(stderr, "tuna-step-bench: needs a CUDA device: %s\n",
                 e.what());
    return 2;
  }
  unsigned seed = std::random_device()();
  bool ok = true;
  for (const Shape &shape : shapes) {
    try {
      ok &= benchShape(argv[1], *device, shape, seed);
    } catch (const Error &e) {
      std::fprintf(stderr, "tuna-step-bench: %s\n", e.what());
      return 2;
    }
  }
  return ok ? 0 : 1;
}
