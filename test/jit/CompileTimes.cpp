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
// machine disturbs less than wall time. docs/benchmarks.md quotes its
// output.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include <algorithm>
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
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "tuna-jit-compile-times: %s\n", error.what());
    return 1;
  }
  return 0;
}
