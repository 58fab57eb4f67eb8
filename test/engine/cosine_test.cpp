// The cosine distance (cosine.h) and the cosine join: the definition's properties, the candidate
// radius against adversarial pairs, and joins against the brute-force oracle on vectors chosen to
// break a careless implementation (zero, tiny, huge, antiparallel, duplicates, pairs at eps).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/cosine.h"
#include "engine/distance.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double cos_d(const std::vector<double>& a, const std::vector<double>& b) {
  return cosine_distance(a.data(), b.data(), a.size());
}

TEST(CosineDistance, Definition) {
  EXPECT_EQ(cos_d({1, 0}, {0, 1}), 1.0);
  EXPECT_EQ(cos_d({1, 0}, {-1, 0}), 2.0);
  EXPECT_EQ(cos_d({3, 4}, {6, 8}), 0.0);
  EXPECT_EQ(cos_d({2}, {5}), 0.0);
  EXPECT_EQ(cos_d({2}, {-5}), 2.0);
  EXPECT_NEAR(cos_d({1, 0}, {1, 1}), 1.0 - std::sqrt(0.5), 1e-15);
  // No direction: NaN, which never satisfies d <= eps.
  EXPECT_TRUE(std::isnan(cos_d({0, 0}, {1, 1})));
  EXPECT_TRUE(std::isnan(cos_d({0, 0}, {0, 0})));
  EXPECT_TRUE(std::isnan(cos_d({1, kInf}, {1, 1})));
  EXPECT_TRUE(std::isnan(cos_d({1, kNaN}, {1, 1})));
  EXPECT_TRUE(std::isnan(cos_d({-0.0, 0.0}, {1, 1})));
}

TEST(CosineDistance, ScaleFreeSymmetricAndClamped) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t dim = 1 + trial % 100;
    std::vector<double> a(dim), b(dim);
    for (std::size_t j = 0; j < dim; ++j) a[j] = g(rng), b[j] = g(rng);
    const double d = cos_d(a, b);
    ASSERT_EQ(d, cos_d(b, a));
    ASSERT_GE(d, 0.0);
    ASSERT_LE(d, 2.0);
    // Scaling by a power of two changes nothing, huge or tiny (1e300, 1e-300 and beyond).
    for (int shift : {-1000, -900, -1, 1, 900, 1000}) {
      std::vector<double> s(dim);
      for (std::size_t j = 0; j < dim; ++j) s[j] = std::ldexp(a[j], shift);
      ASSERT_EQ(cosine_distance(s.data(), b.data(), dim), d) << "shift " << shift;
    }
    // A vector with itself: 0 or within a few units in the last place of it.
    ASSERT_LE(cos_d(a, a), 1e-15);
  }
  // Huge and tiny vectors that a plain sum of squares would overflow or flush to zero.
  const double huge = std::ldexp(1.0, 1000), tiny = std::ldexp(1.0, -1000);
  EXPECT_EQ(cos_d({huge, 3 * huge}, {huge, huge}), cos_d({1, 3}, {1, 1}));
  EXPECT_EQ(cos_d({tiny, 3 * tiny}, {huge, huge}), cos_d({1, 3}, {1, 1}));
  EXPECT_NEAR(cos_d({1e300, 1e300}, {1e300, 1e300}), 0.0, 1e-15);
  EXPECT_EQ(cos_d({1e-300, 0}, {0, 1e-300}), 1.0);
  EXPECT_EQ(cos_d({1e300, 0}, {-1e-300, 0}), 2.0);
  EXPECT_EQ(cos_d({4.9e-324, 0}, {4.9e-324, 4.9e-324}), cos_d({1, 0}, {1, 1}));
}

TEST(CosineDistance, PreparedPointsGiveTheSameBits) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> exponent(-1000, 1000);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t dim = 1 + trial % 64;
    std::vector<double> a(dim), b(dim), sa(dim), sb(dim), ua(dim), ub(dim);
    const int ea = exponent(rng), eb = exponent(rng);
    for (std::size_t j = 0; j < dim; ++j) {
      a[j] = std::ldexp(u(rng), ea + (j % 3 == 0 ? -40 : 0));  // mixed magnitudes too
      b[j] = std::ldexp(u(rng), eb);
    }
    const double na = cosine_prepare(a.data(), dim, sa.data(), ua.data());
    const double nb = cosine_prepare(b.data(), dim, sb.data(), ub.data());
    ASSERT_EQ(cosine_from_scaled(sa.data(), na, sb.data(), nb, dim), cos_d(a, b));
  }
}

// The radius's promise: for every pair, the engine's Euclidean sum over the two unit vectors is
// within accumulated_bound(cosine_candidate_radius(d, dim)), d the pair's cosine distance (the
// tightest eps that must find it). Near-parallel, near-antiparallel, orthogonal, mixed scales.
// matches_itself decides d(p, p) <= eps as exact_distance does, for every metric: vectors of
// every magnitude and length, zero, NaN and infinite coordinates, eps around 2^-48 and 0 (where
// a cosine self-distance of a few units of 2^-53 does not match).
TEST(MatchesItself, AsExactDistanceDecides) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> coordinate(0.0, 1.0);
  std::uniform_int_distribution<int> exponent(-1000, 1000);
  const double epsilons[] = {0.0, 0x1p-60, 0x1p-52, 0x1p-49, 0x1p-48, 1e-9, 0.5, -1.0, NAN};
  int self_distances_above_zero = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::size_t dim = 1 + trial % 130;
    std::vector<double> p(dim);
    const int scale = exponent(rng);
    for (double& x : p) x = std::ldexp(coordinate(rng), scale);
    if (trial % 97 == 0) std::fill(p.begin(), p.end(), 0.0);
    if (trial % 89 == 1) p[dim / 2] = NAN;
    if (trial % 83 == 2) p[0] = -INFINITY;
    self_distances_above_zero += exact_distance(p.data(), p.data(), dim, Metric::Cosine) > 0.0;
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev, Metric::Cosine})
      for (double eps : epsilons)
        ASSERT_EQ(matches_itself(p.data(), dim, metric, eps),
                  exact_distance(p.data(), p.data(), dim, metric) <= eps)
            << "trial " << trial << " dim " << dim << " eps " << eps;
  }
  EXPECT_GT(self_distances_above_zero, 0) << "some cosine self-distances are not 0";
}

TEST(CosineCandidateRadius, KeepsEveryPairAtItsOwnDistance) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> tiny_angle(-1e-9, 1e-9);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t dim = 1 + trial % 128;
    std::vector<double> a(dim), b(dim), sa(dim), sb(dim), ua(dim), ub(dim);
    for (std::size_t j = 0; j < dim; ++j) a[j] = g(rng);
    const int kind = trial % 4;
    for (std::size_t j = 0; j < dim; ++j) {
      switch (kind) {
        case 0: b[j] = g(rng); break;                             // any direction
        case 1: b[j] = a[j] * (1 + tiny_angle(rng)) * 3; break;    // nearly parallel
        case 2: b[j] = -a[j] * (1 + tiny_angle(rng)) / 7; break;  // nearly antiparallel
        default: b[j] = std::ldexp(a[j] + tiny_angle(rng), (j % 2 ? 500 : -500)); break;
      }
    }
    const double d = cos_d(a, b);
    ASSERT_FALSE(std::isnan(d));
    cosine_prepare(a.data(), dim, sa.data(), ua.data());
    cosine_prepare(b.data(), dim, sb.data(), ub.data());
    const double sum = accumulate_distance(ua.data(), ub.data(), dim, Metric::Euclidean);
    const double bound = accumulated_bound(cosine_candidate_radius(d, dim), Metric::Euclidean);
    ASSERT_LE(sum, bound) << "dim " << dim << " kind " << kind << " d " << d;
  }
  EXPECT_TRUE(std::isnan(cosine_candidate_radius(-1e-300, 3)));
  EXPECT_TRUE(std::isnan(cosine_candidate_radius(kNaN, 3)));
  EXPECT_EQ(cosine_candidate_radius(kInf, 3), kInf);
  EXPECT_GE(cosine_candidate_radius(2.0, 3), 2.0);
}

// Directions with many exact ties: small integer vectors, their multiples by powers of two and
// by 3, negatives, zero vectors, non-finite and huge/tiny copies.
Points adversarial_directions(std::size_t dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-2, 2);
  Points points{dim, {}};
  auto add = [&](const std::vector<double>& v) {
    points.coords.insert(points.coords.end(), v.begin(), v.end());
  };
  for (int i = 0; i < 40; ++i) {
    std::vector<double> v(dim);
    for (double& x : v) x = small(rng);
    add(v);
    std::vector<double> w = v;
    for (double& x : w) x = std::ldexp(x, i % 2 ? 700 : -700);
    add(w);  // the same direction, huge or tiny
    for (double& x : w) x = -3 * v[&x - w.data()];
    add(w);  // antiparallel
  }
  add(std::vector<double>(dim, 0.0));
  std::vector<double> special(dim, 1.0);
  special[0] = kNaN;
  add(special);
  special[0] = kInf;
  add(special);
  special[0] = 1e308;  // finite, its square overflows
  add(special);
  return points;
}

TEST(CosineJoin, AdversarialDirectionsMatchOracle) {
  for (std::size_t dim : {1u, 2u, 3u, 5u, 16u, 100u}) {
    const Points points = adversarial_directions(dim, static_cast<unsigned>(dim));
    // eps at the exact distances of actual pairs, and the special values.
    std::vector<double> eps_values = {0.0, 1.0, 2.0, 1e-12, kInf};
    for (std::size_t i = 1; i < 12; ++i)
      eps_values.push_back(exact_distance(points.set().point(0), points.set().point(i), dim,
                                          Metric::Cosine));
    for (double eps : eps_values) {
      SCOPED_TRACE("dim " + std::to_string(dim) + " eps " + std::to_string(eps));
      if (std::isnan(eps)) continue;
      expect_all_shapes_match(points, eps, Metric::Cosine);
      JoinSpec brute = cpu_spec(eps, Metric::Cosine);
      brute.algorithm = Algorithm::BruteForce;
      expect_matches_oracle(points, nullptr, brute);
    }
  }
}

TEST(CosineJoin, DuplicatesAndStats) {
  const Points points = exact_duplicates(300);
  const JoinStats stats = expect_matches_oracle(points, nullptr, cpu_spec(1e-3, Metric::Cosine));
  EXPECT_NE(stats.algorithm.find("on unit vectors"), std::string::npos) << stats.algorithm;
  EXPECT_GE(stats.candidates, stats.pairs);
  ASSERT_FALSE(stats.phase_seconds.empty());
  EXPECT_EQ(stats.phase_seconds.front().first, "normalize");
}

TEST(CosineJoin, NothingMatchesForNegativeOrNaNEps) {
  const Points points = uniform_points(50, 3, -1, 1, 5);
  for (double eps : {-1.0, kNaN}) {
    const JoinOutcome out = join_collect(points, nullptr, cpu_spec(eps, Metric::Cosine));
    EXPECT_TRUE(out.pairs.empty());
  }
}

}  // namespace
}  // namespace simjoin::testing
