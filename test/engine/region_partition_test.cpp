// Regions for one join split over several workers: every pair within eps is found exactly once,
// in its first point's home region, and PW balances skewed work better than PQ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "engine/partition/region_partition.h"
#include "oracle.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

// Each region's part of the join of left (its home points) with right (its home and halo
// points), gathered: the pairs every worker would report, in the original indices.
std::vector<Pair> joined_by_regions(const Points& left, const Points* right,
                                    const RegionPartition& partition, Metric metric, double eps) {
  const Points& other = right ? *right : left;
  std::vector<Pair> pairs;
  std::vector<std::size_t> reach;
  std::vector<std::vector<std::size_t>> stored(partition.regions());  // right side per region
  for (std::size_t j = 0; j < other.n(); ++j) {
    partition.reach(other.coords.data() + j * other.dim, other.dim, &reach);
    for (std::size_t r : reach) stored[r].push_back(j);
  }
  for (std::size_t i = 0; i < left.n(); ++i) {
    const double* a = left.coords.data() + i * left.dim;
    const std::size_t home = partition.home(a, left.dim);
    for (std::size_t j : stored[home]) {
      const double d = exact_distance(a, other.coords.data() + j * other.dim, left.dim, metric);
      if (d <= eps) {
        pairs.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), d});
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

void expect_regions_join_exactly(const Points& left, const Points* right, Metric metric,
                                 double eps, std::size_t regions, RegionSplit split) {
  RegionPlanOptions options;
  options.regions = regions;
  options.split = split;
  options.metric = metric;
  options.eps = eps;
  const RegionPartition partition = plan_regions(left.set(), options);
  ASSERT_EQ(partition.regions(), regions);
  const std::vector<Pair> by_regions = joined_by_regions(left, right, partition, metric, eps);
  const PointSet right_set = right ? right->set() : PointSet{};
  const std::vector<Pair> expected =
      oracle_join(left.set(), right ? &right_set : nullptr, cpu_spec(eps, metric));
  ASSERT_FALSE(expected.empty());
  // Equal as sorted lists: nothing missing and nothing twice.
  EXPECT_EQ(by_regions, expected) << regions << " regions, metric " << static_cast<int>(metric);
}

TEST(RegionPartition, EveryPointHasOneHomeInsideItsBox) {
  const Points points = blob_points(2000, 3, 5, 2.0, 7);
  for (std::size_t regions : {1, 2, 3, 5, 8}) {
    RegionPlanOptions options;
    options.regions = regions;
    options.eps = 1.0;
    const RegionPartition partition = plan_regions(points.set(), options);
    ASSERT_EQ(partition.regions(), regions);
    std::vector<std::size_t> homes(regions);
    for (std::size_t i = 0; i < points.n(); ++i) {
      const double* p = points.coords.data() + i * points.dim;
      const std::size_t home = partition.home(p, points.dim);
      ++homes[home];
      std::size_t holding = 0;
      for (const RegionBox& box : partition.boxes()) {
        bool inside = true;
        for (std::size_t a = 0; a < partition.dims().size(); ++a) {
          const double x = p[partition.dims()[a]];
          inside = inside && box.lower[a] <= x && x < box.upper[a];
        }
        holding += inside;
      }
      EXPECT_EQ(holding, 1u);
    }
    // Point quantiles of work on blobs: no region is empty.
    for (std::size_t r = 0; r < regions; ++r) EXPECT_GT(homes[r], 0u) << regions << " " << r;
  }
}

TEST(RegionPartition, SelfJoinOverRegionsEqualsTheJoin) {
  const Points uniform = uniform_points(700, 2, 0.0, 10.0, 3);
  const Points blobs = blob_points(700, 4, 3, 0.5, 11);
  const Points lattice = lattice_points(24, 2, 0.5, -3.0);  // pairs at exactly eps = 0.5
  for (RegionSplit split : {RegionSplit::Points, RegionSplit::Work}) {
    for (std::size_t regions : {1, 2, 3, 4, 7}) {
      expect_regions_join_exactly(uniform, nullptr, Metric::Euclidean, 0.6, regions, split);
      expect_regions_join_exactly(blobs, nullptr, Metric::Euclidean, 0.4, regions, split);
      expect_regions_join_exactly(lattice, nullptr, Metric::Euclidean, 0.5, regions, split);
      expect_regions_join_exactly(lattice, nullptr, Metric::Manhattan, 1.0, regions, split);
      expect_regions_join_exactly(lattice, nullptr, Metric::Chebyshev, 0.5, regions, split);
      expect_regions_join_exactly(blobs, nullptr, Metric::Cosine, 0.001, regions, split);
    }
  }
}

TEST(RegionPartition, TwoTablesOverTheLeftTablesRegions) {
  const Points left = exponential_points(600, 8, 40.0, 5);
  const Points right = exponential_points(500, 8, 40.0, 6);
  for (std::size_t regions : {2, 4, 6}) {
    expect_regions_join_exactly(left, &right, Metric::Euclidean, 0.03, regions, RegionSplit::Work);
    expect_regions_join_exactly(left, &right, Metric::Cosine, 0.01, regions, RegionSplit::Points);
  }
}

TEST(RegionPartition, DuplicatesAndPartnersAtExactlyEps) {
  Points points = with_partners_at(uniform_points(300, 3, 0.0, 1.0, 9), 0.125, 10);
  const std::size_t n = points.n();
  points.coords.insert(points.coords.end(), points.coords.begin(),
                       points.coords.begin() + 3 * 100);  // 100 duplicates
  ASSERT_EQ(points.n(), n + 100);
  for (std::size_t regions : {2, 5}) {
    expect_regions_join_exactly(points, nullptr, Metric::Euclidean, 0.125, regions,
                                RegionSplit::Work);
    expect_regions_join_exactly(points, nullptr, Metric::Euclidean, 0.0, regions,
                                RegionSplit::Points);
  }
}

TEST(RegionPartition, PointsWithoutPlaceMatchNothingAndInfiniteEpsReachesEverywhere) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Points points = uniform_points(200, 2, 0.0, 1.0, 4);
  RegionPlanOptions options;
  options.regions = 4;
  options.eps = 0.1;
  RegionPartition partition = plan_regions(points.set(), options);
  std::vector<std::size_t> reach;
  const double nan_point[2] = {nan, 0.5};
  partition.reach(nan_point, 2, &reach);
  EXPECT_EQ(reach, std::vector<std::size_t>{0});
  const double far_point[2] = {inf, -inf};
  partition.reach(far_point, 2, &reach);
  EXPECT_EQ(reach.size(), 1u);  // infinitely far from every other box

  const RegionPartition everywhere(Metric::Euclidean, inf, partition.dims(), partition.boxes());
  everywhere.reach(far_point, 2, &reach);
  EXPECT_EQ(std::set<std::size_t>(reach.begin(), reach.end()).size(), 4u);
  options.regions = 0;
  EXPECT_THROW(plan_regions(points.set(), options), Error);
}

// The largest region's work (its pairs and points) over the mean: PW's is nearer 1 than PQ's on
// a skewed set (a dense cluster in a sparse field), as Alsabti, Ranka and Singh measured.
double work_imbalance(const Points& points, RegionSplit split, std::size_t regions, double eps) {
  RegionPlanOptions options;
  options.regions = regions;
  options.split = split;
  options.eps = eps;
  options.split_dims = 1;
  const RegionPartition partition = plan_regions(points.set(), options);
  std::vector<double> work(regions, 0.0);
  for (const Pair& pair : joined_by_regions(points, nullptr, partition, Metric::Euclidean, eps)) {
    work[partition.home(points.coords.data() + pair.l * points.dim, points.dim)] += 1.0;
  }
  double total = 0.0;
  for (double w : work) total += w;
  return *std::max_element(work.begin(), work.end()) / (total / regions);
}

TEST(RegionPartition, WorkQuantilesBalanceSkewBetterThanPointQuantiles) {
  Points points = uniform_points(1500, 2, 0.0, 100.0, 21);
  const Points cluster = blob_points(500, 2, 1, 0.3, 22);  // dense: most pairs
  points.coords.insert(points.coords.end(), cluster.coords.begin(), cluster.coords.end());
  const double pq = work_imbalance(points, RegionSplit::Points, 4, 1.0);
  const double pw = work_imbalance(points, RegionSplit::Work, 4, 1.0);
  EXPECT_GT(pq, 2.0);
  EXPECT_LT(pw, 1.6);
  EXPECT_LT(pw, pq);
}

}  // namespace
}  // namespace simjoin::testing
