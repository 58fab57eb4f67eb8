// The sampled share of tile pairs the GPU's brute force on tensor cores visits
// (engine/choice/tile_fraction.h) against the mask itself, rebuilt here on every row in double
// (each tile of 128 rows in the space key's order, its centre and farthest row, every tile pair),
// and its place in Auto's prices: the GPU's brute force priced on the pairs it tests, the CPU's
// on all of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "engine/choice/algorithm_choice.h"
#include "engine/choice/device_choice.h"
#include "engine/choice/tile_fraction.h"
#include "engine/choice/work_estimate.h"
#include "engine/cosine.h"
#include "engine/join/tile_order.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

struct Tiles {
  std::vector<double> centre, extent;
};

// Unit vectors where `unit`.
std::vector<double> rows_of(const Points& points, bool unit) {
  std::vector<double> rows = points.coords;
  const std::size_t dim = points.dim;
  for (std::size_t i = 0; unit && i < points.n(); ++i) {
    double norm2 = 0.0;
    for (std::size_t j = 0; j < dim; ++j) norm2 += rows[i * dim + j] * rows[i * dim + j];
    for (std::size_t j = 0; j < dim; ++j) rows[i * dim + j] /= std::sqrt(norm2);
  }
  return rows;
}

Tiles tiles_of(const std::vector<double>& rows, std::size_t dim, const SpaceKey& key) {
  const std::size_t n = rows.size() / dim;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return space_key_of(key, &rows[a * dim]) < space_key_of(key, &rows[b * dim]);
  });
  Tiles tiles;
  for (std::size_t first = 0; first < n; first += kTensorTileRows) {
    const std::size_t last = std::min(n, first + kTensorTileRows);
    std::vector<double> c(dim, 0.0);
    for (std::size_t r = first; r < last; ++r)
      for (std::size_t j = 0; j < dim; ++j) c[j] += rows[order[r] * dim + j] / (last - first);
    double largest = 0.0;
    for (std::size_t r = first; r < last; ++r) {
      double d2 = 0.0;
      for (std::size_t j = 0; j < dim; ++j)
        d2 += (rows[order[r] * dim + j] - c[j]) * (rows[order[r] * dim + j] - c[j]);
      largest = std::max(largest, d2);
    }
    tiles.centre.insert(tiles.centre.end(), c.begin(), c.end());
    tiles.extent.push_back(std::sqrt(largest));
  }
  return tiles;
}

// The share of tile pairs (a self-join: t >= l) whose balls lie within the bound.
double mask_fraction(const Points& left, const Points* right, double eps, Metric metric) {
  const bool unit = metric == Metric::Cosine;
  const std::size_t dim = left.dim;
  const double bound = unit ? cosine_candidate_radius(eps, dim) : eps;
  const std::vector<double> a = rows_of(left, unit);
  const std::vector<double> b = right ? rows_of(*right, unit) : std::vector<double>();
  std::vector<double> mean(dim, 0.0), variance(dim, 0.0);
  const double n = static_cast<double>((a.size() + b.size()) / dim);
  for (const auto* side : {&a, &b})
    for (std::size_t i = 0; i < side->size(); ++i) mean[i % dim] += (*side)[i] / n;
  for (const auto* side : {&a, &b})
    for (std::size_t i = 0; i < side->size(); ++i)
      variance[i % dim] += ((*side)[i] - mean[i % dim]) * ((*side)[i] - mean[i % dim]) / n;
  const SpaceKey key = space_key(mean, variance);
  const Tiles l = tiles_of(a, dim, key);
  const Tiles r = right ? tiles_of(b, dim, key) : l;
  double kept = 0.0, pairs = 0.0;
  for (std::size_t q = 0; q < l.extent.size(); ++q)
    for (std::size_t t = right ? 0 : q; t < r.extent.size(); ++t) {
      double d2 = 0.0;
      for (std::size_t j = 0; j < dim; ++j)
        d2 += (l.centre[q * dim + j] - r.centre[t * dim + j]) *
              (l.centre[q * dim + j] - r.centre[t * dim + j]);
      const double reach = l.extent[q] + r.extent[t] + bound;
      kept += d2 <= reach * reach;
      pairs += 1.0;
    }
  return kept / pairs;
}

double sampled_fraction(const Points& left, const Points* right, double eps, Metric metric) {
  const PointSet right_set = right ? right->set() : PointSet{};
  return estimate_tile_fraction(left.set(), right ? &right_set : nullptr, cpu_spec(eps, metric));
}

// `blobs` Gaussian blobs of standard deviation `sigma`, the points dealt to them in turn.
Points dealt_blobs(std::size_t n, std::size_t dim, std::size_t blobs, double sigma, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> offset(0.0, sigma);
  const Points centres = uniform_points(blobs, dim, 0.0, 100.0, seed + 1);
  Points points{dim, std::vector<double>(n * dim)};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < dim; ++j)
      points.point(i)[j] = centres.coords[(i % blobs) * dim + j] + offset(rng);
  return points;
}

TEST(TileFraction, ClusteredRowsWithinTwiceTheMasksShare) {
  struct Case {
    std::size_t n, dim, blobs;
    double sigma, eps;
  };
  for (const Case& c : {Case{60000, 32, 100, 1.0, 6.0}, Case{40000, 128, 50, 0.5, 6.0},
                        Case{50000, 16, 100, 1.0, 2.0}}) {
    const Points points = dealt_blobs(c.n, c.dim, c.blobs, c.sigma, 5);
    const double full = mask_fraction(points, nullptr, c.eps, Metric::Euclidean);
    const double sampled = sampled_fraction(points, nullptr, c.eps, Metric::Euclidean);
    EXPECT_LT(full, 0.5) << c.dim << "-D: the mask prunes";
    EXPECT_GT(sampled, full / 2) << c.dim << "-D";
    EXPECT_LT(sampled, full * 2) << c.dim << "-D";
  }
}

TEST(TileFraction, TwoInputsAndCosine) {
  const Points left = dealt_blobs(40000, 32, 80, 1.0, 7);
  const Points right = dealt_blobs(30000, 32, 80, 1.0, 7);  // the same centres
  const double full = mask_fraction(left, &right, 6.0, Metric::Euclidean);
  const double sampled = sampled_fraction(left, &right, 6.0, Metric::Euclidean);
  EXPECT_LT(full, 0.5);
  EXPECT_GT(sampled, full / 2);
  EXPECT_LT(sampled, full * 2);
  // 100 directions, 400 rows each, at small angles: pruned on the unit sphere.
  Points directions = dealt_blobs(40000, 64, 100, 0.02, 9);
  for (double& x : directions.coords) x -= 50.0;
  const double full_cosine = mask_fraction(directions, nullptr, 0.001, Metric::Cosine);
  const double sampled_cosine = sampled_fraction(directions, nullptr, 0.001, Metric::Cosine);
  EXPECT_LT(full_cosine, 0.5);
  EXPECT_GT(sampled_cosine, full_cosine / 2);
  EXPECT_LT(sampled_cosine, full_cosine * 2);
}

TEST(TileFraction, EveryPairWhereNothingPrunesOrNothingApplies) {
  // Uniform rows at an eps of many neighbours: the mask would keep nearly every pair.
  const Points uniform = uniform_points(40000, 32, 0.0, 1.0, 3);
  EXPECT_EQ(sampled_fraction(uniform, nullptr, 0.8, Metric::Euclidean), 1.0);
  const Points blobs = dealt_blobs(40000, 32, 100, 1.0, 5);
  EXPECT_EQ(sampled_fraction(blobs, nullptr, 6.0, Metric::Manhattan), 1.0);  // no tensor cores
  EXPECT_EQ(sampled_fraction(blobs, nullptr, NAN, Metric::Euclidean), 1.0);
  const Points few = dealt_blobs(200, 32, 4, 1.0, 5);  // two tiles: four rows each sampled
  EXPECT_GT(sampled_fraction(few, nullptr, 0.5, Metric::Euclidean), 0.0);
  const Points one_tile = dealt_blobs(100, 32, 4, 1.0, 5);
  EXPECT_EQ(sampled_fraction(one_tile, nullptr, 0.5, Metric::Euclidean), 1.0);
  const Points low = dealt_blobs(40000, 8, 100, 1.0, 5);  // below 16 dimensions
  EXPECT_EQ(sampled_fraction(low, nullptr, 1.0, Metric::Euclidean), 1.0);
}

TEST(TileFraction, OnlyTheGpusBruteForceIsPricedOnItsKeptPairs) {
  const Points points = dealt_blobs(60000, 32, 100, 1.0, 5);
  JoinSpec spec = cpu_spec(6.0);
  spec.algorithm = Algorithm::Auto;
  const SampledWork sampled =
      sample_work(points.set(), nullptr, spec, {{&gpu_algorithm_speeds(), 1}});
  ASSERT_TRUE(sampled.has_tiles);
  EXPECT_LT(sampled.tile_fraction, 0.5);
  const BruteWork brute = brute_work(points.set(), nullptr, sampled);
  EXPECT_EQ(brute.tile_fraction, sampled.tile_fraction);
  // A self-join's result pairs once each, without the identities the grid's sample counts.
  EXPECT_NEAR(brute.matches, (sampled.grid.pairs - 60000.0) / 2.0, 1e-6 * brute.matches + 1.0);
  const auto brute_estimate = [&](const BruteWork& work, const AlgorithmSpeeds& speeds,
                                  Metric metric = Metric::Euclidean) {
    for (const AlgorithmEstimate& e :
         cheapest_algorithm(&sampled.grid, nullptr, work, 32, metric, 1, speeds).estimates)
      if (e.algorithm == "brute-force") return e;
    return AlgorithmEstimate{};
  };
  BruteWork every_pair = brute;
  every_pair.tile_fraction = 1.0;
  const AlgorithmEstimate gpu = brute_estimate(brute, gpu_algorithm_speeds());
  EXPECT_DOUBLE_EQ(gpu.candidates, brute.pairs * brute.tile_fraction);
  EXPECT_LT(gpu.seconds, brute_estimate(every_pair, gpu_algorithm_speeds()).seconds);
  const AlgorithmEstimate cpu = brute_estimate(brute, cpu_algorithm_speeds());
  EXPECT_DOUBLE_EQ(cpu.candidates, brute.pairs);
  EXPECT_DOUBLE_EQ(cpu.seconds, brute_estimate(every_pair, cpu_algorithm_speeds()).seconds);
  // A cosine brute force runs on the GPU's tensor cores too: priced as the Euclidean one there;
  // on the CPU without the FP32 filter's prices.
  EXPECT_DOUBLE_EQ(brute_estimate(brute, gpu_algorithm_speeds(), Metric::Cosine).seconds,
                   gpu.seconds);
  EXPECT_GT(brute_estimate(brute, cpu_algorithm_speeds(), Metric::Cosine).seconds, cpu.seconds);
  // The CPU alone does not sample the tiles; the device choice does (whether or not the GPU
  // runs the SZL), and hands them on with the grid's.
  EXPECT_FALSE(sample_work(points.set(), nullptr, spec, {{&cpu_algorithm_speeds(), 2}}).has_tiles);
  SampledWork routed;
  auto_prefers_gpu(points.set(), nullptr, spec, 16, &routed, false);
  EXPECT_TRUE(routed.has_tiles);
  EXPECT_EQ(routed.tile_fraction, sampled.tile_fraction);
}

}  // namespace
}  // namespace simjoin
