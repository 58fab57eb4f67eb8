// The grid DBSCAN (engine/aggregates/dbscan_grid.h) against the pair-based run_dbscan (forced with a runner) field
// by field, and against the brute-force oracle: dimensions 1-3, every metric it takes, dense
// cells, lattices at exactly eps and one ulp either side, cells' diagonal corners, duplicates,
// non-finite points, min_points edge cases, threads, cancellation, and when the grid applies.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/dbscan_grid.h"
#include "engine/aggregates/dbscan_grid_cells.h"
#include "dbscan_oracle.h"
#include "engine/engine.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

constexpr Metric kGridMetrics[] = {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev};

DbscanResult pair_dbscan(const Points& points, const JoinSpec& spec, std::uint64_t min_points) {
  const JoinRunner through_run_join = [](const PointSet& left, const PointSet* right,
                                         const JoinSpec& join_spec, PairSink& sink) {
    return run_join(left, right, join_spec, sink);
  };
  return run_dbscan(points.set(), spec, min_points, {}, through_run_join);
}

// The grid's result equals the pair path's field by field (and the oracle's, for small sets).
DbscanResult expect_grid_matches(const Points& points, const JoinSpec& spec,
                                 std::uint64_t min_points, bool oracle = true) {
  std::optional<DbscanResult> grid = run_dbscan_grid(points.set(), spec, min_points, {}, false);
  if (!grid) {
    ADD_FAILURE() << "the grid does not apply";
    return DbscanResult();
  }
  EXPECT_EQ(grid->linking.algorithm, "dbscan-grid");
  const DbscanResult pairs = pair_dbscan(points, spec, min_points);
  EXPECT_NE(pairs.linking.algorithm, "dbscan-grid");
  EXPECT_EQ(grid->kind, pairs.kind) << "min_points " << min_points;
  EXPECT_EQ(grid->cluster, pairs.cluster) << "min_points " << min_points;
  EXPECT_EQ(grid->clusters, pairs.clusters) << "min_points " << min_points;
  if (oracle) expect_dbscan_like_oracle(*grid, points, spec, min_points);
  return std::move(*grid);
}

Points concatenated(Points a, const Points& b) {
  a.coords.insert(a.coords.end(), b.coords.begin(), b.coords.end());
  return a;
}

using GridParam = std::tuple<int, Metric, std::uint64_t, int>;
class DbscanGridRandom : public ::testing::TestWithParam<GridParam> {};

TEST_P(DbscanGridRandom, MatchesPairsAndOracle) {
  const auto [dim, metric, min_points, threads] = GetParam();
  const unsigned seed = static_cast<unsigned>(dim * 17 + static_cast<int>(metric) * 7 + min_points);
  const Points points = concatenated(blob_points(700, dim, 5, 0.8, seed),
                                     uniform_points(300, dim, 0.0, 100.0, seed + 1));
  for (double scale : {0.5, 1.0, 2.0, 6.0}) {
    JoinSpec spec = cpu_spec(eps_from_sample(points, metric) * scale, metric);
    spec.threads = threads;
    expect_grid_matches(points, spec, min_points);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dims, DbscanGridRandom,
    ::testing::Combine(::testing::Values(1, 2, 3), ::testing::ValuesIn(kGridMetrics),
                       ::testing::Values<std::uint64_t>(0, 1, 2, 4, 12, 40),
                       ::testing::Values(1, 3)));

// Thousands of points in one cell and around it: all core at once, or counted past the cell.
TEST(DbscanGrid, DenseCells) {
  for (std::size_t dim : {1, 2, 3}) {
    const Points dense = uniform_points(2000, dim, 10.0, 10.001, 5);
    const Points points = concatenated(concatenated(dense, blob_points(1000, dim, 3, 0.4, 6)),
                                       uniform_points(400, dim, 8.0, 12.0, 7));
    for (Metric metric : kGridMetrics) {
      for (std::uint64_t min_points : {3u, 100u, 2001u}) {
        JoinSpec spec = cpu_spec(0.05, metric);
        spec.threads = 2;
        expect_grid_matches(points, spec, min_points, dim == 2 && min_points == 100u);
      }
    }
  }
  expect_grid_matches(huge_cell(), cpu_spec(1.0), 3, false);  // 20,000 equal points
}

// A lattice of step 1 at eps 1 and one ulp either side, at the origin and far from it.
TEST(DbscanGrid, LatticeAtEpsAndOneUlp) {
  for (std::size_t dim : {1, 2, 3}) {
    for (double origin : {0.25, 1e6 + 0.25, -3e9}) {
      const Points lattice = lattice_points(dim == 3 ? 5 : 7, dim, 1.0, origin);
      for (double eps : {1.0, std::nextafter(1.0, 0.0), std::nextafter(1.0, 2.0), 2.0,
                         std::sqrt(2.0), std::nextafter(std::sqrt(2.0), 0.0)}) {
        for (Metric metric : kGridMetrics) {
          for (std::uint64_t min_points : {2u, 3u, 5u, 7u, 9u, 27u}) {
            expect_grid_matches(lattice, cpu_spec(eps, metric), min_points);
          }
        }
      }
    }
  }
}

// Pairs on a cell's diagonal: (0, ..., 0) and (a, ..., a) with a within a few ulps of the side
// whose diagonal is eps (eps / sqrt(d), eps / d, eps), so that the pair is at eps up to rounding;
// at the origin and shifted far from it. min_points 2: each point is core iff the pair matches.
TEST(DbscanGrid, CellDiagonalCorners) {
  int matched = 0, apart = 0;
  for (std::size_t dim : {1, 2, 3}) {
    for (Metric metric : kGridMetrics) {
      // 105.846, 772.775, 860.174: in 3-D Euclidean, a cell of side exactly eps / sqrt(3) holds a
      // diagonal whose computed distance exceeds eps (found by search).
      for (double eps : {1.0, 0.7, 3e-5, 123.456, 105.846, 772.775, 860.174}) {
        const double d = static_cast<double>(dim);
        const double side = metric == Metric::Euclidean   ? eps / std::sqrt(d)
                            : metric == Metric::Manhattan ? eps / d
                                                          : eps;
        for (double shift : {0.0, 1e3, 7e6}) {
          double a = side;
          for (int k = 0; k < 8; ++k) a = std::nextafter(a, 0.0);
          for (int k = 0; k < 17; ++k, a = std::nextafter(a, 1e300)) {
            // Alone, so that the first point is the grid's origin: both in one cell when a is
            // below the cell's side.
            Points pair{dim, std::vector<double>(dim, shift)};
            for (std::size_t j = 0; j < dim; ++j) pair.coords.push_back(shift + a);
            const DbscanResult r = expect_grid_matches(pair, cpu_spec(eps, metric), 2);
            ++(r.clusters == 1 ? matched : apart);
          }
        }
      }
    }
  }
  EXPECT_GT(matched, 0);
  EXPECT_GT(apart, 0);
}

// Far from the grid's origin (2^28 cells and more) a point's computed cell is off by up to about
// 2^-25 cells, more than the side's margin: two points of one computed cell may then be farther
// apart than eps, and only the cell's certificate (its box's corners) keeps it exact. Pairs on a
// diagonal starting at cell boundaries, differences stepping by one ulp across the side.
TEST(DbscanGrid, CellsFarFromOrigin) {
  for (std::size_t dim : {1, 2}) {  // in 3-D the keys hold at most 2^20 cells a dimension
    for (Metric metric : kGridMetrics) {
      const double eps = 1.0;
      const double side = grid_dbscan_cell_side(eps, metric, dim);
      for (double m : {268435456.0, 268435457.0, 536870919.0, 1073741827.0}) {
        const double boundary = m * side;
        const double ulp = std::nextafter(boundary, 1e300) - boundary;
        for (int below = 0; below < 4; ++below) {  // the first point at or just below it
          const double start = boundary - below * ulp;
          for (int k = -16; k <= 16; ++k) {
            Points points{dim, std::vector<double>(dim, 0.0)};  // the origin, alone: noise
            const double diff = (std::floor(side / ulp) + k) * ulp;
            for (std::size_t j = 0; j < dim; ++j) points.coords.push_back(start);
            for (std::size_t j = 0; j < dim; ++j) points.coords.push_back(start + diff);
            expect_grid_matches(points, cpu_spec(eps, metric), 2);
          }
        }
      }
    }
  }
}

TEST(DbscanGrid, Duplicates) {
  Points points{2, {}};
  const Points distinct = uniform_points(40, 2, 0.0, 3.0, 12);
  for (std::size_t copy = 0; copy < 5; ++copy) {
    points.coords.insert(points.coords.end(), distinct.coords.begin(), distinct.coords.end());
  }
  for (Metric metric : kGridMetrics) {
    for (std::uint64_t min_points : {1u, 4u, 5u, 6u, 11u}) {
      expect_grid_matches(points, cpu_spec(0.3, metric), min_points);
    }
  }
}

TEST(DbscanGrid, NonFinitePoints) {
  const Points points = with_non_finite(400, 8);
  for (Metric metric : kGridMetrics) {
    for (std::uint64_t min_points : {1u, 2u, 3u}) {
      const DbscanResult r = expect_grid_matches(points, cpu_spec(2.0, metric), min_points);
      EXPECT_EQ(r.kind[0], PointKind::Noise);
      EXPECT_EQ(r.cluster[0], -1);
    }
  }
  Points all_nan{2, std::vector<double>(20, std::nan(""))};
  const DbscanResult none = expect_grid_matches(all_nan, cpu_spec(1.0), 1);
  EXPECT_EQ(none.clusters, 0u);
}

TEST(DbscanGrid, AllNoiseOneClusterEmpty) {
  const Points points = uniform_points(300, 2, 0.0, 1.0, 4);
  EXPECT_EQ(expect_grid_matches(points, cpu_spec(1e-6), 2).clusters, 0u);
  const DbscanResult one = expect_grid_matches(points, cpu_spec(10.0), 5);
  EXPECT_EQ(one.clusters, 1u);
  EXPECT_EQ(expect_grid_matches(points, cpu_spec(10.0), 301).clusters, 0u);
  const DbscanResult empty = expect_grid_matches(Points{2, {}}, cpu_spec(1.0), 2);
  EXPECT_TRUE(empty.cluster.empty());
  // min_points <= 1: every finite point core, no counting pass (as run_dbscan).
  const DbscanResult singles = expect_grid_matches(points, cpu_spec(1e-6), 1);
  EXPECT_EQ(singles.clusters, 300u);
  EXPECT_TRUE(singles.counting.algorithm.empty());
}

// Many cells on several threads: the same result as on one thread and as the pair path.
TEST(DbscanGrid, ThreadsAgree) {
  const Points points = concatenated(blob_points(60000, 2, 40, 1.0, 21),
                                     uniform_points(60000, 2, 0.0, 100.0, 22));
  JoinSpec spec = cpu_spec(0.25);
  for (std::uint64_t min_points : {1u, 5u, 20u}) {
    spec.threads = 1;
    const DbscanResult one = expect_grid_matches(points, spec, min_points, false);
    spec.threads = 4;
    const std::optional<DbscanResult> four =
        run_dbscan_grid(points.set(), spec, min_points, {}, false);
    ASSERT_TRUE(four);
    EXPECT_EQ(four->cluster, one.cluster);
    EXPECT_EQ(four->kind, one.kind);
  }
}

// keep_going false stops it (before the first phase, or between units); the result says so.
TEST(DbscanGrid, KeepGoingStops) {
  const Points points = uniform_points(200000, 2, 0.0, 100.0, 3);
  for (std::uint64_t min_points : {1u, 3u}) {
    const std::optional<DbscanResult> r =
        run_dbscan_grid(points.set(), cpu_spec(0.2), min_points, [] { return false; });
    ASSERT_TRUE(r);
    EXPECT_EQ(r->counting.stopped, min_points > 1);
    EXPECT_EQ(r->linking.stopped, min_points <= 1);
    for (int threads : {1, 2}) {
      std::atomic<int> polls{0};
      JoinSpec spec = cpu_spec(0.2);
      spec.threads = threads;
      const std::optional<DbscanResult> later = run_dbscan_grid(
          points.set(), spec, min_points, [&] { return ++polls < 3; });
      ASSERT_TRUE(later);
      EXPECT_TRUE(later->counting.stopped || later->linking.stopped);
    }
  }
}

// Where the grid applies, and run_dbscan's dispatch to it.
TEST(DbscanGrid, AppliesToLowDimensionsOnly) {
  const Points points = uniform_points(50, 4, 0.0, 1.0, 2);
  EXPECT_FALSE(run_dbscan_grid(points.set(), cpu_spec(0.3), 3));  // dimension 4
  const Points plane = uniform_points(50, 2, 0.0, 1.0, 2);
  EXPECT_FALSE(run_dbscan_grid(plane.set(), cpu_spec(0.3, Metric::Cosine), 3));
  for (double eps : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_FALSE(run_dbscan_grid(plane.set(), cpu_spec(eps), 3)) << eps;
  }
  Points wide{1, {0.0, 1e300}};  // more cells than the keys hold
  EXPECT_FALSE(run_dbscan_grid(wide.set(), cpu_spec(1e-300), 2));
  EXPECT_EQ(run_dbscan(plane.set(), cpu_spec(0.3), 3).linking.algorithm, "dbscan-grid");
  JoinSpec any_device = cpu_spec(0.3);
  any_device.device = Device::Auto;  // no GPU backend installed in this test program
  if (!gpu_available()) {
    EXPECT_EQ(run_dbscan(plane.set(), any_device, 3).linking.algorithm, "dbscan-grid");
  }
  EXPECT_NE(pair_dbscan(plane, cpu_spec(0.3), 3).linking.algorithm, "dbscan-grid");
  EXPECT_NE(run_dbscan(points.set(), cpu_spec(0.3), 3).linking.algorithm, "dbscan-grid");
  // 3-D: sparse cells take the pair path, crowded ones the grid.
  const Points space = uniform_points(2000, 3, 0.0, 1.0, 5);
  EXPECT_FALSE(run_dbscan_grid(space.set(), cpu_spec(0.01), 3));
  EXPECT_TRUE(run_dbscan_grid(space.set(), cpu_spec(0.01), 3, {}, false));
  EXPECT_TRUE(run_dbscan_grid(space.set(), cpu_spec(0.3), 3));
}

}  // namespace
}  // namespace simjoin::testing
