// sort_keys_with_ids against std::stable_sort: keys of every width (the packed one-word path and
// the two-word path), duplicates, digits that every key shares (skipped passes), and inputs large
// enough to split over several threads; build_cell_index gives the same index on any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "engine/join/cell_index.h"
#include "engine/join/grid_plan.h"
#include "engine/parallel/radix_sort.h"

namespace simjoin::testing {
namespace {

// The expected order: by key, stably.
void expect_sorted_like_stable_sort(std::vector<std::uint64_t> keys, std::vector<std::uint32_t> ids,
                                    int key_bits, int threads) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> expected(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = {keys[i], ids[i]};
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  sort_keys_with_ids(keys, ids, key_bits, threads);
  ASSERT_EQ(keys.size(), expected.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(keys[i], expected[i].first) << "position " << i << ", " << key_bits << " bits";
    ASSERT_EQ(ids[i], expected[i].second) << "position " << i << ", " << key_bits << " bits";
  }
}

// n keys key_of(i), ids 0..n-1.
template <typename KeyOf>
std::pair<std::vector<std::uint64_t>, std::vector<std::uint32_t>> keyed_ids(std::size_t n,
                                                                             const KeyOf& key_of) {
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint32_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = key_of(i);
    ids[i] = static_cast<std::uint32_t>(i);
  }
  return {std::move(keys), std::move(ids)};
}

TEST(RadixSort, MatchesStableSortForEveryKeyWidth) {
  std::mt19937_64 rng(7);
  for (int key_bits : {1, 5, 11, 12, 22, 30, 33, 44, 45, 52, 63, 64}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000},
                          std::size_t{200000}}) {
      const std::uint64_t mask =
          key_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << key_bits) - 1;
      // Few distinct keys (duplicates), their ids shuffled: stability shows.
      std::vector<std::uint64_t> distinct(std::max<std::size_t>(1, n / 4));
      for (std::uint64_t& k : distinct) k = rng() & mask;
      auto [keys, ids] = keyed_ids(n, [&](std::size_t) { return distinct[rng() % distinct.size()]; });
      std::shuffle(ids.begin(), ids.end(), rng);
      for (int threads : {1, 3}) expect_sorted_like_stable_sort(keys, ids, key_bits, threads);
    }
  }
}

TEST(RadixSort, LargeIdsTakeTheTwoWordPath) {
  // 40-bit keys and ids up to 2^32 - 1 do not fit one word.
  std::mt19937_64 rng(11);
  auto [keys, ids] = keyed_ids(150000, [&](std::size_t i) {
    return (rng() & ((std::uint64_t{1} << 40) - 1)) >> (i % 3 == 0 ? 30 : 0);
  });
  for (std::uint32_t& id : ids) id = static_cast<std::uint32_t>(rng());
  ids[0] = std::numeric_limits<std::uint32_t>::max();
  for (int threads : {1, 4}) expect_sorted_like_stable_sort(keys, ids, 40, threads);
}

TEST(RadixSort, SharedDigitsAreSkippedWithoutChangingTheResult) {
  // Every key has the same middle and high digits: only the lowest digit's pass moves items.
  std::mt19937_64 rng(3);
  const std::size_t n = 140000;
  auto [keys, ids] =
      keyed_ids(n, [&](std::size_t) { return (std::uint64_t{0x5A5} << 33) | (rng() & 0x7FF); });
  for (int threads : {1, 2}) expect_sorted_like_stable_sort(keys, ids, 44, threads);
  std::vector<std::uint64_t> same(n, 12345);  // one key: no pass at all
  expect_sorted_like_stable_sort(same, ids, 14, 2);
}

TEST(RadixSort, BitWidth) {
  EXPECT_EQ(bit_width(0), 0);
  EXPECT_EQ(bit_width(1), 1);
  EXPECT_EQ(bit_width(2047), 11);
  EXPECT_EQ(bit_width(2048), 12);
  EXPECT_EQ(bit_width(~std::uint64_t{0}), 64);
}

TEST(CellIndex, SameIndexOnAnyThreadCount) {
  // 2-D and 3-D sets large enough to split over threads, with non-finite points dropped.
  std::mt19937_64 rng(5);
  for (std::size_t dim : {std::size_t{2}, std::size_t{3}}) {
    const std::size_t n = 180000;
    std::vector<double> coords(n * dim);
    std::uniform_real_distribution<double> u(0.0, 300.0);
    for (double& c : coords) c = std::floor(u(rng) * 4.0) / 4.0;  // duplicates
    coords[5 * dim] = std::numeric_limits<double>::quiet_NaN();
    coords[77 * dim + 1] = std::numeric_limits<double>::infinity();
    const PointSet set{coords.data(), n, dim};
    const GridPlan plan = plan_grid(set, nullptr, 1.0, Metric::Euclidean, 0, 1);
    const CellKeys keys(plan);
    const CellIndex one = build_cell_index(set, plan, keys, 1);
    EXPECT_EQ(one.point_count(), n - 2);
    EXPECT_TRUE(std::is_sorted(one.cell_keys.begin(), one.cell_keys.end()));
    for (int threads : {2, 4}) {
      const CellIndex many = build_cell_index(set, plan, keys, threads);
      EXPECT_EQ(many.ids, one.ids) << dim << "-D, " << threads << " threads";
      EXPECT_EQ(many.cell_keys, one.cell_keys);
      EXPECT_EQ(many.cell_begin, one.cell_begin);
      EXPECT_EQ(many.coords, one.coords);
      EXPECT_EQ(many.sort_coord, one.sort_coord);
    }
    // Within a cell, ids ascend (or follow the SORTIDU coordinate, ties by id).
    for (std::size_t c = 0; c < one.cell_count(); ++c) {
      for (std::size_t s = one.cell_begin[c] + 1; s < one.cell_begin[c + 1]; ++s) {
        const double before = one.sort_coord.empty() ? 0.0 : one.sort_coord[s - 1];
        const double here = one.sort_coord.empty() ? 0.0 : one.sort_coord[s];
        ASSERT_TRUE(before < here || (before == here && one.ids[s - 1] < one.ids[s])) << s;
      }
    }
  }
}

}  // namespace
}  // namespace simjoin::testing
