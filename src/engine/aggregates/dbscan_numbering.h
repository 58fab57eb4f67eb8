// DBSCAN's cluster ids, given the same way by every route (run_dbscan, the grid DBSCAN, the GPU's
// host step): walk the points in index order; a core point is in its own set, a point with a
// core neighbour (border_core[i] != kNoBorderCore) becomes Border in that core point's set;
// each set's id is given at its first point, so ids follow each cluster's smallest member.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "engine/aggregates/dbscan.h"

namespace simjoin {

// border_core[i] of a point without a core neighbour.
constexpr std::uint32_t kNoBorderCore = std::numeric_limits<std::uint32_t>::max();

// Fills result.cluster and result.clusters and marks border points; result.kind holds the core
// points. `set_of(core)` is a core point's set, below `sets`.
template <typename SetOf>
void number_dbscan_clusters(DbscanResult& result, const std::vector<std::uint32_t>& border_core,
                            std::size_t sets, const SetOf& set_of) {
  const std::size_t n = result.kind.size();
  result.cluster.assign(n, -1);
  std::vector<std::int64_t> id_of_set(sets, -1);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t core;
    if (result.kind[i] == PointKind::Core) {
      core = static_cast<std::uint32_t>(i);
    } else if (border_core[i] != kNoBorderCore) {
      core = border_core[i];
      result.kind[i] = PointKind::Border;
    } else {
      continue;
    }
    std::int64_t& id = id_of_set[set_of(core)];
    if (id < 0) id = static_cast<std::int64_t>(result.clusters++);
    result.cluster[i] = id;
  }
}

}  // namespace simjoin
