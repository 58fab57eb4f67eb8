// The GPU's neighbour statistics (folded on the device: gpu_aggregates.h) against the CPU engine's
// run_neighbour_stats, every field of every point bit for bit, and the pair counts: random data
// of dimensions 1-64 with every metric (cosine's counts fold on the device on tensor cores, the
// rest of cosine takes the host fold over the GPU join), self-joins
// in both modes and two inputs aggregated on either side, every GPU kernel (grid, tiled grid,
// brute force, SZL), ranks given and not, lattices with pairs at exactly eps, duplicates (ties in
// the smallest distance), empty and one-point inputs, non-finite points, 100k points with a hot
// spot of identical points, many launches, a small memory budget (the host fold), cancel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_aggregate_support.h"
#include "join_scenarios.h"
#include "engine/aggregates/neighbour_stats.h"
#include "random_join_cases.h"

namespace simjoin::testing {
namespace {

std::string exact(double x) {  // every bit of a double
  char text[64];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// Every field of every point; the message names up to five differing points with both values.
void expect_same_stats(const NeighbourStats& gpu, const NeighbourStats& cpu,
                       const std::string& what) {
  ASSERT_EQ(gpu.count.size(), cpu.count.size()) << what;
  ASSERT_EQ(gpu.min_distance.size(), cpu.count.size()) << what;
  ASSERT_EQ(gpu.max_distance.size(), cpu.count.size()) << what;
  ASSERT_EQ(gpu.nearest.size(), cpu.count.size()) << what;
  EXPECT_EQ(gpu.pairs, cpu.pairs) << what << ": the global pair count";
  EXPECT_EQ(gpu.join.pairs, cpu.join.pairs) << what << ": JoinStats::pairs (the Unique join's)";
  std::ostringstream diff;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < cpu.count.size(); ++i) {
    const bool same = gpu.count[i] == cpu.count[i] && gpu.nearest[i] == cpu.nearest[i] &&
                      same_bits(gpu.min_distance[i], cpu.min_distance[i]) &&
                      same_bits(gpu.max_distance[i], cpu.max_distance[i]);
    if (same) continue;
    if (++differing <= 5)
      diff << "\n  point " << i << ": count gpu " << gpu.count[i] << " cpu " << cpu.count[i]
           << "; min gpu " << exact(gpu.min_distance[i]) << " cpu " << exact(cpu.min_distance[i])
           << "; max gpu " << exact(gpu.max_distance[i]) << " cpu " << exact(cpu.max_distance[i])
           << "; nearest gpu " << gpu.nearest[i] << " cpu " << cpu.nearest[i];
  }
  EXPECT_EQ(differing, 0u) << what << ": points that differ, the first ones:" << diff.str();
}

// The GPU (spec as given, Device::Gpu) against the CPU engine (the same spec on Device::Cpu).
// `device_fold`: the aggregates must have been folded on the device (else the host fold ran).
NeighbourStats expect_gpu_matches_cpu(const Points& left, const Points* right, const JoinSpec& spec,
                                      StatsSide side, const std::vector<std::uint64_t>* ranks,
                                      const std::string& what, bool device_fold = true) {
  const PointSet right_set = right ? right->set() : PointSet{};
  const PointSet* right_ptr = right ? &right_set : nullptr;
  const std::uint64_t* rank_data = ranks ? ranks->data() : nullptr;
  JoinSpec cpu_join = spec;
  cpu_join.device = Device::Cpu;
  cpu_join.threads = 2;
  const NeighbourStats cpu = run_neighbour_stats(left.set(), right_ptr, cpu_join, side, rank_data);
  const NeighbourStats gpu = run_neighbour_stats(left.set(), right_ptr, spec, side, rank_data);
  const std::string where = what + (side == StatsSide::Left ? " side left" : " side right") +
                            (ranks ? " ranked" : "") + " (" + gpu.join.algorithm + ")";
  expect_same_stats(gpu, cpu, where);
  EXPECT_EQ(gpu.join.device.rfind("gpu: ", 0), 0u) << where << ": " << gpu.join.device;
  EXPECT_FALSE(gpu.join.stopped) << where;
  if (device_fold && spec.metric != Metric::Cosine) {
    EXPECT_TRUE(has_phase(gpu.join, "fold-stats") && has_phase(gpu.join, "fold-nearest"))
        << where << ": not folded on the device";
    EXPECT_EQ(gpu.join.algorithm.rfind("gpu-", 0), 0u) << where << ": " << gpu.join.algorithm;
  }
  // Counts only (one count pass, one array down) and the pair count only (no array at all).
  for (StatsFields fields : {StatsFields::CountsOnly, StatsFields::PairsOnly}) {
    const bool counts = fields == StatsFields::CountsOnly;
    const std::string which = where + (counts ? ", counts only" : ", pairs only");
    const NeighbourStats fewer =
        run_neighbour_stats(left.set(), right_ptr, spec, side, rank_data, {}, {}, fields);
    EXPECT_EQ(fewer.pairs, cpu.pairs) << which;
    EXPECT_EQ(fewer.join.pairs, cpu.join.pairs) << which;
    if (counts) {
      EXPECT_EQ(fewer.count, cpu.count) << which;
    } else {
      EXPECT_TRUE(fewer.count.empty()) << which;
    }
    EXPECT_TRUE(fewer.min_distance.empty() && fewer.max_distance.empty() && fewer.nearest.empty())
        << which;
    // A cosine join's counts fold on the device where it runs on tensor cores (its only path
    // that decides pairs there), else on the host.
    const bool tensor_cores = gpu::tuning().tensor == 1 ||
                              (gpu::tuning().tensor < 0 && left.set().dim >= 16);
    const bool cosine_on_device = spec.algorithm == Algorithm::BruteForce && tensor_cores;
    if (device_fold && (spec.metric != Metric::Cosine || cosine_on_device)) {
      EXPECT_TRUE(has_phase(fewer.join, "fold-count") && !has_phase(fewer.join, "fold-stats"))
          << which << ": not folded on the device by counts";
    } else if (spec.metric == Metric::Cosine) {
      EXPECT_FALSE(has_phase(fewer.join, "fold-count")) << which << ": cosine folded on the device";
    }
  }
  return gpu;
}

std::vector<std::uint64_t> shuffled_ranks(std::size_t n, unsigned seed) {
  std::vector<std::uint64_t> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0u);
  std::shuffle(ranks.begin(), ranks.end(), std::mt19937_64(seed));
  for (std::uint64_t& r : ranks) r = r / 3 + (std::uint64_t(1) << 40);  // ties, 64-bit values
  return ranks;
}

class GpuNeighbourStatsRandom : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(GpuNeighbourStatsRandom, MatchesCpuEngine) {
  SKIP_WITHOUT_GPU();
  const RandomJoinInputs in = random_join_inputs(GetParam(), {300, 900}, {350, 1000});
  const unsigned seed = seed_of(GetParam());
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    if (seed % 4 == 1) gpu::tuning().fold_launch_queries = 97;  // many launches
    const JoinSpec spec = gpu_spec(in.eps, in.metric, in.mode, a.algorithm);
    for (StatsSide side : {StatsSide::Left, StatsSide::Right}) {
      if (in.self && side == StatsSide::Right) continue;
      const Points& partners = in.self || side == StatsSide::Right ? in.left : in.right;
      const std::vector<std::uint64_t> ranks = shuffled_ranks(partners.n(), seed);
      expect_gpu_matches_cpu(in.left, in.right_input(), spec, side, nullptr, a.name);
      expect_gpu_matches_cpu(in.left, in.right_input(), spec, side, &ranks, a.name);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, GpuNeighbourStatsRandom,
                         random_join_params(::testing::Values(1, 2, 3, 8, 33, 64)),
                         random_join_name);

// Lattices (neighbours at exactly eps, many at the same smallest distance) and duplicates (ties
// at distance 0): the nearest partner by rank (reversed, shuffled, all equal: then the index).
TEST(GpuNeighbourStats, TiesAtExactlyEpsGoToTheSmallestRank) {
  SKIP_WITHOUT_GPU();
  const Points lattice2 = lattice_points(7, 2, 0.5, 1.0);
  const Points lattice3 = lattice_points(5, 3, 0.25, -2.0);
  const Points duplicates = exact_duplicates(300);
  for (const Points* points : {&lattice2, &lattice3, &duplicates}) {
    const std::size_t n = points->n();
    std::vector<std::uint64_t> reversed(n), constant(n, 7);
    for (std::size_t i = 0; i < n; ++i) reversed[i] = n - 1 - i;
    std::vector<std::uint64_t> shuffled = shuffled_ranks(n, 11);
    const Points half{points->dim, std::vector<double>(points->coords.begin(),
                                                       points->coords.begin() + n / 2 * points->dim)};
    std::vector<std::uint64_t> half_reversed(half.n());
    for (std::size_t i = 0; i < half.n(); ++i) half_reversed[i] = half.n() - i;
    const double eps = points == &lattice3 ? 0.25 : 0.5;
    for (const GpuKernel& a : kAggregateKernels) {
      GpuTuningGuard guard;
      a.use();
      for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
        for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
          const JoinSpec spec = gpu_spec(eps, metric, mode, a.algorithm);
          for (const std::vector<std::uint64_t>* ranks : {&reversed, &shuffled, &constant})
            expect_gpu_matches_cpu(*points, nullptr, spec, StatsSide::Left, ranks, a.name);
          expect_gpu_matches_cpu(*points, nullptr, spec, StatsSide::Left, nullptr, a.name);
        }
        const JoinSpec spec = gpu_spec(eps, metric, SelfPairs::All, a.algorithm);
        expect_gpu_matches_cpu(*points, &half, spec, StatsSide::Left, &half_reversed, a.name);
        expect_gpu_matches_cpu(*points, &half, spec, StatsSide::Right, &reversed, a.name);
        expect_gpu_matches_cpu(half, points, spec, StatsSide::Left, &reversed, a.name);
      }
    }
  }
}

TEST(GpuNeighbourStats, EmptyAndOnePointInputs) {
  SKIP_WITHOUT_GPU();
  const Points empty{3, {}};
  const Points one{3, {0.5, 0.5, 0.5}};
  const Points some = uniform_points(50, 3, 0.0, 1.0, 4);
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      const JoinSpec spec = gpu_spec(0.3, Metric::Euclidean, mode, a.algorithm);
      expect_gpu_matches_cpu(empty, nullptr, spec, StatsSide::Left, nullptr, a.name, false);
      expect_gpu_matches_cpu(one, nullptr, spec, StatsSide::Left, nullptr, a.name, false);
      for (StatsSide side : {StatsSide::Left, StatsSide::Right}) {
        expect_gpu_matches_cpu(empty, &some, spec, side, nullptr, a.name, false);
        expect_gpu_matches_cpu(some, &empty, spec, side, nullptr, a.name, false);
        expect_gpu_matches_cpu(one, &some, spec, side, nullptr, a.name, false);
        expect_gpu_matches_cpu(some, &one, spec, side, nullptr, a.name, false);
        expect_gpu_matches_cpu(one, &one, spec, side, nullptr, a.name, false);
      }
    }
  }
  // Nothing matches: eps negative or NaN (no pass runs; every point without partners).
  for (double eps : {-1.0, std::nan("")}) {
    const JoinSpec spec = gpu_spec(eps, Metric::Euclidean, SelfPairs::All);
    expect_gpu_matches_cpu(some, nullptr, spec, StatsSide::Left, nullptr, "eps", false);
    expect_gpu_matches_cpu(some, &one, spec, StatsSide::Right, nullptr, "eps", false);
  }
}

// NaN and infinite coordinates never match, not even themselves (All mode's identity pairs).
TEST(GpuNeighbourStats, NonFinitePoints) {
  SKIP_WITHOUT_GPU();
  const Points points = with_non_finite(700, 9);
  const Points other = with_non_finite(300, 10);
  const std::vector<std::uint64_t> ranks = shuffled_ranks(points.n(), 3);
  for (const GpuKernel& a : kAggregateKernels) {
    GpuTuningGuard guard;
    a.use();
    for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
      for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
        const JoinSpec spec = gpu_spec(1.5, metric, mode, a.algorithm);
        expect_gpu_matches_cpu(points, nullptr, spec, StatsSide::Left, &ranks, a.name);
      }
      const JoinSpec spec = gpu_spec(1.5, metric, SelfPairs::All, a.algorithm);
      expect_gpu_matches_cpu(points, &other, spec, StatsSide::Left, nullptr, a.name);
      expect_gpu_matches_cpu(points, &other, spec, StatsSide::Right, &ranks, a.name);
    }
  }
  // eps = infinity: brute force, every finite pair.
  const JoinSpec spec = gpu_spec(INFINITY, Metric::Manhattan, SelfPairs::All, Algorithm::Auto);
  expect_gpu_matches_cpu(points, nullptr, spec, StatsSide::Left, &ranks, "infinite eps");
}

// 100k points (many blocks and launches) with a hot spot: 2,500 identical points (3.1M pairs on
// the same few addresses), self-joins and two inputs, ranks given.
TEST(GpuNeighbourStats, HundredThousandPointsWithAHotSpot) {
  SKIP_WITHOUT_GPU();
  const Points points = with_hot_spot(100000, 50.0, 50.0, 21);
  const Points other = uniform_points(60000, 2, 0.0, 100.0, 22);
  const std::vector<std::uint64_t> ranks = shuffled_ranks(points.n(), 5);
  for (const GpuKernel& a : kAggregateKernels) {
    if (a.algorithm == Algorithm::BruteForce) continue;  // 5e9 candidates
    GpuTuningGuard guard;
    a.use();
    gpu::tuning().fold_launch_queries = 4096;
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      const JoinSpec spec = gpu_spec(0.3, Metric::Euclidean, mode, a.algorithm);
      const NeighbourStats stats =
          expect_gpu_matches_cpu(points, nullptr, spec, StatsSide::Left, &ranks, a.name);
      EXPECT_GT(stats.join.batches, 20u) << "launches";
      EXPECT_GT(stats.join.candidates, stats.join.pairs);
    }
    const JoinSpec spec = gpu_spec(0.3, Metric::Chebyshev, SelfPairs::All, a.algorithm);
    expect_gpu_matches_cpu(points, &other, spec, StatsSide::Left, nullptr, a.name);
    expect_gpu_matches_cpu(points, &other, spec, StatsSide::Right, &ranks, a.name);
  }
}

// Inputs that need the chunked join: the host fold over the chunked GPU join, same result.
TEST(GpuNeighbourStats, ChunkedInputsFoldOnTheHost) {
  SKIP_WITHOUT_GPU();
  const GpuTuningGuard guard;
  gpu::tuning().input_bytes = 2000 * gpu::szl_device_bytes_per_point(3);  // the grid chunks too
  const Points points = blob_points(6000, 3, 4, 1.0, 31);
  const JoinSpec spec = gpu_spec(0.4, Metric::Euclidean, SelfPairs::All);
  const NeighbourStats stats =
      expect_gpu_matches_cpu(points, nullptr, spec, StatsSide::Left, nullptr, "budget", false);
  EXPECT_FALSE(has_phase(stats.join, "fold-stats"));
}

// A cosine join's counts in 100 dimensions under Auto: brute force on tensor cores chosen once
// (its estimates and phase `choose` reported), the counts folded on the device, equal to the CPU
// engine's, with a zero vector (no cosine distance: never a pair, not even with itself), a
// non-finite one, duplicates and opposite directions; self-joins in both modes and two inputs.
TEST(GpuNeighbourStats, CosineCountsFoldOnTensorCores) {
  SKIP_WITHOUT_GPU();
  // Random directions (nothing for a grid to prune), each fourth point a scaled, slightly moved
  // copy of the one before it: the pairs.
  const auto directions = [](std::size_t n, unsigned seed) {
    Points points = uniform_points(n, 100, -1.0, 1.0, seed);
    Points noise = uniform_points(n, 100, -1e-3, 1e-3, seed + 1);
    for (std::size_t i = 1; i < n; i += 4)
      for (std::size_t j = 0; j < 100; ++j)
        points.point(i)[j] = 2.5 * points.point(i - 1)[j] + (i % 8 == 1 ? noise.point(i)[j] : 0.0);
    return points;
  };
  Points points = directions(4000, 61);
  for (std::size_t j = 0; j < 100; ++j) {
    points.point(7)[j] = 0.0;                          // the zero vector
    points.point(10)[j] = -3.0 * points.point(11)[j];  // the opposite direction
  }
  points.point(12)[40] = NAN;
  Points other = directions(3000, 62);
  for (std::size_t i = 0; i < 3000; i += 3)
    for (std::size_t j = 0; j < 100; ++j) other.point(i)[j] = 0.5 * points.point(i)[j];
  for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
    const JoinSpec spec = gpu_spec(0.002, Metric::Cosine, mode, Algorithm::Auto);
    JoinSpec cpu_spec = spec;
    cpu_spec.device = Device::Cpu;
    for (StatsFields fields : {StatsFields::CountsOnly, StatsFields::PairsOnly}) {
      const auto stats = [&](const JoinSpec& on) {
        return run_neighbour_stats(points.set(), nullptr, on, StatsSide::Left, nullptr, {}, {},
                                   fields);
      };
      const NeighbourStats cpu = stats(cpu_spec), gpu = stats(spec);
      const std::string what = std::string(mode == SelfPairs::All ? "all" : "unique") +
                               (fields == StatsFields::CountsOnly ? ", counts" : ", pairs");
      EXPECT_GT(cpu.pairs, 900u) << what;
      EXPECT_EQ(gpu.pairs, cpu.pairs) << what;
      EXPECT_EQ(gpu.join.pairs, cpu.join.pairs) << what;
      EXPECT_EQ(gpu.count, cpu.count) << what;
      EXPECT_EQ(gpu.join.algorithm, "gpu-brute-force-tensor on unit vectors") << what;
      EXPECT_TRUE(has_phase(gpu.join, "fold-count")) << what << ": not folded on the device";
      EXPECT_TRUE(has_phase(gpu.join, "choose") && !gpu.join.estimates.empty()) << what;
      EXPECT_EQ(gpu.join.phase_seconds.front().first, "choose") << what;
    }
  }
  const JoinSpec spec = gpu_spec(0.002, Metric::Cosine, SelfPairs::All, Algorithm::BruteForce);
  expect_gpu_matches_cpu(points, &other, spec, StatsSide::Left, nullptr, "two inputs");
  expect_gpu_matches_cpu(points, &other, spec, StatsSide::Right, nullptr, "two inputs");
}

// A runner given: today's host fold, whatever the device.
TEST(GpuNeighbourStats, RunnerKeepsTheHostFold) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(3000, 2, 0.0, 10.0, 41);
  const JoinSpec spec = gpu_spec(0.3);
  const NeighbourStats stats = run_neighbour_stats(
      points.set(), nullptr, spec, StatsSide::Left, nullptr, {},
      [](const PointSet& l, const PointSet* r, const JoinSpec& s, PairSink& sink) {
        return run_join(l, r, s, sink);
      });
  EXPECT_FALSE(has_phase(stats.join, "fold-stats"));
  expect_gpu_matches_cpu(points, nullptr, spec, StatsSide::Left, nullptr, "device");
}

// keep_going false stops the device passes (JoinStats::stopped), at once or after some launches.
TEST(GpuNeighbourStats, KeepGoingStops) {
  SKIP_WITHOUT_GPU();
  const Points points = uniform_points(50000, 2, 0.0, 30.0, 51);
  const GpuTuningGuard guard;
  gpu::tuning().fold_launch_queries = 1000;
  for (int allowed : {0, 3, 30}) {
    int polls = 0;
    const KeepGoing keep_going = [&] { return polls++ < allowed; };
    const NeighbourStats stats =
        run_neighbour_stats(points.set(), nullptr, gpu_spec(0.3), StatsSide::Left, nullptr, keep_going);
    EXPECT_TRUE(stats.join.stopped) << "allowed " << allowed;
  }
}

}  // namespace
}  // namespace simjoin::testing
