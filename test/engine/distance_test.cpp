// accumulated_bound and the early-exit match test against the definitions of distance.h.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "engine/bounded_distance.h"
#include "engine/distance.h"

namespace simjoin {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_largest_bound(double eps) {
  const double t = accumulated_bound(eps, Metric::Euclidean);
  EXPECT_LE(std::sqrt(t), eps) << eps;
  EXPECT_GT(std::sqrt(std::nextafter(t, kInf)), eps) << eps;
}

TEST(AccumulatedBound, EuclideanIsLargestValueWhoseRootIsWithinEps) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-200, 200);
  for (int trial = 0; trial < 20000; ++trial) {
    expect_largest_bound(mantissa(rng) * std::pow(10.0, exponent(rng)));
  }
  for (double eps : {0.1, 0.3, 0.5, 1.0, 2.0, std::sqrt(2.0) * 0.5, 1e-3, 1e-160, DBL_MAX}) {
    expect_largest_bound(eps);
  }
}

TEST(AccumulatedBound, SpecialValues) {
  EXPECT_EQ(accumulated_bound(0.0, Metric::Euclidean), 0.0);
  EXPECT_EQ(accumulated_bound(-0.0, Metric::Euclidean), 0.0);
  EXPECT_EQ(accumulated_bound(1e-200, Metric::Euclidean), 0.0);  // eps^2 underflows
  EXPECT_EQ(accumulated_bound(1e300, Metric::Euclidean), DBL_MAX);  // eps^2 overflows
  EXPECT_EQ(accumulated_bound(kInf, Metric::Euclidean), kInf);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
    EXPECT_TRUE(std::isnan(accumulated_bound(kNaN, metric)));
    EXPECT_TRUE(std::isnan(accumulated_bound(-1.0, metric)));
    EXPECT_TRUE(std::isnan(accumulated_bound(-kInf, metric)));
  }
  EXPECT_EQ(accumulated_bound(0.3, Metric::Manhattan), 0.3);
  EXPECT_EQ(accumulated_bound(0.3, Metric::Chebyshev), 0.3);
  EXPECT_EQ(accumulated_bound(kInf, Metric::Chebyshev), kInf);
}

// within_bound must decide exactly like accumulate_distance(...) <= bound and return its value.
TEST(WithinBound, AgreesWithAccumulateDistance) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> coord(-1.0, 1.0);
  const double specials[] = {kNaN, kInf, -kInf, 1e308, -1e308, 0.0};
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t dim = 1 + rng() % 13;
    std::vector<double> a(dim), b(dim);
    for (std::size_t j = 0; j < dim; ++j) {
      a[j] = coord(rng);
      b[j] = coord(rng);
      if (rng() % 40 == 0) a[j] = specials[rng() % 6];
    }
    const double eps = trial % 50 == 0 ? kInf : std::fabs(coord(rng)) * std::sqrt(double(dim));
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      const double bound = accumulated_bound(eps, metric);
      const double expected = accumulate_distance(a.data(), b.data(), dim, metric);
      double got = -1.0;
      const bool within = with_metric(metric, [&](auto tag) {
        return within_bound<decltype(tag)::value>(a.data(), b.data(), dim, bound, &got);
      });
      ASSERT_EQ(within, expected <= bound);
      if (within) {
        ASSERT_EQ(got, expected);
      }
      // The bound form agrees with the distance form `exact_distance <= eps`.
      ASSERT_EQ(within, finish_distance(expected, metric) <= eps);
    }
  }
}

}  // namespace
}  // namespace simjoin
