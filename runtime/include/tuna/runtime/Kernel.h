//===- Kernel.h - A kernel that tunes itself -------------------*- C++ -*-===//
//
// TunedKernel is one kernel of a loaded Module. launch() checks the
// arguments against the kernel's ABI, computes the shape signature, and
// launches the variant chosen for it. The first launch with a new signature
// decides the variant (tunes, see docs/runtime-api.md); later launches with
// that signature take a lock-free path that neither allocates nor touches
// strings.
//
// Thread safety: launch() may be called from any number of threads. The
// first callers of a new signature wait for its one tuning; tunings on one
// device run one at a time (Device::tuningMutex).
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_KERNEL_H
#define TUNA_RUNTIME_KERNEL_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/MemRef.h"
#include "tuna/runtime/SearchVariants.h"
#include "tuna/runtime/Tuning.h"

#include <memory>
#include <type_traits>
#include <utility>
#include <functional>
#include <vector>

namespace tuna {

class Module;

inline ArgValue toArg(const ArgValue &arg) { return arg; }

class TunedKernel {
public:
  ~TunedKernel();
  TunedKernel(const TunedKernel &) = delete;
  TunedKernel &operator=(const TunedKernel &) = delete;

  const std::string &name() const;
  /// The kernel as the bundle describes it.
  const Kernel &spec() const;

  /// Launches with `count` tagged arguments on `stream` (a CUstream for
  /// CUDA; ignored by the host backend, whose launches are synchronous).
  void launch(StreamHandle stream, const ArgValue *args, size_t count);

  /// Launches with typed arguments: tuna::memref(...) views, integers,
  /// floats, tuna::Half, tuna::BFloat16, or ArgValue.
  template <typename... Args,
            typename = std::void_t<decltype(toArg(std::declval<Args>()))...>>
  void launch(StreamHandle stream, const Args &...args) {
    if constexpr (sizeof...(Args) == 0) {
      launch(stream, static_cast<const ArgValue *>(nullptr), 0);
    } else {
      const ArgValue values[] = {toArg(args)...};
      launch(stream, values, sizeof...(Args));
    }
  }

  /// The bucketed signature of a launch with these arguments (checked as
  /// launch() checks them).
  std::vector<int64_t> signature(const ArgValue *args, size_t count) const;

  /// The variant decided for `signature`, or -1 if none is yet.
  int chosenVariant(const std::vector<int64_t> &signature) const;

  /// Times exactly `variants` (indices into spec().variants) with these
  /// arguments as a first call's tuning does (scratch copies of the written
  /// buffers, the optional check against the default variant, warm-up,
  /// sampled medians, early elimination among them), and decides nothing:
  /// the report's `chosen` is -1, its other variants say why they cannot run
  /// or are NotTimed. With `samples` > 0 each variant takes at least that
  /// many samples. What search strategies measure with (docs/search.md).
  /// With no variants nothing is timed or loaded: the report classifies
  /// every variant for these key values, the candidates that static
  /// pruning drops (Options::prune) marked Pruned.
  TuningReport measure(StreamHandle stream, const ArgValue *args, size_t count,
                       const std::vector<int> &variants, int samples = 0);

  /// Searches the candidates of a launch with these arguments (those that
  /// can run, less what static pruning drops: Options::prune) with
  /// `options` (docs/search.md): each visit is timed as measure() times,
  /// and when isolated (Options::isolate) every visit of the search runs
  /// in one tuning worker. Decides and publishes nothing: the report's
  /// `chosen` is the search's pick, visited candidates carry their times,
  /// the others why they were not timed. Throws tuna::Error when nothing
  /// can run or every visit failed.
  SearchOutcome search(StreamHandle stream, const ArgValue *args, size_t count,
                       const search::SearchOptions &options);

  /// Computes the correct output of a launch for the check (Options::check):
  /// called with the launch's stream and arguments, whose written memrefs
  /// are scratch copies on the kernel's device, it must write the outputs
  /// there (a host function on the host device, or another kernel's launch,
  /// e.g. a baseline of another bundle). Synchronized after it returns. It
  /// runs while this kernel's Device holds its tuning mutex: a kernel it
  /// launches must belong to a Module on another Device object (e.g.
  /// Device(makeCudaBackend(n)): the same GPU, its own mutex) or have its
  /// signature decided already.
  using Reference = std::function<void(StreamHandle stream,
                                       const ArgValue *args, size_t count)>;

  /// Checks every candidate against `reference` (named `name` in reports)
  /// instead of against the output most variants agree on. Call before the
  /// launches it should check, not concurrently with a launch.
  void setReference(Reference reference, std::string name);

  /// Every decision this kernel made, oldest first. A copy: keep it, do not
  /// bind a reference to an element of the returned temporary.
  std::vector<TuningReport> reports() const;

  struct Impl;

private:
  friend class Module;
  friend class CandidateSpread;
  explicit TunedKernel(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl;
};

} // namespace tuna

#endif // TUNA_RUNTIME_KERNEL_H
