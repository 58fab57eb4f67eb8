// The aggregates' route (pg/dispatch/aggregate_runner.h): route_join decides once per aggregate; the GPU
// service runs the whole aggregate as one job (pg/service/aggregate_client.h); otherwise, or after the
// service failed with gpu_error = fallback, this backend's CPU engine does: neighbour statistics
// folded from its pairs, DBSCAN by run_dbscan's own CPU route (the grid DBSCAN in 1-3 dimensions).
#include "pg/dispatch/aggregate_runner.h"

#include <optional>
#include <string>

#include "pg/dispatch/cpu_thread_cap.h"
#include "pg/dispatch/engine_runner.h"
#include "pg/pg_guard.h"
#include "pg/service/aggregate_client.h"
#include "pg/service/client.h"

namespace simjoin::pg {

namespace {

bool no_interrupt() { return !interrupt_pending(); }

void notice_fallback(const std::string& note) {
  if (note.empty()) return;
  pg_call([&note] { ereport(NOTICE, (errmsg("simjoin: %s", note.c_str()))); });
}

}  // namespace

NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks,
                                       StatsFields fields) {
  std::string note;
  std::optional<JoinWork> work;
  if (route_join(left, right, spec, &note, &work) == Device::Gpu) {
    std::optional<NeighbourStats> stats =
        neighbour_stats_on_service(left, right, spec, side, partner_ranks, fields, std::move(work),
                                   &note);
    if (stats) {
      if (!stats->join.stopped) report_join(stats->join, std::string());
      return std::move(*stats);
    }
  }
  notice_fallback(note);
  // This backend's CPU engine on leased threads (the counts alone on its grid without pairs).
  const CpuThreadLease threads(spec.threads);
  NeighbourStats stats = run_neighbour_stats(left, right, on_leased_cpu(spec, threads), side,
                                             partner_ranks, no_interrupt, {}, fields);
  report_join(stats.join, std::string());
  return stats;
}

DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points) {
  std::string note;
  std::optional<JoinWork> work;
  if (route_join(points, nullptr, spec, &note, &work) == Device::Gpu) {
    std::optional<DbscanResult> result =
        dbscan_on_service(points, spec, min_points, std::move(work), &note);
    if (result) {
      if (!result->linking.stopped) {
        if (!result->counting.algorithm.empty()) report_join(result->counting, std::string());
        report_join(result->linking, std::string());
      }
      return std::move(*result);
    }
  }
  notice_fallback(note);
  // No runner: in 1-3 dimensions the engine's grid DBSCAN, which enumerates no pairs; else its two
  // joins, on this backend's leased threads either way.
  const CpuThreadLease threads(spec.threads);
  DbscanResult result = run_dbscan(points, on_leased_cpu(spec, threads), min_points, no_interrupt);
  if (!result.counting.stopped && !result.linking.stopped) {
    if (!result.counting.algorithm.empty()) report_join(result.counting, std::string());
    report_join(result.linking, std::string());
  }
  return result;
}

}  // namespace simjoin::pg
