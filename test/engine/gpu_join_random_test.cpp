// The GPU backend against the oracle on random data: dimensions 1..64, all metrics, self-joins
// (All, Unique) and two inputs with either side bigger; grid (both kernels) and brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "gpu_test_support.h"
#include "join_scenarios.h"
#include "random_join_cases.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;


class GpuRandomJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(GpuRandomJoin, GridAndBruteForceMatchOracle) {
  SKIP_WITHOUT_GPU();
  const RandomJoinInputs in = random_join_inputs(GetParam(), {300, 900}, {350, 1000});
  const unsigned seed = seed_of(GetParam());
  for (const GpuKernel& kernel : kGpuKernels) {
    GpuTuningGuard guard;
    kernel.use();
    JoinSpec spec = gpu_spec(in.eps, in.metric, in.mode, kernel.algorithm);
    spec.batch_pairs = seed % 3 == 0 ? 7 : 1000;
    const JoinStats stats = expect_matches_oracle(in.left, in.right_input(), spec);
    EXPECT_EQ(stats.algorithm, kernel.algorithm_for(in.metric));
    EXPECT_EQ(stats.device.rfind("gpu: ", 0), 0u) << stats.device;
    EXPECT_FALSE(stats.stopped);
    if (kernel.algorithm == Algorithm::Grid) {
      EXPECT_GE(stats.indexed_dims, 1);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dims, GpuRandomJoin,
    random_join_params(::testing::Values(1, 2, 3, 5, 6, 7, 16, 32, 64)), random_join_name);

// Every forced k, masks included (blobs leave most coordinates of a dimension empty).
TEST(GpuRandomJoinForcedK, EveryKMatchesOracle) {
  SKIP_WITHOUT_GPU();
  const Points points = blob_points(1500, 8, 4, 1.0, 77);
  const Points other = uniform_points(700, 8, 0.0, 100.0, 78);
  for (int k = 1; k <= 8; ++k) {
    GpuTuningGuard guard;
    gpu::tuning().grid_tiles = k % 2;  // odd k: the tiled kernel
    JoinSpec spec = gpu_spec(1.5, Metric::Euclidean, SelfPairs::Unique);
    spec.indexed_dims = k;
    EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).indexed_dims, k);
    spec.self_pairs = SelfPairs::All;
    expect_matches_oracle(points, nullptr, spec);
    spec.eps = 20.0;
    expect_matches_oracle(points, &other, spec);
    expect_matches_oracle(other, &points, spec);
  }
}

// The automatic kernel choice: crowded cells (32-D exponential data on two indexed dimensions,
// about 100 points a cell) take the tiled kernel, sparse ones (2-D uniform) one query per thread.
TEST(GpuGridKernelChoice, CrowdedCellsTakeTheTiledKernel) {
  SKIP_WITHOUT_GPU();
  const GpuTuningGuard guard;
  gpu::tuning().grid_tiles = -1;
  const Points crowded = exponential_points(3000, 32, 40.0, 5);
  JoinSpec crowded_spec = gpu_spec(0.05);
  crowded_spec.indexed_dims = 2;
  EXPECT_EQ(expect_matches_oracle(crowded, nullptr, crowded_spec).algorithm, "gpu-grid-tiled");
  const Points sparse = uniform_points(3000, 2, 0.0, 100.0, 6);
  EXPECT_EQ(expect_matches_oracle(sparse, nullptr, gpu_spec(1.0)).algorithm, "gpu-grid");
}

// A larger join than the oracle can check: the GPU grid against the CPU grid, bit for bit.
TEST(GpuRandomJoinLarge, MatchesCpuGridOnTwoHundredThousandPoints) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(200000, 2, 0.0, 100.0, 91);
  const Points other = blob_points(150000, 2, 20, 3.0, 92);
  for (bool self : {true, false}) {
    JoinSpec spec = gpu_spec(0.2);
    spec.batch_pairs = 1 << 16;
    const JoinOutcome gpu = join_collect(points, self ? nullptr : &other, spec);
    spec.device = Device::Cpu;
    spec.threads = 0;
    const JoinOutcome cpu = join_collect(points, self ? nullptr : &other, spec);
    EXPECT_GT(cpu.pairs.size(), 200000u);
    EXPECT_EQ(gpu.pairs.size(), cpu.pairs.size());
    EXPECT_TRUE(gpu.pairs == cpu.pairs);
  }
}

}  // namespace
}  // namespace simjoin
