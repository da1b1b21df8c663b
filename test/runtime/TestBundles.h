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
