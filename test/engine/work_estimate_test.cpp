// The sampled work estimate (what Device::Auto weighs) against what the grid join then does, and
// the device choice's model.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/choice/algorithm_choice.h"
#include "engine/choice/device_choice.h"
#include "test_support.h"
#include "engine/choice/work_estimate.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

// The estimate of candidates and pairs is within `factor` of the join's own counts.
void expect_estimate_near(const Points& left, const Points* right, const JoinSpec& spec,
                          double factor) {
  const PointSet right_set = right ? right->set() : PointSet{};
  const JoinWork work = estimate_join_work(left.set(), right ? &right_set : nullptr, spec);
  const JoinOutcome actual = join_collect(left, right, spec);
  const double candidates = static_cast<double>(actual.stats.candidates);
  const double pairs = static_cast<double>(actual.stats.pairs);
  EXPECT_GT(work.candidates, candidates / factor) << "candidates " << candidates;
  EXPECT_LT(work.candidates, candidates * factor) << "candidates " << candidates;
  EXPECT_GT(work.pairs, pairs / factor) << "pairs " << pairs;
  EXPECT_LT(work.pairs, pairs * factor) << "pairs " << pairs;
  EXPECT_GE(work.indexed_dims, 1);
}

TEST(WorkEstimate, UniformSelfJoin2d) {
  const Points points = uniform_points(40000, 2, 0.0, 100.0, 1);
  expect_estimate_near(points, nullptr, cpu_spec(0.5), 2.0);
  expect_estimate_near(points, nullptr, cpu_spec(2.0), 2.0);
}

TEST(WorkEstimate, TwoSidedBlobs3d) {
  const Points all = blob_points(50000, 3, 40, 1.0, 2);  // one set of blobs, split in two
  const Points left{3, std::vector<double>(all.coords.begin(), all.coords.begin() + 3 * 30000)};
  const Points right{3, std::vector<double>(all.coords.begin() + 3 * 30000, all.coords.end())};
  expect_estimate_near(left, &right, cpu_spec(0.3), 2.5);
}

TEST(WorkEstimate, Exponential16d) {
  const Points points = exponential_points(20000, 16, 40.0, 4);
  expect_estimate_near(points, nullptr, cpu_spec(0.05), 3.0);
}

TEST(WorkEstimate, CosineCountsUnitVectorCandidates) {
  const Points points = blob_points(20000, 8, 50, 0.02, 5);
  const JoinWork work = estimate_join_work(points.set(), nullptr, cpu_spec(0.001, Metric::Cosine));
  const JoinOutcome actual = join_collect(points, nullptr, cpu_spec(0.001, Metric::Cosine));
  const double candidates = static_cast<double>(actual.stats.candidates);
  EXPECT_GT(work.candidates, candidates / 3.0);
  EXPECT_LT(work.candidates, candidates * 3.0);
}

TEST(WorkEstimate, TermsPerCandidateFollowTheEarlyStop) {
  // Uniform in 64-D with a small eps: a check stops after a few dimensions; with eps beyond the
  // diameter it reads them all.
  const Points points = uniform_points(5000, 64, 0.0, 1.0, 8);
  const JoinWork near = estimate_join_work(points.set(), nullptr, cpu_spec(0.5));
  EXPECT_GE(near.terms_per_candidate, 1.0);
  EXPECT_LT(near.terms_per_candidate, 16.0);
  const JoinWork far = estimate_join_work(points.set(), nullptr, cpu_spec(100.0));
  EXPECT_DOUBLE_EQ(far.terms_per_candidate, 64.0);
}

TEST(WorkEstimate, InfiniteEpsIsEveryPair) {
  const Points left = uniform_points(300, 4, 0.0, 1.0, 6);
  const Points right = uniform_points(200, 4, 0.0, 1.0, 7);
  const PointSet right_set = right.set();
  const JoinWork work = estimate_join_work(left.set(), &right_set, cpu_spec(INFINITY));
  EXPECT_EQ(work.candidates, 300.0 * 200.0);
  EXPECT_EQ(work.indexed_dims, 0);
}

JoinWork work_of(double points, std::size_t dim, double candidates, double pairs) {
  JoinWork work;
  work.terms_per_candidate = static_cast<double>(dim) / 2.0;
  work.left_points = work.right_points = points;
  work.dim = dim;
  work.candidates = candidates;
  work.pairs = pairs;
  return work;
}

TEST(DeviceChoice, SmallJoinsArePricedAtTheDevicesFixedCosts) {
  // A small join costs each device about its fixed cost (a CPU engine's threads and plan; a GPU
  // service job's round trip), and goes where that is lower.
  const DeviceSpeeds& s = measured_speeds();
  const DeviceEstimate e = estimate_devices(work_of(1e4, 2, 1e5, 5e4), 16, 5e4);
  EXPECT_NEAR(e.cpu_seconds, s.cpu_join_ns * 1e-9, 0.2 * s.cpu_join_ns * 1e-9);
  EXPECT_NEAR(e.gpu_seconds, s.gpu_join_ns * 1e-9, 0.2 * s.gpu_join_ns * 1e-9);
  EXPECT_EQ(e.gpu, s.gpu_join_ns * kGpuGain < s.cpu_join_ns);
}

TEST(DeviceChoice, TinyJoinsStayOnTheCpuUnsampled) {
  // Below kAutoEstimateFromPairs point pairs neither device is priced: no sample is taken.
  const Points points = uniform_points(3000, 2, 0.0, 1.0, 12);
  JoinSpec spec = cpu_spec(0.1);
  spec.algorithm = Algorithm::Auto;
  SampledWork sampled;
  EXPECT_FALSE(auto_prefers_gpu(points.set(), nullptr, spec, 16, &sampled, false, nullptr));
  EXPECT_FALSE(sampled.has_grid);
  const Points more = uniform_points(4000, 2, 0.0, 1.0, 12);  // 1.6e7 pairs: priced
  auto_prefers_gpu(more.set(), nullptr, spec, 16, &sampled, false, nullptr);
  EXPECT_TRUE(sampled.has_grid);
}

TEST(DeviceChoice, HeavyHighDimensionalJoinsGoToTheGpu) {
  const DeviceEstimate e = estimate_devices(work_of(1e5, 100, 5e9, 1e6), 16, 1e6);
  EXPECT_TRUE(e.gpu);
  EXPECT_GT(e.cpu_seconds, 3.0 * e.gpu_seconds);
}

TEST(DeviceChoice, PostgresqlsShareDoesNotDecide) {
  // Forming a billion result tuples is the same work on both devices: the choice follows the
  // engine's estimates alone, with their margin.
  const DeviceEstimate e = estimate_devices(work_of(1e6, 2, 2e9, 1e9), 16, 1e9);
  EXPECT_GT(e.around_seconds, 10.0 * e.cpu_seconds);
  EXPECT_LT(e.gpu_seconds * 3.0, e.cpu_seconds);
  EXPECT_TRUE(e.gpu);
}

TEST(DeviceChoice, MoreCpuThreadsMoveTheBoundary) {
  const JoinWork work = work_of(2e5, 16, 3e8, 1e5);
  EXPECT_GT(estimate_devices(work, 1, 1e5).cpu_seconds,
            10.0 * estimate_devices(work, 16, 1e5).cpu_seconds);
}

TEST(DeviceChoice, EachDevicePricedWithTheAlgorithmItRuns) {
  // 128-D: each device is priced with the algorithm its own speeds pick (brute force on both:
  // the CPU's FP32 filter, the GPU's tensor cores), not with the grid's model.
  const Points points = uniform_points(30000, 128, 0.0, 1.0, 11);
  JoinSpec spec = cpu_spec(4.0);
  spec.algorithm = Algorithm::Auto;
  SampledWork sampled;
  DeviceEstimate priced;
  auto_prefers_gpu(points.set(), nullptr, spec, 16, &sampled, false, &priced);
  ASSERT_TRUE(sampled.has_grid);
  EXPECT_FALSE(sampled.has_szl) << "not priced above kSzlMaxPricedDim dimensions";
  const auto pick = [&](int threads, const AlgorithmSpeeds& speeds) {
    return cheapest_algorithm(&sampled.grid, nullptr, brute_work(points.set(), nullptr, sampled),
                              128, spec.metric, threads, speeds)
        .estimates.front();
  };
  const AlgorithmEstimate cpu = pick(16, cpu_algorithm_speeds());
  const AlgorithmEstimate gpu = pick(1, gpu_algorithm_speeds());
  ASSERT_EQ(cpu.algorithm, "brute-force");
  ASSERT_EQ(gpu.algorithm, "brute-force");
  const DeviceSpeeds& s = measured_speeds();
  const double pairs = sampled.grid.pairs;
  EXPECT_NEAR(priced.cpu_seconds, cpu.seconds + (s.cpu_join_ns + pairs * s.cpu_pair_ns / 16) * 1e-9,
              1e-9 + 1e-6 * priced.cpu_seconds);
  EXPECT_NEAR(priced.gpu_seconds,
              (s.gpu_join_ns + 60000.0 * 128 * s.gpu_point_dim_ns + pairs * s.gpu_pair_ns) * 1e-9 +
                  gpu.seconds * s.gpu_algorithm_scale,
              1e-9 + 1e-6 * priced.gpu_seconds);
  // A forced grid is priced as the grid.
  spec.algorithm = Algorithm::Grid;
  DeviceEstimate forced;
  auto_prefers_gpu(points.set(), nullptr, spec, 16, &sampled, false, &forced);
  if (sampled.grid.indexed_dims > 0) {
    const DeviceEstimate grid = estimate_devices(sampled.grid, 16, sampled.grid.pairs);
    EXPECT_DOUBLE_EQ(forced.cpu_seconds, grid.cpu_seconds);
    EXPECT_DOUBLE_EQ(forced.gpu_seconds, grid.gpu_seconds);
  }
}

TEST(DeviceChoice, CosinePricedWithTheAlgorithmItRuns) {
  // Directions with near copies, by cosine: priced on the unit vectors' samples like Euclidean
  // joins; before, as the grid's model whatever ran.
  const Points points = uniform_points(30000, 100, -1.0, 1.0, 12);
  JoinSpec spec = cpu_spec(0.05);
  spec.metric = Metric::Cosine;
  spec.algorithm = Algorithm::Auto;
  SampledWork sampled;
  DeviceEstimate priced;
  auto_prefers_gpu(points.set(), nullptr, spec, 16, &sampled, false, &priced);
  ASSERT_TRUE(sampled.has_grid);
  EXPECT_FALSE(sampled.has_szl);
  const DeviceEstimate grid = estimate_devices(sampled.grid, 16, sampled.grid.pairs);
  EXPECT_NE(priced.gpu_seconds, grid.gpu_seconds);
  EXPECT_LT(priced.gpu_seconds, priced.cpu_seconds);
}

// A job whose pairs the engine folds itself (the GPU's device aggregates) is priced without
// handing them on: exactly the result pairs' cost less, on either device.
TEST(DeviceChoice, FoldedPairsDoNotLeaveTheDevice) {
  JoinWork work;
  work.left_points = work.right_points = 1e5;
  work.dim = 32;
  work.candidates = 1e8;
  work.indexed_dims = 3;
  work.pairs = 4e7;
  const std::vector<AlgorithmEstimate> priced{{"grid", 1e8, 0.01}, {"brute-force", 5e9, 0.02}};
  const DeviceSpeeds& s = measured_speeds();
  for (bool gpu : {true, false}) {
    std::vector<AlgorithmEstimate> leave = priced, folded = priced;
    price_engine_estimates(leave, work, gpu, 16, s, true);
    price_engine_estimates(folded, work, gpu, 16, s, false);
    for (std::size_t i = 0; i < priced.size(); ++i) {
      const double pairs_s = work.pairs * (gpu ? s.gpu_pair_ns : s.cpu_pair_ns / 16) * 1e-9;
      EXPECT_NEAR(leave[i].seconds - folded[i].seconds, pairs_s, 1e-12) << gpu << " " << i;
    }
  }
}

}  // namespace
}  // namespace simjoin
