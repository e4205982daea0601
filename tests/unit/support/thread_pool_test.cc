// RunInInputOrder (support/thread_pool.h): every item is worked on once and
// delivered in input order on the calling thread, whatever order the
// workers finish in; the progress callback counts up to the total.
#include "support/thread_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace hloff {
namespace {

TEST(RunInInputOrderTest, DeliversInInputOrderOnTheCallingThread) {
  for (size_t threads : {size_t{1}, size_t{4}}) {
    const size_t n = 20;
    std::vector<size_t> delivered;
    std::vector<size_t> progress;
    std::thread::id caller = std::this_thread::get_id();
    RunInInputOrder<size_t>(
        n, threads,
        [&](size_t i) {
          // Early items finish last.
          std::this_thread::sleep_for(std::chrono::microseconds((n - i) * 200));
          return std::make_unique<size_t>(i * i);
        },
        [&](size_t i, std::unique_ptr<size_t> value) {
          EXPECT_EQ(std::this_thread::get_id(), caller);
          EXPECT_EQ(*value, i * i);
          delivered.push_back(i);
        },
        [&](size_t done) { progress.push_back(done); });
    ASSERT_EQ(delivered.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(delivered[i], i);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), n);
  }
}

TEST(RunInInputOrderTest, NothingToDo) {
  bool called = false;
  RunInInputOrder<int>(
      0, 4, [&](size_t) { called = true; return std::make_unique<int>(0); },
      [&](size_t, std::unique_ptr<int>) { called = true; }, nullptr);
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace hloff
