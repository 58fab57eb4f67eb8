// Data where rounding decides: lattices with many pairs exactly at eps, decimal steps, large
// offsets, negative coordinates, duplicates.
#include <gtest/gtest.h>

#include <cmath>

#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

constexpr Metric kMetrics[] = {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev};

TEST(ExactnessJoin, HalfLatticeWithPairsAtEps) {
  const Points lattice = lattice_points(24, 2, 0.5, 0.0);
  for (Metric metric : kMetrics) {
    for (double eps : {0.5, 1.0, std::sqrt(2.0) * 0.5, std::sqrt(0.5 * 0.5 + 0.5 * 0.5), 1.5}) {
      expect_all_shapes_match(lattice, eps, metric);
    }
  }
}

TEST(ExactnessJoin, CubicLatticeWithPairsAtEps) {
  const Points lattice = lattice_points(9, 3, 0.5, -2.0);
  for (Metric metric : kMetrics) {
    for (double eps : {0.5, 1.0, std::sqrt(3.0) * 0.5}) {
      expect_all_shapes_match(lattice, eps, metric);
    }
  }
}

// Multiples of 0.1 are not exact: 0.1 * 3 - 0 != 0.3, so some "eps" pairs fall just outside.
TEST(ExactnessJoin, DecimalSteps) {
  const Points line = lattice_points(400, 1, 0.1, 0.0);
  const Points grid = lattice_points(30, 2, 0.1, 0.7);
  for (Metric metric : kMetrics) {
    for (double eps : {0.1, 0.2, 0.3, 0.7}) {
      expect_all_shapes_match(line, eps, metric);
      expect_all_shapes_match(grid, eps, metric);
    }
  }
}

TEST(ExactnessJoin, LargeOffsetsAndSmallEps) {
  Points points = uniform_points(1500, 3, 1e6, 1e6 + 0.05, 21);
  // Duplicate some points with one-ulp perturbations, so that near-eps pairs exist.
  for (std::size_t i = 0; i + 1 < points.n(); i += 10) {
    for (std::size_t j = 0; j < 3; ++j) {
      points.point(i + 1)[j] = points.point(i)[j] + (j == 0 ? 1e-3 : 0.0);
    }
  }
  for (Metric metric : kMetrics) expect_all_shapes_match(points, 1e-3, metric);
}

TEST(ExactnessJoin, NegativeCoordinates) {
  const Points points = uniform_points(1200, 2, -50.0, -40.0, 22);
  for (Metric metric : kMetrics) expect_all_shapes_match(points, 0.25, metric);
}

TEST(ExactnessJoin, ManyExactDuplicates) {
  const Points points = exact_duplicates(600);
  for (Metric metric : kMetrics) {
    for (double eps : {0.0, 1e-12, 0.3}) expect_all_shapes_match(points, eps, metric);
  }
}

}  // namespace
}  // namespace simjoin
