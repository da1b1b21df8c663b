//===- JobThread.h - A thread that runs queued jobs in order ----*- C++ -*-===//
//
// The thread that times a tuning device's shares of a spread (Spread.cpp).
// It is kept with the module's tuning helpers (Module::Impl::tuningThreads)
// because a tuning worker ends with the thread that started it
// (PR_SET_PDEATHSIG): one thread per device lets its worker serve every
// spread.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_JOBTHREAD_H
#define TUNA_RUNTIME_LIB_JOBTHREAD_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace tuna {

/// A thread that runs the jobs given to it in order until it is destroyed.
class JobThread {
public:
  JobThread() : thread([this] { loop(); }) {}
  /// Ends after the job that runs; the ones still queued are dropped.
  ~JobThread() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    thread.join();
  }
  JobThread(const JobThread &) = delete;
  JobThread &operator=(const JobThread &) = delete;

  /// Queues `job`.
  void start(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      jobs.push_back(std::move(job));
    }
    changed.notify_all();
  }
  /// Waits until every queued job is done.
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return jobs.empty() && !running; });
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait(lock, [this] { return stopping || !jobs.empty(); });
      if (stopping)
        return;
      std::function<void()> job = std::move(jobs.front());
      jobs.pop_front();
      running = true;
      lock.unlock();
      job();
      lock.lock();
      running = false;
      changed.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> jobs;
  bool running = false;
  bool stopping = false;
  std::thread thread;
};

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_JOBTHREAD_H
