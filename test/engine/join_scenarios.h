// Data and sinks shared by the join test suites (CPU and GPU): eps from real pair distances,
// non-finite points, duplicates, every join shape on one data set, a huge single cell, a sink
// that cancels after a deadline.
#pragma once

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include "engine/distance.h"
#include "engine/pair_sink.h"
#include "test_support.h"

namespace simjoin::testing {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// eps = the distance of an actual pair (about the 1% quantile of a sample), so that some pairs sit
// exactly at eps.
inline double eps_from_sample(const Points& points, Metric metric) {
  std::vector<double> distances;
  const std::size_t m = std::min<std::size_t>(points.n(), 120);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = i + 1; j < m; ++j) {
      distances.push_back(exact_distance(points.set().point(i), points.set().point(j),
                                         points.dim, metric));
    }
  }
  std::sort(distances.begin(), distances.end());
  return distances[distances.size() / 100];
}

// 3-D points in [0, 10]^3 where every 7th has a NaN or infinite coordinate, and points 1 and 2
// share an infinite coordinate (inf - inf = NaN).
inline Points with_non_finite(std::size_t n, unsigned seed) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Points points = uniform_points(n, 3, 0.0, 10.0, seed);
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), kInf, -kInf};
  for (std::size_t i = 0; i < n; i += 7) points.point(i)[i % 3] = specials[i % 3];
  points.point(1)[0] = kInf;
  points.point(2)[0] = kInf;
  return points;
}

// n 4-D points, each a copy of one of 15 distinct random points (visited in the order i * 7 % 15).
inline Points exact_duplicates(std::size_t n) {
  const Points distinct = uniform_points(15, 4, 0.0, 1.0, 23);
  Points points{4, {}};
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = distinct.coords.data() + (i * 7 % 15) * 4;
    points.coords.insert(points.coords.end(), p, p + 4);
  }
  return points;
}

// Runs the self-join (All and Unique) and a two-input join with the first half of the points (both
// ways round), grid forced, through `join`, against the oracle.
inline void expect_all_shapes_match(const Points& points, double eps, Metric metric,
                                    const JoinFunction& join = run_join) {
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    JoinSpec spec = cpu_spec(eps, metric, mode);
    spec.algorithm = Algorithm::Grid;
    expect_matches_oracle(points, nullptr, spec, join);
  }
  Points half{points.dim, std::vector<double>(points.coords.begin(),
                                              points.coords.begin() + points.coords.size() / 2)};
  JoinSpec spec = cpu_spec(eps, metric);
  spec.algorithm = Algorithm::Grid;
  expect_matches_oracle(points, &half, spec, join);
  expect_matches_oracle(half, &points, spec, join);
}

// 20000 identical 2-D points: 4e8 pairs in one cell, far more than a test can wait for.
inline Points huge_cell(std::size_t n = 20000) { return Points{2, std::vector<double>(2 * n, 1.0)}; }

// Accepts every batch; keep_going turns false after `seconds`. Counts the polls and the pairs.
class CancelAfter : public PairSink {
 public:
  explicit CancelAfter(double seconds)
      : deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds))) {}
  bool consume(const PairBatch& batch) override {
    pairs += batch.size;
    return true;
  }
  bool keep_going() override {
    ++polls;
    return Clock::now() < deadline_;
  }
  int polls = 0;
  std::size_t pairs = 0;

 private:
  Clock::time_point deadline_;
};

}  // namespace simjoin::testing
