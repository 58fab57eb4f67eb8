// The arithmetic probe (engine/bounds/arithmetic_probe.h): it accepts implementations that compute what simjoin
// computes, written differently (contrib cube's own formulation), and catches each way a
// compiled operator can round differently: fused multiply-add, another summation order, extended
// or single precision, and box tests formulated on the difference or without cube's midpoint.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <utility>

#include "engine/bounds/arithmetic_probe.h"
#include "engine/bounds/enlarged_box.h"
#include "engine/bounds/planar_hypot.h"

namespace simjoin {
namespace {

// contrib cube's distance_1D for two points: the larger minus the smaller.
double cube_1d(double a, double b) { return a <= b ? b - a : a - b; }

double cube_euclidean(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = 0; i < dim; ++i) {
    const double d = cube_1d(a[i], b[i]);
    distance += d * d;
  }
  return std::sqrt(distance);
}

double cube_taxicab(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = 0; i < dim; ++i) distance += std::fabs(cube_1d(a[i], b[i]));
  return distance;
}

double cube_chebyshev(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = 0; i < dim; ++i) {
    const double d = std::fabs(cube_1d(a[i], b[i]));
    if (d > distance) distance = d;
  }
  return distance;
}

double fused_euclidean(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = 0; i < dim; ++i) distance = std::fma(a[i] - b[i], a[i] - b[i], distance);
  return std::sqrt(distance);
}

double reversed_euclidean(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = dim; i-- > 0;) distance += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(distance);
}

double reversed_taxicab(const double* a, const double* b, std::size_t dim, void*) {
  double distance = 0.0;
  for (std::size_t i = dim; i-- > 0;) distance += std::fabs(a[i] - b[i]);
  return distance;
}

// Four partial sums, as a vectorized loop adds them.
double lanes_euclidean(const double* a, const double* b, std::size_t dim, void*) {
  double lane[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < dim; ++i) lane[i % 4] += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt((lane[0] + lane[1]) + (lane[2] + lane[3]));
}

double extended_euclidean(const double* a, const double* b, std::size_t dim, void*) {
  long double distance = 0.0L;
  for (std::size_t i = 0; i < dim; ++i) {
    const long double d = static_cast<long double>(a[i]) - b[i];
    distance += d * d;
  }
  return static_cast<double>(std::sqrt(distance));
}

double single_chebyshev(const double* a, const double* b, std::size_t dim, void*) {
  float distance = 0.0f;
  for (std::size_t i = 0; i < dim; ++i) {
    const float d = std::fabs(static_cast<float>(a[i]) - static_cast<float>(b[i]));
    if (d > distance) distance = d;
  }
  return distance;
}

bool cube_box(const double* a, const double* b, std::size_t dim, double r, void*) {
  // cube_enlarge(a, r, dim) followed by cube_contains_v0, written as in contrib/cube.
  double ll[kProbeMaxDim], ur[kProbeMaxDim];
  for (std::size_t i = 0; i < dim; ++i) {
    ll[i] = a[i] - r;  // LL >= UR for a point: UR - r, LL + r
    ur[i] = a[i] + r;
    if (ll[i] > ur[i]) {
      ll[i] = (ll[i] + ur[i]) / 2;
      ur[i] = ll[i];
    }
  }
  for (std::size_t i = 0; i < dim; ++i) {
    if ((ll[i] < ur[i] ? ll[i] : ur[i]) > b[i]) return false;
    if ((ll[i] > ur[i] ? ll[i] : ur[i]) < b[i]) return false;
  }
  return true;
}

bool difference_box(const double* a, const double* b, std::size_t dim, double r, void*) {
  for (std::size_t i = 0; i < dim; ++i)
    if (!(std::fabs(b[i] - a[i]) <= r)) return false;
  return true;
}

bool no_midpoint_box(const double* a, const double* b, std::size_t dim, double r, void*) {
  for (std::size_t i = 0; i < dim; ++i)
    if (!(a[i] - r <= b[i] && b[i] <= a[i] + r)) return false;
  return true;
}

TEST(ArithmeticProbe, AcceptsCubesFormulationOfEveryMetric) {
  EXPECT_TRUE(distance_agrees(Metric::Euclidean, cube_euclidean, nullptr));
  EXPECT_TRUE(distance_agrees(Metric::Manhattan, cube_taxicab, nullptr));
  EXPECT_TRUE(distance_agrees(Metric::Chebyshev, cube_chebyshev, nullptr));
}

TEST(ArithmeticProbe, CatchesFusedMultiplyAdd) {
  EXPECT_FALSE(distance_agrees(Metric::Euclidean, fused_euclidean, nullptr));
}

TEST(ArithmeticProbe, CatchesAnotherSummationOrder) {
  EXPECT_FALSE(distance_agrees(Metric::Euclidean, reversed_euclidean, nullptr));
  EXPECT_FALSE(distance_agrees(Metric::Manhattan, reversed_taxicab, nullptr));
  EXPECT_FALSE(distance_agrees(Metric::Euclidean, lanes_euclidean, nullptr));
}

TEST(ArithmeticProbe, CatchesExtendedAndSinglePrecision) {
  if (LDBL_MANT_DIG > DBL_MANT_DIG) {
    EXPECT_FALSE(distance_agrees(Metric::Euclidean, extended_euclidean, nullptr));
  }
  EXPECT_FALSE(distance_agrees(Metric::Chebyshev, single_chebyshev, nullptr));
}

TEST(ArithmeticProbe, CatchesAnotherMetric) {
  EXPECT_FALSE(distance_agrees(Metric::Euclidean, cube_taxicab, nullptr));
  EXPECT_FALSE(distance_agrees(Metric::Manhattan, cube_chebyshev, nullptr));
}

TEST(ArithmeticProbe, BoxTestAcceptsCubesFormulation) {
  EXPECT_TRUE(box_test_agrees(cube_box, nullptr));
}

TEST(ArithmeticProbe, BoxTestCatchesOtherRoundings) {
  EXPECT_FALSE(box_test_agrees(difference_box, nullptr));
  EXPECT_FALSE(box_test_agrees(no_midpoint_box, nullptr));
}

// ST_DWithin-style predicates: PostGIS's formulation (p2 - p1, sqrt of the sum) agrees; hypot
// (correctly rounded or nearly so, not sqrt of a rounded sum) and a fused sum do not.
bool sqrt_within(const double* a, const double* b, std::size_t, double eps, void*) {
  const double h = b[0] - a[0], v = b[1] - a[1];
  return eps >= std::sqrt(h * h + v * v);
}
bool hypot_within(const double* a, const double* b, std::size_t, double eps, void*) {
  return eps >= std::hypot(b[0] - a[0], b[1] - a[1]);
}
bool fused_within(const double* a, const double* b, std::size_t, double eps, void*) {
  const double h = b[0] - a[0], v = b[1] - a[1];
  return eps >= std::sqrt(std::fma(v, v, h * h));
}
bool strict_within(const double* a, const double* b, std::size_t dim, double eps, void*) {
  return cube_euclidean(a, b, dim, nullptr) < eps;
}

TEST(ArithmeticProbe, WithinAcceptsTheSameDistanceAndCatchesOthers) {
  EXPECT_TRUE(within_agrees(Metric::Euclidean, 2, sqrt_within, nullptr));
  EXPECT_FALSE(within_agrees(Metric::Euclidean, 2, hypot_within, nullptr));
  EXPECT_FALSE(within_agrees(Metric::Euclidean, 2, fused_within, nullptr));
  EXPECT_FALSE(within_agrees(Metric::Euclidean, 2, strict_within, nullptr));
  EXPECT_FALSE(within_agrees(Metric::Euclidean, 0, sqrt_within, nullptr));
}

// ST_Distance-style values of 2-D points: PostGIS's formulation agrees at dimension 2; hypot, a
// fused sum, another summation order do not; dimension 0 is refused.
double sqrt_distance(const double* a, const double* b, std::size_t, void*) {
  const double h = b[0] - a[0], v = b[1] - a[1];
  return std::sqrt(h * h + v * v);
}
double hypot_distance(const double* a, const double* b, std::size_t, void*) {
  return std::hypot(b[0] - a[0], b[1] - a[1]);
}

TEST(ArithmeticProbe, DistanceAtOneDimensionAcceptsTheSameAndCatchesOthers) {
  EXPECT_TRUE(distance_agrees_at(Metric::Euclidean, 2, sqrt_distance, nullptr));
  EXPECT_TRUE(distance_agrees_at(Metric::Euclidean, 2, cube_euclidean, nullptr));
  EXPECT_FALSE(distance_agrees_at(Metric::Euclidean, 2, hypot_distance, nullptr));
  EXPECT_FALSE(distance_agrees_at(Metric::Euclidean, 2, fused_euclidean, nullptr));
  EXPECT_FALSE(distance_agrees_at(Metric::Euclidean, 3, reversed_euclidean, nullptr));
  EXPECT_FALSE(distance_agrees_at(Metric::Manhattan, 2, sqrt_distance, nullptr));
  EXPECT_FALSE(distance_agrees_at(Metric::Euclidean, 0, sqrt_distance, nullptr));
}

// A foreign callback's exception leaves the probe (the PostgreSQL glue turns errors into them).
double throwing_distance(const double*, const double*, std::size_t, void*) {
  throw std::runtime_error("foreign failure");
}

TEST(ArithmeticProbe, PassesExceptionsThrough) {
  EXPECT_THROW(distance_agrees(Metric::Euclidean, throwing_distance, nullptr), std::runtime_error);
}

// in_enlarged_box on hand-made cases: bounds are inclusive and computed in doubles.
TEST(EnlargedBox, BoundsAreTheRoundedEnlargedCoordinates) {
  const double a[2] = {0.1, 5.0};
  const double at_hi[2] = {0.1 + 0.2, 5.0};  // 0.30000000000000004: a + r rounded
  EXPECT_TRUE(in_enlarged_box(a, at_hi, 2, 0.2));
  const double above[2] = {std::nextafter(0.1 + 0.2, 1.0), 5.0};
  EXPECT_FALSE(in_enlarged_box(a, above, 2, 0.2));
  const double at_lo[2] = {0.1, 5.0 - 0.2};
  EXPECT_TRUE(in_enlarged_box(a, at_lo, 2, 0.2));
  // r < 0: the box is the midpoint of a - r and a + r, rounded: 0.1 - (-1) = 1.1 and
  // 0.1 + (-1) = -0.9 average to 0.10000000000000003, not 0.1.
  const double centre[2] = {(1.1 + -0.9) / 2, 5.0};
  EXPECT_TRUE(in_enlarged_box(a, centre, 2, -1.0));
  EXPECT_FALSE(in_enlarged_box(a, a, 2, -1.0));
  const double off_centre[2] = {centre[0], std::nextafter(5.0, 6.0)};
  EXPECT_FALSE(in_enlarged_box(a, off_centre, 2, -1.0));
  // NaN r: cube's comparisons with NaN bounds are false, so the box contains everything.
  const double far[2] = {1e6, -1e6};
  EXPECT_TRUE(in_enlarged_box(a, far, 2, std::nan("")));
}

// PostgreSQL's point <-> point (pg_hypot, geo_ops.c, written out as PostgreSQL 15 has it): the
// engine's planar_point_distance agrees with it; sqrt(dx^2 + dy^2), std::hypot and a fused
// 1 + (y/x)^2 do not, and the probe says so.
double postgres_point_distance(const double* a, const double* b, std::size_t, void*) {
  double x = a[0] - b[0], y = a[1] - b[1];
  if (std::isinf(x) || std::isinf(y)) return HUGE_VAL;
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  x = std::fabs(x);
  y = std::fabs(y);
  if (x < y) std::swap(x, y);
  if (y == 0.0) return x;
  const double yx = y / x;
  return x * std::sqrt(1.0 + (yx * yx));
}
double planar_distance(const double* a, const double* b, std::size_t, void*) {
  return planar_point_distance(a, b);
}
double fused_planar_distance(const double* a, const double* b, std::size_t, void*) {
  double x = std::fabs(a[0] - b[0]), y = std::fabs(a[1] - b[1]);
  if (x < y) std::swap(x, y);
  if (y == 0.0) return x;
  const double yx = y / x;
  return x * std::sqrt(std::fma(yx, yx, 1.0));
}

TEST(ArithmeticProbe, PlanarPointDistanceIsPostgresAndTheProbeCatchesOthers) {
  EXPECT_TRUE(distance_agrees_with(2, postgres_point_distance, nullptr, planar_distance, nullptr, 7));
  EXPECT_FALSE(distance_agrees_with(2, postgres_point_distance, nullptr, sqrt_distance, nullptr, 7));
  EXPECT_FALSE(distance_agrees_with(2, postgres_point_distance, nullptr, hypot_distance, nullptr, 7));
  EXPECT_FALSE(
      distance_agrees_with(2, postgres_point_distance, nullptr, fused_planar_distance, nullptr, 7));
  EXPECT_FALSE(distance_agrees_with(0, postgres_point_distance, nullptr, planar_distance, nullptr, 7));
  const double o[2] = {0, 0}, p[2] = {3, -4}, q[2] = {-2.5, 0}, inf[2] = {HUGE_VAL, 1},
               nan[2] = {std::nan(""), 1};
  EXPECT_EQ(planar_point_distance(o, p), 5.0);
  EXPECT_EQ(planar_point_distance(p, o), 5.0);
  EXPECT_EQ(planar_point_distance(o, q), 2.5);
  EXPECT_TRUE(std::isinf(planar_point_distance(o, inf)));
  EXPECT_TRUE(std::isnan(planar_point_distance(o, nan)));
}

}  // namespace
}  // namespace simjoin
