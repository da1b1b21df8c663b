//===- CompileTimes.cpp - How long tuna_jit takes to compile a kernel -----===//
//
//   tuna-jit-compile-times [kernel.mlir] [runs]
//
// Compiles the kernel (default kernels-mlir/scale.mlir) through tuna_jit for
// nvptx:sm_90 with and without ptxas and for the host, `runs` times each
// (default 5) with an empty cache, on one compile thread and on one per
// core, and prints the medians as a Markdown table: the whole compile
// (parse + expand + compile), the target's compile, that divided by the
// number of variants, and the CPU time of the whole compile per variant
// (this process and the tools it ran, e.g. ptxas), which other load on the
// machine disturbs less than wall time. A second table does the same in
// lazy mode (CompilerOptions::lazy): the plan (parse + expand + plan), the
// default variant's code alone (what a decision from the cache or with
// tuning off costs), and every variant in one call (what tuning costs).
// docs/benchmarks.md quotes its output.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

using tuna::jit::Compiled;
using tuna::jit::Compiler;
using tuna::jit::CompilerOptions;

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// CPU seconds (user + system) of this process and its waited-for children.
static double cpuSeconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage;
    getrusage(who, &usage);
    for (const timeval &tv : {usage.ru_utime, usage.ru_stime})
      total += tv.tv_sec + tv.tv_usec * 1e-6;
  }
  return total;
}

int main(int argc, char **argv) {
  std::string path =
      argc > 1 ? argv[1] : TUNA_SOURCE_DIR "/kernels-mlir/scale.mlir";
  int runs = argc > 2 ? std::stoi(argv[2]) : 5;
  struct Case {
    const char *label;
    const char *target;
    bool noPtxas;
  };
  const Case cases[] = {
      {"nvptx:sm_90, PTX + cubin (ptxas)", "nvptx:sm_90", false},
      {"nvptx:sm_90, PTX only (no ptxas)", "nvptx:sm_90", true},
      {"host", "host", false}};
  unsigned cores = std::thread::hardware_concurrency();
  std::printf("%s, %d runs each, median; %u cores\n\n", path.c_str(), runs,
              cores);
  std::printf("| target | threads | variants | whole compile | target "
              "compile | per variant | CPU per variant |\n"
              "|---|---|---|---|---|---|---|\n");
  try {
    for (const Case &c : cases) {
      for (unsigned threads : {1u, 0u}) {
        CompilerOptions options;
        options.targets = {c.target};
        options.noPtxas = c.noPtxas;
        options.threads = threads;
        Compiler jit(options);
        std::vector<double> whole, target, cpu;
        unsigned variants = 0;
        for (int run = 0; run < runs; ++run) {
          jit.clearMemoryCache();
          double cpuStart = cpuSeconds();
          std::shared_ptr<const Compiled> compiled = jit.compileFile(path);
          cpu.push_back(cpuSeconds() - cpuStart);
          double total = 0;
          for (const Compiled::Time &phase : compiled->phases)
            total += phase.seconds;
          whole.push_back(total);
          target.push_back(compiled->targets.at(0).seconds);
          variants = compiled->targets.at(0).variants;
        }
        double perTarget = median(target);
        std::printf("| %s | %u | %u | %.3f s | %.3f s | %.1f ms | %.1f ms |\n",
                    c.label, threads ? threads : cores, variants, median(whole),
                    perTarget, 1000 * perTarget / variants,
                    1000 * median(cpu) / variants);
      }
    }
    std::printf("\nlazy (CompilerOptions::lazy)\n\n"
                "| target | threads | variants | plan | default variant alone | "
                "every variant, one call |\n|---|---|---|---|---|---|\n");
    for (const Case &c : cases)
    for (unsigned threads : {1u, 0u}) {
      CompilerOptions options;
      options.targets = {c.target};
      options.noPtxas = c.noPtxas;
      options.threads = threads;
      options.lazy = true;
      Compiler jit(options);
      std::vector<double> plan, one, all;
      size_t variants = 0;
      for (int run = 0; run < runs; ++run) {
        jit.clearMemoryCache();
        std::shared_ptr<const Compiled> compiled = jit.compileFile(path);
        double total = 0;
        for (const Compiled::Time &phase : compiled->phases)
          total += phase.seconds;
        plan.push_back(total);
        const tuna::Kernel &kernel = compiled->bundle.kernels.at(0);
        variants = kernel.variants.size();
        std::vector<int> defaultObjects, every;
        for (const tuna::VariantCode &code :
             kernel.variants[kernel.defaultVariant].code)
          defaultObjects.push_back(code.object);
        for (size_t o = 0; o < compiled->bundle.objects.size(); ++o)
          every.push_back(static_cast<int>(o));
        auto time = [&](const std::vector<int> &objects) {
          auto start = std::chrono::steady_clock::now();
          compiled->objectBytes(objects);
          return std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
              .count();
        };
        one.push_back(time(defaultObjects));
        jit.clearMemoryCache();
        compiled = jit.compileFile(path);
        all.push_back(time(every));
      }
      std::printf("| %s | %u | %zu | %.3f s | %.3f s | %.3f s |\n", c.label,
                  threads ? threads : cores, variants, median(plan),
                  median(one), median(all));
    }
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "tuna-jit-compile-times: %s\n", error.what());
    return 1;
  }
  return 0;
}
