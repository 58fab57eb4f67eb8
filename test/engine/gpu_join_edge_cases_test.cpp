// The GPU backend on special inputs: non-finite coordinates, special eps, exact ties on a
// lattice, duplicates, empty inputs, zero dimensions, and the no-GPU path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpu_test_support.h"
#include "join_scenarios.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(GpuAvailability, AnswersWithAReason) {
  std::string why;
  if (gpu::available(&why)) {
    EXPECT_TRUE(why.empty());
    return;
  }
  EXPECT_FALSE(why.empty());
  const Points points = uniform_points(10, 2, 0.0, 1.0, 1);
  CollectingSink sink;
  const PointSet set = points.set();
  EXPECT_THROW(gpu::run_join(set, nullptr, gpu_spec(0.1), sink), Error);
  EXPECT_EQ(sink.batches, 0u);
}

TEST(GpuEdgeCases, NonFiniteCoordinatesNeverMatchFiniteEps) {
  SKIP_WITHOUT_GPU();
  const Points left = with_non_finite(300, 1);
  const Points right = with_non_finite(200, 2);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
        const JoinSpec spec = gpu_spec(1.5, metric, mode, algorithm);
        expect_matches_oracle(left, nullptr, spec);
        expect_matches_oracle(left, &right, spec);
        expect_matches_oracle(right, &left, spec);
      }
    }
  }
}

TEST(GpuEdgeCases, InfiniteEpsRunsBruteForce) {
  SKIP_WITHOUT_GPU();
  const Points left = with_non_finite(120, 3);
  const Points right = with_non_finite(90, 4);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
    JoinSpec spec = gpu_spec(kInf, metric);
    EXPECT_EQ(expect_matches_oracle(left, nullptr, spec).algorithm, "gpu-brute-force");
    expect_matches_oracle(left, &right, spec);
    spec.self_pairs = SelfPairs::Unique;
    expect_matches_oracle(left, nullptr, spec);
  }
}

TEST(GpuEdgeCases, NegativeOrNaNEpsMatchesNothing) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(200, 2, 0.0, 1.0, 5);
  for (double eps : {-1.0, -kInf, kNaN}) {
    EXPECT_TRUE(join_collect(points, &points, gpu_spec(eps)).pairs.empty());
    EXPECT_TRUE(join_collect(points, nullptr, gpu_spec(eps)).pairs.empty());
  }
}

TEST(GpuEdgeCases, ZeroEpsFindsDuplicatesOnly) {
  SKIP_WITHOUT_GPU();
  Points points = uniform_points(400, 2, 0.0, 1.0, 6);
  for (std::size_t i = 0; i + 3 < points.n(); i += 4) std::copy_n(points.point(i), 2, points.point(i + 1));
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    const JoinStats stats = expect_matches_oracle(points, nullptr, gpu_spec(0.0, Metric::Euclidean, mode));
    EXPECT_EQ(stats.pairs, mode == SelfPairs::All ? 400u + 2 * 100 : 100u);
  }
}

// Lattice points: many distances are exactly eps (or one rounding away from it).
TEST(GpuEdgeCases, LatticeTiesMatchOracle) {
  SKIP_WITHOUT_GPU();
  for (std::size_t dim : {1, 2, 3, 4}) {
    const Points lattice = lattice_points(dim <= 2 ? 40 : 9, dim, 0.1, 0.3);
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (double eps : {0.1, 0.2, std::sqrt(0.02), 0.3, 0.30000000000000004}) {
        for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
          expect_matches_oracle(lattice, nullptr, gpu_spec(eps, metric, SelfPairs::All, algorithm));
          expect_matches_oracle(lattice, &lattice, gpu_spec(eps, metric, SelfPairs::All, algorithm));
        }
      }
    }
  }
}

TEST(GpuEdgeCases, EmptyInputsAndSinglePoint) {
  SKIP_WITHOUT_GPU();
  const Points empty{3, {}};
  const Points points = uniform_points(10, 3, 0.0, 1.0, 7);
  EXPECT_TRUE(join_collect(empty, nullptr, gpu_spec(1.0)).pairs.empty());
  EXPECT_TRUE(join_collect(empty, &points, gpu_spec(1.0)).pairs.empty());
  EXPECT_TRUE(join_collect(points, &empty, gpu_spec(1.0)).pairs.empty());
  const Points one = uniform_points(1, 3, 0.0, 1.0, 9);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = gpu_spec(0.0, Metric::Euclidean, SelfPairs::All, algorithm);
    EXPECT_EQ(join_collect(one, nullptr, spec).pairs, (std::vector<Pair>{{0, 0, 0.0}}));
    EXPECT_EQ(join_collect(one, &one, spec).pairs, (std::vector<Pair>{{0, 0, 0.0}}));
    spec.self_pairs = SelfPairs::Unique;
    EXPECT_TRUE(join_collect(one, nullptr, spec).pairs.empty());
  }
}

TEST(GpuEdgeCases, ZeroDimensionalPointsAllMatch) {
  SKIP_WITHOUT_GPU();
  const double dummy = 0.0;
  const PointSet left{&dummy, 5, 0};
  const PointSet right{&dummy, 3, 0};
  CollectingSink sink;
  EXPECT_EQ(run_join(left, &right, gpu_spec(0.0), sink).pairs, 15u);
  CollectingSink self_sink;
  EXPECT_EQ(run_join(left, nullptr, gpu_spec(0.0, Metric::Euclidean, SelfPairs::Unique), self_sink)
                .pairs,
            10u);
}

TEST(GpuEdgeCases, InvalidInputThrows) {
  SKIP_WITHOUT_GPU();
  const Points a = uniform_points(10, 3, 0.0, 1.0, 10);
  const Points b = uniform_points(10, 4, 0.0, 1.0, 11);
  CollectingSink sink;
  const PointSet a_set = a.set(), b_set = b.set();
  EXPECT_THROW(gpu::run_join(a_set, &b_set, gpu_spec(1.0), sink), Error);
  const PointSet too_many{a.coords.data(), std::size_t{1} << 32, 3};
  EXPECT_THROW(gpu::run_join(too_many, nullptr, gpu_spec(1.0), sink), Error);
  EXPECT_TRUE(sink.pairs.empty());
}

// Far apart values and a huge cell count per dimension: the plan's 62-bit key space.
TEST(GpuEdgeCases, WideRangesAndTinyEps) {
  SKIP_WITHOUT_GPU();
  Points points = uniform_points(2000, 3, -1e12, 1e12, 13);
  for (std::size_t i = 0; i + 1 < points.n(); i += 10) {
    for (int j = 0; j < 3; ++j) points.point(i + 1)[j] = std::nextafter(points.point(i)[j], kInf);
  }
  for (double eps : {1e-3, 1.0, 1e9}) {
    expect_matches_oracle(points, nullptr, gpu_spec(eps));
    expect_matches_oracle(points, nullptr, gpu_spec(eps, Metric::Chebyshev, SelfPairs::Unique));
  }
}

}  // namespace
}  // namespace simjoin
