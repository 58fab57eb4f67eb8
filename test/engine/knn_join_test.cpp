// run_knn_join against its definition: every partner of every left point, sorted by
// (distance, index), the first k. Ties at the k-th distance (lattices), duplicates, k above the
// right side's size, NaN and infinite points, empty sides, every metric, self-joins with and
// without the point itself, an eps limit, both searches (sorted projection, brute force) in low
// and high dimensions, on 1 and 4 threads. Distances compared bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "knn_oracle.h"

namespace simjoin::testing {
namespace {

void expect_knn(const Points& left, const Points* right, KnnSpec spec, const char* what) {
  const Neighbours expected = oracle_knn(left, right, spec);
  for (KnnAlgorithm algorithm : {KnnAlgorithm::Auto, KnnAlgorithm::SortedProjection,
                                 KnnAlgorithm::BruteForce}) {
    for (int threads : {1, 4}) {
      spec.algorithm = algorithm;
      spec.threads = threads;
      spec.batch_pairs = 7;  // a point's neighbours split over batches
      CollectingSink sink;
      const PointSet right_set = right ? right->set() : PointSet{};
      const JoinStats stats = run_knn_join(left.set(), right ? &right_set : nullptr, spec, sink);
      SCOPED_TRACE(::testing::Message() << what << " algorithm " << static_cast<int>(algorithm)
                                        << " threads " << threads << " k " << spec.k);
      expect_neighbours(sink, stats, expected);
    }
  }
}

const Metric kMetrics[] = {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev,
                           Metric::Cosine};

TEST(KnnJoin, RandomEveryMetricLowAndHighDimensions) {
  for (std::size_t dim : {1, 2, 3, 8, 9, 24}) {
    const Points left = uniform_points(60, dim, -1.0, 1.0, 11 + dim);
    const Points right = uniform_points(300, dim, -1.0, 1.0, 23 + dim);
    for (Metric metric : kMetrics) {
      for (std::size_t k : {1, 5, 17}) expect_knn(left, &right, knn_spec(k, kInf, metric), "random");
      expect_knn(left, &right, knn_spec(10, 0.3, metric), "random eps");
    }
  }
}

TEST(KnnJoin, LatticeTiesAtTheKthDistanceGoToTheSmallerIndex) {
  for (std::size_t dim : {1, 2, 3, 12}) {
    const Points lattice = lattice_points(dim >= 12 ? 2 : 6, dim, 0.5, -1.0);
    Points queries = lattice_points(3, dim, 0.75, -1.0);  // on and between lattice points
    queries.coords.resize(std::min<std::size_t>(queries.n(), 40) * dim);
    for (Metric metric : kMetrics)
      for (std::size_t k : {1, 2, 3, 4, 5, 9})
        expect_knn(queries, &lattice, knn_spec(k, kInf, metric), "lattice");
  }
}

TEST(KnnJoin, DuplicatesAndKAboveTheRightSide) {
  Points right = uniform_points(5, 3, 0.0, 1.0, 7);
  right.coords.insert(right.coords.end(), right.coords.begin(), right.coords.end());  // twice
  const Points left = uniform_points(20, 3, 0.0, 1.0, 8);
  for (Metric metric : kMetrics)
    for (std::size_t k : {3, 10, 11, 2000000000}) expect_knn(left, &right, knn_spec(k, kInf, metric), "dups");
}

TEST(KnnJoin, SelfJoinWithAndWithoutThePointItself) {
  for (std::size_t dim : {2, 20}) {
    Points points = uniform_points(150, dim, 0.0, 1.0, 31 + dim);
    points.coords.insert(points.coords.end(), points.coords.begin(),
                         points.coords.begin() + 10 * dim);  // ten duplicates
    for (Metric metric : kMetrics) {
      for (bool include_self : {true, false}) {
        KnnSpec spec = knn_spec(4, kInf, metric);
        spec.include_self = include_self;
        expect_knn(points, nullptr, spec, "self");
        spec.eps = 0.2;
        expect_knn(points, nullptr, spec, "self eps");
      }
    }
  }
}

TEST(KnnJoin, NaNAndInfinitePointsAndTheEpsLimit) {
  for (std::size_t dim : {2, 16}) {
    Points left = uniform_points(30, dim, 0.0, 1.0, 41);
    Points right = uniform_points(40, dim, 0.0, 1.0, 42);
    left.point(0)[0] = std::nan("");
    left.point(1)[dim - 1] = kInf;
    left.point(2)[0] = -kInf;
    right.point(3)[0] = std::nan("");
    right.point(4)[0] = kInf;
    right.point(5)[dim - 1] = -kInf;
    right.point(6)[0] = kInf;
    right.point(6)[1] = kInf;
    right.point(7)[0] = 1e308;  // the accumulated sum overflows: distance infinity
    std::fill(right.point(8), right.point(8) + dim, 0.0);  // a zero vector: no cosine direction
    for (Metric metric : kMetrics) {
      for (double eps : {kInf, 0.5, 0.0, 1e300}) {
        expect_knn(left, &right, knn_spec(45, eps, metric), "non-finite");
        expect_knn(left, &right, knn_spec(3, eps, metric), "non-finite");
        expect_knn(left, nullptr, knn_spec(3, eps, metric), "non-finite self");
      }
    }
  }
}

TEST(KnnJoin, EmptySidesKZeroAndNegativeEpsGiveNothing) {
  const Points some = uniform_points(10, 3, 0.0, 1.0, 5);
  const Points none{3, {}};
  expect_knn(some, &none, knn_spec(3), "empty right");
  expect_knn(none, &some, knn_spec(3), "empty left");
  expect_knn(none, nullptr, knn_spec(3), "empty self");
  expect_knn(some, &some, knn_spec(0), "k 0");
  expect_knn(some, &some, knn_spec(3, -1.0), "eps < 0");
}

// A sink that stops at its first batch: the join ends early and says so.
TEST(KnnJoin, StopsWhenTheSinkSaysSo) {
  const Points left = uniform_points(2000, 20, 0.0, 1.0, 3);
  const Points right = uniform_points(2000, 20, 0.0, 1.0, 4);
  KnnSpec spec = knn_spec(5);
  spec.threads = 2;
  spec.batch_pairs = 16;
  CollectingSink sink(1);
  const PointSet right_set = right.set();
  const JoinStats stats = run_knn_join(left.set(), &right_set, spec, sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_LT(sink.pairs.size(), 2000u * 5u);
}

// What the GPU's kNN join takes, and where simjoin.device = auto sends a kNN join.
TEST(KnnJoin, WhatTheGpuTakesAndWhereAutoSendsIt) {
  KnnSpec spec = knn_spec(32);
  EXPECT_TRUE(gpu_takes_knn(spec));
  spec.metric = Metric::Cosine;
  EXPECT_TRUE(gpu_takes_knn(spec));
  spec.k = kGpuKnnMaxK + 1;
  EXPECT_FALSE(gpu_takes_knn(spec));
  spec.k = 0;
  EXPECT_FALSE(gpu_takes_knn(spec));
  spec = knn_spec(10);
  spec.metric = Metric::Manhattan;
  EXPECT_FALSE(gpu_takes_knn(spec));

  const PointSet low{nullptr, 300000, 3}, high{nullptr, 300000, 100}, queries{nullptr, 1000, 100};
  const PointSet few{nullptr, 50, 100};
  spec = knn_spec(10);
  EXPECT_FALSE(knn_prefers_gpu(low, &low, spec, 1)) << "3-D: the CPU's sorted walk";
  EXPECT_TRUE(knn_prefers_gpu(queries, &high, spec, 16)) << "1,000 x 300k x 100-D";
  EXPECT_FALSE(knn_prefers_gpu(few, &queries, spec, 1)) << "50 x 1,000 x 100-D";
  spec.metric = Metric::Cosine;
  EXPECT_TRUE(knn_prefers_gpu(low, &low, spec, 16)) << "cosine scans in any dimension";
  spec.k = 40;
  EXPECT_FALSE(knn_prefers_gpu(queries, &high, spec, 1)) << "k above the GPU's";
}

}  // namespace
}  // namespace simjoin::testing
