//===- CompareBench.cpp - Cost of the check's comparison per candidate ----===//
//
// What Options::check pays on the host per candidate and output buffer:
// reading a scratch buffer back (ScratchArgs::readBack, here on the host
// backend: an allocation and a copy) and comparing it with the reference
// (compareElements). The outputs are those of the H100 figures in
// docs/benchmarks.md: a 4096 x 4096 f16 matmul result and a 4096 x 2048
// f32 softmax. `got` differs from `want` in the last bits of every element,
// as a variant that sums in another order does, so no exact-bytes shortcut
// applies; the "Same" benchmarks compare bit-identical outputs.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Scratch.h"

#include "tuna/runtime/ScalarType.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>

using namespace tuna;

namespace {

constexpr size_t kMatmulElements = 4096 * 4096;
constexpr size_t kSoftmaxElements = 4096 * 2048;

/// Random outputs of `type` (below 1 in magnitude): got is one ulp off
/// want, or equal.
struct Outputs {
  std::string got, want;
};

Outputs makeOutputs(ScalarType type, size_t elements, bool identical) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  size_t size = scalarTypeSize(type);
  Outputs outputs;
  outputs.want.resize(elements * size);
  outputs.got.resize(elements * size);
  for (size_t i = 0; i < elements; ++i) {
    float value = real(rng);
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    if (type == ScalarType::F32) {
      std::memcpy(&outputs.want[i * size], &bits, size);
      bits += identical ? 0 : 1;
      std::memcpy(&outputs.got[i * size], &bits, size);
      continue;
    }
    // f16: a random sign and mantissa, an exponent of 2^-14 to 2^-1.
    uint16_t half = static_cast<uint16_t>((bits & 0x83ff) |
                                          ((1 + bits % 14) << 10));
    std::memcpy(&outputs.want[i * size], &half, size);
    half = static_cast<uint16_t>(half + (identical ? 0 : 1));
    std::memcpy(&outputs.got[i * size], &half, size);
  }
  return outputs;
}

void BM_CompareElements(benchmark::State &state, ScalarType type,
                        size_t elements, bool identical) {
  Outputs outputs = makeOutputs(type, elements, identical);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        compareElements(type, outputs.got.data(), outputs.want.data(),
                        outputs.got.size(), -1, -1));
  state.SetBytesProcessed(state.iterations() * 2 *
                          static_cast<int64_t>(outputs.got.size()));
}
BENCHMARK_CAPTURE(BM_CompareElements, MatmulF16, ScalarType::F16,
                  kMatmulElements, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompareElements, SoftmaxF32, ScalarType::F32,
                  kSoftmaxElements, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompareElements, SameMatmulF16, ScalarType::F16,
                  kMatmulElements, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompareElements, SameSoftmaxF32, ScalarType::F32,
                  kSoftmaxElements, true)
    ->Unit(benchmark::kMillisecond);

/// ScratchArgs::readBack of one written f32 buffer of `elements`.
void BM_ReadBack(benchmark::State &state) {
  size_t elements = static_cast<size_t>(state.range(0));
  std::unique_ptr<Backend> backend = makeHostBackend();
  Kernel spec;
  ArgSpec output;
  output.kind = ArgSpec::Kind::MemRef;
  output.type = ScalarType::F32;
  output.rank = 1;
  output.written = true;
  spec.args = {output};
  std::vector<float> data(elements, 1.0f);
  ArgValue arg;
  arg.kind = ArgSpec::Kind::MemRef;
  arg.type = ScalarType::F32;
  arg.memref.type = ScalarType::F32;
  arg.memref.rank = 1;
  arg.memref.allocated = arg.memref.aligned = data.data();
  arg.memref.sizes[0] = static_cast<int64_t>(elements);
  arg.memref.strides[0] = 1;
  ScratchArgs scratch(*backend, nullptr, spec, &arg, 1);
  scratch.reset();
  for (auto _ : state)
    benchmark::DoNotOptimize(scratch.readBack());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(elements * sizeof(float)));
}
BENCHMARK(BM_ReadBack)->Arg(kSoftmaxElements)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
