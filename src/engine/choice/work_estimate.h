// How much work a join is, measured on samples of its inputs before it runs: what the device
// choice (engine/choice/device_choice.h) weighs. The estimate counts what the grid join would do: candidate
// pairs (distance evaluations) and the points it indexes.
#pragma once

#include <cstddef>

#include "engine/types.h"

namespace simjoin {

struct JoinWork {
  double left_points = 0.0;
  double right_points = 0.0;  // the left input again for a self-join
  std::size_t dim = 0;
  double candidates = 0.0;    // estimated distance evaluations
  int indexed_dims = 0;       // the grid's k; 0 = brute force (every pair a candidate)
  double pairs = 0.0;         // estimated result pairs (within eps)
  // Dimension terms a candidate's distance check reads on average (it stops once the partial
  // distance exceeds eps): between 1 and dim.
  double terms_per_candidate = 1.0;
};

// The work of run_join(left, right, spec) on the grid (brute force when eps is not finite or no
// dimension can be indexed), from samples of a few thousand points: cheap next to the join.
JoinWork estimate_join_work(const PointSet& left, const PointSet* right, const JoinSpec& spec);

}  // namespace simjoin
