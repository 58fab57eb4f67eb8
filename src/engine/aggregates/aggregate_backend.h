// Where the aggregates run: a backend's own folds on its device (AggregateBackend), or the
// host's over run_join.
#pragma once

#include <cstdint>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/types.h"

namespace simjoin {

// The aggregates on a backend's device (JoinBackend::aggregates; the GPU backend's).
class AggregateBackend {
 public:
  virtual ~AggregateBackend() = default;
  // run_neighbour_stats's and run_dbscan's contracts (engine/aggregates/neighbour_stats.h,
  // engine/aggregates/dbscan.h); the inputs are already checked.
  virtual NeighbourStats neighbour_stats(const PointSet& left, const PointSet* right,
                                         const JoinSpec& spec, StatsSide side,
                                         const std::uint64_t* partner_ranks,
                                         const KeepGoing& keep_going, StatsFields fields) = 0;
  virtual DbscanResult dbscan(const PointSet& points, const JoinSpec& spec,
                              std::uint64_t min_points, const KeepGoing& keep_going) = 0;
};

// The backend that runs the aggregates of run_neighbour_stats / run_dbscan on these inputs: the
// installed GPU backend's where it has them and spec.device resolves to it as in run_join
// (Device::Gpu; Device::Auto where the join is priced cheaper there), else nullptr (the host
// fold over run_join). Device::Gpu without a usable GPU gives nullptr: run_join then throws.
AggregateBackend* aggregate_backend(const PointSet& left, const PointSet* right,
                                    const JoinSpec& spec);

}  // namespace simjoin
