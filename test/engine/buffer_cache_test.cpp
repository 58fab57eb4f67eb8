// The engine's buffer cache (engine/parallel/buffer_cache.h) and FilledVector, whose large blocks it keeps:
// reuse of a freed block of a fitting size, the waste rule, the limit (oldest blocks dropped,
// 0: none kept), reused memory writable, threads allocating and freeing at once, and an
// allocation waiting for blocks freed in the background.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "engine/parallel/buffer_cache.h"
#include "engine/parallel/filled_vector.h"

namespace simjoin {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

class BufferCache : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = buffer_cache_limit();
    set_buffer_cache_limit(0);  // start empty
    set_buffer_cache_limit(64 * kMiB);
  }
  void TearDown() override { set_buffer_cache_limit(saved_); }

 private:
  std::size_t saved_ = 0;
};

// A join right after another: the first index's blocks, freed on a thread of their own, are the
// second's (its allocation waits for them rather than mapping fresh memory).
TEST_F(BufferCache, AllocationWaitsForABackgroundDisposal) {
  for (int round = 0; round < 20; ++round) {
    FilledVector<double> first(kMiB);  // 8 MiB
    std::memset(first.data(), 1, kMiB * sizeof(double));
    const double* block = first.data();
    dispose_in_background(std::move(first));
    FilledVector<double> second(kMiB);
    EXPECT_EQ(second.data(), block) << "round " << round;
  }
}

TEST_F(BufferCache, SmallBlocksAreNotKept) {
  void* block = cached_allocate(kCachedBlockMin - 1);
  std::memset(block, 1, kCachedBlockMin - 1);
  cached_deallocate(block, kCachedBlockMin - 1);
  EXPECT_EQ(buffer_cache_held(), 0u);
}

TEST_F(BufferCache, FreedBlockIsReusedBySimilarSize) {
  char* first = static_cast<char*>(cached_allocate(3 * kMiB + 100));
  std::memset(first, 7, 3 * kMiB + 100);
  cached_deallocate(first, 3 * kMiB + 100);
  EXPECT_EQ(buffer_cache_held(), 4 * kMiB);  // mapped sizes round up to 1 MiB
  char* second = static_cast<char*>(cached_allocate(3 * kMiB + 5000));
  EXPECT_EQ(second, first);
  EXPECT_EQ(buffer_cache_held(), 0u);
  // Whatever it holds (the old bytes, or zeros where the kernel took the pages), it is writable.
  for (std::size_t i = 0; i < 3 * kMiB + 5000; i += 4096) second[i] = static_cast<char>(i % 251);
  for (std::size_t i = 0; i < 3 * kMiB + 5000; i += 4096) EXPECT_EQ(second[i], static_cast<char>(i % 251));
  cached_deallocate(second, 3 * kMiB + 5000);
}

TEST_F(BufferCache, BlockMuchLargerThanAskedStaysKept) {
  void* large = cached_allocate(16 * kMiB);
  cached_deallocate(large, 16 * kMiB);
  void* small = cached_allocate(2 * kMiB);  // would waste 14 of 16 MiB
  EXPECT_NE(small, large);
  EXPECT_EQ(buffer_cache_held(), 16 * kMiB);
  cached_deallocate(small, 2 * kMiB);
  EXPECT_EQ(buffer_cache_held(), 18 * kMiB);
  // The smallest fitting block is taken: the 2 MiB one for 2 MiB.
  void* again = cached_allocate(2 * kMiB);
  EXPECT_EQ(again, small);
  cached_deallocate(again, 2 * kMiB);
}

TEST_F(BufferCache, LimitDropsOldestBlocks) {
  set_buffer_cache_limit(5 * kMiB);
  void* a = cached_allocate(2 * kMiB);
  void* b = cached_allocate(2 * kMiB);
  void* c = cached_allocate(2 * kMiB);
  cached_deallocate(a, 2 * kMiB);
  cached_deallocate(b, 2 * kMiB);
  EXPECT_EQ(buffer_cache_held(), 4 * kMiB);
  cached_deallocate(c, 2 * kMiB);  // 6 MiB > 5: a goes
  EXPECT_EQ(buffer_cache_held(), 4 * kMiB);
  void* d = cached_allocate(2 * kMiB);
  EXPECT_TRUE(d == b || d == c);
  cached_deallocate(d, 2 * kMiB);
  void* too_large = cached_allocate(8 * kMiB);  // over the limit by itself: never kept
  cached_deallocate(too_large, 8 * kMiB);
  EXPECT_EQ(buffer_cache_held(), 4 * kMiB);
  set_buffer_cache_limit(kMiB);  // lowering the limit drops what no longer fits
  EXPECT_EQ(buffer_cache_held(), 0u);
}

TEST_F(BufferCache, ZeroLimitKeepsNothing) {
  set_buffer_cache_limit(0);
  void* block = cached_allocate(4 * kMiB);
  cached_deallocate(block, 4 * kMiB);
  EXPECT_EQ(buffer_cache_held(), 0u);
}

TEST_F(BufferCache, FilledVectorKeepsItsBlock) {
  const double* address = nullptr;
  {
    FilledVector<double> v(1 << 19);  // 4 MiB
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    EXPECT_EQ(v[12345], 12345.0);
    address = v.data();
  }
  EXPECT_EQ(buffer_cache_held(), 4 * kMiB);
  FilledVector<double> w(1 << 19);
  EXPECT_EQ(w.data(), address);
  w.assign(w.size(), 2.5);  // a value given is still written
  EXPECT_EQ(w[777], 2.5);
  FilledVector<std::uint32_t> small(10, 3u);
  EXPECT_EQ(small[9], 3u);
}

TEST_F(BufferCache, ThreadsAllocateAndFreeAtOnce) {
  set_buffer_cache_limit(24 * kMiB);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &bad] {
      std::mt19937 random(t);
      for (int i = 0; i < 150; ++i) {
        const std::size_t bytes = kMiB + random() % (3 * kMiB);
        auto* block = static_cast<unsigned char*>(cached_allocate(bytes));
        block[0] = static_cast<unsigned char>(t);
        block[bytes - 1] = static_cast<unsigned char>(i);
        if (block[0] != t || block[bytes - 1] != static_cast<unsigned char>(i)) bad++;
        cached_deallocate(block, bytes);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(buffer_cache_held(), 24 * kMiB);
}

}  // namespace
}  // namespace simjoin
