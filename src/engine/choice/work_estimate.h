// How much work a join is, measured on samples of its inputs before it runs: what the device
// choice (engine/choice/device_choice.h) weighs. The estimate counts what the grid join would do: candidate
// pairs (distance evaluations) and the points it indexes.
#pragma once

#include "engine/choice/sampled_work.h"
#include "engine/types.h"

namespace simjoin {

// The work of run_join(left, right, spec) on the grid (brute force when eps is not finite or no
// dimension can be indexed), from samples of a few thousand points: cheap next to the join.
JoinWork estimate_join_work(const PointSet& left, const PointSet* right, const JoinSpec& spec);

// The grid's work that `spec` carries (JoinSpec::sampled) when it was sampled on inputs of these
// sizes, else null.
const JoinWork* carried_grid_work(const PointSet& left, const PointSet* right,
                                  const JoinSpec& spec);

// The grid's work of this join: the carried sample, else estimate_join_work's.
JoinWork sampled_or_estimated_work(const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec);

}  // namespace simjoin
