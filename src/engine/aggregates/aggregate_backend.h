// Where the aggregates run: the GPU backend's own folds, or the host's over run_join.
#pragma once

#include "engine/join_backend.h"
#include "engine/types.h"

namespace simjoin {

// The backend that runs the aggregates of run_neighbour_stats / run_dbscan on these inputs: the
// installed GPU backend where it runs aggregates and spec.device resolves to it as in run_join
// (Device::Gpu; Device::Auto where the join is priced cheaper there), else nullptr (the host
// fold over run_join). Device::Gpu without a usable GPU gives nullptr: run_join then throws.
JoinBackend* aggregate_backend(const PointSet& left, const PointSet* right, const JoinSpec& spec);

}  // namespace simjoin
