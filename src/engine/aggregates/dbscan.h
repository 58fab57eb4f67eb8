// DBSCAN clustering on the engine with the semantics of PostGIS's ST_ClusterDBSCAN on points
// (Ester, Kriegel, Sander and Xu, "A Density-Based Algorithm for Discovering Clusters in Large
// Spatial Databases with Noise", KDD 1996); the semantics below.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/aggregates/neighbour_stats.h"
#include "engine/types.h"

namespace simjoin {

// The semantics:
//   - p's neighbours are the points q with d(p, q) <= eps as run_join decides it, p itself
//     included when d(p, p) <= eps (points with NaN or infinite coordinates never match
//     themselves, so they are noise whatever min_points is);
//   - p is core when it matches itself and has at least min_points neighbours;
//   - clusters are the connected components of core points under core-core neighbourhood;
//   - a border point (not core, a neighbour of some core point) joins the cluster of its core
//     neighbour with the smallest index (deterministic, whatever order the pairs come in);
//   - every other point is noise (cluster -1).
// Cluster ids are 0, 1, ... in the order of each cluster's smallest point index (border points
// included). Every metric and dimension run_join supports.
//
// Two self-joins (Unique mode), no pair stored: the first counts neighbours
// (run_neighbour_stats; skipped for min_points <= 1, where every self-matching point is core),
// the second unions core-core pairs (union-find with path compression and union by rank) and
// records each non-core point's smallest core neighbour, all on the calling thread.

enum class PointKind : std::uint8_t { Noise, Border, Core };

struct DbscanResult {
  std::vector<std::int64_t> cluster;  // per point: 0, 1, ... or -1 for noise
  std::vector<PointKind> kind;        // per point
  std::size_t clusters = 0;           // how many cluster ids were given
  JoinStats counting;                 // the first join (empty when skipped)
  JoinStats linking;                  // the second join
};

// Clusters `points` within spec.eps (spec.metric, device, algorithm, threads apply;
// spec.self_pairs is ignored). Throws what run_join throws. `keep_going` false stops it: the
// result is then incomplete (counting.stopped or linking.stopped) and must be discarded.
// `runner` runs both joins (empty: run_join). `progress`: the candidates done over both passes,
// now and then (the CPU engine's; a GPU backend reports none).
DbscanResult run_dbscan(const PointSet& points, const JoinSpec& spec, std::uint64_t min_points,
                        const KeepGoing& keep_going = {}, const JoinRunner& runner = {},
                        const Progress& progress = {});

}  // namespace simjoin
