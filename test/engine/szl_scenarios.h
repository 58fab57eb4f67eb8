// The data sets of the SZL join tests, shared by the CPU (szl_join_test.cpp) and GPU
// (gpu_szl_test.cpp) suites: each calls shapes(points, eps, metric), which joins the points in
// every shape (self-join All and Unique, two inputs either way) and checks the result.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin::testing {

template <typename Shapes>
void szl_exponential_cases(const Shapes& shapes) {
  for (std::size_t dim : {2, 7, 16, 64}) {
    const Points points = exponential_points(500, dim, 40.0, static_cast<unsigned>(dim));
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      shapes(points, eps_from_sample(points, metric), metric);
    }
  }
}

template <typename Shapes>
void szl_duplicate_cases(const Shapes& shapes) {
  const Points points = exact_duplicates(600);
  for (double eps : {0.0, 0.3}) {
    for (Metric metric : {Metric::Euclidean, Metric::Chebyshev, Metric::Cosine}) {
      shapes(points, eps, metric);
    }
  }
}

// Lattices whose neighbours lie at exactly eps (and diagonals at exactly eps for Chebyshev).
template <typename Shapes>
void szl_lattice_cases(const Shapes& shapes) {
  for (std::size_t dim : {1, 2, 3}) {
    for (double origin : {0.0, -3.7, 1e6 + 0.1}) {
      const Points points = lattice_points(dim == 1 ? 60 : dim == 2 ? 12 : 6, dim, 0.1, origin);
      for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
        shapes(points, 0.1, metric);
        shapes(points, 0.2, metric);
      }
    }
  }
  const Points coarse = lattice_points(5, 4, 0.5, 1.0);
  shapes(coarse, 0.5, Metric::Euclidean);
  shapes(coarse, 1.0, Metric::Manhattan);
}

template <typename Shapes>
void szl_non_finite_cases(const Shapes& shapes) {
  const Points points = with_non_finite(300, 8);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev, Metric::Cosine}) {
    shapes(points, 1.5, metric);
  }
}

template <typename Shapes>
void szl_wide_and_tiny_cases(const Shapes& shapes) {
  const Points wide = uniform_points(300, 3, -1e300, 1e300, 10);
  shapes(wide, 1e299, Metric::Chebyshev);
  const Points tiny = uniform_points(300, 2, 0.0, 1e-160, 11);
  shapes(tiny, 0.0, Metric::Euclidean);  // squares underflow to 0
  shapes(tiny, 1e-161, Metric::Manhattan);
}

// The cases below take spec(eps, metric, mode): the SZL JoinSpec of the suite's device.

template <typename Spec>
void szl_empty_and_one_point_cases(const Spec& spec) {
  const Points none{3, {}};
  const Points one = uniform_points(1, 3, 0.0, 1.0, 3);
  const Points many = uniform_points(50, 3, 0.0, 1.0, 4);
  for (const Points* side : {&none, &one}) {
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      expect_matches_oracle(*side, nullptr, spec(0.5, Metric::Euclidean, mode));
    }
    expect_matches_oracle(*side, &many, spec(2.0, Metric::Euclidean, SelfPairs::All));
    expect_matches_oracle(many, side, spec(2.0, Metric::Euclidean, SelfPairs::All));
  }
}

// eps < 0, NaN, 0, infinity (brute force: `brute_force_name`) and 1e300.
template <typename Spec>
void szl_special_eps_cases(const Spec& spec, const std::string& brute_force_name) {
  const Points points = uniform_points(120, 5, 0.0, 1.0, 6);
  const Points other = uniform_points(90, 5, 0.0, 1.0, 7);
  const double infinity = std::numeric_limits<double>::infinity();
  for (double eps : {-1.0, std::numeric_limits<double>::quiet_NaN(), 0.0, infinity, 1e300}) {
    expect_matches_oracle(points, nullptr, spec(eps, Metric::Euclidean, SelfPairs::All));
    expect_matches_oracle(points, &other, spec(eps, Metric::Manhattan, SelfPairs::All));
  }
  EXPECT_EQ(join_collect(points, nullptr, spec(infinity, Metric::Euclidean, SelfPairs::All))
                .stats.algorithm,
            brute_force_name);
}

// A sink that takes three batches of 100 pairs, then one that cancels after 0.2 s a self-join
// of `same_points` equal points (same_points^2 pairs in one interval: 4e8 by default; a GPU
// delivers that many in about 0.2 s, so its test takes more).
template <typename Spec>
void szl_stop_cases(const Spec& spec, std::size_t same_points = 20000) {
  const Points points = uniform_points(3000, 2, 0.0, 1.0, 12);
  JoinSpec batched = spec(0.2, Metric::Euclidean, SelfPairs::All);
  batched.batch_pairs = 100;
  for (const Points* right : {static_cast<const Points*>(nullptr), &points}) {
    CollectingSink sink(3);
    const PointSet right_set = right ? right->set() : PointSet{};
    const JoinStats stats = run_join(points.set(), right ? &right_set : nullptr, batched, sink);
    EXPECT_TRUE(stats.stopped);
    EXPECT_EQ(sink.batches, 3u);
    EXPECT_LE(stats.pairs, 300u);
  }
  const Points same = huge_cell(same_points);
  CancelAfter cancel(0.2);
  const auto start = Clock::now();
  const JoinStats stats =
      run_join(same.set(), nullptr, spec(1.0, Metric::Euclidean, SelfPairs::All), cancel);
  EXPECT_TRUE(stats.stopped);
  EXPECT_LT(seconds_since(start), 5.0);
}

}  // namespace simjoin::testing
