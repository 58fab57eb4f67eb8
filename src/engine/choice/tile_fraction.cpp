// estimate_tile_fraction: the tensor-core join's tile mask, rebuilt on samples.
#include "engine/choice/tile_fraction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "engine/cosine.h"
#include "engine/join/finite_points.h"
#include "engine/join/tile_order.h"

namespace simjoin {
namespace {

constexpr std::size_t kSampledRowsPerTile = 16;     // the sample's points a tile, at most
constexpr std::size_t kMinSampledRowsPerTile = 4;   // fewer: not estimated
constexpr double kSampleCoordinates = 2e6;          // budget of a side's sample
constexpr double kPairCoordinates = 2e6;            // budget of the tile pairs' tests
constexpr std::size_t kMinTestedPairs = 4096;
constexpr std::size_t kWiden = 1;                   // neighbours' rows in a group's extent
constexpr double kMaxMaskBytes = 256.0 * 1024 * 1024;  // cuda/tile_pruning.cuh's

struct Balls {
  std::vector<double> centre;  // tiles x dim
  std::vector<double> extent;  // tiles
};

// A side's rows at `target` random places (a fixed seed; evenly spaced places would alias with
// rows dealt out in turn, such as generated clusters), the finite ones, as unit vectors for the
// cosine distance (zero vectors left out), dim each.
std::vector<double> sampled_rows(const PointSet& set, std::size_t target, bool unit) {
  std::mt19937_64 rng(0x7117e5);
  std::uniform_int_distribution<std::size_t> place(0, set.n - 1);
  std::vector<double> rows;
  rows.reserve(target * set.dim);
  for (std::size_t k = 0; k < target; ++k) {
    const double* p = set.point(place(rng));
    if (!is_finite_point(p, set.dim)) continue;
    double scale = 1.0;
    if (unit) {
      double norm2 = 0.0;
      for (std::size_t j = 0; j < set.dim; ++j) norm2 += p[j] * p[j];
      if (!(norm2 > 0.0) || !std::isfinite(norm2)) continue;
      scale = 1.0 / std::sqrt(norm2);
    }
    rows.insert(rows.end(), p, p + set.dim);
    if (unit)
      for (auto x = rows.end() - static_cast<std::ptrdiff_t>(set.dim); x != rows.end(); ++x)
        *x *= scale;
  }
  return rows;
}

// The balls of `tiles` groups of the rows in key order: group t holds the sorted rows
// [t s / tiles, (t + 1) s / tiles).
Balls balls_of(const std::vector<double>& rows, std::size_t dim, const SpaceKey& key,
               std::size_t tiles) {
  const std::size_t s = rows.size() / dim;
  std::vector<unsigned long long> keys(s);
  for (std::size_t i = 0; i < s; ++i) keys[i] = space_key_of(key, &rows[i * dim]);
  std::vector<std::uint32_t> order(s);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  Balls balls;
  balls.centre.assign(tiles * dim, 0.0);
  balls.extent.assign(tiles, 0.0);
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t first = t * s / tiles, last = (t + 1) * s / tiles;
    double* c = &balls.centre[t * dim];
    for (std::size_t r = first; r < last; ++r)
      for (std::size_t j = 0; j < dim; ++j) c[j] += rows[order[r] * dim + j];
    for (std::size_t j = 0; j < dim; ++j) c[j] /= static_cast<double>(last - first);
    // The extent over the group's rows and its neighbours' nearest one on each side: a tile's
    // rows reach to its bounds in key order, between the sampled rows (without them, a tile
    // holding the end of one cluster and the start of the next was often sampled as one).
    double largest = 0.0;
    const std::size_t from = first >= kWiden ? first - kWiden : 0;
    for (std::size_t r = from; r < std::min(s, last + kWiden); ++r) {
      double d2 = 0.0;
      for (std::size_t j = 0; j < dim; ++j) {
        const double d = rows[order[r] * dim + j] - c[j];
        d2 += d * d;
      }
      largest = std::max(largest, d2);
    }
    balls.extent[t] = std::sqrt(largest);
  }
  return balls;
}

bool within(const Balls& a, std::size_t i, const Balls& b, std::size_t t, std::size_t dim,
            double bound) {
  double d2 = 0.0;
  for (std::size_t j = 0; j < dim; ++j) {
    const double d = a.centre[i * dim + j] - b.centre[t * dim + j];
    d2 += d * d;
  }
  const double reach = a.extent[i] + b.extent[t] + bound;
  return d2 <= reach * reach;
}

}  // namespace

bool tensor_tiles_apply(Metric metric, std::size_t dim) {
  return (metric == Metric::Euclidean || metric == Metric::Cosine) && dim >= 16;
}

double estimate_tile_fraction(const PointSet& left, const PointSet* right, const JoinSpec& spec) {
  const std::size_t dim = left.dim;
  if (!tensor_tiles_apply(spec.metric, dim) || !std::isfinite(spec.eps) || spec.eps < 0.0)
    return 1.0;
  const bool cosine = spec.metric == Metric::Cosine;
  const double bound = cosine ? cosine_candidate_radius(spec.eps, dim) : spec.eps;
  const PointSet& other = right ? *right : left;
  const std::size_t left_tiles = (left.n + kTensorTileRows - 1) / kTensorTileRows;
  const std::size_t right_tiles = (other.n + kTensorTileRows - 1) / kTensorTileRows;
  if (left_tiles < 2 || right_tiles < 2 ||
      static_cast<double>(left_tiles) * ((right_tiles + 31) / 32) * 4.0 > kMaxMaskBytes)
    return 1.0;
  const auto sample_target = [&](std::size_t tiles) {
    return std::min(tiles * kSampledRowsPerTile,
                    static_cast<std::size_t>(kSampleCoordinates / static_cast<double>(dim)));
  };
  const std::vector<double> left_rows = sampled_rows(left, sample_target(left_tiles), cosine);
  const std::vector<double> right_rows =
      right ? sampled_rows(*right, sample_target(right_tiles), cosine) : std::vector<double>();
  const std::size_t left_s = left_rows.size() / dim;
  const std::size_t right_s = right ? right_rows.size() / dim : left_s;
  if (left_s < kMinSampledRowsPerTile * left_tiles ||
      right_s < kMinSampledRowsPerTile * right_tiles)
    return 1.0;

  // The key from the mean and variance of both sides' samples, as the GPU's from all rows.
  std::vector<double> mean(dim, 0.0), variance(dim, 0.0);
  const std::size_t rows = left_s + (right ? right_s : 0);
  for (const std::vector<double>* side : {&left_rows, &right_rows})
    for (std::size_t i = 0; i < side->size(); i += dim)
      for (std::size_t j = 0; j < dim; ++j) mean[j] += (*side)[i + j];
  for (double& m : mean) m /= static_cast<double>(rows);
  for (const std::vector<double>* side : {&left_rows, &right_rows})
    for (std::size_t i = 0; i < side->size(); i += dim)
      for (std::size_t j = 0; j < dim; ++j) {
        const double d = (*side)[i + j] - mean[j];
        variance[j] += d * d;
      }
  for (double& v : variance) v /= static_cast<double>(rows);
  const SpaceKey key = space_key(mean, variance);
  const Balls left_balls = balls_of(left_rows, dim, key, left_tiles);
  const Balls right_balls = right ? balls_of(right_rows, dim, key, right_tiles) : Balls();
  const Balls& candidates = right ? right_balls : left_balls;

  // Every tile pair (a self-join: t >= l) where the budget allows, else a deterministic sample.
  const double pairs = right ? static_cast<double>(left_tiles) * right_tiles
                             : static_cast<double>(left_tiles) * (left_tiles + 1) / 2.0;
  const double affordable = std::max<double>(kMinTestedPairs, kPairCoordinates / dim);
  double kept = 0.0, tested = 0.0;
  if (pairs <= affordable) {
    for (std::size_t l = 0; l < left_tiles; ++l)
      for (std::size_t t = right ? 0 : l; t < right_tiles; ++t) {
        kept += within(left_balls, l, candidates, t, dim, bound);
        tested += 1.0;
      }
  } else {
    std::mt19937_64 rng(0x5eed);
    std::uniform_int_distribution<std::size_t> pick_left(0, left_tiles - 1),
        pick_right(0, right_tiles - 1);
    for (double k = 0; k < affordable; k += 1.0) {
      std::size_t l = pick_left(rng), t = pick_right(rng);
      if (!right && t < l) std::swap(l, t);
      kept += within(left_balls, l, candidates, t, dim, bound);
      tested += 1.0;
    }
  }
  const double fraction = std::max(kept, 1.0) / tested;
  return fraction > 0.9 ? 1.0 : fraction;
}

}  // namespace simjoin
