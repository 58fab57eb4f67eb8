// The engine's aggregates computed on the GPU without pairs leaving the device: per-point
// neighbour statistics (neighbour_stats_kernel.cu) and DBSCAN (dbscan_kernel.cu), with the
// results and JoinStats of run_neighbour_stats and run_dbscan, bit for bit. Where the device path
// does not apply (a cosine join, whose pairs are decided on the host, or inputs that need the
// chunked join) they run the engine's host fold over the GPU join instead. No CUDA header here.
#pragma once

#include <cstdint>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/types.h"

namespace simjoin::gpu {

// run_neighbour_stats's contract (engine/aggregates/neighbour_stats.h) with no runner: `fields` folds and downloads
// only what the caller reads (counts only: one pass of count atomics; pairs only: no per-point
// array at all).
NeighbourStats neighbour_stats(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                               StatsSide side, const std::uint64_t* partner_ranks,
                               const KeepGoing& keep_going, StatsFields fields);

// run_dbscan's contract (engine/aggregates/dbscan.h) with no runner.
DbscanResult dbscan(const PointSet& points, const JoinSpec& spec, std::uint64_t min_points,
                    const KeepGoing& keep_going);

}  // namespace simjoin::gpu
