// One join split by regions over the host's GPUs (engine/partition/partitioned_join.h): each
// region's producer thread selects its GPU (region % GPUs; on a one-GPU machine every region
// runs on GPU 0 at once, the same threads and copies as on several), and the pairs equal the
// oracle's, each once, for the grid, brute force and the tensor-core kernels.
#include <gtest/gtest.h>

#include "engine/partition/partitioned_join.h"
#include "gpu_test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinFunction over_gpus(const Points& planned_on, std::size_t regions) {
  return [&planned_on, regions](const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                PairSink& sink) {
    RegionPlanOptions plan;
    plan.regions = regions;
    plan.metric = spec.metric;
    plan.eps = spec.eps;
    PartitionedJoinOptions options;
    options.on_region_thread = [](std::size_t r) {
      gpu::select_gpu(static_cast<int>(r % static_cast<std::size_t>(gpu::gpu_count())));
    };
    return run_partitioned_join(left, right, spec, plan_regions(planned_on.set(), plan), sink,
                                options);
  };
}

TEST(GpuPartitionedJoin, RegionsOnTheGpusEqualTheOracle) {
  SKIP_WITHOUT_GPU();
  const Points blobs = blob_points(6000, 2, 5, 1.5, 71);
  const Points wide = exponential_points(3000, 64, 40.0, 72);
  const Points wide_other = exponential_points(2000, 64, 40.0, 73);
  for (std::size_t regions : {2, 4}) {
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      expect_matches_oracle(blobs, nullptr, gpu_spec(0.3, Metric::Euclidean, mode),
                            over_gpus(blobs, regions));
      expect_matches_oracle(wide, nullptr,
                            gpu_spec(0.15, Metric::Euclidean, mode, Algorithm::BruteForce),
                            over_gpus(wide, regions));
      expect_matches_oracle(wide, nullptr, gpu_spec(0.01, Metric::Cosine, mode,
                                                    Algorithm::BruteForce),
                            over_gpus(wide, regions));
    }
    expect_matches_oracle(wide, &wide_other,
                          gpu_spec(0.15, Metric::Euclidean, SelfPairs::All, Algorithm::BruteForce),
                          over_gpus(wide, regions));
  }
}

}  // namespace
}  // namespace simjoin
