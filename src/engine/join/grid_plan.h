// The eps-grid's shape, shared by the CPU grid join and the GPU backend (Gowanlock and Karsin, IPDPSW 2018 and DaMoN 2019):
// which dimensions are indexed, in what order, and the cell geometry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/types.h"

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
// (capped at dim); 0 chooses k from a sample (Gowanlock and Karsin, DaMoN 2019). Only points whose coordinates are all
// finite are considered; eps must be finite and >= 0. The pass over all points runs on up to
// `threads` threads (0: one per core).
GridPlan plan_grid(const PointSet& left, const PointSet* right, double eps, Metric metric,
                   int requested_k, int threads = 0);

// The largest k plan_grid chooses (without requested_k).
constexpr int kMaxChosenK = 6;

// The narrowest cell for eps: eps widened for rounding (see plan_grid's analysis), never below
// the smallest width the grid keeps.
double narrowest_cell_width(double eps);

// REORDER: the dimensions by decreasing variance (ties keep their order).
std::vector<int> dimensions_by_variance(const std::vector<double>& variance);

// The grid's work for one k, measured on samples of the inputs: the candidate pairs (points in
// adjacent cells of the first k indexed dimensions) and the probe side's distinct cells, both
// scaled to the full inputs, and their cost in units of one distance term:
//   cost(k) = candidates(k) * (1 + dim / 8) + probe_cells(k) * 3^k * (one stencil lookup)
struct GridWork {
  int k = 0;
  double candidates = 0.0;
  double probe_cells = 0.0;
  double cost = 0.0;
};

// Samples of the probe (left) and build (right, or left again) inputs: finite points only.
struct GridSamples {
  std::vector<const double*> probe, built;
  double probe_n = 0.0, build_n = 0.0;  // the full inputs' sizes
  std::size_t dim = 0;
  // A self-join: the samples come from one input, a point is a candidate for itself (counted
  // once per point, not sampled), and the join evaluates each other pair once.
  bool self = false;
};

// The work for k = 1..k_max (one entry each; empty without samples) of a grid with this cell
// width and per-dimension origin, indexing order[0..k_max-1]. plan_grid's choice of k and the
// device choice (engine/choice/work_estimate.h) both count with it; the sample pairs are counted on up to
// `threads` threads (the counts are whole numbers: the same sums in any order).
std::vector<GridWork> sampled_grid_work(const GridSamples& samples,
                                        const std::vector<double>& origin, double width,
                                        const std::vector<int>& order, int k_max, int threads);
// The entry of least cost (k = 1 with infinite cost when there is none).
GridWork cheapest_grid_work(const std::vector<GridWork>& work);

// The cell coordinate of value x in indexed dimension i of the plan. Use this one function (or
// its exact device twin) everywhere, so that the rounding analysis of plan_grid holds.
inline std::int64_t grid_cell(const GridPlan& plan, int i, double x) {
  return static_cast<std::int64_t>((x - plan.origin[i]) / plan.cell_width);
}

}  // namespace simjoin
