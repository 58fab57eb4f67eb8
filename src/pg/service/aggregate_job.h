// An aggregate job of the GPU service (neighbour statistics or DBSCAN) in its DSM segment:
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "pg/service/job.h"

namespace simjoin::pg {

//   JobHeader | AggregateJob | left points | right points | partner ranks | result arrays
//
// The backend writes the parameters and the points (or their segments, read in place, as for a
// join: pg/service/job.h) and knows the arrays' size at submit: one entry per point of the side
// aggregated. The service runs the engine's aggregate itself (run_neighbour_stats / run_dbscan
// without a runner: the engine's own route, so the GPU backend installed in the service computes
// it there), writes the arrays and the JoinStats, and sets JobHeader::finished; no pair travels.

struct AggregateJob {
  // Parameters (the backend).
  StatsSide side;               // neighbour statistics: the side aggregated (ignored in a self-join)
  StatsFields fields;           // neighbour statistics: the arrays laid out and computed
  std::uint64_t min_points;     // DBSCAN
  std::uint64_t points;         // the result arrays' length
  std::uint64_t ranks_offset;   // partner ranks (one uint64 per partner candidate); 0: none
  // The result arrays' offsets: neighbour statistics (count uint64, min and max double, nearest
  // uint32; only those `fields` reads, the others 0) or DBSCAN (cluster int64, kind uint8 as
  // PointKind).
  std::uint64_t count_offset, min_offset, max_offset, nearest_offset;
  std::uint64_t cluster_offset, kind_offset;
  // Results (the service). The header's stats hold the neighbour statistics' join, or DBSCAN's
  // counting join when `counted` (skipped for min_points <= 1).
  std::uint64_t pairs;
  std::uint64_t clusters;
  bool counted;
  JoinStatsRecord linking;  // DBSCAN's second join
};

inline AggregateJob* aggregate_job(JobHeader* job) {
  return reinterpret_cast<AggregateJob*>(reinterpret_cast<char*>(job) +
                                         MAXALIGN(sizeof(JobHeader)));
}

// Where the points start: after the header and the AggregateJob.
std::size_t aggregate_points_offset();

// Lays out the ranks (`ranks` entries, 0 for none) and the result arrays of `kind` (and of
// aggregate->fields) from `offset` (after the points); returns the segment's total bytes.
std::size_t layout_aggregate_arrays(AggregateJob* aggregate, JobKind kind, std::uint64_t ranks,
                                    std::size_t offset);

// The device bytes an aggregate keeps per point of its side besides the join's (the folded
// statistics, DBSCAN's counts, sets and clusters): added to the ledger reservation.
std::uint64_t aggregate_device_bytes(JobKind kind, StatsFields fields, std::uint64_t points,
                                     std::uint64_t ranks);

struct AggregateOutcome {
  std::uint64_t candidates = 0;  // the progress report's candidates done
  std::uint64_t pairs = 0;
};

// Runs the aggregate job on the service's runner thread (no PostgreSQL call): `spec` as the service
// set it, `keep_going` false stops it (the records then say stopped), `device_name` (nullptr: the
// engine's) names the device in the stats. Writes the arrays and the stats into the segment;
// throws what the engine throws.
AggregateOutcome run_aggregate_job(JobHeader* job, const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec, const KeepGoing& keep_going,
                                   const char* device_name);

}  // namespace simjoin::pg
