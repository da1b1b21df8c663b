//===- KernelImpl.h - The state behind Module and TunedKernel ---*- C++ -*-===//
#ifndef TUNA_RUNTIME_LIB_KERNELIMPL_H
#define TUNA_RUNTIME_LIB_KERNELIMPL_H

#include "DeviceCompare.h"
#include "JobThread.h"
#include "SignatureTable.h"
#include "TensorMapRules.h"

#include "tuna/runtime/Expr.h"
#include "tuna/runtime/Module.h"
#include "tuna/runtime/SearchVariants.h"
#include "tuna/runtime/Signature.h"
#include "tuna/runtime/TensorMap.h"

#include <atomic>
#include <optional>

namespace tuna {

struct CacheEntry;
struct VariantRef;
class WorkerSession;
class StartedWorker;
struct StartedWorkerDeleter {
  void operator()(StartedWorker *started) const;
};
/// A tuning worker started before a tuning needs it (Isolation.h).
using StartedWorkerPtr = std::unique_ptr<StartedWorker, StartedWorkerDeleter>;

/// How many TunedSteps are being tuned in this process now (Step.cpp):
/// while none is, launches do not look for one.
extern std::atomic<int> stepsBeingTuned;
/// Launches through the step this thread is tuning; false when it tunes
/// none (then the launch goes on as usual).
bool launchInTunedStep(TunedKernel::Impl &kernel, StreamHandle stream,
                       const ArgValue *args, size_t count);
/// Tells the step this thread runs, if any, that a launch decided a new
/// signature.
void noteNewSignatureInStep();

/// The most lowered parameters a launch can have.
constexpr int kMaxLoweredParams = kMaxArgs * (3 + 2 * kMaxRank);

/// The kernel parameter array of one launch, built on the stack: the proper
/// parameters, and room for a map-taking variant's hidden ones (pointers to
/// its tensor maps: TunedKernel::Impl::launchWithTensorMaps).
struct LoweredArgs {
  void *params[kMaxLoweredParams + kMaxTensorMaps];
  uint64_t scalars[kMaxArgs]; ///< Converted scalar values.
};

/// Why a launch geometry is invalid.
struct DimsProblem {
  enum class Kind {
    DivisionByZero, ///< The expression of `field` divides by zero.
    Overflow,       ///< ... overflows int64.
    OutOfRange,     ///< `value` is negative, zero for a block, or > 2^32-1.
    OverLimit,      ///< `value` exceeds the device's or function's `limit`.
  };
  Kind kind = Kind::OutOfRange;
  /// "grid.x", ..., "block.z", "sharedMemBytes", "threads per block",
  /// "shared memory".
  const char *field = nullptr;
  int64_t value = 0;
  int64_t limit = 0;

  std::string describe() const;
};

/// One variant, compiled for evaluation, with its code once loaded.
struct VariantState {
  struct CompiledConstraint {
    CompiledExpr expr;
    bool isEquality = false;
  };
  /// A hidden parameter (Variant::tensorMaps): the map and its box.
  struct CompiledTensorMap {
    int map = 0; ///< Index into Kernel::tensorMaps.
    int rank = 0;
    CompiledExpr box[kMaxTensorMapRank];
    int swizzleBytes = 0;
    /// "kernel 'k' in 'b' variant 'v', tensor map 0 of argument #1", for
    /// messages (made once: a failing launch allocates, a working one not).
    std::string what;
  };

  const Variant *spec = nullptr;
  std::string config; ///< "BLOCK=128, VEC=4".
  CompiledExpr grid[3];
  CompiledExpr block[3];
  CompiledExpr sharedBytes;
  std::vector<CompiledConstraint> constraints;
  /// Empty for a variant that takes no map (the usual case).
  std::vector<CompiledTensorMap> tensorMaps;
  /// Why this variant's maps can never be made here (the device cannot
  /// take maps, or the bundle describes one TMA cannot have); empty if
  /// they can.
  std::string tensorMapProblem;
  int code = -1; ///< Index into spec->code chosen for the device, or -1.
  /// Set once, under the device's tuning mutex, before any signature table
  /// that maps to this variant is published.
  FunctionHandle function = nullptr;
  FunctionLimits limits;
  std::string loadError; ///< Why loading failed; then never retried.
};

struct Module::Impl {
  Impl(Bundle bundle, std::string origin, Device device, Options options,
       ObjectProvider provider = nullptr);
  ~Impl();

  /// The loaded object `index`; loads it on first use (asking the provider
  /// for its bytes first if it has none). Call with the device's tuning
  /// mutex held.
  ModuleHandle object(int index, std::string_view what);
  /// Asks the provider, in one call, for the bytes of those of `objects`
  /// that have none. A failure is not reported here: object() asks again
  /// for each, so that each variant gets its own error.
  void prepare(const std::vector<int> &objects);
  /// The bundle's header and manifest as a tuning worker reads them
  /// (BundleParts.h): kept from the bundle's bytes when loaded from bytes
  /// with Options::isolate, else written on first use.
  const std::string &workerManifest();
  /// The bundle loaded on Options::tuningDevices[index], made on first
  /// need (Spread.h).
  Module &tuningHelper(size_t index);
  /// The thread that times Options::tuningDevices[index]'s shares, made on
  /// first need: a tuning worker lives as long as the thread that started
  /// it (PR_SET_PDEATHSIG).
  JobThread &tuningThread(size_t index);
  /// Starts a tuning worker for every tuning device, each on its device's
  /// thread, to wait in its helper's idleWorker for the first spread, as
  /// the module's own device's does (startWorkerEarly).
  void startTuningWorkers();
  /// The check's comparison on this device, loaded on first use; nullptr
  /// where outputs are compared on the host (and then never tried again).
  /// Call with the device's tuning mutex held.
  DeviceComparison *deviceComparison();

  Bundle bundle;
  std::string origin;
  Device device;
  Options options;
  ObjectProvider provider;
  std::string manifestBytes; ///< workerManifest(), once known.
  /// A tuning worker waiting for the module's next WorkerSession: started
  /// when the module was loaded (startWorkerEarly), or left idle by the
  /// last session; null when none waits.
  StartedWorkerPtr idleWorker;
  /// A tuning worker could not map an exported buffer (Backend::
  /// importMemory): the module's next sessions send copies instead.
  bool workersCopyBuffers = false;
  std::vector<ModuleHandle> loaded; ///< Per object; nullptr until loaded.
  std::vector<std::unique_ptr<TunedKernel>> kernels;
  std::unique_ptr<DeviceComparison> comparison;
  bool comparisonTried = false;
  /// Per Options::tuningDevices: the bundle loaded there, made when a
  /// tuning first spreads to it or the module starts its tuning workers.
  /// Guarded by the device's tuning mutex.
  std::vector<std::unique_ptr<Module>> tuningHelpers;
  /// Per Options::tuningDevices: the thread that times the device's shares
  /// of every spread, made with its helper; its tuning worker, which ends
  /// with it, waits in the helper's idleWorker from one spread to the next.
  std::vector<std::unique_ptr<JobThread>> tuningThreads;
};

struct TunedKernel::Impl {
  Impl(Module::Impl &module, const Kernel &spec);
  ~Impl();

  /// Checks `args` against the ABI and fills `lowered`. Throws naming the
  /// kernel and the argument; allocates only then.
  void lower(const ArgValue *args, size_t count, LoweredArgs &lowered) const;
  /// Raw key values and the signature (signatureSize components: the
  /// bucketed key values, then tensorMapBits() for a kernel with maps) of
  /// checked arguments.
  void computeKey(const ArgValue *args, int64_t *keyValues,
                  int64_t *signature) const;
  /// The signature's hidden component of a kernel with tensor maps: bit m
  /// is set where Kernel::tensorMaps[m] can describe its argument
  /// (checkTensorMapView). Allocates nothing.
  int64_t tensorMapBits(const ArgValue *args, const int64_t *keyValues) const;
  /// The tensor Kernel::tensorMaps[m] describes for `args` and `keyValues`:
  /// its memref, or the view of it as the map's shape. Allocates nothing.
  TensorMapProblem tensorMapView(size_t m, const ArgValue *args,
                                 const int64_t *keyValues,
                                 MemRefView &view) const;
  /// Why variant `index` is excluded for `signature` (computed from
  /// `args` and `keyValues`): one of its maps cannot describe its argument
  /// ("tensor map 0 of argument #0: base address 0x... is not 16-byte
  /// aligned (TMA needs 16)"); empty if none.
  std::string tensorMapExclusion(int index, const ArgValue *args,
                                 const int64_t *keyValues,
                                 const int64_t *signature) const;
  /// The `j`th hidden parameter of variant `index` for `args` and
  /// `keyValues`, from this thread's map cache or encoded into it. Throws
  /// tuna::Error naming the kernel, variant and map when it cannot be made.
  /// Valid until the thread's next tensorMap().
  const TensorMapBytes &tensorMap(int index, size_t j, const ArgValue *args,
                                  const int64_t *keyValues) const;
  /// Launches variant `index` (loaded, with `dims` checked) with `params`
  /// (lowered from `args`, with room for the hidden parameters) and its
  /// tensor maps of `args` after the proper parameters; the maps live in
  /// this call's frame, and the launch copies them. Throws as tensorMap()
  /// does. Kept out of line, so that launches of variants without maps do
  /// not carry the maps' 64-byte aligned storage.
  void launchWithTensorMaps(int index, StreamHandle stream,
                            const ArgValue *args, const int64_t *keyValues,
                            const LaunchDims &dims, void **params);
  /// Evaluates the launch geometry and checks it against the device's and
  /// the function's limits (those of a loaded variant); false (filling
  /// `problem`) if invalid. An empty grid is valid. Allocates nothing.
  bool computeDims(const VariantState &variant, const int64_t *keyValues,
                   LaunchDims &dims, DimsProblem &problem) const;
  /// computeDims() but for the loaded function's limits.
  bool evaluateDims(const VariantState &variant, const int64_t *keyValues,
                    LaunchDims &dims, DimsProblem &problem) const;
  /// computeDims()'s checks of `dims` against the loaded function's limits
  /// (its threads per block, its static shared memory); none before it is
  /// loaded.
  bool withinFunctionLimits(const VariantState &variant,
                            const LaunchDims &dims,
                            DimsProblem &problem) const;
  /// What the key values alone decide of each variant: the first
  /// constraint that fails, described, and the launch geometry evaluated
  /// against the device's limits. A search classifies the candidates of
  /// every batch for the same key values, so the facts of the last key
  /// values are kept (lastKeyedFacts); call with the device's tuning mutex
  /// held.
  struct KeyedFacts {
    std::vector<int64_t> keyValues;
    std::vector<std::string> excluded; ///< Per variant; empty: none fails.
    std::vector<LaunchDims> dims;
    std::vector<std::optional<DimsProblem>> problems;
  };
  const KeyedFacts &keyedFacts(const int64_t *keyValues);
  /// Launches variant `index` with `params` (lowered from `args`), its
  /// maps added if it takes any; throws if its geometry is invalid or a map
  /// cannot be made.
  void launchVariant(int index, StreamHandle stream, const ArgValue *args,
                     const int64_t *keyValues, void **params);
  /// The miss path: decides the variant of `signature`, publishes it.
  int decide(StreamHandle stream, const ArgValue *args, size_t count,
             const int64_t *keyValues, const int64_t *signature);
  /// The variant of `signature` during a graph capture (see
  /// Backend::isCapturing): the cache's or a database's pick, else the
  /// default, with nothing measured, allocated or synchronized, and nothing
  /// published, so the next launch outside capture tunes. Call with the
  /// device's tuning mutex held.
  int pickDuringCapture(StreamHandle stream, const ArgValue *args,
                        size_t count, const int64_t *keyValues,
                        const int64_t *signature);
  /// What the disk cache or a tuning database remembers of `signature`:
  /// the variant it picked (TuneMode::On only; else -1) and the variants
  /// that failed in an earlier tuning (On and Always), never run again.
  struct Persisted {
    int variant = -1;
    std::vector<std::pair<std::string, std::string>> failed;
    /// The entry's shortlist, as variants of this bundle (On mode with
    /// Options::useShortlists only; then `variant` is -1: the shortlist is
    /// timed instead).
    std::vector<int> shortlist;
  };
  /// Without `wait`, a file locked by a writer is skipped.
  Persisted persisted(const int64_t *signature, bool wait) const;
  /// A launch's key values and bucketed signature.
  struct LaunchKey {
    int64_t keyValues[kMaxKey];
    int64_t signature[kMaxSignature];
  };
  /// The key of a launch with these arguments, checked as launch() checks
  /// them; throws when no variant can run on this device.
  LaunchKey checkedKey(const ArgValue *args, size_t count) const;
  /// TunedKernel::measure.
  TuningReport measure(StreamHandle stream, const ArgValue *args, size_t count,
                       const std::vector<int> &variants, int samples);
  /// measure() for computed key values, with the tuning mutex held; when
  /// isolated (Options::isolate), in `session`'s worker if given.
  TuningReport measureLocked(StreamHandle stream, const ArgValue *args,
                             size_t count, const int64_t *keyValues,
                             const int64_t *signature,
                             const std::vector<int> &variants, int samples,
                             WorkerSession *session = nullptr);
  /// TunedKernel::search.
  SearchOutcome search(StreamHandle stream, const ArgValue *args, size_t count,
                       const search::SearchOptions &options);
  /// Searches `candidates` with `options`, each visit timed by
  /// measureLocked() (every visit in one tuning worker when isolated);
  /// `report` (the candidates classified) gets the outcome: times and pick.
  /// Call with the tuning mutex held.
  SearchOutcome searchCandidates(StreamHandle stream, const ArgValue *args,
                                 size_t count, const int64_t *keyValues,
                                 const int64_t *signature,
                                 const std::vector<int> &candidates,
                                 const search::SearchOptions &options,
                                 TuningReport report);
  /// The variant a disk-cache entry names, if it is still in the bundle
  /// with the same configuration; else -1.
  int cachedVariant(const CacheEntry &entry) const;
  /// The variant `ref` names, if the bundle has it with that configuration;
  /// else -1.
  int findVariant(const VariantRef &ref) const;
  /// The variants of `entry`'s shortlist (read from `file`) that the bundle
  /// has; says on stderr which ones it lacks.
  std::vector<int> shortlistOf(const CacheEntry &entry,
                               const std::string &file,
                               const int64_t *signature) const;
  /// Loads the code of `variant` if needed; false (with loadError set) if it
  /// cannot be. Call with the device's tuning mutex held.
  bool ensureLoaded(VariantState &variant);
  /// "kernel 'scale' in 'kernels.tuna'".
  std::string describe() const;
  /// A hash of the variants (names, configurations, symbols) and the bytes
  /// of their objects, which the ranks of a job compare (Agreement.h).
  /// Call with the device's tuning mutex held.
  const std::string &bundleHash();

  Module::Impl &module;
  const Kernel &spec;
  Backend &backend;
  std::vector<VariantState> variants;
  /// Components of a signature: the key's, and one hidden component
  /// (tensorMapBits) when the kernel has tensor maps.
  size_t signatureSize = 0;
  /// Per kernel tensor map, its shape compiled (TensorMapSpec::shape); empty
  /// for a map of the memref as it is.
  std::vector<std::vector<CompiledExpr>> tensorMapShapes;
  /// How many proper parameters a launch has: where hidden ones begin.
  int loweredCount = 0;
  /// Why no variant can run on this device; empty when some can.
  std::string unavailable;

  std::atomic<const SignatureTable *> table;
  /// Every table ever published (the last is current); lookups may still
  /// read a retired one, so all live as long as the kernel. Guarded by the
  /// device's tuning mutex, like `history`.
  std::vector<std::unique_ptr<SignatureTable>> tables;
  std::vector<TuningReport> history;
  /// The check's reference (TunedKernel::setReference); none: the check
  /// trusts the output most candidates agree on. Guarded by the device's
  /// tuning mutex.
  TunedKernel::Reference reference;
  std::string referenceName;
  /// Whether a launch during capture was reported (verbose); guarded by the
  /// device's tuning mutex.
  bool captureNoticed = false;
  std::string bundleHashText; ///< bundleHash(), once computed.
  /// keyedFacts() of the last key values; guarded by the device's tuning
  /// mutex.
  KeyedFacts lastKeyedFacts;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_KERNELIMPL_H
