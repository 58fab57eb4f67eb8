// The counts alone (run_neighbour_stats with StatsFields::CountsOnly) on the CPU grid without
// pairs (count_on_cpu_grid) against a brute-force count of every pair: many work units on several
// threads, both sides of two-input joins, self-joins in both modes, lattices with distances
// exactly at eps, duplicates, non-finite points, a stop; each case checks that the grid counted
// (no batch) where it should, and that other algorithms still give the same counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/distance.h"
#include "join_scenarios.h"
#include "engine/aggregates/neighbour_stats.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

std::vector<std::uint64_t> oracle_counts(const Points& counted, const Points* partners,
                                         const JoinSpec& spec) {
  const Points& others = partners ? *partners : counted;
  std::vector<std::uint64_t> counts(counted.n(), 0);
  for (std::size_t i = 0; i < counted.n(); ++i)
    for (std::size_t j = 0; j < others.n(); ++j) {
      if (!partners && spec.self_pairs == SelfPairs::Unique && i == j) continue;
      counts[i] += exact_distance(counted.set().point(i), others.set().point(j), counted.dim,
                                  spec.metric) <= spec.eps;
    }
  return counts;
}

// The grid forced: Auto gives small joins to brute force.
JoinSpec grid_spec(double eps, Metric metric = Metric::Euclidean, SelfPairs mode = SelfPairs::All) {
  JoinSpec spec = cpu_spec(eps, metric, mode);
  spec.algorithm = Algorithm::Grid;
  return spec;
}

bool counted_on_grid(const JoinStats& join) {
  return join.algorithm == "grid" && join.batches == 0 &&
         std::any_of(join.phase_seconds.begin(), join.phase_seconds.end(),
                     [](const auto& phase) { return phase.first == "count"; });
}

// Counts of `left` (side Left) or of `right` (side Right), or of a self-join's points.
void expect_counts(const Points& left, const Points* right, const JoinSpec& spec,
                   StatsSide side = StatsSide::Left, bool on_grid = true) {
  const PointSet right_set = right ? right->set() : PointSet{};
  const NeighbourStats got =
      run_neighbour_stats(left.set(), right ? &right_set : nullptr, spec, side, nullptr, {}, {},
                          StatsFields::CountsOnly);
  const bool right_side = right && side == StatsSide::Right;
  const std::vector<std::uint64_t> want =
      oracle_counts(right_side ? *right : left, right ? (right_side ? &left : right) : nullptr, spec);
  EXPECT_EQ(std::vector<std::uint64_t>(got.count.begin(), got.count.end()), want);
  std::uint64_t pairs = 0;
  for (std::uint64_t c : want) pairs += c;
  if (!right && spec.self_pairs == SelfPairs::Unique) pairs /= 2;
  EXPECT_EQ(got.pairs, pairs);
  EXPECT_EQ(counted_on_grid(got.join), on_grid) << got.join.algorithm;
  EXPECT_FALSE(got.join.stopped);
}

TEST(GridCounts, ManyUnitsOnSeveralThreads) {
  const Points points = blob_points(12000, 2, 40, 1.0, 5);
  const Points other = uniform_points(8000, 2, 0.0, 100.0, 6);
  JoinSpec spec = grid_spec(0.3);
  spec.threads = 4;
  expect_counts(points, nullptr, spec);
  expect_counts(points, &other, spec, StatsSide::Left);
  expect_counts(points, &other, spec, StatsSide::Right);
  spec.self_pairs = SelfPairs::Unique;
  expect_counts(points, nullptr, spec);
}

TEST(GridCounts, PairsExactlyAtEps) {
  for (std::size_t dim : {1, 2, 3}) {
    const Points lattice = lattice_points(dim == 3 ? 12 : (dim == 2 ? 40 : 400), dim, 0.1, 0.3);
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev})
      for (double eps : {0.0, 0.1, 0.2}) {
        expect_counts(lattice, nullptr, grid_spec(eps, metric));
        expect_counts(lattice, nullptr, grid_spec(eps, metric, SelfPairs::Unique));
      }
  }
}

TEST(GridCounts, DuplicatesAndNonFinitePoints) {
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    expect_counts(exact_duplicates(600), nullptr, grid_spec(0.0, Metric::Euclidean, mode));
    expect_counts(exact_duplicates(600), nullptr, grid_spec(0.5, Metric::Euclidean, mode));
    expect_counts(with_non_finite(700, 4), nullptr, grid_spec(1.5, Metric::Euclidean, mode));
  }
  const Points mixed = with_non_finite(700, 4), other = with_non_finite(300, 5);
  expect_counts(mixed, &other, grid_spec(1.5), StatsSide::Left);
  expect_counts(mixed, &other, grid_spec(1.5), StatsSide::Right);
}

// Where run_join would not run the grid the counts come from its pairs, the same numbers.
TEST(GridCounts, OtherAlgorithmsCountTheSame) {
  const Points left = blob_points(400, 3, 4, 0.5, 7), right = blob_points(300, 3, 4, 0.5, 8);
  for (Algorithm algorithm : {Algorithm::BruteForce, Algorithm::Szl}) {
    JoinSpec spec = cpu_spec(0.4);
    spec.algorithm = algorithm;
    expect_counts(left, &right, spec, StatsSide::Left, false);
    expect_counts(left, nullptr, spec, StatsSide::Left, false);
  }
  expect_counts(left, &right, cpu_spec(0.4, Metric::Cosine), StatsSide::Left, false);
  expect_counts(left, nullptr, cpu_spec(std::numeric_limits<double>::infinity()), StatsSide::Left,
                false);
}

// keep_going false stops the count (a query cancel): 4e8 candidates in one cell end at once.
TEST(GridCounts, KeepGoingStops) {
  const Points cell = huge_cell();
  const auto start = Clock::now();
  JoinSpec spec = cpu_spec(1.0);
  spec.algorithm = Algorithm::Grid;
  const NeighbourStats stats = run_neighbour_stats(cell.set(), nullptr, spec, StatsSide::Left,
                                                   nullptr, [] { return false; }, {},
                                                   StatsFields::CountsOnly);
  EXPECT_TRUE(stats.join.stopped);
  EXPECT_LT(seconds_since(start), 5.0);
}

}  // namespace
}  // namespace simjoin::testing
