// Special inputs: non-finite coordinates, special eps, empty and single-point inputs, invalid input.
#include <gtest/gtest.h>

#include <limits>

#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(EdgeCaseJoin, NonFiniteCoordinatesNeverMatchFiniteEps) {
  const Points left = with_non_finite(300, 1);
  const Points right = with_non_finite(200, 2);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce, Algorithm::Auto}) {
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
        JoinSpec spec = cpu_spec(1.5, metric, mode);
        spec.algorithm = algorithm;
        expect_matches_oracle(left, nullptr, spec);
        expect_matches_oracle(left, &right, spec);
      }
    }
  }
}

TEST(EdgeCaseJoin, InfiniteEpsMatchesEveryPairWithoutNaN) {
  const Points left = with_non_finite(120, 3);
  const Points right = with_non_finite(90, 4);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
    for (Algorithm algorithm : {Algorithm::Grid, Algorithm::Auto}) {
      JoinSpec spec = cpu_spec(kInf, metric);
      spec.algorithm = algorithm;
      EXPECT_EQ(expect_matches_oracle(left, nullptr, spec).algorithm, "brute-force");
      expect_matches_oracle(left, &right, spec);
      spec.self_pairs = SelfPairs::Unique;
      expect_matches_oracle(left, nullptr, spec);
    }
  }
}

TEST(EdgeCaseJoin, NegativeOrNaNEpsMatchesNothing) {
  const Points points = uniform_points(200, 2, 0.0, 1.0, 5);
  for (double eps : {-1.0, -kInf, kNaN}) {
    const JoinOutcome outcome = join_collect(points, &points, cpu_spec(eps));
    EXPECT_TRUE(outcome.pairs.empty());
    EXPECT_TRUE(join_collect(points, nullptr, cpu_spec(eps)).pairs.empty());
  }
}

TEST(EdgeCaseJoin, ZeroEpsFindsDuplicatesOnly) {
  Points points = uniform_points(400, 2, 0.0, 1.0, 6);
  for (std::size_t i = 0; i + 3 < points.n(); i += 4) {
    std::copy_n(points.point(i), 2, points.point(i + 1));
  }
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    JoinSpec spec = cpu_spec(0.0, Metric::Euclidean, mode);
    spec.algorithm = Algorithm::Grid;
    const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
    EXPECT_EQ(stats.pairs, mode == SelfPairs::All ? 400u + 2 * 100 : 100u);
  }
}

TEST(EdgeCaseJoin, EmptyInputs) {
  const Points empty{3, {}};
  const Points points = uniform_points(10, 3, 0.0, 1.0, 7);
  const Points other_dim = uniform_points(10, 5, 0.0, 1.0, 8);
  EXPECT_TRUE(join_collect(empty, nullptr, cpu_spec(1.0)).pairs.empty());
  EXPECT_TRUE(join_collect(empty, &points, cpu_spec(1.0)).pairs.empty());
  EXPECT_TRUE(join_collect(points, &empty, cpu_spec(1.0)).pairs.empty());
  // An empty side's dimension does not matter.
  EXPECT_TRUE(join_collect(empty, &other_dim, cpu_spec(1.0)).pairs.empty());
}

TEST(EdgeCaseJoin, SinglePoint) {
  const Points one = uniform_points(1, 3, 0.0, 1.0, 9);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = cpu_spec(0.0);
    spec.algorithm = algorithm;
    EXPECT_EQ(join_collect(one, nullptr, spec).pairs, (std::vector<Pair>{{0, 0, 0.0}}));
    EXPECT_EQ(join_collect(one, &one, spec).pairs, (std::vector<Pair>{{0, 0, 0.0}}));
    spec.self_pairs = SelfPairs::Unique;
    EXPECT_TRUE(join_collect(one, nullptr, spec).pairs.empty());
  }
}

// dim 0: every distance is 0 (an empty sum), so every pair matches any eps >= 0.
TEST(EdgeCaseJoin, ZeroDimensionalPointsAllMatch) {
  const double dummy = 0.0;
  const PointSet left{&dummy, 5, 0};
  const PointSet right{&dummy, 3, 0};
  CollectingSink sink;
  const JoinStats stats = run_join(left, &right, cpu_spec(0.0), sink);
  EXPECT_EQ(stats.pairs, 15u);
  CollectingSink self_sink;
  EXPECT_EQ(run_join(left, nullptr, cpu_spec(0.0, Metric::Euclidean, SelfPairs::Unique),
                     self_sink).pairs,
            10u);
}

TEST(EdgeCaseJoin, InvalidInputThrows) {
  const Points a = uniform_points(10, 3, 0.0, 1.0, 10);
  const Points b = uniform_points(10, 4, 0.0, 1.0, 11);
  CollectingSink sink;
  const PointSet a_set = a.set(), b_set = b.set();
  EXPECT_THROW(run_join(a_set, &b_set, cpu_spec(1.0), sink), Error);
  const PointSet too_many{a.coords.data(), std::size_t{1} << 32, 3};
  EXPECT_THROW(run_join(too_many, nullptr, cpu_spec(1.0), sink), Error);
  const PointSet no_coords{nullptr, 10, 3};
  EXPECT_THROW(run_join(no_coords, nullptr, cpu_spec(1.0), sink), Error);
  EXPECT_TRUE(sink.pairs.empty());
}

TEST(EdgeCaseJoin, GpuDeviceWithoutGpuThrowsAndAutoFallsBack) {
  if (gpu_available()) GTEST_SKIP() << "a GPU is present";
  std::string why;
  EXPECT_FALSE(gpu_available(&why));
  EXPECT_FALSE(why.empty());
  const Points points = uniform_points(300, 2, 0.0, 1.0, 12);
  JoinSpec spec = cpu_spec(0.05);
  spec.device = Device::Gpu;
  CollectingSink sink;
  const PointSet set = points.set();
  EXPECT_THROW(run_join(set, nullptr, spec, sink), Error);
  spec.device = Device::Auto;
  EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).device, "cpu");
}

}  // namespace
}  // namespace simjoin
