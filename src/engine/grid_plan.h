// The eps-grid's shape, shared by the CPU grid join and the GPU backend (seeds 002 and 004):
// which dimensions are indexed, in what order, and the cell geometry.
#pragma once

#include <cstdint>
#include <vector>

#include "types.h"

namespace simjoin {

struct GridPlan {
  // All dimensions by decreasing variance (REORDER, measured on a sample of both inputs).
  std::vector<int> order;
  // The k indexed dimensions: order[0..k-1]. order[k] (when k < dim) is the un-indexed dimension
  // that SORTIDU sorts each cell's points on.
  int k = 0;
  // Side of a cell, >= eps and widened for rounding so that two points within eps (by the exact
  // contract of distance.h) always fall in the same or adjacent cells of every indexed dimension.
  double cell_width = 0.0;
  // Per indexed dimension i (i < k): the lower bound of the grid (min over both inputs' finite
  // values of dimension order[i]) and the number of cells; cell = floor((x - origin) / cell_width)
  // computed exactly as grid_cell() does.
  std::vector<double> origin;
  std::vector<std::int64_t> cells;
};

// Chooses the plan for joining left with right (nullptr: self-join). requested_k > 0 forces k
// (capped at dim); 0 chooses k from a sample (seed 004). Only points whose coordinates are all
// finite are considered; eps must be finite and >= 0. The pass over all points runs on up to
// `threads` threads (0: one per core).
GridPlan plan_grid(const PointSet& left, const PointSet* right, double eps, Metric metric,
                   int requested_k, int threads = 0);

// The cell coordinate of value x in indexed dimension i of the plan. Use this one function (or
// its exact device twin) everywhere, so that the rounding analysis of plan_grid holds.
inline std::int64_t grid_cell(const GridPlan& plan, int i, double x) {
  return static_cast<std::int64_t>((x - plan.origin[i]) / plan.cell_width);
}

}  // namespace simjoin
