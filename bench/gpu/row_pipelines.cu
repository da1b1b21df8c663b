// How a row kernel's DRAM rate depends on how its rows are brought in: the
// softmax of 8192-float rows written several ways in CUDA, against the
// device-to-device copy and a streaming kernel (scale) moving as many bytes,
// all timed alike (CUDA events, median of 25 samples, the sides sampling in
// turn; warm: 20 back-to-back calls, cold: one call after a write of twice
// the L2). Each output is checked against a double reference on sampled
// rows. Not part of Tuna: it measures what bounds kernels-mlir/softmax.mlir
// and layernorm.mlir at 128 MiB a side (docs/benchmarks.md).
//
// The ways:
//   regs T x R   a block of T threads a row, R 16-byte chunks a thread held in
//                registers (kernels-mlir/softmax.mlir's regs > 0 path; T = 512,
//                R = 4 is its pick on 4096 x 8192)
//   regs_cs      regs 512 x 4 with evict-first loads and streaming stores
//   staged T     the row lands in shared memory first (cp.async 16-byte
//                copies, or one bulk copy): more rows in flight an SM than
//                registers hold
//   persistent   one block an SM slot loops over rows (block b takes rows b,
//                b + grid, ...; "claimed": the next row from an atomic
//                counter), the next row's loads in flight during this row's
//                sums and stores (registers, or bulk copies into 2 or 3
//                shared-memory stages)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kCols = 8192;
constexpr int kChunks = kCols / 4;
constexpr float kLog2e = 1.44269504f;

__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(~0u, v, o));
  return v;
}
__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o; o >>= 1)
    v += __shfl_xor_sync(~0u, v, o);
  return v;
}
__device__ __forceinline__ float max4(float4 v) {
  return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
}
__device__ __forceinline__ float4 exp4(float4 v, float m, float f) {
  return make_float4(
      exp2f((v.x - m) * kLog2e) * f, exp2f((v.y - m) * kLog2e) * f,
      exp2f((v.z - m) * kLog2e) * f, exp2f((v.w - m) * kLog2e) * f);
}

// The block's (max, sum of exp(x - max)) from each thread's (m, s).
template <int T>
__device__ __forceinline__ void blockMaxSum(float m, float s, float &gm,
                                            float &gs) {
  __shared__ float pm[32], ps[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float wm = warpMax(m);
  s = warpSum(s * exp2f((m - wm) * kLog2e));
  if (lane == 0) {
    pm[warp] = wm;
    ps[warp] = s;
  }
  __syncthreads();
  gm = -3e38f;
  gs = 0;
  for (int i = 0; i < T / 32; ++i)
    gm = fmaxf(gm, pm[i]);
  for (int i = 0; i < T / 32; ++i)
    gs += ps[i] * exp2f((pm[i] - gm) * kLog2e);
  __syncthreads();
}

// Softmax of a row held in registers, chunk j of thread t at t + j T.
template <int T, int R, bool STREAM>
__device__ __forceinline__ void rowFromRegisters(float4 (&v)[R], float4 *y) {
  float m = -3e38f, s = 0, gm, gs;
  for (int j = 0; j < R; ++j)
    m = fmaxf(m, max4(v[j]));
  for (int j = 0; j < R; ++j) {
    v[j] = exp4(v[j], m, 1.0f);
    s += v[j].x + v[j].y + v[j].z + v[j].w;
  }
  blockMaxSum<T>(m, s, gm, gs);
  float f = exp2f((m - gm) * kLog2e) / gs;
  for (int j = 0; j < R; ++j) {
    float4 o = make_float4(v[j].x * f, v[j].y * f, v[j].z * f, v[j].w * f);
    if (STREAM)
      __stcs(&y[threadIdx.x + j * T], o);
    else
      y[threadIdx.x + j * T] = o;
  }
}

template <int T, bool STREAM>
__global__ void __launch_bounds__(T) softmaxRegs(const float4 *x, float4 *y) {
  constexpr int R = kChunks / T;
  const float4 *xr = x + (size_t)blockIdx.x * kChunks;
  float4 v[R];
  for (int j = 0; j < R; ++j)
    v[j] = STREAM ? __ldcs(&xr[threadIdx.x + j * T]) : xr[threadIdx.x + j * T];
  rowFromRegisters<T, R, STREAM>(v, y + (size_t)blockIdx.x * kChunks);
}

// DYNAMIC: after its first row (its block index) a block claims the next
// row from an atomic counter (work[0]) instead of taking every grid-th row;
// the last block to finish (work[1]) resets both for the next launch.
template <int T, bool DYNAMIC>
__global__ void __launch_bounds__(T)
    softmaxPersistentRegs(const float4 *x, float4 *y, int rows, int *work) {
  constexpr int R = kChunks / T;
  __shared__ int claimed;
  float4 v[R], next[R];
  int r = blockIdx.x;
  if (r < rows)
    for (int j = 0; j < R; ++j)
      next[j] = x[(size_t)r * kChunks + threadIdx.x + j * T];
  while (r < rows) {
    for (int j = 0; j < R; ++j)
      v[j] = next[j];
    int following = r + gridDim.x;
    if (DYNAMIC) {
      if (threadIdx.x == 0)
        claimed = gridDim.x + atomicAdd(&work[0], 1);
      __syncthreads();
      following = claimed;
    }
    if (following < rows)
      for (int j = 0; j < R; ++j)
        next[j] = x[(size_t)following * kChunks + threadIdx.x + j * T];
    rowFromRegisters<T, R, false>(v, y + (size_t)r * kChunks);
    r = following;
  }
  if (DYNAMIC && threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&work[1], 1) == (int)gridDim.x - 1) {
      work[0] = 0;
      work[1] = 0;
    }
  }
}

__device__ __forceinline__ unsigned sharedAddress(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void initBarrier(unsigned long long *bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sharedAddress(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// One thread: a row of x into shared memory, completing on `bar`.
__device__ __forceinline__ void bulkLoadRow(float4 *dst, const float4 *src,
                                            unsigned long long *bar) {
  unsigned b = sharedAddress(bar);
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b),
      "r"(kCols * 4)
      : "memory");
  asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes "
               "[%0], [%1], %2, [%3];" ::"r"(sharedAddress(dst)),
               "l"(src), "r"(kCols * 4), "r"(b)
               : "memory");
}
__device__ __forceinline__ void waitBarrier(unsigned long long *bar,
                                            unsigned phase) {
  asm volatile(
      "{ .reg .pred p; WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, "
      "[%0], %1; @!p bra WAIT; }" ::"r"(sharedAddress(bar)),
      "r"(phase)
      : "memory");
}

template <int T, bool BULK>
__global__ void __launch_bounds__(T) softmaxStaged(const float4 *x, float4 *y) {
  extern __shared__ __align__(128) float4 row[];
  __shared__ __align__(8) unsigned long long bar;
  const float4 *xr = x + (size_t)blockIdx.x * kChunks;
  if (BULK) {
    if (threadIdx.x == 0) {
      initBarrier(&bar);
      bulkLoadRow(row, xr, &bar);
    }
    __syncthreads();
    waitBarrier(&bar, 0);
  } else {
    for (int j = threadIdx.x; j < kChunks; j += T)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       sharedAddress(row + j)),
                   "l"(xr + j)
                   : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
  }
  float m = -3e38f, s = 0, gm, gs;
  for (int j = threadIdx.x; j < kChunks; j += T)
    m = fmaxf(m, max4(row[j]));
  for (int j = threadIdx.x; j < kChunks; j += T) {
    float4 e = exp4(row[j], m, 1.0f);
    s += e.x + e.y + e.z + e.w;
  }
  blockMaxSum<T>(m, s, gm, gs);
  float4 *yr = y + (size_t)blockIdx.x * kChunks;
  for (int j = threadIdx.x; j < kChunks; j += T)
    yr[j] = exp4(row[j], gm, 1.0f / gs);
}

template <int T, int STAGES>
__global__ void __launch_bounds__(T)
    softmaxPersistentBulk(const float4 *x, float4 *y, int rows) {
  constexpr int R = kChunks / T;
  extern __shared__ __align__(128) float4 stage[];
  __shared__ __align__(8) unsigned long long bar[STAGES];
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s)
      initBarrier(&bar[s]);
    for (int s = 0; s < STAGES; ++s)
      if (blockIdx.x + s * gridDim.x < rows)
        bulkLoadRow(stage + s * kChunks,
                    x + (size_t)(blockIdx.x + s * gridDim.x) * kChunks,
                    &bar[s]);
  }
  __syncthreads();
  int i = 0;
  for (int r = blockIdx.x; r < rows; r += gridDim.x, ++i) {
    int s = i % STAGES;
    waitBarrier(&bar[s], (i / STAGES) & 1);
    float4 v[R];
    for (int j = 0; j < R; ++j)
      v[j] = stage[s * kChunks + threadIdx.x + j * T];
    __syncthreads();
    int refill = r + STAGES * gridDim.x;
    if (threadIdx.x == 0 && refill < rows)
      bulkLoadRow(stage + s * kChunks, x + (size_t)refill * kChunks, &bar[s]);
    rowFromRegisters<T, R, false>(v, y + (size_t)r * kChunks);
  }
}

__global__ void scale4(const float4 *x, float4 *y, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  }
}

// Blocks of `kernel` an SM holds, once it may take `shared` bytes of dynamic
// shared memory (above 48 KiB a kernel must ask for them).
template <typename K> int blocksPerSm(K kernel, int threads, int shared) {
  if (shared > 48 * 1024)
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads,
                                                      shared));
  return blocks;
}

struct Side {
  std::string name;
  std::function<void()> launch;
  bool softmax;
};

static double worstRelativeError(const std::vector<float> &x,
                                 const std::vector<float> &y, int rows) {
  double worst = 0;
  for (int r = 0; r < rows; r += 37) {
    const float *xr = &x[(size_t)r * kCols];
    const float *yr = &y[(size_t)r * kCols];
    double m = -1e300, s = 0;
    for (int c = 0; c < kCols; ++c)
      m = std::max(m, (double)xr[c]);
    for (int c = 0; c < kCols; ++c)
      s += std::exp(xr[c] - m);
    for (int c = 0; c < kCols; ++c) {
      double ref = std::exp(xr[c] - m) / s;
      double e = std::fabs(yr[c] - ref) / ref;
      worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
  }
  return worst;
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? std::atoi(argv[1]) : 4096;
  size_t n = (size_t)rows * kCols, bytes = n * sizeof(float);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  size_t flushBytes = 2 * (size_t)prop.l2CacheSize;
  float *x, *y, *flush;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&flush, flushBytes));
  std::vector<float> hx(n), hy(n);
  srand(1);
  for (float &v : hx)
    v = rand() / (float)RAND_MAX * 8 - 4;
  CHECK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
  const float4 *x4 = (const float4 *)x;
  float4 *y4 = (float4 *)y;
  int sms = prop.multiProcessorCount, row = kCols * 4;
  int persistentRegs =
      sms * blocksPerSm(softmaxPersistentRegs<512, false>, 512, 0);
  int *work;
  CHECK(cudaMalloc(&work, 2 * sizeof(int)));
  CHECK(cudaMemset(work, 0, 2 * sizeof(int)));
  int bulk2 = sms * blocksPerSm(softmaxPersistentBulk<512, 2>, 512, 2 * row);
  int bulk3 = sms * blocksPerSm(softmaxPersistentBulk<512, 3>, 512, 3 * row);
  std::printf("%s, %d SMs, %d MiB L2; %d x %d floats\n", prop.name, sms,
              prop.l2CacheSize >> 20, rows, kCols);
  std::vector<Side> sides = {
      {"copy",
       [&] { CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); },
       false},
      {"scale", [&] { scale4<<<(n / 4 + 255) / 256, 256>>>(x4, y4, n / 4); },
       false},
      {"regs 512 x 4", [&] { softmaxRegs<512, false><<<rows, 512>>>(x4, y4); },
       true},
      {"regs 256 x 8", [&] { softmaxRegs<256, false><<<rows, 256>>>(x4, y4); },
       true},
      {"regs 128 x 16", [&] { softmaxRegs<128, false><<<rows, 128>>>(x4, y4); },
       true},
      {"regs_cs 512 x 4",
       [&] { softmaxRegs<512, true><<<rows, 512>>>(x4, y4); }, true},
      {"staged 256 cp.async",
       [&] { softmaxStaged<256, false><<<rows, 256, row>>>(x4, y4); }, true},
      {"staged 256 bulk",
       [&] { softmaxStaged<256, true><<<rows, 256, row>>>(x4, y4); }, true},
      {"staged 512 bulk",
       [&] { softmaxStaged<512, true><<<rows, 512, row>>>(x4, y4); }, true},
      {"persistent regs",
       [&] {
         softmaxPersistentRegs<512, false>
             <<<persistentRegs, 512>>>(x4, y4, rows, work);
       },
       true},
      {"persistent regs claimed",
       [&] {
         softmaxPersistentRegs<512, true>
             <<<persistentRegs, 512>>>(x4, y4, rows, work);
       },
       true},
      {"persistent bulk 2",
       [&] {
         softmaxPersistentBulk<512, 2><<<bulk2, 512, 2 * row>>>(x4, y4, rows);
       },
       true},
      {"persistent bulk 3",
       [&] {
         softmaxPersistentBulk<512, 3><<<bulk3, 512, 3 * row>>>(x4, y4, rows);
       },
       true},
  };
  bool correct = true;
  for (Side &side : sides) {
    if (!side.softmax)
      continue;
    CHECK(cudaMemset(y, 0xff, bytes)); // NaN
    side.launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hy.data(), y, bytes, cudaMemcpyDeviceToHost));
    double worst = worstRelativeError(hx, hy, rows);
    if (!(worst < 1e-4)) {
      std::printf("%s: relative error %.2e against the reference\n",
                  side.name.c_str(), worst);
      correct = false;
    }
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const int samples = 25, backToBack = 20;
  std::vector<std::vector<float>> warm(sides.size()), cold(sides.size());
  for (int sample = 0; sample < samples; ++sample)
    for (size_t i = 0; i < sides.size(); ++i) {
      float ms;
      sides[i].launch();
      CHECK(cudaEventRecord(start));
      for (int k = 0; k < backToBack; ++k)
        sides[i].launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      warm[i].push_back(ms / backToBack);
      CHECK(cudaMemsetAsync(flush, sample, flushBytes));
      CHECK(cudaEventRecord(start));
      sides[i].launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      cold[i].push_back(ms);
    }
  CHECK(cudaGetLastError());
  auto rate = [&](std::vector<float> ms) {
    std::sort(ms.begin(), ms.end());
    return 2.0 * bytes / ms[ms.size() / 2] / 1e6;
  };
  double copyWarm = rate(warm[0]), copyCold = rate(cold[0]);
  std::printf("%-22s %12s %9s %12s %9s\n", "side", "warm GB/s", "of copy",
              "cold GB/s", "of copy");
  for (size_t i = 0; i < sides.size(); ++i) {
    double w = rate(warm[i]), c = rate(cold[i]);
    std::printf("%-22s %12.1f %8.1f%% %12.1f %8.1f%%\n", sides[i].name.c_str(),
                w, 100 * w / copyWarm, c, 100 * c / copyCold);
  }
  std::printf(correct ? "every output correct\n" : "OUTPUTS WRONG\n");
  return correct ? 0 : 1;
}
