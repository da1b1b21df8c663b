//===- PoolRace.cpp - A race that TSan must report under Tuna's suppressions ===//
//
// Two tasks of an llvm::DefaultThreadPool, each on its own worker, write one
// unsynchronized variable after meeting at a barrier. The barrier orders
// both arrivals before either write, not one write before the other, so the
// writes race on every run whatever the timing. scripts/tsan-suppressions.txt
// silences TSan's false reports about the pool's own task state; this
// program checks that a race of code run inside a pool task is still
// reported (test/tsan/CMakeLists.txt expects the report).
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <cstdio>
#include <thread>

static int shared = 0;

static void racyWrite(std::atomic<int> &arrived, int value) {
  arrived.fetch_add(1);
  while (arrived.load() < 2)
    std::this_thread::yield();
  shared = value;
}

int main() {
  std::atomic<int> arrived{0};
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(2));
    llvm::ThreadPoolTaskGroup group(pool);
    group.async([&] { racyWrite(arrived, 1); });
    group.async([&] { racyWrite(arrived, 2); });
    group.wait();
  }
  std::printf("shared = %d\n", shared);
  return 0;
}
