// The Set-of-Z-Lists join (Algorithm::Szl) against the oracle: dimensions 1..256, uniform,
// clustered, exponential, duplicate-heavy and lattice data (pairs at exactly eps), every metric,
// self-joins (All, Unique) and two inputs either side bigger, early stop, empty inputs, NaN
// points, a single point, eps < 0, NaN and infinity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "distance.h"
#include "join_scenarios.h"
#include "random_join_cases.h"
#include "szl_join.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinSpec szl_spec(double eps, Metric metric = Metric::Euclidean,
                  SelfPairs mode = SelfPairs::All) {
  JoinSpec spec = cpu_spec(eps, metric, mode);
  spec.algorithm = Algorithm::Szl;
  return spec;
}

// Self-join All and Unique and both two-input orientations (first half of the points against
// all of them), SZL forced, against the oracle.
void expect_szl_shapes_match(const Points& points, double eps, Metric metric) {
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    EXPECT_EQ(expect_matches_oracle(points, nullptr, szl_spec(eps, metric, mode)).algorithm,
              metric == Metric::Cosine ? "szl on unit vectors" : "szl");
  }
  const Points half{points.dim, std::vector<double>(points.coords.begin(),
                                                    points.coords.begin() +
                                                        points.coords.size() / 2)};
  expect_matches_oracle(points, &half, szl_spec(eps, metric));
  expect_matches_oracle(half, &points, szl_spec(eps, metric));
}

class SzlRandomJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(SzlRandomJoin, MatchesOracle) {
  const RandomJoinInputs in = random_join_inputs(GetParam(), {150, 400}, {170, 420});
  const unsigned seed = seed_of(GetParam());
  JoinSpec spec = szl_spec(in.eps, in.metric, in.mode);
  spec.threads = 1 + seed % 4;
  spec.batch_pairs = seed % 3 == 0 ? 7 : 1000;
  const JoinStats stats = expect_matches_oracle(in.left, in.right_input(), spec);
  EXPECT_EQ(stats.algorithm, in.metric == Metric::Cosine ? "szl on unit vectors" : "szl");
  EXPECT_FALSE(stats.stopped);
}

INSTANTIATE_TEST_SUITE_P(Dims, SzlRandomJoin,
                         random_join_params(::testing::Values(1, 2, 3, 7, 16, 64, 256)),
                         random_join_name);

TEST(SzlJoin, ExponentialData) {
  for (std::size_t dim : {2, 7, 16, 64}) {
    const Points points = exponential_points(500, dim, 40.0, static_cast<unsigned>(dim));
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      expect_szl_shapes_match(points, eps_from_sample(points, metric), metric);
    }
  }
}

TEST(SzlJoin, DuplicateHeavyData) {
  const Points points = exact_duplicates(600);
  for (double eps : {0.0, 0.3}) {
    for (Metric metric : {Metric::Euclidean, Metric::Chebyshev, Metric::Cosine}) {
      expect_szl_shapes_match(points, eps, metric);
    }
  }
}

// Lattices whose neighbours lie at exactly eps (and diagonals at exactly eps for Chebyshev).
TEST(SzlJoin, LatticePairsAtExactlyEps) {
  for (std::size_t dim : {1, 2, 3}) {
    for (double origin : {0.0, -3.7, 1e6 + 0.1}) {
      const Points points = lattice_points(dim == 1 ? 60 : dim == 2 ? 12 : 6, dim, 0.1, origin);
      for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
        expect_szl_shapes_match(points, 0.1, metric);
        expect_szl_shapes_match(points, 0.2, metric);
      }
    }
  }
  const Points coarse = lattice_points(5, 4, 0.5, 1.0);
  expect_szl_shapes_match(coarse, 0.5, Metric::Euclidean);
  expect_szl_shapes_match(coarse, 1.0, Metric::Manhattan);
}

TEST(SzlJoin, NonFinitePointsNeverMatch) {
  const Points points = with_non_finite(300, 8);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev, Metric::Cosine}) {
    expect_szl_shapes_match(points, 1.5, metric);
  }
}

TEST(SzlJoin, EmptyInputsAndOnePoint) {
  const Points none{3, {}};
  const Points one = uniform_points(1, 3, 0.0, 1.0, 3);
  const Points many = uniform_points(50, 3, 0.0, 1.0, 4);
  for (const Points* side : {&none, &one}) {
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      expect_matches_oracle(*side, nullptr, szl_spec(0.5, Metric::Euclidean, mode));
    }
    expect_matches_oracle(*side, &many, szl_spec(2.0));
    expect_matches_oracle(many, side, szl_spec(2.0));
  }
}

TEST(SzlJoin, EpsNegativeNanAndInfinity) {
  const Points points = uniform_points(120, 5, 0.0, 1.0, 6);
  const Points other = uniform_points(90, 5, 0.0, 1.0, 7);
  for (double eps : {-1.0, std::numeric_limits<double>::quiet_NaN(), 0.0,
                     std::numeric_limits<double>::infinity(), 1e300}) {
    expect_matches_oracle(points, nullptr, szl_spec(eps));
    expect_matches_oracle(points, &other, szl_spec(eps, Metric::Manhattan));
  }
  EXPECT_EQ(join_collect(points, nullptr, szl_spec(std::numeric_limits<double>::infinity()))
                .stats.algorithm,
            "brute-force");
}

TEST(SzlJoin, WideAndTinyCoordinates) {
  Points points = uniform_points(300, 3, -1e300, 1e300, 10);
  expect_szl_shapes_match(points, 1e299, Metric::Chebyshev);
  Points tiny = uniform_points(300, 2, 0.0, 1e-160, 11);
  expect_szl_shapes_match(tiny, 0.0, Metric::Euclidean);  // squares underflow to 0
  expect_szl_shapes_match(tiny, 1e-161, Metric::Manhattan);
}

TEST(SzlJoin, StopsWhenTheSinkSaysSo) {
  const Points points = uniform_points(3000, 2, 0.0, 1.0, 12);
  JoinSpec spec = szl_spec(0.2);
  spec.batch_pairs = 100;
  for (const Points* right : {static_cast<const Points*>(nullptr), &points}) {
    CollectingSink sink(3);
    const PointSet right_set = right ? right->set() : PointSet{};
    const JoinStats stats = run_join(points.set(), right ? &right_set : nullptr, spec, sink);
    EXPECT_TRUE(stats.stopped);
    EXPECT_EQ(sink.batches, 3u);
  }
  const Points same = huge_cell();  // 4e8 pairs in one interval
  CancelAfter cancel(0.2);
  const auto start = Clock::now();
  const JoinStats stats = run_join(same.set(), nullptr, szl_spec(1.0), cancel);
  EXPECT_TRUE(stats.stopped);
  EXPECT_LT(seconds_since(start), 5.0);
}

// The index does not depend on eps: one build serves joins at several eps, both kinds.
TEST(SzlJoin, OneIndexServesEveryEps) {
  const Points points = blob_points(400, 5, 3, 3.0, 14);
  const Points probe = blob_points(300, 5, 3, 3.0, 15);
  const SzlIndex index = build_szl_index(points.set(), 0, 2);
  const PointSet probe_set = probe.set();
  for (double eps : {0.0, 0.5, 2.0, 8.0}) {
    JoinParams params;
    params.metric = Metric::Manhattan;
    params.bound = accumulated_bound(eps, params.metric);
    params.self_pairs = SelfPairs::Unique;
    params.threads = 2;
    params.batch_pairs = 64;
    CollectingSink self, two;
    szl_self_join(index, eps, params, self);
    szl_two_input_join(index, probe_set, true, eps, params, two);
    const PointSet set = points.set();
    EXPECT_EQ(self.sorted(), oracle_join(set, nullptr, cpu_spec(eps, params.metric,
                                                                 SelfPairs::Unique)));
    EXPECT_EQ(two.sorted(), oracle_join(set, &probe_set, cpu_spec(eps, params.metric)));
  }
}

TEST(SzlJoin, StatsNameThePhases) {
  const Points points = uniform_points(500, 4, 0.0, 1.0, 13);
  const JoinStats stats = join_collect(points, nullptr, szl_spec(0.1)).stats;
  ASSERT_EQ(stats.phase_seconds.size(), 2u);
  EXPECT_EQ(stats.phase_seconds[0].first, "index");
  EXPECT_EQ(stats.phase_seconds[1].first, "join");
  EXPECT_EQ(stats.device, "cpu");
}

}  // namespace
}  // namespace simjoin
