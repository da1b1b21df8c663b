//===- JitTest.cpp - tuna_jit: errors, caches, threads, end to end --------===//

#include "tuna/JIT/Jit.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <thread>

#include <dlfcn.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tuna::jit::CompileError;
using tuna::jit::Compiler;
using tuna::jit::CompilerOptions;
using tuna::jit::Diagnostic;
using tuna::jit::Severity;

/// y = a * x on the host, two variants; `unroll` is the constant the
/// threads test varies to make different sources.
std::string hostAxpy(int unroll = 1) {
  return R"(
func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, )" +
         std::to_string(unroll + 1) + R"(]>], defaults = {step = 1},
    key = [#tuna.key<arg = 3, bucket = pow2>]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %step = tuna.param "step" : index
  %rem = arith.remui %n, %step : index
  %main = arith.subi %n, %rem : index
  scf.for %i = %c0 to %main step %step {
    scf.for %j = %c0 to %step step %c1 {
      %k = arith.addi %i, %j : index
      %v = memref.load %x[%k] : memref<?xf32>
      %r = arith.mulf %a, %v : f32
      memref.store %r, %y[%k] : memref<?xf32>
    }
  }
  scf.for %k = %main to %n step %c1 {
    %v = memref.load %x[%k] : memref<?xf32>
    %r = arith.mulf %a, %v : f32
    memref.store %r, %y[%k] : memref<?xf32>
  }
  return
}
)";
}

CompilerOptions hostOptions() {
  CompilerOptions options;
  options.targets = {"host"};
  return options;
}

std::string readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file),
                     std::istreambuf_iterator<char>());
}

/// A fresh directory under the test's temporary directory.
fs::path freshDir(const std::string &name) {
  fs::path dir = fs::temp_directory_path() /
                 ("tuna-jit-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs `fn`, which must throw CompileError, and returns its diagnostics.
template <typename Fn> std::vector<Diagnostic> compileErrors(Fn fn) {
  try {
    fn();
  } catch (const CompileError &error) {
    return error.diagnostics();
  }
  ADD_FAILURE() << "no CompileError";
  return {};
}

/// `source` compiled by `jit` and loaded on the host, tuned without a disk
/// cache.
tuna::Module loadOnHost(Compiler &jit, const std::string &source,
                        const char *name) {
  tuna::Options options;
  options.cacheDir.clear();
  return jit.load(source, tuna::Device::host(), options, name);
}

/// %x is used on line 2, column 19, and never defined.
constexpr const char *kBadSource = "func.func @k() {\n"
                                   "  %0 = arith.addi %x, %x : index\n"
                                   "  return\n"
                                   "}\n";

TEST(Jit, ParseErrorHasLineAndColumn) {
  Compiler jit(hostOptions());
  std::vector<Diagnostic> diagnostics =
      compileErrors([&] { jit.compile(kBadSource, "bad.mlir"); });
  ASSERT_FALSE(diagnostics.empty());
  const Diagnostic &first = diagnostics.front();
  EXPECT_EQ(first.severity, Severity::Error);
  EXPECT_EQ(first.file, "bad.mlir");
  EXPECT_EQ(first.line, 2u);
  EXPECT_EQ(first.column, 19u);
  EXPECT_NE(first.message.find("undeclared"), std::string::npos)
      << first.message;
  EXPECT_EQ(first.str().rfind("bad.mlir:2:19: error: ", 0), 0u) << first.str();
  // A failed compile is not cached: the next request compiles again.
  EXPECT_THROW(jit.compile(kBadSource, "bad.mlir"), CompileError);
  EXPECT_EQ(jit.stats().compiles, 2u);
  EXPECT_EQ(jit.stats().memoryHits, 0u);
}

/// Every variant of `k` fails the same way: the host has no lowering for
/// f64 erf.
constexpr const char *kEveryVariantFails = R"(
func.func @k(%x: memref<?xf64>, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"step", [1, 2, 4, 8]>],
    defaults = {step = 1},
    key = [#tuna.key<arg = 1, bucket = pow2>]
  >} {
  %c0 = arith.constant 0 : index
  %step = tuna.param "step" : index
  scf.for %i = %c0 to %n step %step {
    %v = memref.load %x[%i] : memref<?xf64>
    %e = math.erf %v : f64
    memref.store %e, %x[%i] : memref<?xf64>
  }
  return
}
)";

// MLIR's parser recurses once per bracket level: 100,000 levels would
// overflow any thread's stack. The JIT refuses them before parsing, at the
// place, in both modes (eager compiles and lazy plans parse alike).
TEST(Jit, DeepNestingIsAnErrorNotACrash) {
  const size_t levels = 100000;
  std::string source = "func.func @k() attributes {a = " +
                       std::string(levels, '[') + std::string(levels, ']') +
                       "} { return }\n";
  for (bool lazy : {false, true}) {
    CompilerOptions options = hostOptions();
    options.lazy = lazy;
    Compiler jit(options);
    std::vector<Diagnostic> diagnostics =
        compileErrors([&] { jit.compile(source, "deep.mlir"); });
    ASSERT_EQ(diagnostics.size(), 1u) << "lazy " << lazy;
    EXPECT_EQ(diagnostics[0].line, 1u);
    EXPECT_EQ(diagnostics[0].column, 287u); // The 257th level.
    EXPECT_NE(diagnostics[0].message.find("nest deeper than 256"),
              std::string::npos)
        << diagnostics[0].message;
  }
}

TEST(Jit, AnErrorOfEveryVariantIsReportedOnce) {
  for (unsigned threads : {1u, 4u}) {
    CompilerOptions options = hostOptions();
    options.threads = threads;
    Compiler jit(options);
    std::vector<Diagnostic> diagnostics =
        compileErrors([&] { jit.compile(kEveryVariantFails, "erf.mlir"); });
    size_t erfErrors = 0, notes = 0;
    for (const Diagnostic &diagnostic : diagnostics) {
      if (diagnostic.severity == Severity::Error &&
          diagnostic.message.find("math.erf") != std::string::npos) {
        ++erfErrors;
        EXPECT_EQ(diagnostic.line, 12u);
      }
      notes += diagnostic.severity == Severity::Note &&
               diagnostic.message == "in all 4 variants of kernel 'k'";
    }
    EXPECT_EQ(erfErrors, 1u) << threads << " threads";
    EXPECT_GE(notes, 1u) << threads << " threads";
  }
}

TEST(Jit, WhatListsTheDiagnostics) {
  Compiler jit(hostOptions());
  try {
    jit.compile("func.func @k( {", "broken.mlir");
    FAIL() << "no CompileError";
  } catch (const tuna::Error &error) {
    std::string what = error.what();
    EXPECT_NE(what.find("cannot compile 'broken.mlir' for host"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("\nbroken.mlir:1:"), std::string::npos) << what;
  }
}

TEST(Jit, UnknownTarget) {
  for (const char *target : {"nvptx:sm_10", "cuda:sm_90", "amdgcn:x", ""}) {
    CompilerOptions options;
    options.targets = {"host", target};
    std::vector<Diagnostic> diagnostics =
        compileErrors([&] { Compiler jit(options); });
    ASSERT_EQ(diagnostics.size(), 1u) << target;
    EXPECT_EQ(diagnostics[0].line, 0u);
    EXPECT_NE(diagnostics[0].message.find("unknown target '" +
                                          std::string(target) + "'"),
              std::string::npos)
        << diagnostics[0].message;
  }
}

TEST(Jit, DroppedDefaultIsADiagnostic) {
  Compiler jit(hostOptions());
  std::vector<Diagnostic> diagnostics = compileErrors([&] {
    jit.compile(R"(#small = affine_set<()[b] : (64 - b >= 0)>
func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [32, 64, 128]>], defaults = {b = 128}, constraints = [#small]>} {
  return
}
)",
                "dropped.mlir");
  });
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].severity, Severity::Error);
  EXPECT_EQ(diagnostics[0].file, "dropped.mlir");
  EXPECT_EQ(diagnostics[0].line, 2u);
  EXPECT_EQ(diagnostics[0].message,
            "kernel 'k': the default configuration {b = 128} is dropped: it "
            "breaks constraint #0");
}

TEST(Jit, UnsetOptionsTakeTunaExpandsDefaults) {
  // Passes.td declares the defaults once; options() shows them resolved.
  Compiler jit(hostOptions());
  const CompilerOptions &options = jit.options();
  EXPECT_EQ(options.maxThreadsPerBlock, 1024);
  EXPECT_EQ(options.maxSharedMemory, 49152);
  EXPECT_EQ(options.maxVariants, 16384);
  EXPECT_EQ(options.dedupe, true);
  EXPECT_EQ(options.hostCpu, "generic");

  CompilerOptions small = hostOptions();
  small.maxVariants = 2;
  Compiler limited(small);
  EXPECT_EQ(limited.options().maxVariants, 2);
  std::vector<Diagnostic> diagnostics = compileErrors([&] {
    limited.compile(R"(func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [32, 64, 128]>], defaults = {b = 32}>} {
  return
}
)",
                    "three.mlir");
  });
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics[0].message.find("3 configurations, over the limit of 2"),
            std::string::npos)
      << diagnostics[0].message;
}

TEST(Jit, NoSpaceIsAnError) {
  Compiler jit(hostOptions());
  std::vector<Diagnostic> diagnostics = compileErrors(
      [&] { jit.compile("func.func @k() {\n  return\n}\n", "plain.mlir"); });
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics[0].message.find("no tuna.dispatch"), std::string::npos)
      << diagnostics[0].message;
}

TEST(Jit, UnreadableFile) {
  Compiler jit(hostOptions());
  std::vector<Diagnostic> diagnostics =
      compileErrors([&] { jit.compileFile("/nonexistent/k.mlir"); });
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].message.find("cannot read '/nonexistent/k.mlir'"),
            std::string::npos);
}

TEST(Jit, MemoryCacheHit) {
  Compiler jit(hostOptions());
  std::shared_ptr<const tuna::jit::Compiled> first = jit.compile(hostAxpy());
  EXPECT_EQ(first->origin, tuna::jit::Origin::Compiled);
  ASSERT_EQ(first->bundle.kernels.size(), 1u);
  EXPECT_EQ(first->bundle.kernels[0].variants.size(), 2u);
  EXPECT_EQ(first->key.size(), 64u);
  ASSERT_EQ(first->targets.size(), 1u);
  EXPECT_EQ(first->targets[0].name, "host");
  EXPECT_EQ(first->targets[0].variants, 2u);

  // The same text under another name is the same key: the same object.
  std::shared_ptr<const tuna::jit::Compiled> second =
      jit.compile(hostAxpy(), "other-name.mlir");
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(jit.stats().compiles, 1u);
  EXPECT_EQ(jit.stats().memoryHits, 1u);

  // Other options are another key.
  CompilerOptions native = hostOptions();
  native.hostCpu = "native";
  Compiler other(native);
  EXPECT_NE(other.compile(hostAxpy())->key, first->key);

  jit.clearMemoryCache();
  EXPECT_NE(jit.compile(hostAxpy()).get(), first.get());
  EXPECT_EQ(jit.stats().compiles, 2u);
}

TEST(Jit, ConcurrentCompilesFromEightThreads) {
  Compiler jit(hostOptions());
  // Threads 0-3 ask for source A, threads 4-7 each for a source of their
  // own; all start together.
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<const tuna::jit::Compiled>> results(kThreads);
  std::atomic<int> ready{0}, errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      std::string source = hostAxpy(i < 4 ? 1 : i);
      ++ready;
      while (ready < kThreads)
        std::this_thread::yield();
      try {
        results[i] = jit.compile(source);
      } catch (const tuna::Error &error) {
        ADD_FAILURE() << error.what();
        ++errors;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  ASSERT_EQ(errors, 0);
  for (int i = 1; i < 4; ++i)
    EXPECT_EQ(results[i].get(), results[0].get());
  std::set<std::string> keys;
  for (const auto &result : results)
    keys.insert(result->key);
  EXPECT_EQ(keys.size(), 5u);
  EXPECT_EQ(jit.stats().compiles, 5u);
  EXPECT_EQ(jit.stats().memoryHits, 3u);
  for (int i = 4; i < kThreads; ++i)
    EXPECT_EQ(results[i]->bundle.kernels[0].variants[1].config[0].second,
              i + 1);
}

TEST(Jit, DiskCacheRoundTrip) {
  fs::path dir = freshDir("disk");
  CompilerOptions options = hostOptions();
  options.cacheDir = dir.string();
  std::string written;
  {
    Compiler jit(options);
    std::shared_ptr<const tuna::jit::Compiled> compiled =
        jit.compile(hostAxpy());
    EXPECT_EQ(compiled->origin, tuna::jit::Origin::Compiled);
    fs::path file = dir / "jit" / (compiled->key + ".tuna");
    ASSERT_TRUE(fs::exists(file));
    written = readFile(file.string());
    EXPECT_EQ(written, tuna::writeBundle(compiled->bundle));
    // Only the entry is left: the temporary file was renamed into place.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "jit"),
                            fs::directory_iterator()),
              1);
  }
  {
    Compiler jit(options); // A new process, as far as caches go.
    std::shared_ptr<const tuna::jit::Compiled> cached = jit.compile(hostAxpy());
    EXPECT_EQ(cached->origin, tuna::jit::Origin::DiskCache);
    EXPECT_EQ(tuna::writeBundle(cached->bundle), written);
    EXPECT_EQ(jit.stats().diskHits, 1u);
    EXPECT_EQ(jit.stats().compiles, 0u);
    // And then from memory.
    EXPECT_EQ(jit.compile(hostAxpy()).get(), cached.get());
    EXPECT_EQ(jit.stats().memoryHits, 1u);
  }
  {
    // A damaged entry is noted, compiled again and replaced.
    Compiler jit(options);
    std::string key = jit.compile(hostAxpy(2))->key;
    fs::path file = dir / "jit" / (key + ".tuna");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "garbage";
    Compiler again(options);
    std::shared_ptr<const tuna::jit::Compiled> compiled =
        again.compile(hostAxpy(2));
    EXPECT_EQ(compiled->origin, tuna::jit::Origin::Compiled);
    EXPECT_EQ(again.stats().compiles, 1u);
    bool noted = false;
    for (const Diagnostic &diagnostic : compiled->diagnostics)
      noted |= diagnostic.message.find("ignored the disk cache entry") !=
               std::string::npos;
    EXPECT_TRUE(noted);
    EXPECT_EQ(readFile(file.string()), tuna::writeBundle(compiled->bundle));
  }
  fs::remove_all(dir);
}

TEST(Jit, NvptxWithoutPtxas) {
  CompilerOptions options;
  options.targets = {"nvptx:sm_90"};
  options.noPtxas = true;
  Compiler jit(options);
  std::shared_ptr<const tuna::jit::Compiled> compiled =
      jit.compileFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  EXPECT_EQ(compiled->bundle.kernels[0].name, "scale");
  EXPECT_EQ(compiled->bundle.kernels[0].variants.size(), 15u);
  for (const tuna::Object &object : compiled->bundle.objects) {
    EXPECT_EQ(object.target, "nvptx:sm_90");
    EXPECT_EQ(object.format, "ptx");
  }
  // The host kernel is left out with a note, not an error.
  bool noted = false;
  for (const Diagnostic &diagnostic : compiled->diagnostics)
    noted |= diagnostic.severity == Severity::Note &&
             diagnostic.message.find("scale_host") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Jit, LoadAndRunOnTheHost) {
  Compiler jit(hostOptions());
  tuna::Module module = loadOnHost(
      jit, readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir"), "scale.mlir");
  tuna::TunedKernel &kernel = module.kernel("scale_host");
  for (int64_t n : {1, 100, 4099}) {
    std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
    for (int64_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(i) * 0.5f - 3.0f;
    kernel.launch(nullptr, tuna::memref(x.data(), {n}),
                  tuna::memref(y.data(), {n}), 3.0f, n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], 3.0f * x[i]) << "n=" << n << " i=" << i;
  }
}

/// Launches a scale kernel (y = a x; scale_host by default, a = 3) on `n`
/// elements and checks it.
void runScaleHost(tuna::TunedKernel &kernel, int64_t n, float a = 3.0f) {
  std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 11) - 5.0f;
  kernel.launch(nullptr, tuna::memref(x.data(), {n}),
                tuna::memref(y.data(), {n}), a, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], a * x[i]) << "n=" << n << " i=" << i;
}

CompilerOptions lazyHostOptions() {
  CompilerOptions options = hostOptions();
  options.lazy = true;
  return options;
}

/// A family (test/tools/tuna-tune-family.mlir: y = a x by a slow and a fast
/// kernel) compiles eagerly and tunes across its kernels; the lazy mode,
/// which only plans, refuses it with a diagnostic.
TEST(Jit, FamilyTunesAcrossItsKernels) {
  std::string source =
      readFile(TUNA_SOURCE_DIR "/test/tools/tuna-tune-family.mlir");
  Compiler jit(hostOptions());
  tuna::Module module = loadOnHost(jit, source, "family.mlir");
  tuna::TunedKernel &kernel = module.kernel("scale_any");
  runScaleHost(kernel, 4096, 2.0f);
  // Variants slow__v0, slow__v1, fast__v0: the other kernel's wins.
  EXPECT_EQ(kernel.reports().at(0).chosen, 2);

  Compiler lazy(lazyHostOptions());
  std::vector<Diagnostic> errors =
      compileErrors([&] { lazy.compile(source, "family.mlir"); });
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("family 'scale_any'"), std::string::npos)
      << errors[0].message;
}

TEST(Jit, LazyCompileOnlyPlans) {
  Compiler jit(lazyHostOptions());
  auto compiled = jit.compileFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  EXPECT_EQ(compiled->bundle.kernels[0].variants.size(), 6u);
  EXPECT_EQ(compiled->bundle.objects.size(), 6u); // One per variant.
  for (const tuna::Object &object : compiled->bundle.objects) {
    EXPECT_EQ(object.format, "elf-so");
    EXPECT_TRUE(object.data.empty());
  }
  EXPECT_EQ(compiled->compiledVariants(), 0u);
  std::vector<std::string> bytes = compiled->objectBytes({4});
  ASSERT_EQ(bytes.size(), 1u);
  EXPECT_EQ(bytes[0].substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(compiled->compiledVariants(), 1u);
  compiled->objectBytes({4});
  EXPECT_EQ(compiled->compiledVariants(), 1u);
}

TEST(Jit, LazyModeOffCompilesTheDefaultAlone) {
  Compiler jit(lazyHostOptions());
  tuna::Options options;
  options.cacheDir.clear();
  options.mode = tuna::TuneMode::Off;
  std::string source = readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  tuna::Module module =
      jit.load(source, tuna::Device::host(), options, "scale.mlir");
  runScaleHost(module.kernel("scale_host"), 1000);
  EXPECT_EQ(jit.compile(source)->compiledVariants(), 1u);
}

TEST(Jit, LazyTuningCompilesEveryCandidateOnce) {
  Compiler jit(lazyHostOptions());
  tuna::Options options;
  options.cacheDir.clear();
  options.minRuns = 2;
  options.maxRuns = 3;
  std::string source = readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  tuna::Module first =
      jit.load(source, tuna::Device::host(), options, "scale.mlir");
  runScaleHost(first.kernel("scale_host"), 1 << 16);
  auto compiled = jit.compile(source);
  EXPECT_EQ(compiled->compiledVariants(), 6u);
  EXPECT_EQ(first.kernel("scale_host").reports().at(0).source,
            tuna::DecisionSource::Tuned);
  // A second module of the same source reuses the compiled code.
  tuna::Module second =
      jit.load(source, tuna::Device::host(), options, "scale.mlir");
  runScaleHost(second.kernel("scale_host"), 1 << 16);
  EXPECT_EQ(compiled->compiledVariants(), 6u);
  EXPECT_EQ(jit.stats().compiles, 1u);
}

TEST(Jit, LazyCachedPickCompilesItAlone) {
  fs::path cache = freshDir("lazy-tuning-cache");
  tuna::Options options;
  options.cacheDir = cache.string();
  options.minRuns = 2;
  options.maxRuns = 3;
  std::string source = readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  {
    Compiler jit(lazyHostOptions());
    tuna::Module module =
        jit.load(source, tuna::Device::host(), options, "scale.mlir");
    runScaleHost(module.kernel("scale_host"), 1 << 16);
  }
  // A new process would start here: a new Compiler, the same disk cache.
  Compiler jit(lazyHostOptions());
  tuna::Module module =
      jit.load(source, tuna::Device::host(), options, "scale.mlir");
  runScaleHost(module.kernel("scale_host"), 1 << 16);
  EXPECT_EQ(module.kernel("scale_host").reports().at(0).source,
            tuna::DecisionSource::Cache);
  EXPECT_EQ(jit.compile(source)->compiledVariants(), 1u);
}

TEST(Jit, LazyModulesOnSeveralThreadsShareOneCompile) {
  Compiler jit(lazyHostOptions());
  std::string source = readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  tuna::Options options;
  options.cacheDir.clear();
  options.minRuns = 2;
  options.maxRuns = 3;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        tuna::Module module =
            jit.load(source, tuna::Device::host(), options, "scale.mlir");
        runScaleHost(module.kernel("scale_host"), 1000 + 1000 * t);
      } catch (const std::exception &e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(jit.stats().compiles, 1u);
  // Each variant compiled once, whichever thread asked first.
  EXPECT_EQ(jit.compile(source)->compiledVariants(), 6u);
}

TEST(Jit, LazyPlanErrorsAreCompileErrors) {
  Compiler jit(lazyHostOptions());
  std::vector<Diagnostic> errors =
      compileErrors([&] { jit.compile(kBadSource, "bad.mlir"); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].file, "bad.mlir");
  EXPECT_EQ(errors[0].line, 2u);
}

/// Variant mode=1 cannot be compiled for the host (gpu.thread_id); the
/// default mode=0 can. An eager compile fails; a lazy one loses mode=1 only.
constexpr const char *kOneBadVariant = R"(
func.func @fill(%y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"mode", [0, 1]>], defaults = {mode = 0},
    key = [#tuna.key<arg = 1>]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %mode = tuna.param "mode" : index
  %v = scf.index_switch %mode -> f32
  case 1 {
    %t = gpu.thread_id x
    %i = arith.index_cast %t : index to i32
    %f = arith.sitofp %i : i32 to f32
    scf.yield %f : f32
  }
  default {
    %f = arith.constant 1.0 : f32
    scf.yield %f : f32
  }
  scf.for %k = %c0 to %n step %c1 {
    memref.store %v, %y[%k] : memref<?xf32>
  }
  return
}
)";

TEST(Jit, LazyVariantThatFailsToCompileIsUnrunnable) {
  Compiler eager(hostOptions());
  std::vector<Diagnostic> errors =
      compileErrors([&] { eager.compile(kOneBadVariant, "fill.mlir"); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].line, 10u);

  Compiler jit(lazyHostOptions());
  tuna::Module module = loadOnHost(jit, kOneBadVariant, "fill.mlir");
  tuna::TunedKernel &kernel = module.kernel("fill");
  int64_t n = 100;
  std::vector<float> y(n, 0.0f);
  kernel.launch(nullptr, tuna::memref(y.data(), {n}), n);
  for (float v : y)
    ASSERT_EQ(v, 1.0f);
  tuna::TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.chosen, 0);
  EXPECT_EQ(report.candidates[1].status, tuna::CandidateStatus::Unrunnable);
  EXPECT_NE(report.candidates[1].reason.find(
                "fill.mlir:10:10: error: unsupported GPU operation"),
            std::string::npos)
      << report.candidates[1].reason;
}

/// y = 2x written once for every width: `vscale = "vec"` makes each
/// vector<[1]xf32> a vector<{vec}xf32>; the last chunk is masked.
constexpr const char *kVscaleTwice = R"(
func.func @twice(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [1, 4, 16]>], defaults = {vec = 1},
    key = [#tuna.key<arg = 2>], vscale = "vec">} {
  %c0 = arith.constant 0 : index
  %vec = vector.vscale
  %zero = arith.constant dense<0.0> : vector<[1]xf32>
  scf.for %i = %c0 to %n step %vec {
    %left = arith.subi %n, %i : index
    %mask = vector.create_mask %left : vector<[1]xi1>
    %v = vector.maskedload %x[%i], %mask, %zero : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32> into vector<[1]xf32>
    %d = arith.addf %v, %v : vector<[1]xf32>
    vector.maskedstore %y[%i], %mask, %d : memref<?xf32>, vector<[1]xi1>, vector<[1]xf32>
  }
  return
}
)";

/// Runs a kernel y = 2x of arguments (x, y, n) on `n` floats and checks it.
void runTwice(tuna::TunedKernel &kernel, int64_t n) {
  std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 7) - 3.5f;
  kernel.launch(nullptr, tuna::memref(x.data(), {n}),
                tuna::memref(y.data(), {n}), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 2.0f * x[i]) << "n=" << n << " i=" << i;
}

TEST(Jit, LazyVscaleVariantsAreInstantiatedAtTheirWidth) {
  Compiler jit(lazyHostOptions());
  // Every variant in turn, as the default with tuning off: each is
  // instantiated lazily (plan-only, then instantiatePlannedVariants).
  for (int vec : {1, 4, 16}) {
    std::string source = kVscaleTwice;
    source.replace(source.find("defaults = {vec = 1}"),
                   std::string("defaults = {vec = 1}").size(),
                   "defaults = {vec = " + std::to_string(vec) + "}");
    tuna::Options options;
    options.cacheDir.clear();
    options.mode = tuna::TuneMode::Off;
    tuna::Module module =
        jit.load(source, tuna::Device::host(), options, "twice.mlir");
    SCOPED_TRACE("vec=" + std::to_string(vec));
    for (int64_t n : {1, 15, 16, 17, 1000})
      runTwice(module.kernel("twice"), n);
    EXPECT_EQ(jit.compile(source)->compiledVariants(), 1u);
  }
}

/// vector.to_elements has one result whatever its operand's width: valid as
/// written and for vec = 1, invalid once vec = 2 makes the vector wider.
constexpr const char *kVscaleInvalidAtTwo = R"(
func.func @first(%x: memref<?xf32>, %y: memref<?xf32>) attributes {tuna.space = #tuna.space<
    params = [#tuna.param<"vec", [1, 2]>], defaults = {vec = 1}, vscale = "vec">} {
  %c0 = arith.constant 0 : index
  %v = vector.load %x[%c0] : memref<?xf32>, vector<[1]xf32>
  %e = vector.to_elements %v : vector<[1]xf32>
  memref.store %e, %y[%c0] : memref<?xf32>
  return
}
)";

TEST(Jit, VscaleVariantInvalidAfterSubstitutionIsReported) {
  Compiler eager(hostOptions());
  std::vector<Diagnostic> errors = compileErrors(
      [&] { eager.compile(kVscaleInvalidAtTwo, "first.mlir"); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].line, 6u);
  EXPECT_NE(errors[0].message.find("'vector.to_elements' op"),
            std::string::npos)
      << errors[0].message;

  // Lazily, only the variant of vec = 2 is lost, with the same error.
  Compiler jit(lazyHostOptions());
  tuna::Module module = loadOnHost(jit, kVscaleInvalidAtTwo, "first.mlir");
  std::vector<float> x = {5.0f}, y = {0.0f};
  module.kernel("first").launch(nullptr, tuna::memref(x.data(), {1}),
                                tuna::memref(y.data(), {1}));
  EXPECT_EQ(y[0], 5.0f);
  tuna::TuningReport report = module.kernel("first").reports().at(0);
  EXPECT_EQ(report.chosen, 0);
  EXPECT_EQ(report.candidates[1].status, tuna::CandidateStatus::Unrunnable);
  EXPECT_NE(report.candidates[1].reason.find(
                "first.mlir:6:8: error: 'vector.to_elements' op"),
            std::string::npos)
      << report.candidates[1].reason;
}

/// The synthetic host kernel of 10,000 configurations (y = 2x).
std::string largeSpaceSource() {
  return readFile(TUNA_SOURCE_DIR
                  "/test/Transforms/Inputs/large-space-host.mlir");
}

TEST(Jit, LazyTenThousandConfigsArePlannedNotInstantiated) {
  Compiler jit(lazyHostOptions());
  auto compiled = jit.compile(largeSpaceSource(), "large-space-host.mlir");
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  const tuna::Kernel &kernel = compiled->bundle.kernels[0];
  ASSERT_EQ(kernel.variants.size(), 10000u);
  EXPECT_EQ(kernel.variants[9999].name, "large__v9999");
  EXPECT_EQ(compiled->instantiatedVariants(), 0u);
  EXPECT_EQ(compiled->compiledVariants(), 0u);

  // Two variants asked for: two instantiated and compiled, once each.
  int first = kernel.variants[42].code.at(0).object;
  int second = kernel.variants[9000].code.at(0).object;
  std::vector<std::string> bytes = compiled->objectBytes({first, second});
  ASSERT_EQ(bytes.size(), 2u);
  EXPECT_EQ(bytes[0].substr(0, 4), "\x7f" "ELF");
  compiled->objectBytes({second});
  EXPECT_EQ(compiled->instantiatedVariants(), 2u);
  EXPECT_EQ(compiled->compiledVariants(), 2u);

  // An object the plan does not have.
  try {
    compiled->objectBytes({10000});
    ADD_FAILURE() << "no error for object #10000";
  } catch (const tuna::Error &error) {
    EXPECT_NE(std::string(error.what()).find("has no object #10000"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(compiled->instantiatedVariants(), 2u);
}

TEST(Jit, LazySearchInstantiatesOnlyTheVisitedVariants) {
  Compiler jit(lazyHostOptions());
  std::string source = largeSpaceSource();
  tuna::Options options;
  options.cacheDir.clear();
  options.minRuns = 1;
  options.maxRuns = 2;
  options.useSearch = true;
  options.search.strategy = "random";
  options.search.seed = 3;
  options.search.budgetEvaluations = 6;
  options.search.retimeMax = 0;
  options.check = true; // Outputs are compared with the default's.
  tuna::Module module =
      jit.load(source, tuna::Device::host(), options, "large-space-host.mlir");
  tuna::TunedKernel &kernel = module.kernel("large");
  runTwice(kernel, 5000);

  // The variants the search visited, and the default (the reference the
  // outputs are compared with), are the only ones built.
  tuna::TuningReport report = kernel.reports().at(0);
  ASSERT_EQ(report.candidates.size(), 10000u);
  std::set<int> built = {module.bundle().kernels[0].defaultVariant};
  for (const tuna::CandidateResult &candidate : report.candidates)
    if (candidate.reason != "not visited by the search")
      built.insert(candidate.variant);
  EXPECT_LE(built.size(), 7u);
  auto compiled = jit.compile(source);
  EXPECT_EQ(compiled->instantiatedVariants(), built.size());
  EXPECT_EQ(compiled->compiledVariants(), built.size());
}

TEST(Jit, LazySpaceOverTheLimitNamesCountAndLimit) {
  CompilerOptions options = lazyHostOptions();
  options.maxVariants = 9999;
  Compiler jit(options);
  std::vector<Diagnostic> errors = compileErrors(
      [&] { jit.compile(largeSpaceSource(), "large-space-host.mlir"); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].message,
            "kernel 'large' has 10000 configurations, over the limit of 9999 "
            "(max-variants)");
}

TEST(Jit, LazyNvptxPlansCubinAndPtxOrPtx) {
  CompilerOptions options;
  options.targets = {"nvptx:sm_90"};
  options.noPtxas = true;
  options.lazy = true;
  Compiler jit(options);
  auto compiled = jit.compileFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  ASSERT_EQ(compiled->bundle.kernels.size(), 1u);
  EXPECT_EQ(compiled->bundle.objects.size(), 15u);
  std::vector<std::string> ptx = compiled->objectBytes({0, 7});
  ASSERT_EQ(ptx.size(), 2u);
  for (const std::string &text : ptx) {
    EXPECT_NE(text.find(".entry"), std::string::npos);
    EXPECT_NE(text.find(".target sm_90"), std::string::npos);
  }
  EXPECT_NE(ptx[0].find(compiled->bundle.kernels[0].variants[0].name),
            std::string::npos);
  EXPECT_EQ(compiled->compiledVariants(), 2u);
}

// Object::moduleState: compiled, each variant's own lowered code says
// (test/kernels/module-state.mlir: state = 0 uses no global, state = 1
// its counter); planned, the kernel's source says for every variant,
// since the variants do not exist yet.
TEST(Jit, ModuleStateComesFromTheCodeOrForAPlanFromTheSource) {
  for (bool lazy : {false, true}) {
    CompilerOptions options;
    options.targets = {"nvptx:sm_90"};
    options.noPtxas = true;
    options.lazy = lazy;
    Compiler jit(options);
    auto compiled =
        jit.compileFile(TUNA_SOURCE_DIR "/test/kernels/module-state.mlir");
    ASSERT_EQ(compiled->bundle.objects.size(), 2u);
    EXPECT_EQ(compiled->bundle.objects[0].moduleState, lazy);
    EXPECT_TRUE(compiled->bundle.objects[1].moduleState);
  }
}

TEST(Jit, LazyAmdgcnForAHipDevicePlansCodeObjectsItLoads) {
  // A HIP device (the fake HIP runtime of test/runtime) with a gfx942 whose
  // target ID has features: the JIT compiles for the processor, and the HIP
  // backend takes every planned code object.
  tuna::Device device(tuna::makeHipBackend(0, TUNA_FAKE_HIP_PATH));
  ASSERT_EQ(device.info().arch, "gfx942:sramecc+:xnack-");
  CompilerOptions options;
  options.targets = {tuna::jit::targetFor(device)};
  EXPECT_EQ(options.targets[0], "amdgcn:gfx942");
  options.lazy = true;
  Compiler jit(options);
  auto compiled = jit.compileFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  const tuna::Kernel &kernel = compiled->bundle.kernels.at(0);
  for (const tuna::Variant &variant : kernel.variants) {
    int code = device.backend().selectCode(compiled->bundle, variant);
    ASSERT_GE(code, 0) << variant.name;
    const tuna::Object &object =
        compiled->bundle.objects[variant.code[code].object];
    EXPECT_EQ(object.format, "hsaco");
    EXPECT_EQ(object.target, "amdgcn:gfx942");
  }
  EXPECT_EQ(compiled->compiledVariants(), 0u) << "nothing compiled yet";
  std::vector<std::string> hsaco = compiled->objectBytes(
      {kernel.variants[0].code[device.backend().selectCode(
                                   compiled->bundle, kernel.variants[0])]
           .object});
  ASSERT_EQ(hsaco.size(), 1u);
  EXPECT_EQ(hsaco[0].compare(0, 4, "\x7f" "ELF"), 0) << "an HSA code object";
}

/// The fake HIP runtime's call counter, reached through the handle the
/// backend's dlopen gets.
int fakeHipCalls(const char *call) {
  static auto calls = reinterpret_cast<int (*)(const char *)>(dlsym(
      dlopen(TUNA_FAKE_HIP_PATH, RTLD_NOW | RTLD_LOCAL), "tunaFakeHipCalls"));
  return calls ? calls(call) : -1;
}

TEST(Jit, LazyAmdgcnTunesOnAHipDeviceLoadingTheCodeItCompiles) {
  // The JIT's amdgcn target compiled on first need and loaded by the HIP
  // backend: the fake HIP runtime takes the real code objects (it checks
  // their EF_AMDGPU_MACH and finds each kernel's descriptor), so tuning
  // loads, looks up, times and launches the JIT's own hsaco. It cannot
  // run AMD code: y stays as it was, and no result is checked.
  tuna::Device device(tuna::makeHipBackend(0, TUNA_FAKE_HIP_PATH));
  CompilerOptions options;
  options.targets = {tuna::jit::targetFor(device)};
  options.lazy = true;
  Compiler jit(options);
  tuna::Options tuning;
  tuning.cacheDir.clear();
  tuning.minSampleMs = 0;
  tuning.prune = false;
  std::string source = readFile(TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir");
  tuna::Module module = jit.load(source, device, tuning, "scale.mlir");
  auto compiled = jit.compile(source);
  EXPECT_EQ(compiled->compiledVariants(), 0u) << "nothing compiled yet";

  int loads = fakeHipCalls("hipModuleLoadData");
  int64_t n = 1 << 16;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  tuna::TunedKernel &kernel = module.kernel("scale");
  kernel.launch(nullptr, tuna::memref(x.data(), {n}),
                tuna::memref(y.data(), {n}), 3.0f, n);
  tuna::TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.source, tuna::DecisionSource::Tuned);
  size_t timed = 0;
  for (const tuna::CandidateResult &c : report.candidates) {
    EXPECT_EQ(c.status, tuna::CandidateStatus::Measured)
        << c.name << ": " << c.reason;
    timed += c.status == tuna::CandidateStatus::Measured;
  }
  EXPECT_EQ(timed, kernel.spec().variants.size());
  EXPECT_EQ(compiled->compiledVariants(), timed) << "each compiled once";
  EXPECT_EQ(fakeHipCalls("hipModuleLoadData") - loads, int(timed))
      << "one code object a variant, each loaded by HIP";

  // A gfx1100 code object that a bundle claims is for this gfx942: HIP
  // refuses it, and the error names the kernel, the call and both targets.
  CompilerOptions rdnaOptions;
  rdnaOptions.targets = {"amdgcn:gfx1100"};
  rdnaOptions.lazy = true;
  auto rdna = Compiler(rdnaOptions).compile(source, "scale.mlir");
  const tuna::Variant &variant = rdna->bundle.kernels.at(0).variants.at(0);
  int object = -1;
  for (const tuna::VariantCode &code : variant.code)
    if (rdna->bundle.objects[code.object].format == "hsaco")
      object = code.object;
  ASSERT_GE(object, 0);
  tuna::Object hsaco = rdna->bundle.objects[object];
  hsaco.data = rdna->objectBytes({object}).at(0);
  hsaco.target = "amdgcn:gfx942";
  try {
    device.backend().loadModule(hsaco, "kernel 'scale' variant 'v0'");
    FAIL() << "a gfx1100 code object loaded on a gfx942";
  } catch (const tuna::Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'scale' variant 'v0': hipModuleLoadData failed: "
              "hipErrorNoBinaryForGpu (209): no kernel image is available for "
              "execution on the device (code object for amdgcn:gfx942, device "
              "gfx942:sramecc+:xnack-)");
  }
}

TEST(Jit, DetectTarget) {
  EXPECT_EQ(tuna::jit::targetFor(tuna::Device::host()), "host");
  std::string target = tuna::jit::detectTarget();
  std::string expected;
  try {
    expected = "nvptx:" + tuna::Device::cuda(0).info().arch;
  } catch (const tuna::Error &) {
    expected = tuna::jit::amdgcnTargetFromKfd();
    if (expected.empty())
      expected = "host";
  }
  EXPECT_EQ(target, expected);
  // A Compiler without targets compiles for the detected one.
  EXPECT_EQ(Compiler().options().targets, std::vector<std::string>{target});
}

TEST(Jit, AmdgcnTargetFromAKfdTopology) {
  fs::path nodes = freshDir("kfd-nodes");
  auto node = [&](const std::string &name, const std::string &properties) {
    fs::create_directories(nodes / name);
    std::ofstream(nodes / name / "properties") << properties;
  };
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd(nodes.string()), "");
  node("0", "cpu_cores_count 64\ngfx_target_version 0\n");
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd(nodes.string()), "");
  node("10", "simd_count 304\ngfx_target_version 110000\n");
  node("2", "cpu_cores_count 0\ngfx_target_version 90010\nsimd_count 440\n");
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd(nodes.string()), "amdgcn:gfx90a");
  fs::remove_all(nodes / "2");
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd(nodes.string()), "amdgcn:gfx1100");
  node("1", "gfx_target_version 90402\n");
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd(nodes.string()), "amdgcn:gfx942");
  EXPECT_EQ(tuna::jit::amdgcnTargetFromKfd("/nonexistent/kfd"), "");
}

} // namespace
