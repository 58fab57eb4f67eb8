// exact_bound, widened_bound and inverse_bound (engine/bounds/clause_bound.h): the engine's bound for a distance clause keeps
// every pair the clause's operator accepts. The operators are modelled here as their extensions
// compute them (pgvector's single-precision sums, PostgreSQL's hypot for points, cube's sum of
// squares in double) and checked against the engine's double distances (distance.h).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/bounds/clause_bound.h"
#include "engine/distance.h"

namespace simjoin {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ExactBound, InclusiveIsEpsItself) {
  EXPECT_EQ(exact_bound(0.25, false), 0.25);
  EXPECT_EQ(exact_bound(1e300, false), 1e300);
  EXPECT_EQ(exact_bound(kInf, false), kInf);
  EXPECT_EQ(exact_bound(0.0, false), 0.0);
}

TEST(ExactBound, NegativeZeroBecomesPositiveZero) {
  const double bound = exact_bound(-0.0, false);
  EXPECT_EQ(bound, 0.0);
  EXPECT_FALSE(std::signbit(bound));
}

TEST(ExactBound, StrictIsTheNextDoubleBelow) {
  EXPECT_EQ(exact_bound(0.25, true), std::nextafter(0.25, 0.0));
  EXPECT_EQ(exact_bound(kInf, true), DBL_MAX);
  EXPECT_EQ(exact_bound(DBL_TRUE_MIN, true), 0.0);
}

TEST(ExactBound, NothingMatchesIsNaN) {
  EXPECT_TRUE(std::isnan(exact_bound(-1.0, false)));
  EXPECT_TRUE(std::isnan(exact_bound(-1.0, true)));
  EXPECT_TRUE(std::isnan(exact_bound(kNaN, false)));
  EXPECT_TRUE(std::isnan(exact_bound(kNaN, true)));
  EXPECT_TRUE(std::isnan(exact_bound(0.0, true)));  // d < 0 holds for no distance
  EXPECT_TRUE(std::isnan(exact_bound(-kInf, false)));
}

// d <= bound decides the clause exactly for the doubles around eps.
TEST(ExactBound, DecidesTheClauseForNeighbouringDistances) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  for (int trial = 0; trial < 2000; ++trial) {
    const double eps = mantissa(rng) * std::pow(10.0, exponent(rng));
    const double inclusive = exact_bound(eps, false);
    const double strict = exact_bound(eps, true);
    double d = eps;
    for (int step = 0; step < 3; ++step) d = std::nextafter(d, 0.0);
    for (int step = 0; step < 7; ++step, d = std::nextafter(d, kInf)) {
      EXPECT_EQ(d <= inclusive, d <= eps) << eps << " " << d;
      EXPECT_EQ(d <= strict, d < eps) << eps << " " << d;
    }
  }
}

TEST(WidenedBound, NothingMatchesIsNaNAndInfinityStays) {
  for (bool float32 : {false, true}) {
    for (bool cosine : {false, true}) {
      EXPECT_TRUE(std::isnan(widened_bound(-0.5, 3, float32, cosine)));
      EXPECT_TRUE(std::isnan(widened_bound(kNaN, 3, float32, cosine)));
      EXPECT_EQ(widened_bound(kInf, 3, float32, cosine), kInf);
    }
  }
}

TEST(WidenedBound, WidensButLittle) {
  for (int dim : {0, 1, 2, 3, 100, 2000}) {
    for (double eps : {0.0, 1e-300, 1e-5, 0.3, 1.0, 7.5, 1e10, 1e300}) {
      const double bound = widened_bound(eps, dim, false, false);
      EXPECT_GT(bound, eps) << dim << " " << eps;
      EXPECT_LE(bound, eps * (1 + 1e-9) + 1e-140) << dim << " " << eps;
      const double single = widened_bound(eps, dim, true, false);
      EXPECT_GT(single, eps) << dim << " " << eps;
      EXPECT_LE(single, eps * (1 + 1e-2) + 1e-17) << dim << " " << eps;
    }
  }
  // More dimensions, more rounding: the margin grows with dim.
  EXPECT_LT(widened_bound(1.0, 2, false, false), widened_bound(1.0, 2000, false, false));
  EXPECT_LT(widened_bound(1.0, 2, true, false), widened_bound(1.0, 2000, true, false));
  // dim 0 (unknown) counts as one dimension.
  EXPECT_EQ(widened_bound(1.0, 0, false, false), widened_bound(1.0, 1, false, false));
}

TEST(WidenedBound, CosineIsTheChordOfUnitVectors) {
  // |u - v|^2 = 2 c for unit vectors at cosine distance c: the bound is at least the chord.
  for (double c : {0.0, 1e-8, 0.01, 0.5, 1.0, 2.0}) {
    const double bound = widened_bound(c, 16, true, true);
    EXPECT_GE(bound, std::sqrt(2 * c)) << c;
    EXPECT_LE(bound, std::sqrt(2 * (c + 1e-4)) + 1e-6) << c;
  }
  EXPECT_GT(widened_bound(0.0, 16, true, true), 0.0);  // float dot products of equal vectors
}

// ---- models of the operators ------------------------------------------------------------------

// pgvector's l2_distance and l1_distance: single-precision sums, the root taken in double.
double pgvector_l2(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float diff = a[i] - b[i];
    sum += diff * diff;
  }
  return std::sqrt(static_cast<double>(sum));
}

double pgvector_l1(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] - b[i]);
  return sum;
}

// pgvector's cosine_distance.
double pgvector_cosine(const std::vector<float>& a, const std::vector<float>& b) {
  float dot = 0, norm_a = 0, norm_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    norm_a += a[i] * a[i];
    norm_b += b[i] * b[i];
  }
  const double norms = static_cast<double>(norm_a) * static_cast<double>(norm_b);
  double similarity = static_cast<double>(dot) / std::sqrt(norms);
  if (similarity > 1) similarity = 1.0;
  if (similarity < -1) similarity = -1.0;
  return 1.0 - similarity;
}

std::vector<double> as_doubles(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// The engine's coordinates of a vector under pgvector's cosine: divided by its double norm.
std::vector<double> normalized(const std::vector<float>& v) {
  std::vector<double> x = as_doubles(v);
  double norm2 = 0;
  for (double c : x) norm2 += c * c;
  const double norm = std::sqrt(norm2);
  for (double& c : x) c /= norm;
  return x;
}

// A pair of float vectors: a random one and a close neighbour (the pairs near eps matter).
void random_pair(std::mt19937_64& rng, int dim, double scale, std::vector<float>* a,
                 std::vector<float>* b) {
  std::normal_distribution<double> coordinate(0.0, scale);
  std::uniform_real_distribution<double> spread(0.0, 1.0);
  const double near = std::pow(10.0, -6.0 * spread(rng));
  a->resize(dim);
  b->resize(dim);
  for (int i = 0; i < dim; ++i) {
    (*a)[i] = static_cast<float>(coordinate(rng));
    (*b)[i] = static_cast<float>((*a)[i] + near * coordinate(rng));
  }
}

TEST(WidenedBound, KeepsEveryPairPgvectorAccepts) {
  std::mt19937_64 rng(5);
  for (int dim : {1, 2, 3, 16, 100, 1000}) {
    for (double scale : {1e-20, 1e-3, 1.0, 1e6, 1e15}) {
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<float> a, b;
        random_pair(rng, dim, scale, &a, &b);
        const std::vector<double> x = as_doubles(a), y = as_doubles(b);
        // The operator accepts the pair at eps = its distance: the engine must report it.
        const double l2 = pgvector_l2(a, b);
        EXPECT_LE(exact_distance(x.data(), y.data(), dim, Metric::Euclidean),
                  widened_bound(l2, dim, true, false))
            << dim << " " << scale;
        const double l1 = pgvector_l1(a, b);
        EXPECT_LE(exact_distance(x.data(), y.data(), dim, Metric::Manhattan),
                  widened_bound(l1, dim, true, false))
            << dim << " " << scale;
      }
    }
  }
}

TEST(WidenedBound, KeepsEveryPairPgvectorCosineAccepts) {
  std::mt19937_64 rng(6);
  for (int dim : {2, 3, 16, 100, 1000}) {
    for (double scale : {1e-7, 1.0, 1e6}) {  // squared norms within [1e-30, 1e38]
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<float> a, b;
        random_pair(rng, dim, scale, &a, &b);
        const double c = pgvector_cosine(a, b);
        const std::vector<double> u = normalized(a), v = normalized(b);
        EXPECT_LE(exact_distance(u.data(), v.data(), dim, Metric::Euclidean),
                  widened_bound(c, dim, true, true))
            << dim << " " << scale << " " << c;
      }
    }
  }
}

TEST(WidenedBound, KeepsEveryPairDoubleOperatorsAccept) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> coordinate(0.0, 1.0);
  for (int trial = 0; trial < 20000; ++trial) {
    const double scale = std::pow(10.0, static_cast<int>(trial % 21) * 10 - 100);
    // PostgreSQL's point <-> point: hypot of the differences.
    const double p[2] = {scale * coordinate(rng), scale * coordinate(rng)};
    const double near = scale * 1e-3;
    const double q[2] = {p[0] + near * coordinate(rng), p[1] + near * coordinate(rng)};
    const double hypot = std::hypot(p[0] - q[0], p[1] - q[1]);
    EXPECT_LE(exact_distance(p, q, 2, Metric::Euclidean), widened_bound(hypot, 2, false, false));
    // A sum of squares in the other order of dimensions.
    const int dim = 1 + static_cast<int>(trial % 50);
    std::vector<double> a(dim), b(dim);
    for (int i = 0; i < dim; ++i) {
      a[i] = scale * coordinate(rng);
      b[i] = a[i] + scale * 1e-2 * coordinate(rng);
    }
    double reversed = 0;
    for (int i = dim - 1; i >= 0; --i) reversed += (a[i] - b[i]) * (a[i] - b[i]);
    EXPECT_LE(exact_distance(a.data(), b.data(), dim, Metric::Euclidean),
              widened_bound(std::sqrt(reversed), dim, false, false));
  }
}


// ---- inverse_bound: monotone arithmetic on the distance -------------------------------------

double apply(ScaleOp op, double x, double k) {
  switch (op) {
    case ScaleOp::Multiply:
      return x * k;
    case ScaleOp::Divide:
      return x / k;
    case ScaleOp::Add:
      return x + k;
    case ScaleOp::Subtract:
      return x - k;
  }
  return kNaN;
}

// A double spread over many magnitudes, subnormals included.
double random_magnitude(std::mt19937_64& rng, int lowest, int highest) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(lowest, highest);
  return std::ldexp(mantissa(rng), exponent(rng));
}

// Every x whose fl(x op k) is at most c (c = fl(x op k) itself and the doubles just above it,
// where rounding is tightest) lies within the bound; the bound is at most a few units above x.
TEST(InverseBound, KeepsEveryDistanceTheClauseAccepts) {
  std::mt19937_64 rng(21);
  for (ScaleOp op : {ScaleOp::Multiply, ScaleOp::Divide, ScaleOp::Add, ScaleOp::Subtract}) {
    const bool additive = op == ScaleOp::Add || op == ScaleOp::Subtract;
    for (int trial = 0; trial < 200000; ++trial) {
      const double x = trial % 7 == 0 ? random_magnitude(rng, -1074, -1000)
                                      : random_magnitude(rng, -200, 200);
      const double k = additive ? (trial % 2 ? 1 : -1) * random_magnitude(rng, -200, 200)
                                : random_magnitude(rng, -60, 60);
      const double c = apply(op, x, k);
      if (!std::isfinite(c) || (c == 0 && !additive)) continue;  // PostgreSQL raises an error
      double x_max = x;  // the largest double with the same fl(x op k) (found by walking up)
      for (int step = 0; step < 4 && apply(op, std::nextafter(x_max, kInf), k) <= c; ++step)
        x_max = std::nextafter(x_max, kInf);
      const double bound = inverse_bound(c, op, k);
      ASSERT_GE(bound, x_max) << static_cast<int>(op) << " x=" << x << " k=" << k;
      // Tight where neither x nor the result is subnormal (there rounding loses relative digits).
      if (!additive && std::fabs(c) >= DBL_MIN && x >= DBL_MIN) {
        EXPECT_LE(bound, x_max * (1 + 1e-15)) << static_cast<int>(op) << " " << x;
      }
    }
  }
}

// Pairs at exactly the bound: d * 1000 <= 50 and d / 0.1 <= 0.3 hold at the d just below the
// real quotient, the bound keeps it.
TEST(InverseBound, ScaledBoundsAroundExactQuotients) {
  for (double k : {1000.0, 0.1, 3.0, 1e-300, 7e300}) {
    for (double c : {50.0, 0.3, 1e-5, 2.5e-310}) {
      for (ScaleOp op : {ScaleOp::Multiply, ScaleOp::Divide}) {
        const double bound = inverse_bound(c, op, k);
        double x = op == ScaleOp::Multiply ? c / k : c * k;
        if (!std::isfinite(x)) continue;
        for (int step = 0; step < 3; ++step) x = std::nextafter(x, 0.0);
        for (int step = 0; step < 7; ++step, x = std::nextafter(x, kInf)) {
          const double value = apply(op, x, k);
          if (value <= c && value != 0) {
            EXPECT_LE(x, bound) << k << " " << c;
          }
        }
      }
    }
  }
}

TEST(InverseBound, InvalidFactorsAndBoundsAreNaN) {
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Multiply, 0.0)));
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Multiply, -2.0)));
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Divide, -0.0)));
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Divide, kInf)));
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Add, kNaN)));
  EXPECT_TRUE(std::isnan(inverse_bound(1.0, ScaleOp::Subtract, -kInf)));
  EXPECT_TRUE(std::isnan(inverse_bound(kNaN, ScaleOp::Multiply, 2.0)));
  EXPECT_EQ(inverse_bound(kInf, ScaleOp::Multiply, 2.0), kInf);
  EXPECT_EQ(inverse_bound(kInf, ScaleOp::Subtract, 2.0), kInf);
  EXPECT_LT(inverse_bound(-1.0, ScaleOp::Multiply, 2.0), 0.0);  // nothing matches: d >= 0
}

}  // namespace
}  // namespace simjoin
