//===- HostRowKernelsTest.cpp - The row kernels' host versions, end to end ===//
//
// row_sum_host, softmax_host and layernorm_host from kernels-mlir/, compiled
// for the host by tuna_jit and run through the runtime: tuned on each shape,
// then every variant forced (the bundle's default set to it, tuning off),
// against references in double on fresh random inputs (the seed is printed
// with every failure). The shapes include one row, rows shorter than any
// vector width, lengths that no vec * unroll divides (the masked tail),
// lengths that all of them divide (no tail), and buffers that start one
// float past a 16-byte boundary.
//
//===----------------------------------------------------------------------===//

#include "reference/RowKernels.h"
#include "tuna/JIT/Jit.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using tuna::jit::Compiled;
using tuna::jit::Compiler;
using tuna::jit::CompilerOptions;

/// The host bundle of kernels-mlir/`file` for `cpu` ("generic": x86-64
/// with SSE2 on x86, or "native": this CPU's vector width, masked loads
/// and FMA), compiled once per process.
std::shared_ptr<const Compiled> compiled(const std::string &file,
                                         const std::string &cpu = "generic") {
  static std::map<std::string, std::shared_ptr<const Compiled>> bundles;
  std::shared_ptr<const Compiled> &entry = bundles[file + " " + cpu];
  if (!entry) {
    CompilerOptions options;
    options.targets = {"host"};
    options.hostCpu = cpu;
    Compiler jit(options);
    entry = jit.compileFile(TUNA_SOURCE_DIR "/kernels-mlir/" + file);
  }
  return entry;
}

struct Shape {
  int64_t rows, cols;
  bool misaligned; ///< Every buffer starts 4 bytes past a 16-byte boundary.
};

/// One row: cols not a multiple of 4, 8, 16 or any vec * unroll; cols below
/// every vector width; cols a multiple of every vec * unroll (64); cols
/// of 8 but not 16; a single column; misaligned buffers.
const std::vector<Shape> kShapes = {
    {1, 1001, false}, {7, 3, false},  {5, 256, false}, {9, 200, false},
    {4, 1, false},    {3, 517, true}, {1, 64, true}};

std::string describe(const Shape &shape) {
  return std::to_string(shape.rows) + " x " + std::to_string(shape.cols) +
         (shape.misaligned ? " (misaligned)" : "");
}

/// A buffer of `n` floats poisoned with NaN, starting 16-byte aligned or
/// one float past that.
struct Buffer {
  Buffer(int64_t n, bool misaligned) : storage(n + 8, std::nanf("")), size(n) {
    auto address = reinterpret_cast<uintptr_t>(storage.data());
    offset = ((16 - address % 16) % 16) / 4 + (misaligned ? 1 : 0);
  }
  float *data() { return storage.data() + offset; }
  float &operator[](int64_t i) { return data()[i]; }
  tuna::MemRefView view() { return tuna::memref(data(), {size}); }
  /// Whether the floats around the buffer are still NaN: nothing was
  /// written before it or past its end (by a masked store, say).
  bool untouchedAround() const {
    for (size_t i = 0; i < storage.size(); ++i)
      if ((i < offset || i >= offset + size) && !std::isnan(storage[i]))
        return false;
    return true;
  }

  std::vector<float> storage;
  int64_t size;
  size_t offset = 0;
};

/// A kernel's inputs for one shape, its launch, and its check.
struct Case {
  std::function<void(tuna::TunedKernel &)> launch;
  /// Checks the outputs of the last launch; reports failures with `what`.
  std::function<void(const std::string &what)> check;
  /// Poisons the outputs again.
  std::function<void()> reset;
};

using CaseMaker = std::function<Case(std::mt19937 &, const Shape &)>;

void fill(Buffer &buffer, std::mt19937 &rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < buffer.size; ++i)
    buffer[i] = dist(rng);
}

void poison(Buffer &buffer) {
  for (int64_t i = 0; i < buffer.size; ++i)
    buffer[i] = std::nanf("");
}

/// y[r] = sum_c x[r, c]; the float sums may differ from the double one by
/// 1e-5 of sum_c |x[r, c]| (a lost or doubled element is 1/cols of it).
Case rowSumCase(std::mt19937 &rng, const Shape &s) {
  auto x = std::make_shared<Buffer>(s.rows * s.cols, s.misaligned);
  auto y = std::make_shared<Buffer>(s.rows, s.misaligned);
  fill(*x, rng, -1, 1);
  Case c;
  c.launch = [=](tuna::TunedKernel &kernel) {
    kernel.launch(nullptr, x->view(), y->view(), s.rows, s.cols);
  };
  c.check = [=](const std::string &what) {
    ASSERT_TRUE(y->untouchedAround()) << what;
    for (int64_t r = 0; r < s.rows; ++r) {
      double sum = 0, magnitude = 0;
      for (int64_t k = 0; k < s.cols; ++k) {
        sum += (*x)[r * s.cols + k];
        magnitude += std::fabs((*x)[r * s.cols + k]);
      }
      ASSERT_NEAR((*y)[r], sum, 1e-5 * magnitude + 1e-7)
          << what << ": row " << r;
    }
  };
  c.reset = [=] { poison(*y); };
  return c;
}

/// y[r, c] = exp(x[r, c] - m_r) / sum_k exp(x[r, k] - m_r); every 7th
/// element is 100 below the others, so that exp underflows there.
Case softmaxCase(std::mt19937 &rng, const Shape &s) {
  auto x = std::make_shared<Buffer>(s.rows * s.cols, s.misaligned);
  auto y = std::make_shared<Buffer>(s.rows * s.cols, s.misaligned);
  fill(*x, rng, -8, 8);
  for (int64_t i = 3; i < x->size; i += 7)
    (*x)[i] -= 100;
  Case c;
  c.launch = [=](tuna::TunedKernel &kernel) {
    kernel.launch(nullptr, x->view(), y->view(), s.rows, s.cols);
  };
  c.check = [=](const std::string &what) {
    ASSERT_TRUE(y->untouchedAround()) << what;
    std::vector<double> want =
        tuna::reference::softmax(x->data(), s.rows, s.cols);
    for (int64_t i = 0; i < s.rows * s.cols; ++i)
      ASSERT_NEAR((*y)[i], want[i], 1e-5 * want[i] + 1e-9)
          << what << ": row " << i / s.cols << " column " << i % s.cols;
  };
  c.reset = [=] { poison(*y); };
  return c;
}

/// y = (x - mean_r) / sqrt(var_r + eps) gamma + beta, biased variance; the
/// mean is far from zero against the spread, as in the GPU benchmark.
Case layernormCase(std::mt19937 &rng, const Shape &s) {
  const float eps = 1e-5f;
  auto x = std::make_shared<Buffer>(s.rows * s.cols, s.misaligned);
  auto gamma = std::make_shared<Buffer>(s.cols, s.misaligned);
  auto beta = std::make_shared<Buffer>(s.cols, s.misaligned);
  auto y = std::make_shared<Buffer>(s.rows * s.cols, s.misaligned);
  fill(*x, rng, 2, 6);
  fill(*gamma, rng, 0.5f, 1.5f);
  fill(*beta, rng, -0.5f, 0.5f);
  Case c;
  c.launch = [=](tuna::TunedKernel &kernel) {
    kernel.launch(nullptr, x->view(), gamma->view(), beta->view(), y->view(),
                  eps, s.rows, s.cols);
  };
  c.check = [=](const std::string &what) {
    ASSERT_TRUE(y->untouchedAround()) << what;
    std::vector<double> want = tuna::reference::layernorm(
        x->data(), gamma->data(), beta->data(), eps, s.rows, s.cols);
    for (int64_t i = 0; i < s.rows * s.cols; ++i)
      ASSERT_NEAR((*y)[i], want[i], 5e-5 * (1 + std::fabs(want[i])))
          << what << ": row " << i / s.cols << " column " << i % s.cols;
  };
  c.reset = [=] { poison(*y); };
  return c;
}

struct RowKernel {
  const char *file, *kernel;
  CaseMaker make;
};

class HostRowKernels : public ::testing::TestWithParam<RowKernel> {
protected:
  void SetUp() override {
    seed = std::random_device()();
    rng.seed(seed);
    bundle = compiled(GetParam().file);
  }

  std::string what(const Shape &shape, const std::string &variant) const {
    return std::string(GetParam().kernel) + " " + describe(shape) + " " +
           variant + " (seed " + std::to_string(seed) + ")";
  }

  unsigned seed = 0;
  std::mt19937 rng;
  std::shared_ptr<const Compiled> bundle;
};

TEST_P(HostRowKernels, OnlyTheHostKernelIsCompiled) {
  ASSERT_EQ(bundle->bundle.kernels.size(), 1u);
  const tuna::Kernel &kernel = bundle->bundle.kernels[0];
  EXPECT_EQ(kernel.name, GetParam().kernel);
  EXPECT_EQ(kernel.variants.size(), 9u);
  using Config = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(kernel.variants[kernel.defaultVariant].config,
            (Config{{"vec", 8}, {"unroll", 2}}));
}

TEST_P(HostRowKernels, TunedResultsMatchTheReference) {
  tuna::Options options;
  options.cacheDir.clear();
  options.minRuns = 2;
  options.maxRuns = 3;
  options.candidateBudgetMs = 5;
  options.totalBudgetMs = 100;
  tuna::Module module = tuna::Module::fromBundle(
      bundle->bundle, tuna::Device::host(), GetParam().file, options);
  tuna::TunedKernel &kernel = module.kernel(GetParam().kernel);
  for (const Shape &shape : kShapes) {
    Case c = GetParam().make(rng, shape);
    c.launch(kernel);
    tuna::TuningReport report = kernel.reports().back();
    ASSERT_EQ(report.keyValues, (std::vector<int64_t>{shape.rows, shape.cols}));
    EXPECT_GE(report.chosen, 0);
    ASSERT_EQ(report.candidates.size(), 9u);
    for (const tuna::CandidateResult &candidate : report.candidates)
      EXPECT_TRUE(candidate.status == tuna::CandidateStatus::Measured ||
                  candidate.status == tuna::CandidateStatus::Eliminated)
          << candidate.name << ": " << candidateStatusName(candidate.status)
          << " " << candidate.reason;
    c.check(what(shape, "tuned, " + report.chosenName));
    // Once decided, the same shape launches the pick again.
    c.reset();
    c.launch(kernel);
    c.check(what(shape, "second launch, " + report.chosenName));
  }
  // One decision per (rows, cols) bucket: the shapes' buckets all differ.
  EXPECT_EQ(kernel.reports().size(), kShapes.size());
}

/// Launches every variant of `compiled`'s kernel on every shape, each
/// variant made the default of a module that does not tune.
void forceEveryVariant(
    const Compiled &compiled, const char *kernelName, std::vector<Case> &cases,
    const std::function<std::string(const Shape &, const std::string &)>
        &what) {
  const size_t count = compiled.bundle.kernels.at(0).variants.size();
  tuna::Options options;
  options.cacheDir.clear();
  options.mode = tuna::TuneMode::Off;
  for (size_t v = 0; v < count; ++v) {
    tuna::Bundle forced = compiled.bundle;
    forced.kernels[0].defaultVariant = static_cast<int>(v);
    const std::string name = forced.kernels[0].variants[v].name;
    tuna::Module module = tuna::Module::fromBundle(
        std::move(forced), tuna::Device::host(), name, options);
    tuna::TunedKernel &kernel = module.kernel(kernelName);
    for (size_t i = 0; i < kShapes.size(); ++i) {
      cases[i].reset();
      cases[i].launch(kernel);
      ASSERT_EQ(kernel.reports().back().chosen, static_cast<int>(v));
      cases[i].check(what(kShapes[i], name));
    }
  }
}

TEST_P(HostRowKernels, EveryVariantIsCorrectWhenForced) {
  std::vector<Case> cases;
  for (const Shape &shape : kShapes)
    cases.push_back(GetParam().make(rng, shape));
  auto describe = [&](const Shape &shape, const std::string &variant) {
    return what(shape, variant);
  };
  forceEveryVariant(*bundle, GetParam().kernel, cases, describe);
}

TEST_P(HostRowKernels, EveryVariantIsCorrectWhenForcedForThisCpu) {
  std::shared_ptr<const Compiled> native = compiled(GetParam().file, "native");
  std::vector<Case> cases;
  for (const Shape &shape : kShapes)
    cases.push_back(GetParam().make(rng, shape));
  auto describe = [&](const Shape &shape, const std::string &variant) {
    return what(shape, variant + " (native)");
  };
  forceEveryVariant(*native, GetParam().kernel, cases, describe);
}

INSTANTIATE_TEST_SUITE_P(
    Library, HostRowKernels,
    ::testing::Values(RowKernel{"reduce.mlir", "row_sum_host", rowSumCase},
                      RowKernel{"softmax.mlir", "softmax_host", softmaxCase},
                      RowKernel{"layernorm.mlir", "layernorm_host",
                                layernormCase}),
    [](const ::testing::TestParamInfo<RowKernel> &info) {
      return std::string(info.param.kernel);
    });

} // namespace
