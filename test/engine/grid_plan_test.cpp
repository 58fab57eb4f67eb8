// plan_grid: dimension order, k, and the cell geometry that keeps matches in adjacent cells.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/distance.h"
#include "engine/join/grid_plan.h"
#include "test_support.h"

namespace simjoin {
namespace {

using testing::Points;
using testing::uniform_points;

TEST(GridPlan, OrdersDimensionsByDecreasingVariance) {
  Points points = uniform_points(5000, 4, 0.0, 1.0, 1);
  const double scale[4] = {1.0, 10.0, 0.1, 3.0};
  for (std::size_t i = 0; i < points.n(); ++i) {
    for (int j = 0; j < 4; ++j) points.point(i)[j] *= scale[j];
  }
  const PointSet set = points.set();
  const GridPlan plan = plan_grid(set, nullptr, 0.05, Metric::Euclidean, 0);
  EXPECT_EQ(plan.order, (std::vector<int>{1, 3, 0, 2}));
  EXPECT_GE(plan.k, 1);
  EXPECT_LE(plan.k, 4);
  EXPECT_GE(plan.cell_width, 0.05);
  ASSERT_EQ(plan.origin.size(), static_cast<std::size_t>(plan.k));
  ASSERT_EQ(plan.cells.size(), static_cast<std::size_t>(plan.k));
}

TEST(GridPlan, ForcedKIsCappedAtDimension) {
  const Points points = uniform_points(1000, 3, 0.0, 1.0, 2);
  const PointSet set = points.set();
  EXPECT_EQ(plan_grid(set, nullptr, 0.1, Metric::Euclidean, 2).k, 2);
  EXPECT_EQ(plan_grid(set, nullptr, 0.1, Metric::Euclidean, 9).k, 3);
}

TEST(GridPlan, LowDimensionalUniformDataIndexesEveryDimension) {
  const Points points = uniform_points(20000, 2, 0.0, 100.0, 3);
  const PointSet set = points.set();
  EXPECT_EQ(plan_grid(set, nullptr, 0.5, Metric::Euclidean, 0).k, 2);
}

TEST(GridPlan, ZeroEpsGivesPositiveWidth) {
  Points constant{2, std::vector<double>(20, 5.0)};
  const PointSet set = constant.set();
  const GridPlan plan = plan_grid(set, nullptr, 0.0, Metric::Euclidean, 0);
  EXPECT_GT(plan.cell_width, 0.0);
  for (std::int64_t cells : plan.cells) EXPECT_EQ(cells, 1);

  const Points spread = uniform_points(1000, 2, -1e6, 1e6, 4);
  const PointSet spread_set = spread.set();
  const GridPlan spread_plan = plan_grid(spread_set, nullptr, 0.0, Metric::Euclidean, 0);
  EXPECT_GT(spread_plan.cell_width, 0.0);
  for (std::int64_t cells : spread_plan.cells) EXPECT_LE(cells, (std::int64_t{1} << 30) + 1);
}

TEST(GridPlan, OriginIgnoresNonFinitePointsAndOverflowingDimensionsAreNotIndexed) {
  const double inf = std::numeric_limits<double>::infinity();
  Points points{2, {1.0, 1e308, 2.0, -1e308, -7.0, std::nan(""), 3.0, 0.0, -inf, 5.0}};
  const PointSet set = points.set();
  const GridPlan plan = plan_grid(set, nullptr, 0.5, Metric::Euclidean, 2);
  ASSERT_EQ(plan.k, 1);  // dimension 1 ranges over 2e308: not griddable
  EXPECT_EQ(plan.order[0], 0);
  EXPECT_EQ(plan.origin[0], 1.0);
}

// Pairs within eps (by exact_distance) land in the same or adjacent cells, also right at eps, at
// large offsets, for tiny eps and for all metrics.
TEST(GridPlan, MatchingPairsFallInAdjacentCells) {
  std::mt19937_64 rng(5);
  struct Case {
    double offset, spread, eps;
  };
  const Case cases[] = {{0.0, 100.0, 1.0},    {1e6, 1.0, 1e-3},   {-1e6, 10.0, 0.1},
                        {0.0, 1e-150, 1e-155}, {1e15, 1e3, 1e-1}, {0.0, 1.0, 0.0}};
  for (const Case& c : cases) {
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      const std::size_t dim = 3;
      Points points = uniform_points(2000, dim, c.offset - c.spread, c.offset + c.spread, 6);
      const PointSet set = points.set();
      const GridPlan plan = plan_grid(set, nullptr, c.eps, metric, 3);
      ASSERT_GE(plan.k, 1);
      int checked = 0;
      for (int trial = 0; trial < 20000; ++trial) {
        const double* a = set.point(rng() % set.n);
        // Step exactly eps along one dimension, then nudge by up to 3 ulps either way.
        double b[dim] = {a[0], a[1], a[2]};
        const std::size_t j = rng() % dim;
        double x = a[j] + (rng() % 2 ? c.eps : -c.eps);
        for (int s = static_cast<int>(rng() % 7) - 3; s != 0; s += s > 0 ? -1 : 1) {
          x = std::nextafter(x, s > 0 ? 1e300 : -1e300);
        }
        b[j] = x;
        bool inside = true;
        for (int i = 0; i < plan.k; ++i) {
          const double lo = plan.origin[i];
          inside = inside && b[plan.order[i]] >= lo;
        }
        if (!inside || !(exact_distance(a, b, dim, metric) <= c.eps)) continue;
        ++checked;
        for (int i = 0; i < plan.k; ++i) {
          const std::int64_t ca = grid_cell(plan, i, a[plan.order[i]]);
          const std::int64_t cb = grid_cell(plan, i, b[plan.order[i]]);
          ASSERT_LE(std::llabs(ca - cb), 1) << "offset " << c.offset << " eps " << c.eps;
        }
      }
      EXPECT_GT(checked, 100);
    }
  }
}

}  // namespace
}  // namespace simjoin
