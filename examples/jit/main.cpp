//===- main.cpp - An application that compiles its kernel at run time -----===//
//
// The application writes the MLIR of the host `scale` kernel of
// kernels-mlir/scale.mlir at run time, with the chunk sizes to try chosen
// here, compiles it in memory with tuna_jit for the host, lets the runtime
// tune it on the first call of each shape, and checks y = s * x against a
// plain loop. A second request for the same source comes from the cache.
// Exits 1 on any error or mismatch.
//
//===----------------------------------------------------------------------===//

#include "tuna/JIT/Jit.h"

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

/// kernels-mlir/scale.mlir's host kernel, with `chunks` as the candidates of
/// its `chunk` parameter.
static std::string scaleSource(const std::vector<int> &chunks) {
  std::string list;
  for (int chunk : chunks)
    list += (list.empty() ? "" : ", ") + std::to_string(chunk);
  return R"(
func.func @scale_host(%x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %n: index) attributes {
  tuna.space = #tuna.space<
    params = [#tuna.param<"chunk", [)" +
         list + R"(]>],
    defaults = {chunk = 1},
    key = [#tuna.key<arg = 3, bucket = pow2>]
  >} {
  %chunk = tuna.param "chunk" : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rem = arith.remui %n, %chunk : index
  %main = arith.subi %n, %rem : index
  scf.for %i = %c0 to %main step %chunk {
    scf.for %j = %c0 to %chunk step %c1 {
      %k = arith.addi %i, %j : index
      %v = memref.load %x[%k] : memref<?xf32>
      %r = arith.mulf %v, %s : f32
      memref.store %r, %y[%k] : memref<?xf32>
    }
  }
  scf.for %k = %main to %n step %c1 {
    %v = memref.load %x[%k] : memref<?xf32>
    %r = arith.mulf %v, %s : f32
    memref.store %r, %y[%k] : memref<?xf32>
  }
  return
}
)";
}

int main() {
  try {
    tuna::jit::CompilerOptions options;
    options.targets = {"host"};
    tuna::jit::Compiler jit(options);
    std::string source = scaleSource({1, 4, 16, 64});

    std::shared_ptr<const tuna::jit::Compiled> compiled =
        jit.compile(source, "scale_host.mlir");
    for (const tuna::jit::Compiled::Time &target : compiled->targets)
      std::printf("jit_app: compiled %u variants for %s in %.3f s\n",
                  target.variants, target.name.c_str(), target.seconds);
    for (const tuna::jit::Diagnostic &diagnostic : compiled->diagnostics)
      std::printf("jit_app: %s\n", diagnostic.str().c_str());

    tuna::Module module =
        jit.load(source, tuna::Device::host(), "scale_host.mlir");
    if (jit.stats().compiles != 1 || jit.stats().memoryHits != 1) {
      std::fprintf(stderr, "jit_app: the second request compiled again\n");
      return 1;
    }
    tuna::TunedKernel &scale = module.kernel("scale_host");
    for (int64_t n : {5, 1000, 65537}) {
      std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
      for (int64_t i = 0; i < n; ++i)
        x[i] = static_cast<float>(i % 97) - 48.0f;
      const float s = 1.5f;
      scale.launch(nullptr, tuna::memref(x.data(), {n}),
                   tuna::memref(y.data(), {n}), s, n);
      for (int64_t i = 0; i < n; ++i)
        if (!(y[i] == s * x[i])) {
          std::fprintf(stderr, "jit_app: n=%lld: y[%lld] = %g, expected %g\n",
                       (long long)n, (long long)i, y[i], s * x[i]);
          return 1;
        }
    }
    std::printf("jit_app: %zu shapes tuned and checked\n",
                scale.reports().size());

    // Bad input is an exception with located diagnostics, never a crash.
    try {
      jit.compile("func.func @broken(", "broken.mlir");
      std::fprintf(stderr, "jit_app: bad source compiled\n");
      return 1;
    } catch (const tuna::jit::CompileError &error) {
      std::printf("jit_app: bad source rejected: %s\n",
                  error.diagnostics().front().str().c_str());
    }
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "jit_app: %s\n", error.what());
    return 1;
  }
  return 0;
}
