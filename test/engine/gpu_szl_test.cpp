// The Set-of-Z-Lists join on the GPU (Algorithm::Szl, Device::Gpu) against the oracle and the CPU
// SZL join: the same pairs (indexes and distance bits) and, where the inputs are not chunked, the
// same candidate count (the CPU and GPU indexes agree, so every probe walks the same interval).
// Dimensions 1..256, every metric, both curve sorts, walks with and without the curve-ordered
// copies, self-joins (All, Unique), two inputs either
// side bigger, lattices at exactly eps, duplicates, NaN, empty inputs, early stop, the two-pass
// (count, then fill) result path and a device memory budget that forces chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gpu_test_support.h"
#include "join_scenarios.h"
#include "random_join_cases.h"
#include "szl_scenarios.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinSpec szl_spec(double eps, Metric metric = Metric::Euclidean, SelfPairs mode = SelfPairs::All) {
  JoinSpec spec = cpu_spec(eps, metric, mode);
  spec.device = Device::Gpu;
  spec.algorithm = Algorithm::Szl;
  return spec;
}
// szl_spec without defaults, for the shared cases (szl_scenarios.h).
JoinSpec gpu_szl_spec(double eps, Metric metric, SelfPairs mode) {
  return szl_spec(eps, metric, mode);
}

// The two ways through the GPU SZL join that the tests take in turn: radix-sorted curves walked
// through the curve-ordered copies, merge-sorted curves walked through the ids.
struct SzlVariant {
  bool compare_sort;
  bool curve_copies;
  const char* name;  // JoinStats::algorithm
  void use() const {
    gpu::tuning().szl_compare_sort = compare_sort;
    gpu::tuning().szl_curve_copies = curve_copies;
  }
};
constexpr SzlVariant kSzlVariants[] = {{false, true, "gpu-szl-copies"}, {true, false, "gpu-szl"}};

// The GPU SZL join equals the oracle and the CPU SZL join (pairs and candidates); returns the
// GPU join's stats.
JoinStats expect_gpu_szl_matches(const Points& left, const Points* right, const JoinSpec& spec) {
  const JoinStats gpu = expect_matches_oracle(left, right, spec);
  JoinSpec on_cpu = spec;
  on_cpu.device = Device::Cpu;
  const JoinOutcome cpu = join_collect(left, right, on_cpu);
  if (cpu.stats.algorithm.find("szl") != std::string::npos) {
    EXPECT_EQ(gpu.algorithm.rfind("gpu-szl", 0), 0u) << gpu.algorithm;
    EXPECT_EQ(gpu.candidates, cpu.stats.candidates);
  }
  return gpu;
}

// Self-join All and Unique and both two-input orientations, both variants.
void expect_gpu_szl_shapes_match(const Points& points, double eps, Metric metric) {
  const Points half{points.dim, std::vector<double>(points.coords.begin(),
                                                    points.coords.begin() +
                                                        points.coords.size() / 2)};
  for (const SzlVariant& variant : kSzlVariants) {
    GpuTuningGuard guard;
    variant.use();
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      expect_gpu_szl_matches(points, nullptr, szl_spec(eps, metric, mode));
    }
    expect_gpu_szl_matches(points, &half, szl_spec(eps, metric));
    expect_gpu_szl_matches(half, &points, szl_spec(eps, metric));
  }
}

class GpuSzlRandomJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(GpuSzlRandomJoin, MatchesOracleAndCpuSzl) {
  SKIP_WITHOUT_GPU();
  const RandomJoinInputs in = random_join_inputs(GetParam(), {150, 400}, {170, 420});
  const unsigned seed = seed_of(GetParam());
  for (const SzlVariant& variant : kSzlVariants) {
    GpuTuningGuard guard;
    variant.use();
    JoinSpec spec = szl_spec(in.eps, in.metric, in.mode);
    spec.batch_pairs = seed % 3 == 0 ? 7 : 1000;
    const JoinStats stats = expect_gpu_szl_matches(in.left, in.right_input(), spec);
    EXPECT_EQ(stats.algorithm,
              variant.name + std::string(in.metric == Metric::Cosine ? " on unit vectors" : ""));
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, GpuSzlRandomJoin,
                         random_join_params(::testing::Values(1, 2, 3, 7, 16, 64, 256)),
                         random_join_name);

TEST(GpuSzlJoin, ExponentialData) {
  SKIP_WITHOUT_GPU();
  szl_exponential_cases(expect_gpu_szl_shapes_match);
}

TEST(GpuSzlJoin, DuplicateHeavyData) {
  SKIP_WITHOUT_GPU();
  szl_duplicate_cases(expect_gpu_szl_shapes_match);
}

TEST(GpuSzlJoin, LatticePairsAtExactlyEps) {
  SKIP_WITHOUT_GPU();
  szl_lattice_cases(expect_gpu_szl_shapes_match);
}

TEST(GpuSzlJoin, NonFinitePointsNeverMatch) {
  SKIP_WITHOUT_GPU();
  szl_non_finite_cases(expect_gpu_szl_shapes_match);
  const Points all_nan{2, std::vector<double>(20, std::numeric_limits<double>::quiet_NaN())};
  const Points some = uniform_points(30, 2, 0.0, 1.0, 9);
  expect_gpu_szl_matches(all_nan, nullptr, szl_spec(1.0));
  expect_gpu_szl_matches(all_nan, &some, szl_spec(1.0));
  expect_gpu_szl_matches(some, &all_nan, szl_spec(1.0));
}

TEST(GpuSzlJoin, EmptyInputsAndOnePoint) {
  SKIP_WITHOUT_GPU();
  szl_empty_and_one_point_cases(gpu_szl_spec);
}

TEST(GpuSzlJoin, EpsNegativeNanAndInfinity) {
  SKIP_WITHOUT_GPU();
  szl_special_eps_cases(gpu_szl_spec, "gpu-brute-force");
}

TEST(GpuSzlJoin, WideAndTinyCoordinates) {
  SKIP_WITHOUT_GPU();
  szl_wide_and_tiny_cases(expect_gpu_szl_shapes_match);
}

// Tiny device batches and no single-pass output: the count pass, then fills in many batches.
TEST(GpuSzlJoin, CountThenFillInManyBatches) {
  SKIP_WITHOUT_GPU();
  const ScopedGpuTuning tuning(1000, 3);
  const GpuTuningGuard guard;
  gpu::tuning().direct_pairs = 0;
  const Points points = blob_points(3000, 3, 4, 0.3, 16);
  const Points other = blob_points(2000, 3, 4, 0.3, 17);
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    expect_gpu_szl_matches(points, nullptr, szl_spec(0.1, Metric::Euclidean, mode));
  }
  expect_gpu_szl_matches(points, &other, szl_spec(0.1, Metric::Manhattan));
  expect_gpu_szl_matches(other, &points, szl_spec(0.1, Metric::Chebyshev));
}

// A device memory budget smaller than the inputs: chunked joins of SZL joins, same pairs.
TEST(GpuSzlJoin, SmallDeviceMemoryBudgetChunks) {
  SKIP_WITHOUT_GPU();
  for (std::size_t dim : {2, 16}) {
    const Points points = uniform_points(2000, dim, 0.0, 1.0, 18);
    const Points other = uniform_points(1500, dim, 0.0, 1.0, 19);
    const double eps = eps_from_sample(points, Metric::Euclidean);
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      JoinSpec spec = szl_spec(eps, Metric::Euclidean, mode);
      spec.device_memory_bytes = 600 * gpu::szl_device_bytes_per_point(dim);
      const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
      EXPECT_NE(stats.algorithm.find("chunked"), std::string::npos) << stats.algorithm;
      EXPECT_NE(stats.algorithm.find("gpu-szl"), std::string::npos) << stats.algorithm;
      if (mode == SelfPairs::All) expect_matches_oracle(points, &other, spec);
    }
  }
}

TEST(GpuSzlJoin, StopsWhenTheSinkSaysSo) {
  SKIP_WITHOUT_GPU();
  szl_stop_cases(gpu_szl_spec, 100000);
}

TEST(GpuSzlJoin, StatsNameThePhases) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(500, 4, 0.0, 1.0, 13);
  const JoinStats stats = join_collect(points, nullptr, szl_spec(0.1)).stats;
  ASSERT_GE(stats.phase_seconds.size(), 3u);
  EXPECT_EQ(stats.phase_seconds[0].first, "upload");
  EXPECT_EQ(stats.phase_seconds[1].first, "index");
  EXPECT_EQ(stats.phase_seconds[2].first, "intervals");
  EXPECT_EQ(stats.device.rfind("gpu: ", 0), 0u) << stats.device;
}

// The index build alone, both sorts (what simjoin_bench --zsort --device gpu times).
TEST(GpuSzlIndex, BothSortsBuild) {
  SKIP_WITHOUT_GPU();
  for (std::size_t dim : {1, 16, 256}) {
    const Points points = blob_points(3000, dim, 3, 0.01, 20);
    EXPECT_GE(gpu::szl_index_seconds(points.set(), false), 0.0);
    EXPECT_GE(gpu::szl_index_seconds(points.set(), true), 0.0);
  }
}

}  // namespace
}  // namespace simjoin
