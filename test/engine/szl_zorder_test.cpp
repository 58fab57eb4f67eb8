// The Z-order pieces of the SZL join: quantization monotone, keys monotone under dominance, the
// key-free comparator equal to comparing materialized keys, both curve sorts giving one order,
// and the curve interval of a box holding every point of the box.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "join_scenarios.h"
#include "engine/join/szl_index.h"
#include "test_support.h"
#include "engine/join/zorder.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

void key_of(const std::vector<std::uint32_t>& q, std::uint32_t shift,
            std::vector<std::uint64_t>& key) {
  key.assign(z_key_words(q.size()), 0);
  z_key(q.data(), q.size(), shift, key.data());
}

int sign(int x) { return (x > 0) - (x < 0); }

TEST(SzlZOrder, QuantizeIsMonotoneAndClamped) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> x(-10.0, 110.0);
  for (int t = 0; t < 100000; ++t) {
    double a = x(rng), b = x(rng);
    if (a > b) std::swap(a, b);
    EXPECT_LE(z_quantize(a, 0.0, 1e7), z_quantize(b, 0.0, 1e7));
  }
  EXPECT_EQ(z_quantize(-1.0, 0.0, 1.0), 0u);
  EXPECT_EQ(z_quantize(1e300, 0.0, 1e10), kZMaxCoord);
  EXPECT_EQ(z_quantize(HUGE_VAL, 0.0, 1.0), kZMaxCoord);
}

// Random points with small coordinates sometimes equal, so that many bits tie.
std::vector<std::uint32_t> random_point(std::mt19937_64& rng, std::size_t dim, bool small) {
  std::vector<std::uint32_t> q(dim);
  for (auto& c : q) c = small ? static_cast<std::uint32_t>(rng() % 8) : rng() & kZMaxCoord;
  return q;
}

TEST(SzlZOrder, ComparatorEqualsMaterializedKeys) {
  std::mt19937_64 rng(6);
  for (std::size_t dim : {1, 2, 3, 7, 16, 64, 256}) {
    for (int t = 0; t < 2000; ++t) {
      const bool small = t % 2 == 0;
      const auto a = random_point(rng, dim, small), b = random_point(rng, dim, small);
      const std::uint32_t shift = static_cast<std::uint32_t>(rng() & kZMaxCoord);
      std::vector<std::uint64_t> ka, kb;
      key_of(a, shift, ka);
      key_of(b, shift, kb);
      EXPECT_EQ(z_compare(a.data(), shift, b.data(), shift, dim),
                sign(z_key_compare(ka.data(), kb.data(), ka.size())))
          << "dim " << dim;
      EXPECT_EQ(z_compare(a.data(), shift, a.data(), shift, dim), 0);
      for (std::size_t w = 0; w < ka.size(); ++w)
        ASSERT_EQ(z_key_word(a.data(), dim, shift, w), ka[w]) << "dim " << dim << " word " << w;
    }
  }
}

TEST(SzlZOrder, DominatedPointHasSmallerOrEqualKey) {
  std::mt19937_64 rng(7);
  for (std::size_t dim : {1, 2, 3, 7, 16, 64, 256}) {
    for (int t = 0; t < 2000; ++t) {
      const auto a = random_point(rng, dim, t % 2 == 0);
      auto b = a;
      for (auto& c : b) {
        if (rng() % 2) c = std::min<std::uint32_t>(kZMaxCoord, c + static_cast<std::uint32_t>(rng() % 1000));
      }
      const std::uint32_t shift = z_curve_shift(rng() % 17, 17);
      std::vector<std::uint64_t> ka, kb;
      key_of(a, shift, ka);
      key_of(b, shift, kb);
      EXPECT_LE(z_key_compare(ka.data(), kb.data(), ka.size()), 0) << "dim " << dim;
      EXPECT_LE(z_compare(a.data(), shift, b.data(), shift, dim), 0) << "dim " << dim;
    }
  }
}

TEST(SzlIndex, BothSortMethodsGiveOneOrder) {
  for (std::size_t dim : {1, 3, 16, 64}) {
    const Points points = blob_points(700, dim, 4, 2.0, static_cast<unsigned>(dim));
    const SzlIndex keys = build_szl_index(points.set(), 0, 2, ZSortMethod::Keys);
    const SzlIndex msb = build_szl_index(points.set(), 0, 2, ZSortMethod::Msb);
    ASSERT_EQ(keys.order.size(), msb.order.size());
    EXPECT_EQ(keys.prefixes, msb.prefixes);
    for (std::size_t j = 0; j < keys.curves; ++j) {
      for (std::size_t k = 0; k < keys.listed; ++k) {
        // Equal quantized points may come in either order: compare their coordinates.
        EXPECT_EQ(z_compare(keys.quantized_point(keys.curve(j)[k]), 0,
                            msb.quantized_point(msb.curve(j)[k]), 0, dim), 0);
      }
    }
  }
}

TEST(SzlIndex, NonFinitePointsAreNotListedAndCurvesFollowTheRule) {
  const Points points = with_non_finite(100, 3);
  const SzlIndex index = build_szl_index(points.set(), 0, 1);
  std::size_t finite = 0;
  for (std::size_t i = 0; i < points.n(); ++i) {
    bool ok = true;
    for (std::size_t j = 0; j < 3; ++j) ok = ok && std::isfinite(points.set().point(i)[j]);
    finite += ok;
  }
  EXPECT_EQ(index.listed, finite);
  EXPECT_EQ(index.curves, 4u);
  EXPECT_EQ(szl_default_curves(16), 9u);
  EXPECT_EQ(szl_default_curves(256), 5u);
  EXPECT_EQ(build_szl_index(points.set(), 100, 1).curves, 5u);  // capped by the odd denominator
}

// Every listed point whose quantized coordinates lie in a random box is inside the interval of
// that box on every curve (their Lemma 4.2).
TEST(SzlIndex, CurveIntervalHoldsTheBox) {
  std::mt19937_64 rng(9);
  for (std::size_t dim : {1, 2, 3, 7, 16}) {
    const Points points = uniform_points(500, dim, 0.0, 1.0, static_cast<unsigned>(dim) + 40);
    const SzlIndex index = build_szl_index(points.set(), 0, 2);
    for (int t = 0; t < 50; ++t) {
      std::vector<std::uint32_t> low(dim), high(dim);
      const double* centre = points.set().point(rng() % points.n());
      for (std::size_t j = 0; j < dim; ++j) {
        low[j] = index.quantize(j, centre[j] - 0.3);
        high[j] = index.quantize(j, centre[j] + 0.3);
      }
      for (std::size_t c = 0; c < index.curves; ++c) {
        const CurveInterval interval = curve_interval(index, c, low.data(), high.data());
        for (std::size_t k = 0; k < index.listed; ++k) {
          const std::uint32_t* q = index.quantized_point(index.curve(c)[k]);
          bool inside = true;
          for (std::size_t j = 0; j < dim; ++j) inside = inside && low[j] <= q[j] && q[j] <= high[j];
          if (inside) {
            EXPECT_GE(k, interval.first);
            EXPECT_LT(k, interval.last);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace simjoin
