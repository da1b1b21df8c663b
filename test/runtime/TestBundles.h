//===- TestBundles.h - Bundles built in memory for the tests ----*- C++ -*-===//
#ifndef TUNA_TEST_RUNTIME_TESTBUNDLES_H
#define TUNA_TEST_RUNTIME_TESTBUNDLES_H

#include "tuna/runtime/Communicator.h"
#include "tuna/runtime/Device.h"
#include "tuna/runtime/Kernel.h"
#include "tuna/runtime/Manifest.h"
#include "tuna/runtime/Module.h"
#include "tuna/runtime/Options.h"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tuna::test {

/// The path of the test kernel library (kernels/ScaleKernels.cpp).
const char *kernelLibraryPath();

/// The bytes of the test kernel library.
const std::string &kernelLibrary();

/// Expression helpers.
ExprNode dim(int position);
ExprNode constant(int64_t value);
ExprNode op(ExprNode::Op op);

/// A variant of kernel "axpy" running `symbol` from object 0.
Variant axpyVariant(const std::string &symbol, int64_t work);

/// Kernel "axpy" (see ScaleKernels.cpp), key: n (argument 3), exact. Its
/// variants, in order: axpy_work4 (the default), axpy_work0, axpy_work64,
/// axpy_wrong.
Kernel axpyKernel();

/// A bundle with axpyKernel() and the kernel library as object 0.
Bundle axpyBundle();

/// axpy as a search space of two parameters, A and B: (1,1) axpy_work4
/// (the default), (1,2) axpy_work0, (2,1) axpy_work1, (2,2) axpy_work2,
/// (3,1) axpy_work8, (3,2) axpy_work64 and (3,3) axpy_wrong.
Bundle axpySearchBundle();

/// A scripted host (scriptedHost()) on which axpySearchBundle()'s variants
/// cost 4, 3, 2.5, 1.5, 2, 5 and 0.5 ms in that order: (2,2) is the fastest
/// correct one, (3,3) faster but wrong. Every rank that uses it measures
/// the same times.
Device searchHost(std::function<void()> onLaunch = nullptr);

/// A short search of axpySearchBundle() with `strategy` (seed 7, at most 6
/// evaluations) in batches of `batchSize`, re-timing every visit within 2x
/// of the best: with several ranks most batches and re-timings are split.
search::SearchOptions shortSearch(const std::string &strategy, int batchSize);

/// Searches axpy of `module` (axpySearchBundle()) on 256 elements.
SearchOutcome searchAxpy(Module &module, const search::SearchOptions &options);

/// What a search did that any rank, and any number of ranks, must do alike
/// given the same measurements: its visits in order (configuration and
/// time, or why it failed), its re-timings and its pick; one line each.
std::string describeVisits(const SearchOutcome &outcome);

/// The bytes of the library of variants that crash or hang
/// (kernels/FaultyKernels.cpp).
const std::string &faultyKernelLibrary();

/// A new host device whose timings are scripted: launches run the real
/// code, but the clock its events read advances by a fixed cost per
/// function (axpy_work0 1 ms, axpy_work4 2 ms, axpy_work64 20 ms, axpy_wrong
/// 0.5 ms, others 1 ms), so which variant wins does not depend on the
/// machine's speed or load (or a sanitizer).
Device scriptedHost();
/// The same with the cost of each function given (in ms; others 1 ms),
/// and optionally another device name (a device of another model) and a
/// function called before every launch.
Device scriptedHost(std::map<std::string, double> costMs,
                    std::string name = "",
                    std::function<void()> onLaunch = nullptr);

/// Extra cost (ms) of launching the second symbol right after the first.
using Penalties = std::map<std::pair<std::string, std::string>, double>;

/// A scripted host on which kernels interact: a launch costs its symbol's
/// cost plus the penalty of following the symbol launched before it, as if
/// one variant left the caches or a layout bad for the next kernel.
Device interactingHost(std::map<std::string, double> costMs,
                       Penalties penalties);

/// Kernels "first" (y += 2x; variants axpy_work1, axpy_work2) and "second"
/// (z += 2y; axpy_work8, axpy_work4), axpy-like, for the step tests.
Bundle stepBundle();

/// An interacting host for stepBundle() on rank `rank` of a job: axpy_work1
/// costs 1 ms, axpy_work2 1.5, axpy_work8 1 and axpy_work4 2, but
/// axpy_work8 right after axpy_work1 costs 4 ms more, and on odd ranks also
/// right after axpy_work2. A step of first then second: kernel by kernel
/// (axpy_work1, axpy_work8) 6 ms everywhere; jointly, even ranks alone pick
/// (axpy_work2, axpy_work8), 2.5 ms there but 6.5 ms on odd ranks, odd ranks
/// (axpy_work1, axpy_work4), 3 ms everywhere: the ranks of a job agree on
/// (axpy_work1, axpy_work4), whose slowest rank is fastest.
Device stepHost(int rank = 0);

/// A scripted host for rank `rank` of a job whose ranks time differently:
/// axpy_work0 costs 1 + 2 * rank ms, axpy_work4 2.5 ms, axpy_work64 20 ms,
/// axpy_wrong 0.5 ms (wrong: rejected with Options::check). Alone, rank 0
/// picks axpy_work0 and every other rank axpy_work4; agreeing on the lowest
/// slowest-rank median, 2 ranks or more pick axpy_work4.
/// `onLaunch` is called before every launch.
Device perturbedHost(int rank, std::function<void()> onLaunch = nullptr);

/// Options for quick tunings on scripted hosts: 3 to 10 samples, small
/// budgets, and the correctness check (which rejects axpy_wrong).
Options fastOptions();

/// Launches axpy with x = 1, y = 0 and alpha = 2 on `n` elements; whether y
/// came out 2 everywhere.
bool launchAxpyOnes(TunedKernel &kernel, int64_t n);

/// Runs body(0) ... body(count - 1) on `count` threads released at once,
/// and waits for them.
void runTogether(int count, const std::function<void(int)> &body);

/// The ranks of a job as threads of this process: rank(r) is rank r's
/// Communicator, over shared memory; its allGather waits for the others at
/// most its timeout, then throws naming the ranks that did not join.
class ThreadJob {
public:
  explicit ThreadJob(int size) : size(size) {}
  std::shared_ptr<Communicator> rank(int rank);

private:
  class Rank;
  int size;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<size_t, std::vector<std::string>> rounds;
};

/// One launch as MapGpu saw it.
struct SeenLaunch {
  bool tma = false;        ///< Of the function "tma", else "plain".
  uint64_t base = 0;       ///< Of argument 0: aligned + offset elements.
  TensorMapBytes map = {}; ///< The hidden parameter of "tma".
};

/// A simulated GPU with tensor maps (or without: `support`) for
/// tileBundle(): its "encoding" writes the encoding's address, sizes,
/// strides, box, swizzle and type into the map, its launches are recorded,
/// and its clock advances 1 ms per "tma" launch and 2 ms per "plain" one.
class MapGpu final : public Backend {
public:
  MapGpu() {
    deviceInfo.platform = "fake";
    deviceInfo.name = "Map GPU";
    deviceInfo.arch = "fake_90";
    deviceInfo.fingerprint = "fake:90";
    deviceInfo.maxThreadsPerBlock = 1024;
    deviceInfo.maxSharedBytesPerBlock = 48 * 1024;
  }

  const DeviceInfo &info() const override { return deviceInfo; }
  int objectScore(const Object &object) const override {
    return object.format == "fake-bin" ? 1 : -1;
  }
  ModuleHandle loadModule(const Object &object, std::string_view) override {
    return const_cast<Object *>(&object);
  }
  void unloadModule(ModuleHandle) noexcept override {}
  FunctionHandle getFunction(ModuleHandle, const std::string &symbol,
                             std::string_view) override {
    return symbol == "tma" ? &tmaCost : &plainCost;
  }
  FunctionLimits functionLimits(FunctionHandle) override {
    FunctionLimits limits;
    limits.maxThreadsPerBlock = 1024;
    return limits;
  }
  std::string tensorMapSupport() const override { return support; }
  void encodeTensorMap(const TensorMapEncoding &e, TensorMapBytes &map,
                       std::string_view what) override {
    ++encodes;
    if (refuse)
      throw Error(ErrorCode::Backend, std::string(what) +
                                          ": cuTensorMapEncodeTiled failed: "
                                          "CUDA_ERROR_INVALID_VALUE (1)");
    map = {};
    map.words[0] = e.address;
    map.words[1] = e.globalDim[0];
    map.words[2] = e.globalDim[1];
    map.words[3] = e.globalStrides[0];
    map.words[4] = e.boxDim[0];
    map.words[5] = e.boxDim[1];
    map.words[6] = static_cast<uint64_t>(e.swizzle);
    map.words[7] = static_cast<uint64_t>(e.dataType);
  }
  void launch(FunctionHandle function, StreamHandle, const LaunchDims &,
              void **params) override {
    bool tma = function == &tmaCost;
    clockMs += *static_cast<double *>(function);
    SeenLaunch &seen = launches[launchCount++ % kKept];
    seen = SeenLaunch();
    seen.tma = tma;
    // Argument 0 is a memref (allocated, aligned, offset first); the map
    // follows the proper parameters, at `mapParam`.
    seen.base = reinterpret_cast<uint64_t>(*static_cast<void **>(params[1])) +
                *static_cast<int64_t *>(params[2]) * sizeof(float);
    if (tma)
      std::memcpy(&seen.map, params[mapParam], sizeof(seen.map));
  }
  void synchronize(StreamHandle) override {}
  void *allocate(size_t bytes) override {
    return std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  }
  void deallocate(void *ptr) noexcept override { std::free(ptr); }
  void copy(void *dst, const void *src, size_t bytes, CopyKind,
            StreamHandle) override {
    std::memcpy(dst, src, bytes);
  }
  EventHandle createEvent() override { return new double(0); }
  void destroyEvent(EventHandle event) noexcept override {
    delete static_cast<double *>(event);
  }
  void recordEvent(EventHandle event, StreamHandle) override {
    *static_cast<double *>(event) = clockMs;
  }
  float elapsedMs(EventHandle start, EventHandle end) override {
    return static_cast<float>(*static_cast<double *>(end) -
                              *static_cast<double *>(start));
  }

  /// The last launches (at most kKept), oldest first; kept without
  /// allocating, so that the launch path's allocations can be counted.
  std::vector<SeenLaunch> seen() const {
    std::vector<SeenLaunch> result;
    for (size_t i = launchCount > kKept ? launchCount - kKept : 0;
         i < launchCount; ++i)
      result.push_back(launches[i % kKept]);
    return result;
  }

  DeviceInfo deviceInfo;
  std::string support;
  bool refuse = false;
  int encodes = 0;
  double clockMs = 0;
  /// The map's parameter: after tileBundle()'s 7 + 1 proper ones.
  int mapParam = 8;

private:
  static constexpr size_t kKept = 256;
  double tmaCost = 1.0, plainCost = 2.0;
  SeenLaunch launches[kKept];
  size_t launchCount = 0;
};

/// Kernel "tile" (runs on MapGpu): (memref<?x?xf32> a, written; i64 n),
/// key: a's sizes, exact. Map 0 describes `a`. Variants: "plain" (the
/// default, no map) and "tma", which takes map 0 with the box
/// (8, d0 floordiv 2), innermost first, and a 32-byte swizzle.
Bundle tileBundle();

/// A fresh directory under $TMPDIR (or /tmp), removed with its files.
struct TempDir {
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// The names of its files, without "." and "..".
  std::vector<std::string> files() const;
  std::string path;
};

} // namespace tuna::test

#endif // TUNA_TEST_RUNTIME_TESTBUNDLES_H
