// parallel_for_ranges: every item once, and no exception crosses a thread (an engine worker's
// std::bad_alloc becomes the caller's exception instead of std::terminate ending the process).
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "engine/parallel/worker_thread.h"

namespace simjoin::testing {
namespace {

constexpr std::size_t kItems = 4 * 65536 + 17;

TEST(ParallelForRanges, CoversEveryItemOnce) {
  for (int threads : {1, 2, 4, 8}) {
    std::vector<std::atomic<int>> seen(kItems);
    parallel_for_ranges(kItems, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < kItems; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  }
}

TEST(ParallelForRanges, WorkerExceptionReachesTheCaller) {
  std::atomic<int> parts{0};
  EXPECT_THROW(parallel_for_ranges(kItems, 4,
                                   [&](std::size_t begin, std::size_t) {
                                     parts.fetch_add(1);
                                     if (begin > 0) throw std::bad_alloc();
                                   }),
               std::bad_alloc);
  EXPECT_EQ(parts.load(), 4);  // every part ran to its end before the rethrow
}

TEST(ParallelForRanges, CallerExceptionWaitsForTheWorkers) {
  std::atomic<int> finished{0};
  EXPECT_THROW(parallel_for_ranges(kItems, 4,
                                   [&](std::size_t begin, std::size_t) {
                                     if (begin == 0) throw std::runtime_error("part 0");
                                     finished.fetch_add(1);
                                   }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 3);
}

}  // namespace
}  // namespace simjoin::testing
