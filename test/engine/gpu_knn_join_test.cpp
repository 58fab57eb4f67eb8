// The k-nearest-neighbour join on tensor cores (cuda/knn_tensor_join.cuh) against the join's
// definition (knn_oracle.h), distances bit for bit: random and clustered points from 3 to 130
// dimensions, k from 1 to 32, lattice ties at the k-th distance, duplicates, k above the right
// side, self-joins with and without the point itself, NaN and infinite points, an eps limit,
// cosine, a sink that stops; and the host's selection of each query's k nearest on its own.
#include <gtest/gtest.h>

#include <vector>

#include "engine/knn/nearest_selection.h"
#include "gpu_test_support.h"
#include "knn_oracle.h"

namespace simjoin::testing {
namespace {

// Runs the join on the device: queries settled from their picks where provable, by each pick
// kernel (on registers with 16 and 32 queries a warp, through shared memory), and every query
// through the second pass; checks each against the definition.
void expect_gpu_knn(const Points& left, const Points* right, KnnSpec spec, const char* what) {
  spec.device = Device::Gpu;
  spec.batch_pairs = 7;
  const Neighbours expected = oracle_knn(left, right, spec);
  struct Variant {
    bool settle;
    int pick_rows;
  };
  for (const Variant variant : {Variant{true, 16}, Variant{true, 32}, Variant{true, 0},
                                Variant{false, 16}}) {
    const bool settle = variant.settle;
    GpuTuningGuard guard;
    gpu::tuning().knn_settle = settle;
    gpu::tuning().knn_pick_rows = variant.pick_rows;
    CollectingSink sink;
    const PointSet right_set = right ? right->set() : PointSet{};
    const JoinStats stats = run_knn_join(left.set(), right ? &right_set : nullptr, spec, sink);
    SCOPED_TRACE(::testing::Message() << what << " k " << spec.k << " eps " << spec.eps
                                      << " metric " << static_cast<int>(spec.metric) << " dim "
                                      << left.dim << " settle " << settle << " pick rows "
                                      << variant.pick_rows << " " << stats.device
                                      << " " << stats.algorithm);
    expect_neighbours(sink, stats, expected);
  }
}

TEST(GpuKnnJoin, RandomAndClusteredPointsEveryK) {
  SKIP_WITHOUT_GPU();
  {
    const Points points = uniform_points(500, 64, -1.0, 1.0, 3);
    KnnSpec spec = knn_spec(10);
    spec.device = Device::Gpu;
    CollectingSink sink;
    const JoinStats stats = run_knn_join(points.set(), nullptr, spec, sink);
    EXPECT_EQ(stats.algorithm, "knn tensor-core");
    EXPECT_EQ(stats.device.rfind("gpu", 0), 0u);
  }
  for (std::size_t dim : {3, 20, 100, 130}) {
    const Points left = uniform_points(300, dim, -1.0, 1.0, 11 + dim);
    const Points right = uniform_points(1500, dim, -1.0, 1.0, 23 + dim);
    const Points blobs = blob_points(1000, dim, 8, 0.5, 5 + dim);
    for (Metric metric : {Metric::Euclidean, Metric::Cosine}) {
      for (std::size_t k : {1, 10, 32}) {
        expect_gpu_knn(left, &right, knn_spec(k, kInf, metric), "random");
        expect_gpu_knn(blobs, nullptr, knn_spec(k, kInf, metric), "clustered self");
      }
      expect_gpu_knn(left, &right, knn_spec(10, metric == Metric::Cosine ? 0.4 : 0.9 * dim / 20.0,
                                            metric),
                     "random eps");
    }
  }
}

TEST(GpuKnnJoin, LatticeTiesDuplicatesAndKAboveTheRightSide) {
  SKIP_WITHOUT_GPU();
  const Points lattice = lattice_points(2, 12, 0.5, -1.0);  // 4096 points, many equal distances
  Points queries = lattice_points(3, 12, 0.75, -1.0);
  queries.coords.resize(200 * 12);
  for (Metric metric : {Metric::Euclidean, Metric::Cosine})
    for (std::size_t k : {1, 5, 13, 32})
      expect_gpu_knn(queries, &lattice, knn_spec(k, kInf, metric), "lattice");
  Points right = uniform_points(9, 24, 0.0, 1.0, 7);
  right.coords.insert(right.coords.end(), right.coords.begin(), right.coords.end());  // twice
  const Points left = uniform_points(50, 24, 0.0, 1.0, 8);
  for (std::size_t k : {3, 17, 18, 32}) expect_gpu_knn(left, &right, knn_spec(k), "dups");
}

TEST(GpuKnnJoin, SelfJoinWithAndWithoutThePointItself) {
  SKIP_WITHOUT_GPU();
  Points points = uniform_points(700, 40, 0.0, 1.0, 31);
  points.coords.insert(points.coords.end(), points.coords.begin(),
                       points.coords.begin() + 40 * 40);  // forty duplicates
  for (Metric metric : {Metric::Euclidean, Metric::Cosine}) {
    for (bool include_self : {true, false}) {
      KnnSpec spec = knn_spec(4, kInf, metric);
      spec.include_self = include_self;
      expect_gpu_knn(points, nullptr, spec, "self");
      spec.eps = metric == Metric::Cosine ? 0.1 : 1.2;
      expect_gpu_knn(points, nullptr, spec, "self eps");
    }
  }
}

TEST(GpuKnnJoin, NaNAndInfinitePointsAndTheEpsLimit) {
  SKIP_WITHOUT_GPU();
  const std::size_t dim = 16;
  Points left = uniform_points(30, dim, 0.0, 1.0, 41);
  Points right = uniform_points(40, dim, 0.0, 1.0, 42);
  left.point(0)[0] = std::nan("");
  left.point(1)[dim - 1] = kInf;
  right.point(3)[0] = std::nan("");
  right.point(4)[0] = kInf;
  right.point(7)[0] = 1e308;  // overflows every shift: the filter passes every pair
  std::fill(right.point(8), right.point(8) + dim, 0.0);  // no cosine direction
  for (Metric metric : {Metric::Euclidean, Metric::Cosine}) {
    for (double eps : {kInf, 0.5, 0.0, 1e300}) {
      expect_gpu_knn(left, &right, knn_spec(32, eps, metric), "non-finite");
      expect_gpu_knn(left, &right, knn_spec(3, eps, metric), "non-finite");
      expect_gpu_knn(left, nullptr, knn_spec(3, eps, metric), "non-finite self");
    }
  }
}

// Metrics and k the device does not take run on the CPU, with the same answer.
TEST(GpuKnnJoin, OtherMetricsAndLargeKRunOnTheCpu) {
  SKIP_WITHOUT_GPU();
  const Points left = uniform_points(40, 20, 0.0, 1.0, 3);
  const Points right = uniform_points(200, 20, 0.0, 1.0, 4);
  expect_gpu_knn(left, &right, knn_spec(5, kInf, Metric::Manhattan), "manhattan");
  expect_gpu_knn(left, &right, knn_spec(40), "k 40");
  EXPECT_FALSE(gpu::runs_knn(knn_spec(33)));
  EXPECT_TRUE(gpu::runs_knn(knn_spec(32, kInf, Metric::Cosine)));
}

TEST(GpuKnnJoin, EmptySidesAndAStoppingSink) {
  SKIP_WITHOUT_GPU();
  const Points some = uniform_points(3000, 32, 0.0, 1.0, 5);
  const Points none{32, {}};
  expect_gpu_knn(some, &none, knn_spec(3), "empty right");
  expect_gpu_knn(none, &some, knn_spec(3), "empty left");
  expect_gpu_knn(some, &some, knn_spec(3, -1.0), "eps < 0");
  KnnSpec spec = knn_spec(5);
  spec.device = Device::Gpu;
  spec.batch_pairs = 16;
  CollectingSink sink(1);
  const JoinStats stats = run_knn_join(some.set(), nullptr, spec, sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_EQ(sink.pairs.size(), 16u);
}

// The host's half: each query's k nearest of a superset, by distance then index, nearest first.
TEST(NearestSelection, KeepsEachQuerysKNearestByDistanceThenIndex) {
  CollectingSink sink;
  NearestSelection selection(4, 2, sink);
  const std::uint32_t left[] = {2, 0, 2, 2, 0, 3, 2};
  const std::uint32_t right[] = {9, 5, 4, 1, 6, 8, 3};
  const double distance[] = {0.5, 1.0, 0.25, 0.5, 1.0, 2.0, 0.75};
  selection.consume(PairBatch{left, right, distance, 4});
  selection.consume(PairBatch{left + 4, right + 4, distance + 4, 3});
  EXPECT_EQ(selection.collected(), 7u);
  PairHandOver out(sink, 2);
  EXPECT_TRUE(selection.emit(out));
  EXPECT_TRUE(out.finish());
  EXPECT_EQ(out.pairs(), 5u);
  EXPECT_EQ(out.batches(), 3u);
  const std::vector<Pair> want = {{0, 5, 1.0}, {0, 6, 1.0}, {2, 4, 0.25}, {2, 1, 0.5},
                                  {3, 8, 2.0}};
  ASSERT_EQ(sink.pairs.size(), want.size());
  for (std::size_t p = 0; p < want.size(); ++p) {
    EXPECT_EQ(sink.pairs[p].l, want[p].l);
    EXPECT_EQ(sink.pairs[p].r, want[p].r);
    EXPECT_EQ(sink.pairs[p].d, want[p].d);
  }
}

}  // namespace
}  // namespace simjoin::testing
