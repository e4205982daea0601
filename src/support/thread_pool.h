// Work on many inputs on several threads, delivered in input order (as
// LLVM's ThreadPool with an ordered consumer, or mlir-opt's
// failableParallelForEach that reports in order).
#ifndef HLO_OFFLOAD_SUPPORT_THREAD_POOL_H_
#define HLO_OFFLOAD_SUPPORT_THREAD_POOL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hloff {

// Runs work(i) for i in [0, n) on `threads` threads (the calling thread
// alone when threads <= 1) and calls deliver(i, result) on the calling
// thread in input order, each as soon as it and every earlier one are done.
// `progress(done)` (may be empty) is called on the calling thread after
// each delivery and once more with n at the end. `work` must not throw.
template <typename T>
void RunInInputOrder(size_t n, size_t threads,
                     const std::function<std::unique_ptr<T>(size_t)>& work,
                     const std::function<void(size_t, std::unique_ptr<T>)>& deliver,
                     const std::function<void(size_t)>& progress) {
  std::vector<std::unique_ptr<T>> results(n);
  std::vector<bool> ready(n, false);
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) {
      std::unique_ptr<T> result = work(i);
      std::lock_guard<std::mutex> lock(mutex);
      results[i] = std::move(result);
      ready[i] = true;
      done.notify_one();
    }
  };
  std::vector<std::thread> pool;
  if (threads <= 1) {
    worker();
  } else {
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  for (size_t i = 0; i < n; ++i) {
    std::unique_ptr<T> result;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // With a pool the calling thread only delivers; waiting wakes on
      // every finished item, or after a while to refresh the progress line.
      while (!ready[i]) done.wait_for(lock, std::chrono::milliseconds(250));
      result = std::move(results[i]);
    }
    deliver(i, std::move(result));
    if (progress) progress(i + 1);
  }
  for (std::thread& t : pool) t.join();
  if (progress) progress(n);
}

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_THREAD_POOL_H_
