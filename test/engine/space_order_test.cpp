// The space order (engine/bounds/space_order.h): the curve's axes and cells, the codes' bit interleaving, the
// radix sort, and that the order keeps neighbours in space next to each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/bounds/space_order.h"

namespace simjoin {
namespace {

SpaceCurve curve_of(const std::vector<double>& points, int dim) {
  std::vector<double> lo(dim), hi(dim);
  return space_curve(points.data(), static_cast<std::uint32_t>(points.size() / dim), dim, lo.data(),
                     hi.data());
}

// The order of the points: indexes sorted by their keys.
std::vector<std::uint32_t> order_of(const std::vector<double>& points, int dim) {
  const auto n = static_cast<std::uint32_t>(points.size() / dim);
  std::vector<double> lo(dim), hi(dim);
  const SpaceCurve curve = space_curve(points.data(), n, dim, lo.data(), hi.data());
  std::vector<std::uint64_t> keys(n), scratch(n);
  std::vector<std::uint32_t> counts(kSpaceSortBuckets);
  space_keys(curve, points.data(), n, dim, keys.data());
  sort_space_keys(keys.data(), scratch.data(), n, counts.data());
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t j = 0; j < n; ++j) order[j] = static_cast<std::uint32_t>(keys[j]);
  return order;
}

TEST(SpaceCurve, AxesAreTheWidestDimensionsInDecreasingWidth) {
  // Widths: d0 1, d1 8, d2 0, d3 4, d4 2.
  const std::vector<double> points = {0, 0, 5, 0, 0,  //
                                      1, 8, 5, 4, 2};
  std::vector<double> lo(5), hi(5);
  const SpaceCurve curve = space_curve(points.data(), 2, 5, lo.data(), hi.data());
  ASSERT_EQ(curve.n_axes, 3);
  EXPECT_EQ(curve.axes[0], 1);
  EXPECT_EQ(curve.axes[1], 3);
  EXPECT_EQ(curve.axes[2], 4);
  EXPECT_EQ(curve.lo[0], 0);
  EXPECT_EQ(curve.hi[0], 8);
  EXPECT_EQ(curve.hi[1], 4);
  EXPECT_EQ(lo, (std::vector<double>{0, 0, 5, 0, 0}));
  EXPECT_EQ(hi, (std::vector<double>{1, 8, 5, 4, 2}));
}

TEST(SpaceCurve, DimensionsOfZeroOrInfiniteWidthAreNoAxes) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(curve_of({3, 7, 3, 7, 3, 7}, 2).n_axes, 0);  // one point three times
  const SpaceCurve curve = curve_of({0, -inf, 1, 2, 5, 0, 1, 2}, 4);
  ASSERT_EQ(curve.n_axes, 1);  // d1: infinite width, d2 and d3: zero width
  EXPECT_EQ(curve.axes[0], 0);
  // Widths beyond the double range (a finite difference that overflows) are no axis either.
  EXPECT_EQ(curve_of({-1e308, 0, 1e308, 0}, 2).n_axes, 0);
}

TEST(SpaceCurve, AboutSixteenCellsPerPoint) {
  // total bits: 4 + ceil(log2 n), at most 30, shared by the axes (at least one each).
  std::vector<double> line;
  for (int i = 0; i < 1000; ++i) line.push_back(i);
  EXPECT_EQ(curve_of(line, 1).bits, 14);  // 2^10 >= 1000
  EXPECT_EQ(curve_of({0, 1}, 1).bits, 5);
  EXPECT_EQ(curve_of(std::vector<double>(line.begin(), line.begin() + 16), 1).bits, 8);
  std::vector<double> plane;
  for (int i = 0; i < 1000; ++i) {
    plane.push_back(i);
    plane.push_back(-i);
  }
  EXPECT_EQ(curve_of(plane, 2).bits, 7);  // 14 bits over two axes
  EXPECT_EQ(curve_of({0, 0, 0, 1, 1, 1}, 3).bits, 1);  // 5 bits over three axes
}

TEST(SpaceCode, InterleavesTheAxesCellsFirstAxisFirst) {
  SpaceCurve curve;
  curve.n_axes = 2;
  curve.axes[0] = 1;  // the first axis is dimension 1
  curve.axes[1] = 0;
  curve.lo[0] = curve.lo[1] = 0;
  curve.hi[0] = curve.hi[1] = 3;
  curve.bits = 2;  // cells 0..3
  const double low[2] = {0, 0};
  const double high[2] = {3, 3};
  EXPECT_EQ(space_code(curve, low), 0u);
  EXPECT_EQ(space_code(curve, high), 0xFu);
  // dimension 1 in cell 2 (binary 10), dimension 0 in cell 1 (01): bits 1 0, then 0 1.
  const double x[2] = {1, 2};
  EXPECT_EQ(space_code(curve, x), 0b1001u);
  // Beyond the bounds (never for the curve's own points): clamped to the first and last cells.
  const double outside[2] = {-5, 9};
  EXPECT_EQ(space_code(curve, outside), 0b1010u);
}

TEST(SpaceKeys, CodeAboveIndex) {
  const std::vector<double> points = {0, 10, 5};
  const SpaceCurve curve = curve_of(points, 1);
  std::vector<std::uint64_t> keys(3);
  space_keys(curve, points.data(), 3, 1, keys.data());
  for (std::uint32_t p = 0; p < 3; ++p) {
    EXPECT_EQ(static_cast<std::uint32_t>(keys[p]), p);
    EXPECT_EQ(keys[p] >> 32, space_code(curve, &points[p]));
  }
  EXPECT_EQ(keys[0] >> 32, 0u);
  EXPECT_EQ(keys[1] >> 32, (1u << curve.bits) - 1);
}

TEST(SortSpaceKeys, SortsByCodeStably) {
  std::mt19937_64 rng(3);
  for (std::uint32_t n : {0u, 1u, 2u, 17u, 1000u, 70000u}) {
    for (std::uint64_t codes : {std::uint64_t{4}, std::uint64_t{1} << 30}) {
      std::vector<std::uint64_t> keys(n), scratch(n);
      std::vector<std::uint32_t> counts(kSpaceSortBuckets);
      for (std::uint32_t p = 0; p < n; ++p) keys[p] = ((rng() % codes) << 32) | p;
      std::vector<std::uint64_t> expected = keys;
      // Stable by code = ordered by (code, index), the indexes being ascending.
      std::sort(expected.begin(), expected.end());
      sort_space_keys(keys.data(), scratch.data(), n, counts.data());
      EXPECT_EQ(keys, expected) << n << " " << codes;
    }
  }
}

TEST(SpaceOrder, IsDeterministicAndAPermutation) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> coordinate(-50.0, 50.0);
  std::vector<double> points(3 * 5000);
  for (double& x : points) x = coordinate(rng);
  const std::vector<std::uint32_t> order = order_of(points, 3);
  EXPECT_EQ(order, order_of(points, 3));
  std::vector<std::uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t j = 0; j < sorted.size(); ++j) ASSERT_EQ(sorted[j], j);
}

TEST(SpaceOrder, PutsNeighboursNextToEachOther) {
  // Random points in the unit square: consecutive points in space order are far closer than in
  // the stored (random) order.
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> coordinate(0.0, 1.0);
  const int n = 20000;
  std::vector<double> points(2 * n);
  for (double& x : points) x = coordinate(rng);
  auto step = [&](std::uint32_t a, std::uint32_t b) {
    return std::hypot(points[2 * a] - points[2 * b], points[2 * a + 1] - points[2 * b + 1]);
  };
  double stored = 0, ordered = 0;
  const std::vector<std::uint32_t> order = order_of(points, 2);
  for (int j = 1; j < n; ++j) {
    stored += step(j - 1, j);
    ordered += step(order[j - 1], order[j]);
  }
  EXPECT_LT(ordered, stored / 20);
}

}  // namespace
}  // namespace simjoin
