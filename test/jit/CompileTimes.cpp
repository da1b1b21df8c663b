//===- CompileTimes.cpp - How long tuna_jit takes to compile a kernel -----===//
//
//   tuna-jit-compile-times [kernel.mlir] [runs]
//
// Compiles the kernel (default kernels-mlir/scale.mlir) through tuna_jit for
// nvptx:sm_90 with and without ptxas and for the host, `runs` times each
// (default 5) with an empty cache, on one compile thread and on one per
// core, and prints the medians as a Markdown table: the whole compile
// (parse + expand + compile), the target's compile, and that divided by the
// number of variants. docs/benchmarks.md quotes its output.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using tuna::jit::Compiled;
using tuna::jit::Compiler;
using tuna::jit::CompilerOptions;

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
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
              "compile | per variant |\n|---|---|---|---|---|---|\n");
  try {
    for (const Case &c : cases) {
      for (unsigned threads : {1u, 0u}) {
        CompilerOptions options;
        options.targets = {c.target};
        options.noPtxas = c.noPtxas;
        options.threads = threads;
        Compiler jit(options);
        std::vector<double> whole, target;
        unsigned variants = 0;
        for (int run = 0; run < runs; ++run) {
          jit.clearMemoryCache();
          std::shared_ptr<const Compiled> compiled = jit.compileFile(path);
          double total = 0;
          for (const Compiled::Time &phase : compiled->phases)
            total += phase.seconds;
          whole.push_back(total);
          target.push_back(compiled->targets.at(0).seconds);
          variants = compiled->targets.at(0).variants;
        }
        double perTarget = median(target);
        std::printf("| %s | %u | %u | %.3f s | %.3f s | %.1f ms |\n", c.label,
                    threads ? threads : cores, variants, median(whole),
                    perTarget, 1000 * perTarget / variants);
      }
    }
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "tuna-jit-compile-times: %s\n", error.what());
    return 1;
  }
  return 0;
}
