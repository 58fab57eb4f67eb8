// The GPU result pipeline: many small batches on several streams, the sink stopping the join,
// keep_going polled while the GPU works, results far larger than one GPU batch.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu_test_support.h"
#include "join_scenarios.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;
TEST(GpuStreaming, ManyDeviceBatchesDeliverTheSamePairs) {
  SKIP_WITHOUT_GPU();
  const Points points = blob_points(3000, 3, 3, 2.0, 1);
  const Points other = blob_points(2000, 3, 3, 2.0, 2);
  for (std::size_t device_batch : {1, 50, 4096}) {
    for (int streams : {1, 3, 4}) {
      const ScopedGpuTuning tuning(device_batch, streams);
      for (const GpuKernel& kernel : kGpuKernels) {
        kernel.use();
        JoinSpec spec = gpu_spec(0.5, Metric::Euclidean, SelfPairs::All, kernel.algorithm);
        spec.batch_pairs = 333;
        const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
        EXPECT_GE(stats.batches, (stats.pairs + 332) / 333);
        expect_matches_oracle(points, &other, spec);
        spec.self_pairs = SelfPairs::Unique;
        expect_matches_oracle(points, nullptr, spec);
      }
    }
  }
}

TEST(GpuStreaming, SinkStoppingStopsTheJoin) {
  SKIP_WITHOUT_GPU();
  const Points points = huge_cell();
  for (const GpuKernel& kernel : kGpuKernels) {
    const GpuTuningGuard guard;
    kernel.use();
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      JoinSpec spec = gpu_spec(0.5, Metric::Euclidean, mode, kernel.algorithm);
      spec.batch_pairs = 1000;
      CollectingSink sink(3);
      const auto start = Clock::now();
      const PointSet set = points.set();
      const JoinStats stats = run_join(set, nullptr, spec, sink);
      EXPECT_LT(seconds_since(start), 5.0);
      EXPECT_TRUE(stats.stopped);
      EXPECT_EQ(sink.batches, 3u);
      EXPECT_EQ(stats.pairs, 3000u);
    }
  }
}

// A brute-force count pass over 1.8e9 pairs of 64-D points (only the last dimension differs, so
// no distance stops early) runs for a second or more before the first batch: keep_going must be
// polled meanwhile, and its false must end the join once the running kernel is done (a kernel
// is not interrupted). The scalar kernel: the tensor cores' finishes in a fraction of that.
TEST(GpuStreaming, KeepGoingFalseStopsTheJoin) {
  SKIP_WITHOUT_GPU();
  const GpuTuningGuard guard;
  gpu::tuning().tensor = 0;
  const std::size_t n = 60000, dim = 64;
  const Points last_dim = uniform_points(n, 1, 0.0, 1.0, 3);
  Points points{dim, std::vector<double>(n * dim, 0.0)};
  for (std::size_t i = 0; i < n; ++i) points.point(i)[dim - 1] = last_dim.coords[i];
  JoinSpec spec = gpu_spec(1e-7, Metric::Euclidean, SelfPairs::Unique, Algorithm::BruteForce);
  CancelAfter sink(0.05);
  const auto start = Clock::now();
  const PointSet set = points.set();
  const JoinStats stats = run_join(set, nullptr, spec, sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_GE(sink.polls, 1);
  EXPECT_LT(seconds_since(start), 20.0);
}

// The result is many times the device batch and the default sink batch: all pairs, in order.
TEST(GpuStreaming, ResultLargerThanManyBatches) {
  SKIP_WITHOUT_GPU();
  const ScopedGpuTuning tuning(1 << 16, 3);
  const Points points = huge_cell();  // 4e8 ordered pairs: count them only
  CancelAfter sink(1e9);
  JoinSpec spec = gpu_spec(0.5);
  const PointSet set = points.set();
  const JoinStats stats = run_join(set, nullptr, spec, sink);
  EXPECT_FALSE(stats.stopped);
  EXPECT_EQ(stats.pairs, 20000ull * 20000ull);
  EXPECT_EQ(sink.pairs, stats.pairs);
  EXPECT_GE(stats.batches, stats.pairs / spec.batch_pairs);
}

}  // namespace
}  // namespace simjoin
