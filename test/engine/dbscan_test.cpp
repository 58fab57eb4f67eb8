// run_dbscan against a brute-force DBSCAN: the same core, border and noise points, the same
// partition of the core points, every border point in the cluster of its smallest-index core
// neighbour, ids numbered by each cluster's smallest point; every metric, dimensions 1-64,
// lattices with neighbours at exactly eps, duplicates, min_points 0-2 edge cases, all noise, one
// cluster, empty input, non-finite points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/aggregates/dbscan.h"
#include "dbscan_oracle.h"
#include "engine/distance.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

using DbscanParam = std::tuple<int, Metric, std::uint64_t>;
class DbscanRandom : public ::testing::TestWithParam<DbscanParam> {};

TEST_P(DbscanRandom, MatchesBruteForce) {
  const auto [dim, metric, min_points] = GetParam();
  const unsigned seed = static_cast<unsigned>(dim * 13 + static_cast<int>(metric) * 5 + min_points);
  // Blobs of varied density and uniform background: core, border and noise points alike.
  Points points = blob_points(260, dim, 4, 0.6, seed);
  const Points background = uniform_points(80, dim, 0.0, 100.0, seed + 1);
  points.coords.insert(points.coords.end(), background.coords.begin(), background.coords.end());
  const double eps = eps_from_sample(points, metric) * 2;
  for (Algorithm algorithm :
       {Algorithm::Auto, Algorithm::Grid, Algorithm::BruteForce, Algorithm::Szl}) {
    JoinSpec spec = cpu_spec(eps, metric);
    spec.algorithm = algorithm;
    spec.batch_pairs = 100;
    expect_dbscan_matches(points, spec, min_points);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dims, DbscanRandom,
    ::testing::Combine(::testing::Values(1, 2, 3, 8, 64),
                       ::testing::Values(Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev,
                                         Metric::Cosine),
                       ::testing::Values<std::uint64_t>(1, 2, 4, 12)));

// Thousands of points in many small batches from two threads: pairs interleave arbitrarily.
TEST(Dbscan, ManyBatches) {
  Points points = blob_points(3500, 2, 12, 1.5, 31);
  const Points background = uniform_points(500, 2, 0.0, 100.0, 32);
  points.coords.insert(points.coords.end(), background.coords.begin(), background.coords.end());
  JoinSpec spec = cpu_spec(0.6);
  spec.batch_pairs = 257;
  for (std::uint64_t min_points : {3u, 8u, 20u}) {
    const DbscanResult r = expect_dbscan_matches(points, spec, min_points);
    EXPECT_GT(r.clusters, 1u);
    for (PointKind kind : {PointKind::Core, PointKind::Border, PointKind::Noise}) {
      EXPECT_GT(std::count(r.kind.begin(), r.kind.end(), kind), 0) << static_cast<int>(kind);
    }
  }
}

// A lattice with step 1 and eps 1: neighbours at exactly eps. In 2-D an interior point has 5
// neighbours (itself included), an edge point 4, a corner 3.
TEST(Dbscan, LatticeAtExactlyEps) {
  for (std::size_t dim : {1, 2, 3}) {
    const Points lattice = lattice_points(6, dim, 1.0, 0.25);
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (std::uint64_t min_points : {2u, 3u, 4u, 5u, 6u, 9u, 27u}) {
        expect_dbscan_matches(lattice, cpu_spec(1.0, metric), min_points);
      }
    }
  }
  // 2-D Euclidean, min_points 5: the interior core in one cluster, the edges borders, the
  // corners (no core neighbour) noise.
  const DbscanResult r = expect_dbscan_matches(lattice_points(6, 2, 1.0, 0.25), cpu_spec(1.0), 5);
  EXPECT_EQ(r.clusters, 1u);
  EXPECT_EQ(r.kind[0], PointKind::Noise);
  EXPECT_EQ(r.kind[1], PointKind::Border);
  EXPECT_EQ(r.kind[7], PointKind::Core);
}

// A border point between two clusters (1-D, eps 1, min_points 4) joins the cluster of its core
// neighbour with the smaller index, not the cluster numbered first: here cluster 0 starts at
// point 0 (the far side of 0.0), and the border point's core neighbours are 2.0 (index 3,
// cluster 1) and 0.0 (index 5, cluster 0).
TEST(Dbscan, BorderBetweenTwoClusters) {
  Points points{1, {-0.7, -0.6, -0.5, 2.0, 1.0, 0.0, 2.5, 2.6, 2.7}};
  DbscanResult r = expect_dbscan_matches(points, cpu_spec(1.0), 4);
  EXPECT_EQ(r.clusters, 2u);
  EXPECT_EQ(r.kind[4], PointKind::Border);
  EXPECT_EQ(r.cluster[0], 0);
  EXPECT_EQ(r.cluster[4], 1);
  std::swap(points.coords[3], points.coords[5]);  // now 0.0 (cluster 0) has the smaller index
  r = expect_dbscan_matches(points, cpu_spec(1.0), 4);
  EXPECT_EQ(r.cluster[4], 0);
}

TEST(Dbscan, Duplicates) {
  const Points points = exact_duplicates(60);  // 15 values, 4 copies each
  for (std::uint64_t min_points : {1u, 4u, 5u}) {
    const DbscanResult r = expect_dbscan_matches(points, cpu_spec(0.0), min_points);
    EXPECT_EQ(r.clusters, min_points <= 4 ? 15u : 0u);
  }
}

TEST(Dbscan, MinPointsEdgeCases) {
  const Points points = uniform_points(300, 2, 0.0, 1.0, 9);
  // min_points 0 and 1: every point core; isolated ones are clusters of their own.
  for (std::uint64_t min_points : {0u, 1u, 2u}) {
    const DbscanResult r = expect_dbscan_matches(points, cpu_spec(0.02), min_points);
    if (min_points <= 1) {
      for (PointKind kind : r.kind) EXPECT_EQ(kind, PointKind::Core);
      EXPECT_TRUE(r.counting.algorithm.empty());  // no counting join
    }
  }
}

TEST(Dbscan, AllNoiseOneClusterEmpty) {
  const Points points = uniform_points(200, 3, 0.0, 1.0, 4);
  const DbscanResult noise = expect_dbscan_matches(points, cpu_spec(1e-6), 2);
  EXPECT_EQ(noise.clusters, 0u);
  const DbscanResult one = expect_dbscan_matches(points, cpu_spec(10.0), 5);
  EXPECT_EQ(one.clusters, 1u);
  for (std::int64_t id : one.cluster) EXPECT_EQ(id, 0);
  const DbscanResult all = expect_dbscan_matches(
      points, cpu_spec(std::numeric_limits<double>::infinity()), 200);
  EXPECT_EQ(all.clusters, 1u);
  const DbscanResult none = expect_dbscan_matches(points, cpu_spec(201.0), 201);
  EXPECT_EQ(none.clusters, 0u);
  const DbscanResult empty = expect_dbscan_matches(Points{3, {}}, cpu_spec(1.0), 2);
  EXPECT_TRUE(empty.cluster.empty());
  EXPECT_EQ(empty.clusters, 0u);
  expect_dbscan_matches(points, cpu_spec(std::nan("")), 1);  // NaN eps: all noise
}

// NaN and infinite coordinates never match themselves: noise, also with min_points 1 (with an
// infinite eps a point with an infinite coordinate may be a border point).
TEST(Dbscan, NonFinitePoints) {
  const Points points = with_non_finite(300, 6);
  for (std::uint64_t min_points : {1u, 2u, 3u}) {
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev, Metric::Cosine}) {
      const DbscanResult r = expect_dbscan_matches(points, cpu_spec(2.0, metric), min_points);
      EXPECT_EQ(r.kind[0], PointKind::Noise);
      EXPECT_EQ(r.cluster[0], -1);
    }
    expect_dbscan_matches(points, cpu_spec(std::numeric_limits<double>::infinity()), min_points);
  }
}

// keep_going false stops either join; the result says so.
TEST(Dbscan, KeepGoingStops) {
  const Points cell = huge_cell();
  const PointSet set = cell.set();
  for (std::uint64_t min_points : {1u, 3u}) {  // 1: only the linking join runs
    const DbscanResult r = run_dbscan(set, cpu_spec(1.0), min_points, [] { return false; });
    EXPECT_TRUE(r.counting.stopped || r.linking.stopped);
    EXPECT_EQ(r.counting.stopped, min_points > 1);
  }
}

}  // namespace
}  // namespace simjoin::testing

namespace simjoin::testing {
namespace {

// DBSCAN reports its candidates done over both passes on the calling thread, never decreasing,
// at most the passes' candidates: on the grid (2-D) and on the joins (8-D).
TEST(Dbscan, ReportsProgressOnTheCallingThread) {
  for (std::size_t dim : {2, 8}) {
    const Points points = uniform_points(dim == 2 ? 60000 : 6000, dim, 0.0, dim == 2 ? 100.0 : 2.0, 19);
    JoinSpec spec = cpu_spec(dim == 2 ? 1.0 : 0.6);
    spec.threads = 2;
    std::vector<std::uint64_t> reports;
    const std::thread::id caller = std::this_thread::get_id();
    bool other_thread = false;
    const DbscanResult result =
        run_dbscan(points.set(), spec, 4, {}, {}, [&](std::uint64_t done) {
          other_thread = other_thread || std::this_thread::get_id() != caller;
          reports.push_back(done);
        });
    SCOPED_TRACE(dim);
    EXPECT_FALSE(other_thread);
    ASSERT_FALSE(reports.empty());
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_LE(reports.back(), result.counting.candidates + result.linking.candidates);
    EXPECT_GT(reports.back(), 0u);
  }
}

}  // namespace
}  // namespace simjoin::testing
