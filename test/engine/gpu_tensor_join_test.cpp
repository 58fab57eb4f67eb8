// The brute-force join on tensor cores (cuda/tensor_join_kernel.cuh): the same pairs, distance
// bits included, as the oracle on embedding-like data, at exactly eps, with large offsets,
// duplicates and non-finite rows, through both the single pass and count/fill; chosen for
// Euclidean and cosine joins from 16 dimensions; and the same data loses pairs when the filter's
// rounding terms are dropped (so these tests can see a bound that is too small).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "gpu_test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinSpec tensor_spec(double eps, SelfPairs self_pairs = SelfPairs::Unique) {
  return gpu_spec(eps, Metric::Euclidean, self_pairs, Algorithm::BruteForce);
}

// Both kernels up to 128 dimensions: the dot products in registers (the default) and staged
// through shared memory (the only one above).
TEST(GpuTensorJoin, ExponentialEmbeddingsMatchOracle) {
  SKIP_WITHOUT_GPU();
  for (bool in_registers : {true, false})
  for (std::size_t dim : {16, 33, 128, 200}) {
    const GpuTuningGuard guard;
    gpu::tuning().tensor_registers = in_registers;
    // About 1.5 standard deviations below the mean distance of two exponential points
    // (lambda 40: each coordinate's difference has variance 2 / 40^2): a few percent of pairs.
    const double d = double(dim);
    const double eps = std::sqrt(d * 2.0 / 1600.0 * std::max(0.2, 1.0 - 1.5 * std::sqrt(5.0 / d)));
    const Points left = exponential_points(1000, dim, 40.0, 7 + dim);
    const Points right = exponential_points(777, dim, 40.0, 8 + dim);
    for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " registers " << in_registers);
      const JoinStats self = expect_matches_oracle(left, nullptr, tensor_spec(eps, mode));
      EXPECT_EQ(self.algorithm, "gpu-brute-force-tensor");
      EXPECT_GT(self.pairs, 1000u);
      EXPECT_EQ(self.candidates, 1000u * 999u / 2);
      expect_matches_oracle(left, &right, tensor_spec(eps, mode));
      expect_matches_oracle(right, &left, tensor_spec(eps, mode));
    }
  }
}

TEST(GpuTensorJoin, PairsAtExactlyEpsWithOffsets) {
  SKIP_WITHOUT_GPU();
  struct Case {
    std::size_t dim;
    double offset, spread, eps;
  };
  for (bool in_registers : {true, false})
  for (const Case& c : {Case{16, 1e6, 1.0, 1e-3}, Case{64, 0.0, 1.0, 0.05},
                        Case{128, -3e4, 0.5, 1e-2}, Case{384, 0.0, 0.1, 0.02},
                        Case{768, 5.0, 1.0, 0.3}}) {
    const GpuTuningGuard guard;
    gpu::tuning().tensor_registers = in_registers;
    SCOPED_TRACE(::testing::Message() << "dim " << c.dim << " offset " << c.offset
                                      << " registers " << in_registers);
    Points base = uniform_points(300, c.dim, c.offset, c.offset + c.spread, 11 + c.dim);
    const Points points = with_partners_at(base, c.eps, 12 + c.dim);
    const Points other = with_partners_at(uniform_points(200, c.dim, c.offset,
                                                         c.offset + c.spread, 13 + c.dim),
                                          c.eps, 14 + c.dim);
    expect_matches_oracle(points, nullptr, tensor_spec(c.eps));
    expect_matches_oracle(points, &other, tensor_spec(c.eps, SelfPairs::All));
  }
}

// Duplicates (distance 0), rows with NaN or infinity, sizes that are not multiples of a tile,
// and the count/fill path (no direct output, small device batches).
TEST(GpuTensorJoin, DuplicatesNonFiniteRowsAndCountFill) {
  SKIP_WITHOUT_GPU();
  Points points = blob_points(1300, 48, 4, 0.05, 21);
  for (std::size_t i = 0; i + 1 < points.n(); i += 97)
    std::copy(points.point(i), points.point(i) + points.dim, points.point(i + 1));
  points.point(5)[3] = std::numeric_limits<double>::quiet_NaN();
  points.point(500)[47] = std::numeric_limits<double>::infinity();
  points.point(501)[0] = -std::numeric_limits<double>::infinity();
  const Points other = blob_points(129, 48, 4, 0.05, 22);
  for (std::size_t direct : {std::size_t(0), std::size_t(1) << 26}) {
    const GpuTuningGuard guard;
    gpu::tuning().direct_pairs = direct;
    gpu::tuning().device_batch_pairs = 5000;
    for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
      JoinSpec spec = tensor_spec(0.3, mode);
      spec.batch_pairs = 4000;
      expect_matches_oracle(points, nullptr, spec);
      expect_matches_oracle(points, &other, spec);
      expect_matches_oracle(other, &points, spec);
    }
  }
}

// Finite coordinates near +-DBL_MAX: the mean (+inf, or NaN where blocks of rows sum to +inf
// and -inf) or the shift by it overflows, and equal points out there still match (distance 0),
// as do the ordinary points beside them.
TEST(GpuTensorJoin, CoordinatesWhoseShiftOverflows) {
  SKIP_WITHOUT_GPU();
  for (bool both_signs : {false, true}) {
    Points points = uniform_points(300, 20, 0.0, 1.0, 51);
    for (std::size_t i : {std::size_t(3), std::size_t(4), std::size_t(200)})
      std::fill(points.point(i), points.point(i) + points.dim, 1.5e308);
    for (std::size_t i : {std::size_t(260), std::size_t(261)})
      std::fill(points.point(i), points.point(i) + points.dim, both_signs ? -1.5e308 : 1e300);
    for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
      const JoinStats stats = expect_matches_oracle(points, nullptr, tensor_spec(1.2, mode));
      EXPECT_EQ(stats.algorithm, "gpu-brute-force-tensor");
      EXPECT_GE(stats.pairs, 4u);  // the equal points far out, at least
    }
  }
}

// Subnormal coordinates (the scale must stay finite) and coordinates whose squared differences
// underflow in the exact sum (pairs match that are apart by more than eps in real arithmetic).
TEST(GpuTensorJoin, SubnormalCoordinatesAndSquares) {
  SKIP_WITHOUT_GPU();
  struct Case {
    double spread, eps;
  };
  for (const Case& c : {Case{1e-310, 4e-311}, Case{1e-300, 3e-301}, Case{4e-162, 1e-162}}) {
    SCOPED_TRACE(::testing::Message() << "spread " << c.spread);
    const Points points = uniform_points(300, 20, 0.0, c.spread, 61);
    const Points other = uniform_points(130, 20, 0.0, c.spread, 62);
    for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
      for (double eps : {c.eps, 2.0 * c.eps}) {
        const JoinStats stats = expect_matches_oracle(points, nullptr, tensor_spec(eps, mode));
        EXPECT_EQ(stats.algorithm, "gpu-brute-force-tensor");
        expect_matches_oracle(points, &other, tensor_spec(eps, mode));
      }
    }
  }
}

TEST(GpuTensorJoin, ChosenForEuclideanAndCosineFromSixteenDimensions) {
  SKIP_WITHOUT_GPU();
  const Points wide = uniform_points(300, 24, -1.0, 1.0, 31);
  const Points narrow = uniform_points(300, 8, -1.0, 1.0, 32);
  const auto algorithm = [](const Points& points, Metric metric, double eps) {
    return join_collect(points, nullptr, gpu_spec(eps, metric, SelfPairs::Unique,
                                                  Algorithm::BruteForce))
        .stats.algorithm;
  };
  EXPECT_EQ(algorithm(wide, Metric::Euclidean, 2.0), "gpu-brute-force-tensor");
  EXPECT_EQ(algorithm(wide, Metric::Manhattan, 8.0), "gpu-brute-force");
  EXPECT_EQ(algorithm(narrow, Metric::Euclidean, 0.5), "gpu-brute-force");
  EXPECT_EQ(algorithm(wide, Metric::Cosine, 0.4), "gpu-brute-force-tensor on unit vectors");
  expect_matches_oracle(wide, nullptr,
                        gpu_spec(0.4, Metric::Cosine, SelfPairs::Unique, Algorithm::BruteForce));
}

// Directions that put cosine distances at the edge of every rounding: near-duplicates a few
// ulps apart at magnitudes from 1e-300 to 1e300, exact opposites, subnormal coordinates, and rows
// without a direction (zero, NaN, infinite), two of them finite but with squares that overflow.
Points cosine_edge_directions(std::size_t dim, unsigned seed) {
  Points points = uniform_points(240, dim, -1.0, 1.0, seed);
  std::mt19937_64 random(seed);
  const double magnitudes[] = {1.0, 1e-300, 1e300, 3.0, 1e-310};
  for (std::size_t i = 0; i < 120; ++i) {
    double* p = points.point(i);
    const double* base = points.point(i / 4);  // four rows a direction
    const double m = magnitudes[i % 5];
    for (std::size_t j = 0; j < dim; ++j) {
      const double nudged = i % 3 == 0 ? std::nextafter(base[j], 2.0) : base[j];
      p[j] = nudged * m;
    }
  }
  for (std::size_t j = 0; j < dim; ++j) points.point(120)[j] = -points.point(121)[j];
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < dim; ++j) {
    points.point(230)[j] = 0.0;
    points.point(231)[j] = j == 0 ? kNaN : 1.0;
    points.point(232)[j] = j == 0 ? kInf : 1.0;
    points.point(233)[j] = 1e308;
    points.point(234)[j] = 1e308;
    points.point(235)[j] = j == 0 ? 4.9e-324 : 0.0;
    points.point(236)[j] = j == 0 ? 1e-323 : 0.0;
  }
  return points;
}

// A cosine join's brute force runs on the device from end to end (rows prepared there, the unit
// vectors filtered in FP16, the cosine decided there): the oracle's pairs and distance bits, in
// every mode, at eps 0, at the exact distances of actual pairs and beyond 2.
TEST(GpuTensorJoin, CosineDecidedOnTheDevice) {
  SKIP_WITHOUT_GPU();
  for (std::size_t dim : {16, 100}) {
    const Points left = cosine_edge_directions(dim, 5 + static_cast<unsigned>(dim));
    const Points right = cosine_edge_directions(dim, 6 + static_cast<unsigned>(dim));
    std::vector<double> eps_values = {0.0, 1e-15, 0.3, 1.0, 2.0,
                                      std::numeric_limits<double>::infinity()};
    for (std::size_t i : {1u, 2u, 4u, 9u, 121u})
      eps_values.push_back(exact_distance(left.set().point(0), left.set().point(i), dim,
                                          Metric::Cosine));
    for (double eps : eps_values) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " eps " << eps);
      if (std::isnan(eps)) continue;  // a distance to a row without a direction
      for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
        const JoinSpec spec = gpu_spec(eps, Metric::Cosine, mode, Algorithm::BruteForce);
        const JoinStats stats = expect_matches_oracle(left, nullptr, spec);
        EXPECT_EQ(stats.algorithm, "gpu-brute-force-tensor on unit vectors");
        ASSERT_FALSE(stats.phase_seconds.empty());
        EXPECT_EQ(stats.phase_seconds.front().first, "normalize");
      }
      expect_matches_oracle(left, &right, gpu_spec(eps, Metric::Cosine, SelfPairs::All,
                                                   Algorithm::BruteForce));
    }
  }
}

// Blobs of `size` points along dimension 0, `spacing` apart, each the same small cloud shifted
// (coordinates multiples of 2^-20, so that a point and its copy in the next blob lie exactly
// `spacing` apart), the other dimensions' spread tiny beside it.
Points blob_row(std::size_t blobs, std::size_t size, std::size_t dim, double spacing,
                unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0.0, 1e-3);
  Points cloud{dim, std::vector<double>(size * dim)};
  for (double& x : cloud.coords) x = std::round(noise(random) * 0x1p20) * 0x1p-20;
  Points points{dim, std::vector<double>(blobs * size * dim)};
  for (std::size_t b = 0; b < blobs; ++b)
    for (std::size_t i = 0; i < size; ++i) {
      double* p = points.point(b * size + i);
      std::copy(cloud.point(i), cloud.point(i) + dim, p);
      p[0] += spacing * double(b);
    }
  return points;
}

// Tile pruning (cuda/tile_pruning.cuh): on a row of blobs each blob's tiles skip all but the
// blobs beside it, and the pairs still equal the oracle's, among them every point's copy in the
// next blob at exactly eps, in the tile beside its own (pruning without the rows' reach would
// drop them); without pruning every pair is tested.
TEST(GpuTensorJoin, PrunesTilePairsOfClusteredRows) {
  SKIP_WITHOUT_GPU();
  constexpr std::size_t kBlobs = 24, kSize = 128, kPoints = kBlobs * kSize;
  for (std::size_t dim : {32, 128, 256}) {
    const Points points = blob_row(kBlobs, kSize, dim, 8.0, 71 + static_cast<unsigned>(dim));
    const Points other = blob_row(kBlobs / 2, kSize, dim, 8.0, 72 + static_cast<unsigned>(dim));
    for (bool prune : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " prune " << prune);
      const GpuTuningGuard guard;
      gpu::tuning().tensor_prune = prune;
      for (SelfPairs mode : {SelfPairs::Unique, SelfPairs::All}) {
        const JoinStats stats = expect_matches_oracle(points, nullptr, tensor_spec(8.0, mode));
        EXPECT_GE(stats.pairs, (kBlobs - 1) * kSize);  // the copies at exactly eps, at least
        if (prune) {
          EXPECT_LT(stats.candidates, kPoints * (kPoints - 1) / 2 / 4);
        } else {
          EXPECT_EQ(stats.candidates, kPoints * (kPoints - 1) / 2);
        }
      }
      const JoinStats two = expect_matches_oracle(points, &other, tensor_spec(8.0));
      if (prune) {
        EXPECT_LT(two.candidates, kPoints * other.n() / 4);
      }
      expect_matches_oracle(other, &points, tensor_spec(8.0, SelfPairs::All));
    }
  }
}

// The data above needs the rounding terms: without them, pairs that match are lost.
TEST(GpuTensorJoin, DroppingTheRoundingTermsLosesPairs) {
  SKIP_WITHOUT_GPU();
  std::size_t lost = 0;
  for (std::size_t dim : {64, 128}) {
    const Points points =
        with_partners_at(uniform_points(500, dim, 0.0, 1.0, 41 + dim), 0.01, 42 + dim);
    const JoinSpec spec = tensor_spec(0.01);
    const std::size_t expected = oracle_collect(points, nullptr, spec).size();
    const GpuTuningGuard guard;
    gpu::tuning().float_margin = 0.0;
    const std::size_t without = join_collect(points, nullptr, spec).pairs.size();
    EXPECT_LE(without, expected);
    lost += expected - std::min(without, expected);
  }
  EXPECT_GT(lost, 0u);
}

}  // namespace
}  // namespace simjoin
