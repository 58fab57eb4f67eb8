// The GPU's float32 prefilter (cuda/float_filter.cuh) and its single-pass direct output: results
// must stay bit-identical to the oracle on data built to sit on the float rounding band (large
// offsets, tiny eps, many pairs exactly at eps, 2..128 dimensions), and the same data must lose
// pairs when the filter's error margin is removed (so these tests can see a too-small margin).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <iostream>
#include <random>

#include "gpu_test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

constexpr Metric kMetrics[] = {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev};

// n base points in [offset, offset + spread]^dim, each followed by a partner at distance eps
// (up to rounding) in `metric`, in a random direction; with far_first, point 0 is moved `spread`
// further out so that it (the float copy's centre) makes every magnitude large.
Points boundary_pairs(std::size_t n, std::size_t dim, Metric metric, double offset, double spread,
                      double eps, bool far_first, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  Points points{dim, std::vector<double>(2 * n * dim)};
  std::vector<double> direction(dim);
  for (std::size_t i = 0; i < n; ++i) {
    double* base = points.point(2 * i);
    double* partner = points.point(2 * i + 1);
    double norm = 0.0;
    for (std::size_t j = 0; j < dim; ++j) {
      base[j] = offset + spread * unit(rng);
      direction[j] = normal(rng);
      const double a = std::fabs(direction[j]);
      norm = metric == Metric::Euclidean   ? norm + a * a
             : metric == Metric::Manhattan ? norm + a
                                           : std::max(norm, a);
    }
    if (metric == Metric::Euclidean) norm = std::sqrt(norm);
    for (std::size_t j = 0; j < dim; ++j) partner[j] = base[j] + eps * direction[j] / norm;
  }
  if (far_first)
    for (std::size_t j = 0; j < dim; ++j) points.point(0)[j] += spread;
  return points;
}

// Pairs the GPU join reports, with the filter's margin scaled by `margin`.
std::size_t gpu_pairs(const Points& left, const Points* right, const JoinSpec& spec,
                      double margin) {
  const GpuTuningGuard guard;
  gpu::tuning().float_margin = margin;
  return join_collect(left, right, spec).pairs.size();
}

struct Case {
  std::size_t dim;
  double offset, spread, eps;
  bool far_first;
};
constexpr Case kCases[] = {
    {2, 1e6, 1.0, 1e-3, false},   {3, 1e6, 10.0, 1e-4, true},  {32, 1e6, 1.0, 1e-3, false},
    {32, 0.0, 1e3, 1e-3, true},   {64, -1e6, 1.0, 1e-2, true}, {128, 1e6, 0.5, 1e-3, false},
    {7, 1e-6, 1e-6, 1e-12, true},
};

TEST(GpuFloatFilter, PairsAtEpsWithLargeOffsetsMatchOracle) {
  SKIP_WITHOUT_GPU();
  unsigned seed = 1;
  for (const Case& c : kCases) {
    for (Metric metric : kMetrics) {
      ++seed;
      const Points left = boundary_pairs(150, c.dim, metric, c.offset, c.spread, c.eps,
                                         c.far_first, seed);
      const Points right = boundary_pairs(120, c.dim, metric, c.offset, c.spread, c.eps,
                                          c.far_first, seed + 1000);
      for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
        SCOPED_TRACE(::testing::Message() << "dim " << c.dim << " offset " << c.offset << " metric "
                                        << static_cast<int>(metric) << " algorithm "
                                        << static_cast<int>(algorithm));
        const JoinSpec spec = gpu_spec(c.eps, metric, SelfPairs::Unique, algorithm);
        expect_matches_oracle(left, nullptr, spec);
        expect_matches_oracle(left, &right, spec);
      }
    }
  }
}

TEST(GpuFloatFilter, LatticeStepsOfExactlyEps) {
  SKIP_WITHOUT_GPU();
  for (double origin : {1e6, -3e7, 0.0}) {
    for (std::size_t dim : {2, 3}) {
      const double step = 0.001;
      const Points points = lattice_points(dim == 2 ? 40 : 12, dim, step, origin);
      for (Metric metric : kMetrics) {
        for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
          expect_matches_oracle(points, nullptr, gpu_spec(step, metric, SelfPairs::All, algorithm));
          expect_matches_oracle(points, nullptr,
                                gpu_spec(step * std::sqrt(2.0), metric, SelfPairs::Unique,
                                         algorithm));
        }
      }
    }
  }
}

// The data above needs the margin: without it (float sums compared with the bound as they are)
// the filter rejects pairs that match. Proves that the tests above would catch a too-small one.
TEST(GpuFloatFilter, RemovingTheMarginLosesPairs) {
  SKIP_WITHOUT_GPU();
  unsigned seed = 500;
  std::size_t lost = 0;
  for (const Case& c : {kCases[0], kCases[2], kCases[5]}) {
    for (Metric metric : kMetrics) {
      ++seed;
      const Points points = boundary_pairs(300, c.dim, metric, c.offset, c.spread, c.eps,
                                           c.far_first, seed);
      for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
        const JoinSpec spec = gpu_spec(c.eps, metric, SelfPairs::Unique, algorithm);
        const std::size_t expected = oracle_collect(points, nullptr, spec).size();
        EXPECT_EQ(gpu_pairs(points, nullptr, spec, 1.0), expected);
        const std::size_t without = gpu_pairs(points, nullptr, spec, 0.0);
        EXPECT_LE(without, expected) << "dim " << c.dim << " metric " << static_cast<int>(metric);
        lost += expected - std::min(without, expected);
        std::cout << "[ margin  ] dim " << c.dim << " metric " << static_cast<int>(metric)
                  << " expected " << expected << " margin 0: " << without
                  << " margin 0.5: " << gpu_pairs(points, nullptr, spec, 0.5) << "\n";
      }
    }
  }
  EXPECT_GT(lost, 0u);
}

// Exponential-like 32-D data (the benchmark's) and the filter switched off: the same pairs.
TEST(GpuFloatFilter, SkewedThirtyTwoDimensionsWithAndWithoutFilter) {
  SKIP_WITHOUT_GPU();
  const Points points = exponential_points(2000, 32, 40.0, 77);
  for (Metric metric : kMetrics) {
    const double eps = metric == Metric::Euclidean ? 0.05 : metric == Metric::Manhattan ? 0.2 : 0.02;
    for (bool filter : {true, false}) {
      for (const GpuKernel& kernel : kGpuKernels) {
        const GpuTuningGuard guard;
        gpu::tuning().float_filter = filter;
        kernel.use();
        expect_matches_oracle(points, nullptr,
                              gpu_spec(eps, metric, SelfPairs::All, kernel.algorithm));
      }
    }
  }
}

// The count pass's direct output: never (count/fill), overflowing (falls back) or large enough.
TEST(GpuDirectOutput, EveryCapacityGivesTheSamePairs) {
  SKIP_WITHOUT_GPU();
  const Points points = blob_points(3000, 3, 3, 2.0, 9);
  const Points other = blob_points(1500, 3, 3, 2.0, 10);
  for (std::size_t direct : {std::size_t(0), std::size_t(1), std::size_t(5000),
                             std::size_t(1) << 26}) {
    for (std::size_t chunk : {std::size_t(1), std::size_t(777), std::size_t(1) << 20}) {
      const GpuTuningGuard guard;
      gpu::tuning().direct_pairs = direct;
      gpu::tuning().host_chunk_pairs = chunk;
      if (chunk == 1 && direct > 5000) continue;  // a million one-pair chunks: slow, nothing new
      for (const GpuKernel& kernel : kGpuKernels) {
        kernel.use();
        JoinSpec spec = gpu_spec(0.4, Metric::Euclidean, SelfPairs::All, kernel.algorithm);
        spec.batch_pairs = 1000;
        expect_matches_oracle(points, nullptr, spec);
        expect_matches_oracle(points, &other, spec);
        spec.self_pairs = SelfPairs::Unique;
        spec.metric = Metric::Chebyshev;
        expect_matches_oracle(other, &points, spec);
      }
    }
  }
}

}  // namespace
}  // namespace simjoin
