// The aggregates' route (pg/dispatch/aggregate_runner.h), through dispatch(): the GPU service runs
// the whole aggregate as one job (pg/service/aggregate_client.h); otherwise, or after the service
// failed with gpu_error = fallback, this backend's CPU engine does: neighbour statistics folded
// from its pairs, DBSCAN by run_dbscan's own CPU route (the grid DBSCAN in 1-3 dimensions).
#include "pg/dispatch/aggregate_runner.h"

#include <optional>
#include <string>
#include <utility>

#include "pg/dispatch/dispatch.h"
#include "pg/dispatch/engine_runner.h"
#include "pg/service/aggregate_client.h"

namespace simjoin::pg {

namespace {

bool no_interrupt() { return !interrupt_pending(); }

// The explain NOTICEs of a DBSCAN: its counting join (if it ran one) and its linking join.
void report_dbscan(const DbscanResult& result) {
  if (!result.counting.algorithm.empty()) report_join(result.counting, std::string());
  report_join(result.linking, std::string());
}

}  // namespace

NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks,
                                       StatsFields fields) {
  return dispatch_and_wait(
      left, right, spec,
      [&](std::optional<JoinWork> work) {
        NeighbourStats stats = neighbour_stats_on_service(left, right, spec, side, partner_ranks,
                                                          fields, std::move(work));
        if (!stats.join.stopped) report_join(stats.join, std::string());
        return stats;
      },
      [&](const JoinSpec& cpu_spec) {
        // The counts alone run on the engine's grid without pairs.
        NeighbourStats stats = run_neighbour_stats(left, right, cpu_spec, side, partner_ranks,
                                                   no_interrupt, {}, fields);
        report_join(stats.join, std::string());
        return stats;
      });
}

DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points) {
  return dispatch_and_wait(
      points, nullptr, spec,
      [&](std::optional<JoinWork> work) {
        DbscanResult result = dbscan_on_service(points, spec, min_points, std::move(work));
        if (!result.linking.stopped) report_dbscan(result);
        return result;
      },
      [&](const JoinSpec& cpu_spec) {
        // No runner: in 1-3 dimensions the engine's grid DBSCAN, which enumerates no pairs; else
        // its two joins.
        DbscanResult result = run_dbscan(points, cpu_spec, min_points, no_interrupt);
        if (!result.counting.stopped && !result.linking.stopped) report_dbscan(result);
        return result;
      });
}

}  // namespace simjoin::pg
