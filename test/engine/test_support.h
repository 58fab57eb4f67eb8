// Helpers for the engine tests: a sink that collects pairs, point set holders, data generators.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "engine/engine.h"
#include "oracle.h"
#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin::testing {

// Collects every pair; optionally stops after `stop_after_batches` batches.
class CollectingSink : public PairSink {
 public:
  explicit CollectingSink(std::size_t stop_after_batches = 0)
      : stop_after_batches_(stop_after_batches) {}
  bool consume(const PairBatch& batch) override {
    for (std::size_t k = 0; k < batch.size; ++k) {
      pairs.push_back({batch.left[k], batch.right[k], batch.distance[k]});
    }
    max_batch = std::max(max_batch, batch.size);
    ++batches;
    return stop_after_batches_ == 0 || batches < stop_after_batches_;
  }
  std::vector<Pair> sorted() const {
    std::vector<Pair> result = pairs;
    std::sort(result.begin(), result.end());
    return result;
  }

  std::vector<Pair> pairs;
  std::size_t batches = 0;
  std::size_t max_batch = 0;

 private:
  std::size_t stop_after_batches_;
};

// Owns the coordinates of a PointSet.
struct Points {
  std::size_t dim = 0;
  std::vector<double> coords;
  std::size_t n() const { return dim == 0 ? 0 : coords.size() / dim; }
  PointSet set() const { return PointSet{coords.data(), n(), dim}; }
  double* point(std::size_t i) { return coords.data() + i * dim; }
};

inline Points uniform_points(std::size_t n, std::size_t dim, double lo, double hi,
                             unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coord(lo, hi);
  Points points{dim, std::vector<double>(n * dim)};
  for (double& x : points.coords) x = coord(rng);
  return points;
}

// Exponential coordinates with rate `lambda`, clipped to 1 (the synthetic sets of Gowanlock and Karsin, DaMoN 2019).
inline Points exponential_points(std::size_t n, std::size_t dim, double lambda, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> coord(lambda);
  Points points{dim, std::vector<double>(n * dim)};
  for (double& x : points.coords) x = std::min(1.0, coord(rng));
  return points;
}

// Gaussian blobs: `blobs` centres uniform in [0, 100]^dim, points around them with `sigma`.
inline Points blob_points(std::size_t n, std::size_t dim, std::size_t blobs, double sigma,
                          unsigned seed) {
  std::mt19937_64 rng(seed);
  const Points centres = uniform_points(blobs, dim, 0.0, 100.0, seed + 1);
  std::normal_distribution<double> offset(0.0, sigma);
  Points points{dim, std::vector<double>(n * dim)};
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = rng() % blobs;
    for (std::size_t j = 0; j < dim; ++j) {
      points.coords[i * dim + j] = centres.coords[c * dim + j] + offset(rng);
    }
  }
  return points;
}

// Points on the lattice step * {0..side-1}^dim plus `origin` (coordinates computed as
// origin + step * integer, so that many distances are exactly at typical eps values).
inline Points lattice_points(std::size_t side, std::size_t dim, double step, double origin) {
  std::size_t n = 1;
  for (std::size_t j = 0; j < dim; ++j) n *= side;
  Points points{dim, std::vector<double>(n * dim)};
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t rest = i;
    for (std::size_t j = 0; j < dim; ++j) {
      points.coords[i * dim + j] = origin + step * static_cast<double>(rest % side);
      rest /= side;
    }
  }
  return points;
}

// Each base point followed by a partner at distance eps (up to rounding).
inline Points with_partners_at(const Points& base, double eps, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Points points{base.dim, std::vector<double>(2 * base.coords.size())};
  std::vector<double> direction(base.dim);
  for (std::size_t i = 0; i < base.n(); ++i) {
    double norm = 0.0;
    for (double& x : direction) {
      x = normal(rng);
      norm += x * x;
    }
    norm = std::sqrt(norm);
    for (std::size_t j = 0; j < base.dim; ++j) {
      points.point(2 * i)[j] = base.coords[i * base.dim + j];
      points.point(2 * i + 1)[j] = base.coords[i * base.dim + j] + eps * direction[j] / norm;
    }
  }
  return points;
}

inline JoinSpec cpu_spec(double eps, Metric metric = Metric::Euclidean,
                         SelfPairs self_pairs = SelfPairs::All) {
  JoinSpec spec;
  spec.eps = eps;
  spec.metric = metric;
  spec.self_pairs = self_pairs;
  spec.device = Device::Cpu;
  spec.threads = 2;
  return spec;
}

struct JoinOutcome {
  std::vector<Pair> pairs;  // sorted
  JoinStats stats;
};

// A join with run_join's signature and contract (run_join itself, or a driver around it).
using JoinFunction = std::function<decltype(run_join)>;

inline JoinOutcome join_collect(const Points& left, const Points* right, const JoinSpec& spec,
                                const JoinFunction& join = run_join) {
  CollectingSink sink;
  const PointSet right_set = right ? right->set() : PointSet{};
  JoinOutcome outcome;
  outcome.stats = join(left.set(), right ? &right_set : nullptr, spec, sink);
  outcome.pairs = sink.sorted();
  EXPECT_EQ(outcome.stats.pairs, outcome.pairs.size());
  EXPECT_EQ(outcome.stats.batches, sink.batches);
  EXPECT_LE(sink.max_batch, spec.batch_pairs);
  return outcome;
}

inline std::vector<Pair> oracle_collect(const Points& left, const Points* right,
                                        const JoinSpec& spec) {
  const PointSet right_set = right ? right->set() : PointSet{};
  return oracle_join(left.set(), right ? &right_set : nullptr, spec);
}

// Runs the engine (or `join`) and the oracle and requires identical sorted pair lists (indexes and
// distance bits). Returns the engine's stats.
inline JoinStats expect_matches_oracle(const Points& left, const Points* right,
                                       const JoinSpec& spec, const JoinFunction& join = run_join) {
  const JoinOutcome engine = join_collect(left, right, spec, join);
  const std::vector<Pair> expected = oracle_collect(left, right, spec);
  EXPECT_EQ(engine.pairs.size(), expected.size());
  if (engine.pairs != expected) {
    std::size_t k = 0;
    while (k < engine.pairs.size() && k < expected.size() && engine.pairs[k] == expected[k]) ++k;
    ADD_FAILURE() << "first difference at sorted position " << k << " of " << expected.size()
                  << " expected pairs";
  }
  return engine.stats;
}

}  // namespace simjoin::testing
