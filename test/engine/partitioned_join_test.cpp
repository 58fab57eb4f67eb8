// One join split by regions, the regions run at once on producer threads: the answer of the
// oracle, each pair once (self-joins in both modes, two tables, every metric, pairs at exactly
// eps across region boundaries); stops, errors and the per-region thread hook.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>

#include "engine/partition/partitioned_join.h"
#include "oracle.h"
#include "test_support.h"

namespace simjoin::testing {
namespace {

RegionPartition partition_of(const Points& points, const JoinSpec& spec, std::size_t regions,
                             RegionSplit split = RegionSplit::Work) {
  RegionPlanOptions options;
  options.regions = regions;
  options.split = split;
  options.metric = spec.metric;
  options.eps = spec.eps;
  return plan_regions(points.set(), options);
}

JoinFunction partitioned(const Points& planned_on, std::size_t regions, std::size_t at_once,
                         std::vector<RegionRun>* runs = nullptr) {
  return [&planned_on, regions, at_once, runs](const PointSet& left, const PointSet* right,
                                               const JoinSpec& spec, PairSink& sink) {
    PartitionedJoinOptions options;
    options.concurrent = at_once;
    return run_partitioned_join(left, right, spec, partition_of(planned_on, spec, regions), sink,
                                options, runs);
  };
}

TEST(PartitionedJoin, SelfJoinsEqualTheOracle) {
  const Points blobs = blob_points(1500, 3, 4, 1.0, 31);
  const Points lattice = lattice_points(30, 2, 0.5, 1.0);  // pairs at exactly eps
  for (std::size_t regions : {1, 2, 3, 5}) {
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      JoinSpec spec = cpu_spec(0.6);
      spec.self_pairs = mode;
      spec.batch_pairs = 1000;
      expect_matches_oracle(blobs, nullptr, spec, partitioned(blobs, regions, 0));
      spec.eps = 0.5;
      expect_matches_oracle(lattice, nullptr, spec, partitioned(lattice, regions, 1));
      JoinSpec cosine = cpu_spec(0.002, Metric::Cosine);
      cosine.self_pairs = mode;
      expect_matches_oracle(blobs, nullptr, cosine, partitioned(blobs, regions, 2));
      JoinSpec chebyshev = cpu_spec(0.5, Metric::Chebyshev);
      chebyshev.self_pairs = mode;
      expect_matches_oracle(lattice, nullptr, chebyshev, partitioned(lattice, regions, 0));
    }
  }
}

TEST(PartitionedJoin, TwoTablesEqualTheOracle) {
  const Points left = exponential_points(1200, 16, 40.0, 41);
  const Points right = exponential_points(900, 16, 40.0, 42);
  for (std::size_t regions : {2, 4}) {
    expect_matches_oracle(left, &right, cpu_spec(0.05), partitioned(left, regions, 0));
    expect_matches_oracle(left, &right, cpu_spec(0.1, Metric::Manhattan),
                          partitioned(left, regions, 1));
  }
}

TEST(PartitionedJoin, ReportsEachRegionAndRunsTheThreadHook) {
  const Points points = blob_points(2000, 2, 6, 2.0, 51);
  const JoinSpec spec = cpu_spec(1.0);
  std::vector<RegionRun> runs;
  const JoinStats stats = expect_matches_oracle(points, nullptr, spec, partitioned(points, 4, 0, &runs));
  ASSERT_EQ(runs.size(), 4u);
  std::size_t homes = 0, reach = 0;
  std::uint64_t pairs = 0;
  for (const RegionRun& run : runs) {
    homes += run.home_points;
    reach += run.reach_points;
    pairs += run.pairs;
  }
  EXPECT_EQ(homes, points.n());
  EXPECT_GT(reach, points.n());  // the halos
  EXPECT_EQ(pairs, stats.pairs);

  // Each region's threads (a self-join's home pairs and its halo pairs) call the hook first.
  std::mutex mutex;
  std::multiset<std::size_t> hooked;
  PartitionedJoinOptions options;
  options.on_region_thread = [&](std::size_t r) {
    std::lock_guard<std::mutex> lock(mutex);
    hooked.insert(r);
  };
  CollectingSink sink;
  run_partitioned_join(points.set(), nullptr, spec, partition_of(points, spec, 3), sink, options);
  EXPECT_EQ(hooked, (std::multiset<std::size_t>{0, 0, 1, 1, 2, 2}));
}

TEST(PartitionedJoin, StopsWithTheSinkAndThrowsARegionsError) {
  const Points points = uniform_points(3000, 2, 0.0, 10.0, 61);
  JoinSpec spec = cpu_spec(0.5);
  spec.batch_pairs = 64;
  CollectingSink stops(2);
  const JoinStats stats =
      run_partitioned_join(points.set(), nullptr, spec, partition_of(points, spec, 3), stops);
  EXPECT_TRUE(stats.stopped);
  EXPECT_EQ(stops.batches, 2u);

  PartitionedJoinOptions failing;
  failing.on_region_thread = [](std::size_t r) {
    if (r == 1) throw Error("region 1 failed");
  };
  CollectingSink sink;
  EXPECT_THROW(run_partitioned_join(points.set(), nullptr, spec, partition_of(points, spec, 3),
                                    sink, failing),
               Error);

  std::atomic<bool> cancel{true};
  PartitionedJoinOptions interrupted;
  interrupted.interrupted = [&cancel] { return cancel.load(); };
  CollectingSink cancelled;
  EXPECT_TRUE(run_partitioned_join(points.set(), nullptr, spec, partition_of(points, spec, 3),
                                   cancelled, interrupted).stopped);
}

}  // namespace
}  // namespace simjoin::testing
