//===- HitPathAllocationTest.cpp - Known signatures never allocate --------===//
//
// A separate binary: it replaces the global operator new to count
// allocations made while a known signature is launched.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void *allocate(std::size_t size) {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *ptr = std::malloc(size ? size : 1))
    return ptr;
  throw std::bad_alloc();
}
} // namespace

void *operator new(std::size_t size) { return allocate(size); }
void *operator new[](std::size_t size) { return allocate(size); }
void *operator new(std::size_t size, const std::nothrow_t &) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void *ptr) noexcept { std::free(ptr); }
void operator delete[](void *ptr) noexcept { std::free(ptr); }
void operator delete(void *ptr, std::size_t) noexcept { std::free(ptr); }
void operator delete[](void *ptr, std::size_t) noexcept { std::free(ptr); }

using namespace tuna;
using namespace tuna::test;

TEST(HitPathAllocationTest, KnownSignatureLaunchesDoNotAllocate) {
  Options options;
  options.minRuns = 3;
  options.maxRuns = 5;
  // axpy_wrong is as fast as axpy_work0: only the check keeps it from
  // winning (it did once, on the GPU machine's CPU).
  options.check = true;
  Module module =
      Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna", options);
  TunedKernel &kernel = module.kernel("axpy");
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  auto launch = [&] {
    kernel.launch(nullptr, memref(x.data(), {64}), memref(y.data(), {64}), 1.0f,
                  int64_t(64));
  };
  launch(); // Tunes.
  allocations = 0;
  counting = true;
  for (int i = 0; i < 1000; ++i)
    launch();
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(y[0], 1001.0f);

  // The counter works: a miss allocates.
  counting = true;
  kernel.launch(nullptr, memref(x.data(), {32}), memref(y.data(), {32}), 1.0f,
                int64_t(32));
  counting = false;
  EXPECT_GT(allocations.load(), 0);
}

// A variant that takes a tensor map: its map comes from the thread's map
// cache, encoded at the first launch, with neither allocation nor a second
// encoding.
TEST(HitPathAllocationTest, KnownSignaturesWithTensorMapsDoNotAllocate) {
  auto gpu = std::make_shared<MapGpu>();
  Options options;
  options.minSampleMs = 0;
  options.minRuns = options.maxRuns = 3;
  Module module =
      Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna", options);
  TunedKernel &kernel = module.kernel("tile");
  std::vector<float> data(16 * 64 + 16);
  // 64-byte aligned: TMA takes it.
  float *aligned = reinterpret_cast<float *>(
      (reinterpret_cast<uintptr_t>(data.data()) + 63) / 64 * 64);
  auto launch = [&] {
    kernel.launch(nullptr, memref(aligned, {16, 64}), int64_t(7));
  };
  launch(); // Tunes: "tma" wins.
  ASSERT_EQ(kernel.reports().at(0).chosenName, "tma");
  int encodes = gpu->encodes;
  allocations = 0;
  counting = true;
  for (int i = 0; i < 1000; ++i)
    launch();
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(gpu->encodes, encodes);
  EXPECT_TRUE(gpu->seen().back().tma);
  EXPECT_EQ(gpu->seen().back().map.words[0],
            reinterpret_cast<uint64_t>(aligned));
}
