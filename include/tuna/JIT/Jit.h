//===- Jit.h - Compile tunable MLIR kernels inside an application -*- C++
//-*-===//
//
// tuna_jit turns MLIR source text (or a file) into a bundle in memory, with
// the same parse + tuna-expand + compile path as tuna-compile
// (mlir::tuna::compileSource), and hands it to the runtime:
//
//   tuna::jit::Compiler jit;                      // target: detectTarget()
//   tuna::Module module = jit.load(source, tuna::Device::host());
//   module.kernel("scale_host").launch(nullptr, ...);
//
// Errors never print and never abort: they are thrown as CompileError, which
// carries every diagnostic with its source location. Every compile owns its
// MLIRContext, so compiles from several threads run at the same time; the
// variants of one compile run in parallel on the Compiler's thread pool.
// Results are cached in memory (and optionally on disk) by the hash of the
// source text, the targets, the options and the Tuna version.
//
// This header includes no LLVM or MLIR header; link with Tuna::jit.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_JIT_JIT_H
#define TUNA_JIT_JIT_H

#include "tuna/runtime/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuna::jit {

enum class Severity { Error, Warning, Note, Remark };

/// One message of the compiler, at its place in the source.
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;    ///< The source's name; empty when there is no location.
  unsigned line = 0;   ///< 1-based; 0 when unknown.
  unsigned column = 0; ///< 1-based; 0 when unknown.
  std::string message;

  /// `file:line:column: error: message`, the way compilers print it.
  std::string str() const;
};

/// A compile that failed: bad source, an unknown target, a tuna.space the
/// expander rejects, a lowering or a tool (ptxas, ld.lld) that failed.
/// what() is a summary line followed by every diagnostic's str().
class CompileError : public Error {
public:
  CompileError(const std::string &summary, std::vector<Diagnostic> diagnostics);
  ~CompileError() override;

  const std::vector<Diagnostic> &diagnostics() const { return diags; }

private:
  std::vector<Diagnostic> diags;
};

/// How the Compiler compiles. The defaults are tuna-compile's.
struct CompilerOptions {
  /// `nvptx:sm_XY[a]`, `amdgcn:gfxNNN`, `host`; empty: {detectTarget()}.
  std::vector<std::string> targets;

  /// tuna-expand's options (docs/passes.md); unset: the pass's default,
  /// which tuna-compile uses too (declared once, in Passes.td).
  std::optional<int64_t> maxThreadsPerBlock;
  std::optional<int64_t> maxSharedMemory;
  std::optional<int64_t> maxVariants;
  std::optional<bool> dedupe;

  /// ptxas: a path, or empty to search $CUDA_HOME/bin, /usr/local/cuda/bin
  /// and PATH; without one, NVIDIA targets get PTX only (and a note).
  std::string ptxas;
  bool noPtxas = false;
  /// ROCm device bitcode and ld.lld; empty: the ones found when Tuna was
  /// built.
  std::string rocmBitcodeDir;
  std::string ldLld;
  /// `generic`, `native` or an LLVM CPU name, for the host target; empty:
  /// tuna-compile's default (generic).
  std::string hostCpu;

  /// Instantiate and compile each variant when the runtime first needs it,
  /// instead of all of them in compile(): compile() then parses and plans
  /// every configuration (tuna-expand plan-only: the dispatch tables, no
  /// variant IR, no deduplication) and plans the bundle (its objects have
  /// no bytes yet), and a Module loaded from it builds and compiles the
  /// cache's pick or the default alone, or the candidates a tuning or a
  /// search visits (together, in parallel). Lazy results are cached in
  /// memory only (cacheDir is not used).
  bool lazy = false;

  /// Threads that compile the variants of a compile (shared by all compiles
  /// of one Compiler); 0: one per core, 1: serially on the calling thread.
  unsigned threads = 0;

  /// When not empty, compiled bundles are also kept on disk as
  /// `<cacheDir>/jit/<key>.tuna` and read back by later processes. For the
  /// runtime's default location use tuna::Options::fromEnvironment().cacheDir.
  std::string cacheDir;
};

/// Where a compiled bundle came from.
enum class Origin { Compiled, DiskCache };

class LazyCode;

/// The result of one compile, shared by every request with the same key.
struct Compiled {
  /// The bundle. Lazy compiles: its objects have no bytes until compiled
  /// (objectBytes, or a Module from load() / objectProvider()).
  Bundle bundle;
  /// The cache key: hex SHA-256 of the source text, targets, options and
  /// Tuna version (the source's name is not part of it).
  std::string key;
  Origin origin = Origin::Compiled;
  /// Warnings, remarks and notes of the compile (e.g. "no ptxas"); empty
  /// when the bundle came from the disk cache.
  std::vector<Diagnostic> diagnostics;

  /// Wall times (Origin::Compiled only): the phases parse, expand and
  /// compile, and the compile of each target.
  struct Time {
    std::string name; ///< The phase, or the target.
    unsigned variants = 0;
    double seconds = 0;
  };
  std::vector<Time> phases;
  std::vector<Time> targets;

  /// Lazy compiles only: the code behind the bundle's objects.
  std::shared_ptr<LazyCode> lazyCode;

  /// The bytes of the bundle's `objects` (indices into bundle.objects),
  /// compiled now (all together) where a lazy compile has not yet; each
  /// object is compiled once, whoever asks. Thread-safe. Throws
  /// CompileError with the compiler's diagnostics.
  std::vector<std::string> objectBytes(const std::vector<int> &objects) const;
  /// What Module::fromBundle needs to compile a lazy bundle's objects on
  /// first need (it keeps this result's code alive); empty when not lazy.
  ObjectProvider objectProvider() const;
  /// Variants compiled so far, counted once per target: all of them for
  /// an eager compile, those asked for so far for a lazy one.
  unsigned compiledVariants() const;
  /// Variants whose IR was built so far (once each, whatever the number of
  /// targets): every one that survived deduplication for an eager compile,
  /// those asked for so far for a lazy one.
  unsigned instantiatedVariants() const;
};

/// Compiles MLIR kernels in memory and caches the results. Thread-safe:
/// every method may be called from any thread. Concurrent requests for the
/// same key wait for one compile; different keys compile at the same time.
class Compiler {
public:
  /// Throws CompileError when a target is not a valid target name.
  explicit Compiler(CompilerOptions options = {});
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// Compiles `source` (the MLIR text of a module with tuna.space kernels)
  /// for the targets, or returns the cached result. `name` is the file name
  /// diagnostics use. Throws CompileError.
  std::shared_ptr<const Compiled> compile(std::string_view source,
                                          std::string_view name = "<jit>");
  /// Reads `path` and compiles its text; an unreadable file is a
  /// CompileError too.
  std::shared_ptr<const Compiled> compileFile(const std::string &path);

  /// Compiles `source` and loads the bundle for `device`.
  Module load(std::string_view source, const Device &device,
              std::string_view name = "<jit>") {
    return load(source, device, Options::fromEnvironment(), name);
  }
  Module load(std::string_view source, const Device &device,
              const Options &options, std::string_view name = "<jit>") {
    std::shared_ptr<const Compiled> compiled = compile(source, name);
    return Module::fromBundle(compiled->bundle, device, name, options,
                              compiled->objectProvider());
  }

  struct Stats {
    size_t compiles = 0;   ///< Compiles that ran (successful or not).
    size_t memoryHits = 0; ///< Requests answered from memory (or that
                           ///< waited for the same key's compile).
    size_t diskHits = 0;   ///< Requests answered from the disk cache.
  };
  Stats stats() const;

  /// Forgets the in-memory cache (results already handed out stay valid).
  void clearMemoryCache();

  /// The options, with the targets and every default resolved.
  const CompilerOptions &options() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The compile target for `device`: `nvptx:<arch>` for CUDA, `amdgcn:<gfx>`
/// for HIP (the processor of its target ID, without features), `host` for
/// the host CPU.
std::string targetFor(const Device &device);

/// The target of the device present: CUDA device 0 when a CUDA driver and
/// device are there, else the first AMD GPU the kernel driver (KFD) lists,
/// else `host`. The AMD GPU is found without loading ROCm; Device::hip(0)
/// runs its code.
std::string detectTarget();

/// `amdgcn:gfxNNN` for the first GPU node of a KFD topology directory (each
/// node's `properties` file has a `gfx_target_version` line, e.g. 90402 for
/// gfx942; CPU nodes have 0), or empty when there is none.
std::string amdgcnTargetFromKfd(
    const std::string &nodes = "/sys/class/kfd/kfd/topology/nodes");

} // namespace tuna::jit

#endif // TUNA_JIT_JIT_H
