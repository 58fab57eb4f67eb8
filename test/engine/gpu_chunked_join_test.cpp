// The GPU backend on inputs larger than its device-memory budget: with a small
// gpu::Tuning::input_bytes, run_join splits the inputs into chunks (engine/join/chunked_join.h) and joins the
// chunk pairs that can match on the device; the pairs equal the oracle's with every kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_test_support.h"
#include "join_scenarios.h"
#include "random_join_cases.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

// A budget of about `points` points of `dim` dimensions (the backend's estimate is 20 dim + 48
// bytes a point), so that chunks hold about points / 2.
std::size_t budget_for(std::size_t points, std::size_t dim) { return points * (20 * dim + 48); }

// run_join on the GPU whatever device the spec names (expect_all_shapes_match builds CPU specs).
JoinStats join_on_gpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                      PairSink& sink) {
  JoinSpec on_gpu = spec;
  on_gpu.device = Device::Gpu;
  return run_join(left, right, on_gpu, sink);
}

bool chunked(const JoinStats& stats) {
  return stats.algorithm.find("chunked: ") != std::string::npos;
}

class GpuChunkedJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(GpuChunkedJoin, EveryKernelMatchesOracle) {
  SKIP_WITHOUT_GPU();
  const RandomJoinInputs in = random_join_inputs(GetParam(), {300, 900}, {350, 1000});
  for (const GpuKernel& kernel : kGpuKernels) {
    GpuTuningGuard guard;
    kernel.use();
    gpu::tuning().input_bytes = budget_for(400, in.left.dim);
    JoinSpec spec = gpu_spec(in.eps, in.metric, in.mode, kernel.algorithm);
    spec.batch_pairs = 500;
    const JoinStats stats = expect_matches_oracle(in.left, in.right_input(), spec);
    EXPECT_TRUE(chunked(stats)) << stats.algorithm;
    // Far-apart blobs can leave no chunk pair to run ("none, chunked: 0 of T chunk pairs").
    if (stats.algorithm.rfind("none, ", 0) != 0) {
      EXPECT_NE(stats.algorithm.find(kernel.name), std::string::npos) << stats.algorithm;
    }
    EXPECT_EQ(stats.device.rfind("gpu: ", 0), 0u) << stats.device;
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, GpuChunkedJoin,
                         random_join_params(::testing::Values(1, 2, 3, 32)), random_join_name);

// Pairs exactly at eps between neighbouring chunks, duplicates, non-finite points, eps = +inf.
TEST(GpuChunkedJoinScenarios, TiesDuplicatesAndNonFinite) {
  SKIP_WITHOUT_GPU();
  GpuTuningGuard guard;
  gpu::tuning().input_bytes = budget_for(40, 2);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
    expect_all_shapes_match(lattice_points(9, 2, 0.1, -0.4), 0.1, metric, join_on_gpu);
    expect_all_shapes_match(lattice_points(9, 2, 0.1, -0.4), std::sqrt(0.02), metric, join_on_gpu);
    expect_all_shapes_match(exact_duplicates(150), 0.0, metric, join_on_gpu);
    expect_all_shapes_match(with_non_finite(120, 1), 1.5, metric, join_on_gpu);
  }
  expect_all_shapes_match(with_non_finite(60, 3), INFINITY, Metric::Euclidean, join_on_gpu);
  const Points spread = uniform_points(3000, 2, 0.0, 1000.0, 7);
  gpu::tuning().input_bytes = budget_for(200, 2);
  const JoinStats stats = expect_matches_oracle(spread, nullptr, gpu_spec(2.0));
  EXPECT_TRUE(chunked(stats)) << stats.algorithm;
}

// Without a budget the inputs of the tests fit the device: no chunks.
TEST(GpuChunkedJoinScenarios, InputsThatFitAreNotChunked) {
  SKIP_WITHOUT_GPU();
  GpuTuningGuard guard;
  gpu::tuning().input_bytes = 0;
  const Points points = uniform_points(5000, 3, 0.0, 100.0, 8);
  EXPECT_FALSE(chunked(expect_matches_oracle(points, nullptr, gpu_spec(2.0))));
}

}  // namespace
}  // namespace simjoin
