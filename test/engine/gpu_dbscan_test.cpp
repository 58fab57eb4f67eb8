// DBSCAN on the GPU (counts, core flags and the union-find on the device: gpu_aggregates.h)
// against the CPU engine's run_dbscan, exactly: every point's cluster id and kind, the number of
// clusters. Random blobs with background noise in dimensions 1-64 with every metric (cosine takes
// the host fold over the GPU join), every GPU kernel, min_points 0-12, lattices with neighbours
// at exactly eps, a border point between two clusters, duplicates, all noise, one cluster (every
// pair hooks into one root), empty and one-point inputs, non-finite points, 100k points with a hot
// spot, many launches, cancel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/aggregates/dbscan.h"
#include "engine/engine.h"
#include "gpu_aggregate_support.h"
#include "join_scenarios.h"

namespace simjoin::testing {
namespace {

const char* kind_name(PointKind kind) {
  return kind == PointKind::Core ? "core" : kind == PointKind::Border ? "border" : "noise";
}

// The GPU (spec as given, Device::Gpu) against the CPU engine; the message names up to five
// differing points with both kinds and ids.
DbscanResult expect_gpu_dbscan_matches(const Points& points, const JoinSpec& spec,
                                       std::uint64_t min_points, const std::string& what,
                                       bool device_fold = true) {
  JoinSpec cpu_join = spec;
  cpu_join.device = Device::Cpu;
  cpu_join.threads = 2;
  // The CPU engine's two joins (a runner keeps 1-3 dimensions off the grid DBSCAN, which
  // enumerates no pairs): their pair counts are the device's too.
  const JoinRunner cpu_pairs = [](const PointSet& l, const PointSet* r, const JoinSpec& s,
                                  PairSink& sink) { return run_join(l, r, s, sink); };
  const DbscanResult cpu = run_dbscan(points.set(), cpu_join, min_points, {}, cpu_pairs);
  const DbscanResult gpu = run_dbscan(points.set(), spec, min_points);
  const std::string where = what + " min_points " + std::to_string(min_points) + " (" +
                            gpu.linking.algorithm + ")";
  EXPECT_EQ(gpu.clusters, cpu.clusters) << where;
  EXPECT_EQ(gpu.cluster.size(), cpu.cluster.size()) << where;
  EXPECT_EQ(gpu.kind.size(), cpu.kind.size()) << where;
  std::ostringstream diff;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < std::min(gpu.cluster.size(), cpu.cluster.size()); ++i) {
    if (gpu.cluster[i] == cpu.cluster[i] && gpu.kind[i] == cpu.kind[i]) continue;
    if (++differing <= 5)
      diff << "\n  point " << i << ": gpu " << kind_name(gpu.kind[i]) << " in " << gpu.cluster[i]
           << ", cpu " << kind_name(cpu.kind[i]) << " in " << cpu.cluster[i];
  }
  EXPECT_EQ(differing, 0u) << where << ": points that differ, the first ones:" << diff.str();
  EXPECT_EQ(gpu.linking.device.rfind("gpu: ", 0), 0u) << where << ": " << gpu.linking.device;
  EXPECT_FALSE(gpu.linking.stopped || gpu.counting.stopped) << where;
  if (device_fold && spec.metric != Metric::Cosine) {
    EXPECT_TRUE(has_phase(gpu.linking, "fold-link")) << where << ": not linked on the device";
    EXPECT_EQ(has_phase(gpu.counting, "fold-count"), min_points > 1) << where;
    EXPECT_EQ(gpu.linking.pairs, cpu.linking.pairs) << where << ": the linking join's pairs";
    if (min_points > 1) {
      EXPECT_EQ(gpu.counting.pairs, cpu.counting.pairs) << where << ": the counting join's pairs";
    }
  }
  return gpu;
}

Points blobs_with_noise(std::size_t dim, unsigned seed, std::size_t blob_points_n = 600) {
  Points points = blob_points(blob_points_n, dim, 5, 0.6, seed);
  const Points background = uniform_points(blob_points_n / 4, dim, 0.0, 100.0, seed + 1);
  points.coords.insert(points.coords.end(), background.coords.begin(), background.coords.end());
  return points;
}

using GpuDbscanParam = std::tuple<int, Metric, std::uint64_t>;
class GpuDbscanRandom : public ::testing::TestWithParam<GpuDbscanParam> {};

TEST_P(GpuDbscanRandom, MatchesCpuEngine) {
  SKIP_WITHOUT_GPU();
  const auto [dim, metric, min_points] = GetParam();
  const unsigned seed = static_cast<unsigned>(dim * 13 + static_cast<int>(metric) * 5 + min_points);
  const Points points = blobs_with_noise(dim, seed);
  const double eps = eps_from_sample(points, metric) * 2;
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    if (seed % 3 == 0) gpu::tuning().fold_launch_queries = 61;  // many launches
    expect_gpu_dbscan_matches(points, gpu_spec(eps, metric, SelfPairs::All, a.algorithm),
                              min_points, a.name);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dims, GpuDbscanRandom,
    ::testing::Combine(::testing::Values(1, 2, 3, 8, 33, 64),
                       ::testing::Values(Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev,
                                         Metric::Cosine),
                       ::testing::Values<std::uint64_t>(0, 1, 2, 4, 12)));

// Step 1 and eps 1: neighbours at exactly eps (in 2-D an interior point has 5 neighbours with
// itself, an edge point 4, a corner 3).
TEST(GpuDbscan, LatticeAtExactlyEps) {
  SKIP_WITHOUT_GPU();
  for (std::size_t dim : {1, 2, 3}) {
    const Points lattice = lattice_points(dim == 1 ? 40 : dim == 2 ? 12 : 6, dim, 1.0, 0.25);
    for (const GpuKernel& a : kAggregateKernels) {
      GpuTuningGuard guard;
      a.use();
      for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
        for (std::uint64_t min_points : {2u, 3u, 4u, 5u, 6u, 9u, 27u})
          expect_gpu_dbscan_matches(lattice, gpu_spec(1.0, metric, SelfPairs::All, a.algorithm),
                                    min_points, a.name);
      }
    }
  }
  const DbscanResult r =
      expect_gpu_dbscan_matches(lattice_points(6, 2, 1.0, 0.25), gpu_spec(1.0), 5, "2-D");
  ASSERT_EQ(r.kind.size(), 36u);
  EXPECT_EQ(r.clusters, 1u);
  EXPECT_EQ(r.kind[0], PointKind::Noise);
  EXPECT_EQ(r.kind[1], PointKind::Border);
  EXPECT_EQ(r.kind[7], PointKind::Core);
}

// A border point between two clusters joins its smallest-index core neighbour's cluster.
TEST(GpuDbscan, BorderBetweenTwoClusters) {
  SKIP_WITHOUT_GPU();
  Points points{1, {-0.7, -0.6, -0.5, 2.0, 1.0, 0.0, 2.5, 2.6, 2.7}};
  for (int swapped = 0; swapped < 2; ++swapped) {
    if (swapped) std::swap(points.coords[3], points.coords[5]);
    for (const GpuKernel& a : kAggregateKernels) {
      GpuTuningGuard guard;
      a.use();
      const DbscanResult r = expect_gpu_dbscan_matches(
          points, gpu_spec(1.0, Metric::Euclidean, SelfPairs::All, a.algorithm), 4, a.name);
      ASSERT_EQ(r.cluster.size(), 9u);
      EXPECT_EQ(r.kind[4], PointKind::Border);
      EXPECT_EQ(r.cluster[4], swapped ? 0 : 1);
    }
  }
}

// Duplicates (eps 0: clusters of copies), all noise, one cluster, empty and one point.
TEST(GpuDbscan, EdgeCases) {
  SKIP_WITHOUT_GPU();
  const Points duplicates = exact_duplicates(600);  // 15 values, 40 copies each
  for (std::uint64_t min_points : {1u, 40u, 41u}) {
    const DbscanResult r = expect_gpu_dbscan_matches(duplicates, gpu_spec(0.0), min_points, "copies");
    EXPECT_EQ(r.clusters, min_points <= 40 ? 15u : 0u);
  }
  const Points sparse = uniform_points(3000, 3, 0.0, 100.0, 5);
  const DbscanResult noise = expect_gpu_dbscan_matches(sparse, gpu_spec(1e-6), 2, "all noise");
  EXPECT_EQ(noise.clusters, 0u);
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    // One cluster: every point core, every pair a union into the same root.
    const DbscanResult one = expect_gpu_dbscan_matches(
        sparse, gpu_spec(200.0, Metric::Euclidean, SelfPairs::All, a.algorithm), 3, a.name);
    EXPECT_EQ(one.clusters, 1u);
  }
  const DbscanResult everything = expect_gpu_dbscan_matches(
      sparse, gpu_spec(INFINITY, Metric::Chebyshev, SelfPairs::All, Algorithm::Auto), 2, "inf");
  EXPECT_EQ(everything.clusters, 1u);
  const Points empty{2, {}};
  const Points one{2, {1.0, 2.0}};
  for (std::uint64_t min_points : {0u, 1u, 2u}) {
    expect_gpu_dbscan_matches(empty, gpu_spec(1.0), min_points, "empty", false);
    expect_gpu_dbscan_matches(one, gpu_spec(1.0), min_points, "one point", false);
    expect_gpu_dbscan_matches(sparse, gpu_spec(-1.0), min_points, "eps < 0", false);
    expect_gpu_dbscan_matches(sparse, gpu_spec(std::nan("")), min_points, "eps NaN", false);
  }
}

// NaN and infinite coordinates: noise whatever min_points is.
TEST(GpuDbscan, NonFinitePoints) {
  SKIP_WITHOUT_GPU();
  const Points points = with_non_finite(1500, 7);
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    for (std::uint64_t min_points : {1u, 2u, 4u}) {
      const DbscanResult r = expect_gpu_dbscan_matches(
          points, gpu_spec(1.2, Metric::Euclidean, SelfPairs::All, a.algorithm), min_points, a.name);
      ASSERT_EQ(r.kind.size(), points.n());
      EXPECT_EQ(r.kind[0], PointKind::Noise);
      EXPECT_EQ(r.cluster[0], -1);
    }
  }
}

// 100k 2-D points (thousands of small clusters, many blocks and launches) with 2,500 identical
// points, and blobs with clusters of thousands of points.
TEST(GpuDbscan, HundredThousandPoints) {
  SKIP_WITHOUT_GPU();
  const Points points = with_hot_spot(100000, 25.0, 75.0, 61);
  const Points blobs = blobs_with_noise(3, 62, 100000);
  for (const GpuKernel& a : kAggregateKernels) {
    if (a.algorithm == Algorithm::BruteForce) continue;  // 5e9 candidates
    GpuTuningGuard guard;
    a.use();
    gpu::tuning().fold_launch_queries = 4096;
    for (std::uint64_t min_points : {1u, 4u, 8u}) {
      const DbscanResult r = expect_gpu_dbscan_matches(
          points, gpu_spec(0.2, Metric::Euclidean, SelfPairs::All, a.algorithm), min_points, a.name);
      EXPECT_GT(r.clusters, min_points == 1 ? 1000u : 0u);  // the hot spot is one of them
      EXPECT_GT(r.linking.batches, 20u) << "launches";
    }
    expect_gpu_dbscan_matches(blobs, gpu_spec(0.3, Metric::Euclidean, SelfPairs::All, a.algorithm),
                              10, a.name);
  }
}

// keep_going false stops it (counting or linking stopped), at once or after some launches.
TEST(GpuDbscan, KeepGoingStops) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(50000, 2, 0.0, 30.0, 71);
  const GpuTuningGuard guard;
  gpu::tuning().fold_launch_queries = 1000;
  for (int allowed : {0, 3, 30, 80}) {
    int polls = 0;
    const KeepGoing keep_going = [&] { return polls++ < allowed; };
    const DbscanResult r = run_dbscan(points.set(), gpu_spec(0.3), 4, keep_going);
    EXPECT_TRUE(r.counting.stopped || r.linking.stopped) << "allowed " << allowed;
  }
}

}  // namespace
}  // namespace simjoin::testing
