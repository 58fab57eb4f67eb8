// A backend's side of the GPU service's aggregate jobs (pg/service/aggregate_job.h): submits
// neighbour statistics or DBSCAN as one job and waits for its per-point arrays.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <cstdint>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"

namespace simjoin::pg {

// Runs the aggregate as a job of the service and waits for it, interruptibly: a pending query
// cancel, statement_timeout or termination withdraws the job and returns a result marked stopped
// (NeighbourStats::join.stopped, DbscanResult::linking.stopped) for the caller to discard. A
// failure of the service throws ServiceJobFailure (pg/service/client.h). Points built in shared
// memory (pg/service/shared_points.h) are read there; others, and the ranks, are copied into the
// job. `fields`: the arrays the job computes and returns (engine/aggregates/neighbour_stats.h).
// The progress report's denominator is the work the route sampled (JoinSpec::sampled; estimated
// here when absent). Inside cpp_guard.
NeighbourStats neighbour_stats_on_service(const PointSet& left, const PointSet* right,
                                          const JoinSpec& spec, StatsSide side,
                                          const std::uint64_t* partner_ranks, StatsFields fields);
DbscanResult dbscan_on_service(const PointSet& points, const JoinSpec& spec,
                               std::uint64_t min_points);

}  // namespace simjoin::pg
