// Randomized joins against the oracle: dimensions 1..128, uniform and clustered data, all metrics,
// self-joins (All, Unique) and two inputs with either side bigger.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "join_scenarios.h"
#include "random_join_cases.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;


class RandomJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(RandomJoin, MatchesOracle) {
  const RandomJoinInputs in = random_join_inputs(GetParam(), {150, 400}, {170, 420});
  const unsigned seed = seed_of(GetParam());
  JoinSpec spec = cpu_spec(in.eps, in.metric, in.mode);
  spec.algorithm = Algorithm::Grid;
  spec.threads = 1 + seed % 4;
  spec.batch_pairs = seed % 3 == 0 ? 7 : 1000;
  const JoinStats stats = expect_matches_oracle(in.left, in.right_input(), spec);
  EXPECT_EQ(stats.algorithm, in.metric == Metric::Cosine ? "grid on unit vectors" : "grid");
  EXPECT_GE(stats.indexed_dims, 1);
  EXPECT_FALSE(stats.stopped);
}

INSTANTIATE_TEST_SUITE_P(
    Dims, RandomJoin,
    random_join_params(::testing::Values(1, 2, 3, 6, 16, 32, 64, 128)), random_join_name);

// Every forced k on a 6-D set, with 1 and 4 threads.
TEST(RandomJoinForcedK, EveryKMatchesOracle) {
  const Points points = blob_points(600, 6, 4, 1.0, 77);
  const Points other = uniform_points(300, 6, 0.0, 100.0, 78);
  for (int k = 1; k <= 6; ++k) {
    for (int threads : {1, 4}) {
      JoinSpec spec = cpu_spec(1.5, Metric::Euclidean, SelfPairs::Unique);
      spec.algorithm = Algorithm::Grid;
      spec.indexed_dims = k;
      spec.threads = threads;
      EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).indexed_dims, k);
      spec.eps = 20.0;
      expect_matches_oracle(points, &other, spec);
    }
  }
}

}  // namespace
}  // namespace simjoin
