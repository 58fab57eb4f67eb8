// The Set-of-Z-Lists join (Algorithm::Szl) against the oracle: dimensions 1..256, uniform,
// clustered, exponential, duplicate-heavy and lattice data (pairs at exactly eps), every metric,
// self-joins (All, Unique) and two inputs either side bigger, early stop, empty inputs, NaN
// points, a single point, eps < 0, NaN and infinity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "engine/distance.h"
#include "join_scenarios.h"
#include "random_join_cases.h"
#include "engine/join/szl_join.h"
#include "szl_scenarios.h"
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

TEST(SzlJoin, ExponentialData) { szl_exponential_cases(expect_szl_shapes_match); }

TEST(SzlJoin, DuplicateHeavyData) { szl_duplicate_cases(expect_szl_shapes_match); }

TEST(SzlJoin, LatticePairsAtExactlyEps) { szl_lattice_cases(expect_szl_shapes_match); }

TEST(SzlJoin, NonFinitePointsNeverMatch) { szl_non_finite_cases(expect_szl_shapes_match); }

TEST(SzlJoin, EmptyInputsAndOnePoint) { szl_empty_and_one_point_cases(szl_spec); }

TEST(SzlJoin, EpsNegativeNanAndInfinity) { szl_special_eps_cases(szl_spec, "brute-force"); }

TEST(SzlJoin, WideAndTinyCoordinates) { szl_wide_and_tiny_cases(expect_szl_shapes_match); }

TEST(SzlJoin, StopsWhenTheSinkSaysSo) { szl_stop_cases(szl_spec); }

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
