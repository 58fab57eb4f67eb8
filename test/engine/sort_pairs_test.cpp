// sort_pairs_by_right (engine/parallel/pair_order.h): pairs sorted by (right, left), with their distances
// moved along where the batch keeps them (a certain bound reads them with the inner side on disk).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>
#include <algorithm>

#include "engine/parallel/pair_order.h"

namespace simjoin {
namespace {

TEST(SortPairsByRight, MovesDistancesAlong) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::uint32_t> index(0, 50);
  std::vector<std::uint32_t> left(500), right(500);
  std::vector<double> distance(500);
  std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> expected;
  for (std::size_t k = 0; k < left.size(); ++k) {
    left[k] = index(rng);
    right[k] = index(rng);
    distance[k] = left[k] * 1000.0 + right[k];  // a function of the pair
    expected.emplace_back(right[k], left[k], distance[k]);
  }
  std::sort(expected.begin(), expected.end());
  std::vector<std::uint64_t> scratch;
  std::vector<std::pair<std::uint64_t, double>> keyed;
  sort_pairs_by_right(left.data(), right.data(), distance.data(), left.size(), scratch, keyed);
  for (std::size_t k = 0; k < left.size(); ++k)
    EXPECT_EQ(std::make_tuple(right[k], left[k], distance[k]), expected[k]) << k;
  // Without distances: the pairs alone.
  std::shuffle(left.begin(), left.end(), rng);
  std::vector<std::uint32_t> right_copy = right;
  sort_pairs_by_right(left.data(), right_copy.data(), nullptr, left.size(), scratch, keyed);
  EXPECT_TRUE(std::is_sorted(right_copy.begin(), right_copy.end()));
}

}  // namespace
}  // namespace simjoin
