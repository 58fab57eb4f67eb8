// The cells of the grid DBSCAN (engine/aggregates/dbscan_grid.h): points sorted by cell, each cell's bounding box
// and whether every pair inside it is certainly within eps, and the walk over a cell's
// neighbouring cells. Dimensions 1 to kGridDbscanMaxDim; metrics Euclidean, Manhattan, Chebyshev.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/aggregates/neighbour_stats.h"
#include "engine/bounded_distance.h"
#include "engine/types.h"

namespace simjoin {

// Exactness rests on one fact: the engine's computed distance (accumulate_distance, decided as
// within_bound against accumulated_bound) is monotone in each |a_j - b_j|: a difference of two
// doubles rounds monotonically, and so do its square, the sum of the terms, their maximum and the
// square root. Hence, for boxes of actual point coordinates:
//   - two points of a box [lo, hi] have a computed distance <= that of the box's corners lo, hi
//     (certain_within: the whole cell within eps, whatever the cell side's rounding);
//   - a point and a box have a computed distance >= that of their per-dimension gaps (gap_within
//     false: no point of the box matches) and <= that of the farthest corner (far_within true:
//     every point of the box matches).
// Cells only steer the work: every decision is one of these or the exact pair test.

constexpr std::size_t kGridDbscanMaxDim = 3;

struct GridCells {
  std::size_t dim = 0;
  Metric metric = Metric::Euclidean;
  double bound = 0.0;  // accumulated_bound(eps, metric)
  double side = 0.0;   // cell side
  double origin[kGridDbscanMaxDim] = {};
  std::int64_t extent[kGridDbscanMaxDim] = {};   // cells per dimension
  std::uint64_t stride[kGridDbscanMaxDim] = {};  // key = sum stride[j] * cell[j]; last stride 1
  // The finite points sorted by (cell key, index): original indexes and coordinates.
  std::vector<std::uint32_t> ids;
  std::vector<double> coords;
  // Non-empty cells by increasing key: sorted positions cell_begin[c] .. cell_begin[c + 1] - 1.
  std::vector<std::uint64_t> cell_key;
  std::vector<std::uint32_t> cell_begin;
  std::vector<double> lo, hi;          // per cell: the bounding box of its points (dim each)
  std::vector<std::uint8_t> certain;   // per cell: every pair in it is within eps
  std::vector<std::uint32_t> cell_of;  // per original point: its cell, or kNoCell (not finite)
  // The neighbour rows: offsets of the first dim - 1 cell coordinates, and for each the
  // half-width of the run of cells in the last dimension (a contiguous range of keys).
  std::vector<std::int64_t> row_offset;  // rows x (dim - 1)
  std::vector<std::int64_t> row_half_width;

  bool stopped = false;  // keep_going said false while building: the cells are incomplete

  static constexpr std::uint32_t kNoCell = 0xffffffffu;
  std::size_t cell_count() const { return cell_key.size(); }
  std::size_t rows() const { return row_half_width.size(); }
  const double* point(std::size_t sorted) const { return coords.data() + sorted * dim; }
};

// The cells of `points` for eps, or nothing when the grid does not apply: eps not finite and > 0,
// dim outside 1..kGridDbscanMaxDim, cosine, or more cells than the keys hold (tiny eps against
// the spread). `threads`: workers for the passes over the points; keep_going is polled between
// the passes (false: the cells come back incomplete, with `stopped`).
std::optional<GridCells> build_grid_cells(const PointSet& points, double eps, Metric metric,
                                          int threads, const KeepGoing& keep_going = {});

// The side of the cells for eps: the largest whose diagonal is eps, less a margin.
double grid_dbscan_cell_side(double eps, Metric metric, std::size_t dim);

// The box tests of the header comment, for metric M. `p`: a point; lo/hi: a box (dim each).
// Each accumulates per-dimension differences as within_bound does (against 0, which subtracts
// exactly), so the monotonicity argument applies term by term.
template <Metric M>
inline bool diffs_within(const double* diff, std::size_t dim, double bound) {
  static constexpr double kZero[kGridDbscanMaxDim] = {};
  double accumulated;
  return within_bound<M>(kZero, diff, dim, bound, &accumulated);
}
template <Metric M>
inline bool certain_within(const double* lo, const double* hi, std::size_t dim, double bound) {
  double accumulated;
  return within_bound<M>(lo, hi, dim, bound, &accumulated);
}
template <Metric M>
inline bool gap_within(const double* p, const double* lo, const double* hi, std::size_t dim,
                       double bound) {
  double gap[kGridDbscanMaxDim];
  for (std::size_t j = 0; j < dim; ++j) {
    gap[j] = p[j] < lo[j] ? lo[j] - p[j] : (p[j] > hi[j] ? p[j] - hi[j] : 0.0);
  }
  return diffs_within<M>(gap, dim, bound);
}
template <Metric M>
inline bool far_within(const double* p, const double* lo, const double* hi, std::size_t dim,
                       double bound) {
  double far[kGridDbscanMaxDim];
  for (std::size_t j = 0; j < dim; ++j) far[j] = std::max(p[j] - lo[j], hi[j] - p[j]);
  return diffs_within<M>(far, dim, bound);
}
// Whether some point of box a may be within eps of some point of box b.
template <Metric M>
inline bool boxes_may_touch(const double* lo_a, const double* hi_a, const double* lo_b,
                            const double* hi_b, std::size_t dim, double bound) {
  double gap[kGridDbscanMaxDim];
  for (std::size_t j = 0; j < dim; ++j) {
    gap[j] = std::max(0.0, std::max(lo_b[j] - hi_a[j], lo_a[j] - hi_b[j]));
  }
  return diffs_within<M>(gap, dim, bound);
}

// Lists the cells whose points may be within eps of a cell's (the cell itself included), in
// increasing key order per row. Cells must be visited in increasing order for the cursors to
// stay cheap (any order is correct).
class NeighbourCells {
 public:
  explicit NeighbourCells(const GridCells& cells) : cells_(cells), from_(cells.rows(), 0) {}
  void list(std::size_t cell, std::vector<std::uint32_t>& out);

 private:
  const GridCells& cells_;
  std::vector<std::size_t> from_;  // per row: no cell before it is wanted any more
};

}  // namespace simjoin
