// One join split by regions of space (region_partition.h) into one join per region, the regions
// run at once on producer threads (e.g. one GPU each), their pairs merged on the calling thread:
// the answer of run_join, each pair once.
//
// Region r joins the left points at home in r with the right points that reach r (at home or in
// its halo). A pair belongs to its left point's home, so the regions' answers are disjoint. A
// self-join's region runs two joins at once: its home points among themselves (in the caller's
// mode) and with its halo; with SelfPairs::Unique, where both points of a halo pair see each
// other, the pair is kept where its smaller index is the left one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/pair_sink.h"
#include "engine/partition/region_partition.h"
#include "engine/types.h"

namespace simjoin {

struct PartitionedJoinOptions {
  // Called on region r's producer thread before its join: e.g. gpu::select_gpu(r % gpus).
  std::function<void(std::size_t region)> on_region_thread;
  // Regions joined at once (0: all); the others start as these finish.
  std::size_t concurrent = 0;
  // Polled from the producer threads; true stops every region (thread-safe, must not throw).
  std::function<bool()> interrupted;
};

// What each region did: its points (home, and the right points that reach it), its pairs and its
// time from start to end, for balance (the slowest region over the mean).
struct RegionRun {
  std::size_t home_points = 0;
  std::size_t reach_points = 0;
  std::uint64_t pairs = 0;
  double seconds = 0.0;
};

// Runs the join region by region into `sink` on the calling thread, pairs in the caller's
// indices. Throws what a region's join throws (after stopping the others); stops when the sink
// does (stats.stopped). `runs` (optional): one entry per region.
JoinStats run_partitioned_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                               const RegionPartition& partition, PairSink& sink,
                               const PartitionedJoinOptions& options = {},
                               std::vector<RegionRun>* runs = nullptr);

}  // namespace simjoin
