#include "engine/join/pair_grouping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace simjoin {
namespace {

// Grouped by left, ranges as start says, and the same multiset of pairs.
void check_grouping(std::vector<std::uint32_t> left, std::vector<std::uint32_t> right,
                    std::uint32_t n_keys) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> before;
  for (std::size_t i = 0; i < left.size(); ++i) before.emplace_back(left[i], right[i]);
  std::vector<std::uint64_t> start(n_keys + 1);
  std::vector<std::uint32_t> grouped(right.size());
  group_pairs_by_left(left.data(), right.data(), left.size(), n_keys, start.data(), grouped.data());
  right = grouped;
  ASSERT_EQ(start[0], 0u);
  ASSERT_EQ(start[n_keys], left.size());
  for (std::uint32_t k = 0; k < n_keys; ++k)
    for (std::uint64_t i = start[k]; i < start[k + 1]; ++i) ASSERT_EQ(left[i], k) << "pair " << i;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> after;
  for (std::size_t i = 0; i < left.size(); ++i) after.emplace_back(left[i], right[i]);
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(before, after);
}

TEST(PairGrouping, Empty) { check_grouping({}, {}, 3); check_grouping({}, {}, 0); }

TEST(PairGrouping, OneKeyAndReversed) {
  check_grouping({0, 0, 0}, {5, 6, 7}, 1);
  check_grouping({4, 3, 2, 1, 0}, {0, 1, 2, 3, 4}, 5);
  check_grouping({2, 2, 0, 0, 1, 1}, {1, 2, 3, 4, 5, 6}, 4);  // key 3 without a pair
}

TEST(PairGrouping, Random) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const std::uint32_t n_keys = 1 + rng() % 300;
    const std::size_t n = rng() % 5000;
    std::vector<std::uint32_t> left(n), right(n);
    for (std::size_t i = 0; i < n; ++i) {
      left[i] = rng() % (round % 2 ? n_keys : std::min<std::uint32_t>(n_keys, 3));
      right[i] = static_cast<std::uint32_t>(rng());
    }
    check_grouping(left, right, n_keys);
  }
}

}  // namespace
}  // namespace simjoin
