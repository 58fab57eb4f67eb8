// Running the engine's aggregates (neighbour statistics, DBSCAN) from a backend, as run_engine
// does for pairs: the join's route (the GPU service or this backend's leased CPU threads), query
// cancel and statement_timeout, the GPU fallback and the simjoin.explain NOTICE. Shared by the
// aggregate functions and the custom scan's aggregate paths.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <cstdint>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"

namespace simjoin::pg {

// run_neighbour_stats, dispatched as run_engine dispatches a join (pg/dispatch/dispatch.h).
// Inside cpp_guard. A pending interrupt stops it (result.join.stopped): the caller then discards
// the result, leaves C++ and calls raise_if_interrupted.
NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks,
                                       StatsFields fields = StatsFields::All);

// run_dbscan, routed the same way; stopped as above (counting.stopped or linking.stopped).
DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points);

}  // namespace simjoin::pg
