// The grid must actually prune: far fewer distance evaluations than the brute force.
#include <gtest/gtest.h>

#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

TEST(Pruning, UniformTwoDimensionalSmallEps) {
  const Points points = uniform_points(20000, 2, 0.0, 100.0, 1);
  JoinSpec spec = cpu_spec(0.5, Metric::Euclidean, SelfPairs::Unique);
  const JoinOutcome outcome = join_collect(points, nullptr, spec);
  EXPECT_EQ(outcome.stats.algorithm, "grid");
  EXPECT_EQ(outcome.stats.indexed_dims, 2);
  const double n = 20000.0;
  // Expected neighbours within a 3x3-cell window: about 9 * n * (cell area / total area) per point.
  EXPECT_LT(static_cast<double>(outcome.stats.candidates), n * n / 200.0);
  EXPECT_GT(outcome.stats.pairs, 0u);
  // Auto first chose the algorithm on samples (engine/choice/algorithm_choice.h).
  ASSERT_EQ(outcome.stats.phase_seconds.size(), 4u);
  EXPECT_EQ(outcome.stats.phase_seconds[0].first, "choose");
  EXPECT_EQ(outcome.stats.phase_seconds[1].first, "plan");
  EXPECT_EQ(outcome.stats.phase_seconds[2].first, "index");
  EXPECT_EQ(outcome.stats.phase_seconds[3].first, "join");
}

TEST(Pruning, HighDimensionalClustersPruneWithFewIndexedDims) {
  const Points points = blob_points(4000, 32, 40, 0.5, 2);
  JoinSpec spec = cpu_spec(2.0, Metric::Euclidean, SelfPairs::Unique);
  const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
  EXPECT_EQ(stats.algorithm, "grid");
  EXPECT_LE(stats.indexed_dims, 6);
  EXPECT_LT(static_cast<double>(stats.candidates), 4000.0 * 4000.0 / 10.0);
}

TEST(Pruning, BruteForceEvaluatesEveryPair) {
  const Points points = uniform_points(300, 2, 0.0, 100.0, 3);
  JoinSpec spec = cpu_spec(0.5, Metric::Euclidean, SelfPairs::All);
  spec.algorithm = Algorithm::BruteForce;
  const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
  EXPECT_EQ(stats.algorithm, "brute-force");
  EXPECT_EQ(stats.candidates, 300u * 301u / 2u);
}

}  // namespace
}  // namespace simjoin
