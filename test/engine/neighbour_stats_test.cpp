// run_neighbour_stats against a brute-force fold of every pair: counts, min / max distances (bits),
// the nearest partner with ties broken by rank, the pair count; every metric, dimensions 1-64,
// self-joins in both modes, both sides of a two-input join, ties, empty sides, points without
// partners, non-finite points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/distance.h"
#include "join_scenarios.h"
#include "engine/aggregates/neighbour_stats.h"
#include "random_join_cases.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

bool same_double(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// The stats by definition: every partner of every point of `side` in a double loop.
NeighbourStats oracle_stats(const Points& left, const Points* right, const JoinSpec& spec,
                            StatsSide side, const std::vector<std::uint64_t>* ranks) {
  const bool self = right == nullptr;
  const Points& points = (self || side == StatsSide::Left) ? left : *right;
  const Points& partners = self ? left : (side == StatsSide::Left ? *right : left);
  NeighbourStats stats;
  stats.count.assign(points.n(), 0);
  stats.min_distance.assign(points.n(), std::nan(""));
  stats.max_distance.assign(points.n(), std::nan(""));
  stats.nearest.assign(points.n(), kNoPartner);
  auto rank = [&](std::size_t j) { return ranks ? (*ranks)[j] : j; };
  for (std::size_t i = 0; i < points.n(); ++i) {
    for (std::size_t j = 0; j < partners.n(); ++j) {
      if (self && spec.self_pairs == SelfPairs::Unique && i == j) continue;
      const double d = exact_distance(points.set().point(i), partners.set().point(j), points.dim,
                                      spec.metric);
      if (!(d <= spec.eps)) continue;
      ++stats.pairs;
      ++stats.count[i];
      if (stats.count[i] == 1 || d > stats.max_distance[i]) stats.max_distance[i] = d;
      const std::uint32_t held = stats.nearest[i];
      if (stats.count[i] == 1 || d < stats.min_distance[i] ||
          (d == stats.min_distance[i] && std::make_tuple(rank(j), j) <
                                             std::make_tuple(rank(held), std::size_t{held}))) {
        stats.min_distance[i] = d;
        stats.nearest[i] = static_cast<std::uint32_t>(j);
      }
    }
  }
  if (self && spec.self_pairs == SelfPairs::Unique) stats.pairs /= 2;
  return stats;
}

NeighbourStats expect_stats_match(const Points& left, const Points* right, const JoinSpec& spec,
                                  StatsSide side, const std::vector<std::uint64_t>* ranks = nullptr) {
  const PointSet right_set = right ? right->set() : PointSet{};
  const NeighbourStats got = run_neighbour_stats(left.set(), right ? &right_set : nullptr, spec,
                                                 side, ranks ? ranks->data() : nullptr);
  const NeighbourStats want = oracle_stats(left, right, spec, side, ranks);
  EXPECT_EQ(got.pairs, want.pairs);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.nearest, want.nearest);
  EXPECT_EQ(got.min_distance.size(), want.min_distance.size());
  for (std::size_t i = 0; i < got.min_distance.size() && i < want.min_distance.size(); ++i) {
    if (!same_double(got.min_distance[i], want.min_distance[i]) ||
        !same_double(got.max_distance[i], want.max_distance[i])) {
      ADD_FAILURE() << "point " << i << ": min " << got.min_distance[i] << " vs "
                    << want.min_distance[i] << ", max " << got.max_distance[i] << " vs "
                    << want.max_distance[i];
      break;
    }
  }
  // The global count is the pair count of the join in that mode (run_join's own).
  EXPECT_EQ(got.pairs, oracle_collect(left, right, spec).size());
  // Counts only: the same counts and pair count, no other field.
  const NeighbourStats counted =
      run_neighbour_stats(left.set(), right ? &right_set : nullptr, spec, side,
                          ranks ? ranks->data() : nullptr, {}, {}, StatsFields::CountsOnly);
  EXPECT_EQ(counted.count, want.count);
  EXPECT_EQ(counted.pairs, want.pairs);
  EXPECT_TRUE(counted.min_distance.empty() && counted.nearest.empty());
  // The pair count only: no per-point array.
  const NeighbourStats paired =
      run_neighbour_stats(left.set(), right ? &right_set : nullptr, spec, side,
                          ranks ? ranks->data() : nullptr, {}, {}, StatsFields::PairsOnly);
  EXPECT_EQ(paired.pairs, want.pairs);
  EXPECT_TRUE(paired.count.empty() && paired.min_distance.empty() && paired.nearest.empty());
  return got;
}

class NeighbourStatsRandom : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(NeighbourStatsRandom, MatchesBruteForce) {
  const RandomJoinInputs in = random_join_inputs(GetParam(), {120, 300}, {100, 260});
  for (StatsSide side : {StatsSide::Left, StatsSide::Right}) {
    if (in.self && side == StatsSide::Right) continue;
    expect_stats_match(in.left, in.right_input(), cpu_spec(in.eps, in.metric, in.mode), side);
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, NeighbourStatsRandom,
                         random_join_params(::testing::Values(1, 2, 3, 8, 64)),
                         random_join_name);

TEST(NeighbourStats, EveryAlgorithm) {
  const Points left = blob_points(400, 3, 4, 0.5, 7), right = blob_points(300, 3, 4, 0.5, 8);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce, Algorithm::Szl}) {
    JoinSpec spec = cpu_spec(0.4);
    spec.algorithm = algorithm;
    spec.batch_pairs = 64;  // many batches
    expect_stats_match(left, &right, spec, StatsSide::Left);
    expect_stats_match(left, &right, spec, StatsSide::Right);
    spec.self_pairs = SelfPairs::All;
    expect_stats_match(left, nullptr, spec, StatsSide::Left);
  }
}

// A self-join in All mode counts each point itself: its count is Unique's plus one, its nearest
// partner itself (distance 0) unless a duplicate has a smaller rank.
TEST(NeighbourStats, SelfJoinModes) {
  const Points points = uniform_points(500, 2, 0.0, 1.0, 3);
  const NeighbourStats all =
      expect_stats_match(points, nullptr, cpu_spec(0.05, Metric::Euclidean, SelfPairs::All),
                         StatsSide::Left);
  const NeighbourStats unique =
      expect_stats_match(points, nullptr, cpu_spec(0.05, Metric::Euclidean, SelfPairs::Unique),
                         StatsSide::Left);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < points.n(); ++i) {
    EXPECT_EQ(all.count[i], unique.count[i] + 1);
    EXPECT_EQ(all.nearest[i], i);
    EXPECT_EQ(all.min_distance[i], 0.0);
    sum += unique.count[i];
  }
  EXPECT_EQ(unique.pairs * 2, sum);
  EXPECT_EQ(all.pairs, sum + points.n());
}

// Lattice points and exact duplicates: many partners at the same minimum distance; the nearest
// one is the smallest rank (reversed or shuffled ranks), else the smallest index.
TEST(NeighbourStats, TiesGoToTheSmallestRank) {
  const Points lattice = lattice_points(6, 2, 0.5, 1.0);
  const Points duplicates = exact_duplicates(90);
  for (const Points* points : {&lattice, &duplicates}) {
    std::vector<std::uint64_t> reversed(points->n()), shuffled(points->n());
    std::iota(shuffled.begin(), shuffled.end(), 0u);
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
    for (std::size_t i = 0; i < points->n(); ++i) reversed[i] = points->n() - 1 - i;
    const std::vector<std::uint64_t> constant(points->n(), 7);  // every rank equal: the index
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
        const JoinSpec spec = cpu_spec(0.5, metric, mode);
        for (const auto* ranks : std::vector<const std::vector<std::uint64_t>*>{&reversed, &shuffled, &constant}) {
          expect_stats_match(*points, nullptr, spec, StatsSide::Left, ranks);
        }
      }
      // Two inputs: ranks are the other side's.
      const Points half{points->dim, std::vector<double>(points->coords.begin(),
                                                         points->coords.begin() + points->dim * 20)};
      std::vector<std::uint64_t> half_reversed(20);
      for (std::size_t i = 0; i < 20; ++i) half_reversed[i] = 19 - i;
      expect_stats_match(*points, &half, cpu_spec(0.5, metric), StatsSide::Left, &half_reversed);
      expect_stats_match(*points, &half, cpu_spec(0.5, metric), StatsSide::Right, &reversed);
    }
  }
  // Duplicates with reversed ranks: the nearest partner is the last copy, not the first.
  std::vector<std::uint64_t> reversed(duplicates.n());
  for (std::size_t i = 0; i < duplicates.n(); ++i) reversed[i] = duplicates.n() - 1 - i;
  const PointSet set = duplicates.set();
  const NeighbourStats stats = run_neighbour_stats(set, nullptr, cpu_spec(0.0), StatsSide::Left,
                                                   reversed.data());
  EXPECT_EQ(stats.nearest[0], 75u);  // copies of point 0's value: 0, 15, ..., 75
  EXPECT_EQ(stats.count[0], 6u);
}

TEST(NeighbourStats, EmptySides) {
  const Points points = uniform_points(50, 3, 0.0, 1.0, 1);
  const Points empty{3, {}};
  const NeighbourStats left_empty = expect_stats_match(empty, &points, cpu_spec(0.5), StatsSide::Left);
  EXPECT_TRUE(left_empty.count.empty());
  const NeighbourStats right_of_empty =
      expect_stats_match(empty, &points, cpu_spec(0.5), StatsSide::Right);
  ASSERT_EQ(right_of_empty.count.size(), 50u);
  EXPECT_EQ(right_of_empty.pairs, 0u);
  expect_stats_match(points, &empty, cpu_spec(0.5), StatsSide::Left);
  expect_stats_match(empty, nullptr, cpu_spec(0.5), StatsSide::Left);
}

// Points without partners: count 0, NaN distances, kNoPartner; NaN and infinite coordinates
// never match, not even themselves.
TEST(NeighbourStats, PointsWithoutPartners) {
  const Points left = uniform_points(40, 2, 0.0, 1.0, 2), right = uniform_points(40, 2, 5.0, 6.0, 3);
  const NeighbourStats stats = expect_stats_match(left, &right, cpu_spec(1.0), StatsSide::Left);
  for (std::size_t i = 0; i < left.n(); ++i) {
    EXPECT_EQ(stats.count[i], 0u);
    EXPECT_TRUE(std::isnan(stats.min_distance[i]) && std::isnan(stats.max_distance[i]));
    EXPECT_EQ(stats.nearest[i], kNoPartner);
  }
  const Points odd = with_non_finite(300, 4);
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    const NeighbourStats self =
        expect_stats_match(odd, nullptr, cpu_spec(2.0, Metric::Euclidean, mode), StatsSide::Left);
    EXPECT_EQ(self.count[0], 0u);  // point 0 has a NaN coordinate
    EXPECT_EQ(self.nearest[0], kNoPartner);
  }
  const Points finite = uniform_points(100, 3, 0.0, 10.0, 5);
  expect_stats_match(odd, &finite, cpu_spec(2.0), StatsSide::Left);
  expect_stats_match(odd, &finite, cpu_spec(2.0), StatsSide::Right);
}

}  // namespace
}  // namespace simjoin::testing

namespace simjoin::testing {
namespace {

// keep_going false stops the join (a query cancel): 4e8 pairs in one cell end at once.
TEST(NeighbourStats, KeepGoingStops) {
  const Points cell = huge_cell();
  const PointSet set = cell.set();
  const auto start = Clock::now();
  const NeighbourStats stats = run_neighbour_stats(set, nullptr, cpu_spec(1.0), StatsSide::Left,
                                                   nullptr, [] { return false; });
  EXPECT_TRUE(stats.join.stopped);
  EXPECT_LT(seconds_since(start), 5.0);
}

}  // namespace
}  // namespace simjoin::testing

namespace simjoin::testing {
namespace {

// The fold reports its candidates done on the calling thread, never decreasing, at most the
// join's candidates: the folded pairs (every field) and the grid's counts without pairs.
TEST(NeighbourStats, ReportsProgressOnTheCallingThread) {
  const Points points = uniform_points(60000, 2, 0.0, 100.0, 17);
  const PointSet set = points.set();
  for (StatsFields fields : {StatsFields::All, StatsFields::CountsOnly}) {
    JoinSpec spec = cpu_spec(1.0);
    spec.threads = 2;
    spec.algorithm = Algorithm::Grid;
    std::vector<std::uint64_t> reports;
    const std::thread::id caller = std::this_thread::get_id();
    bool other_thread = false;
    const NeighbourStats stats = run_neighbour_stats(
        set, nullptr, spec, StatsSide::Left, nullptr, {}, {}, fields, [&](std::uint64_t done) {
          other_thread = other_thread || std::this_thread::get_id() != caller;
          reports.push_back(done);
        });
    SCOPED_TRACE(static_cast<int>(fields));
    EXPECT_FALSE(other_thread);
    ASSERT_FALSE(reports.empty());
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_LE(reports.back(), stats.join.candidates);
    EXPECT_GT(stats.join.candidates, 0u);
  }
}

}  // namespace
}  // namespace simjoin::testing
