#include "aggregate_runner.h"

#include "engine_runner.h"

namespace simjoin::pg {

namespace {

bool no_interrupt() { return !interrupt_pending(); }

JoinStats run_routed(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  return run_engine(left, right, spec, sink);
}

}  // namespace

NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks) {
  return run_neighbour_stats(left, right, spec, side, partner_ranks, no_interrupt, run_routed);
}

DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points) {
  return run_dbscan(points, spec, min_points, no_interrupt, run_routed);
}

}  // namespace simjoin::pg
