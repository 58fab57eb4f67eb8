// DBSCAN on a grid for low dimensions, exact: the algorithm of Gan and Tao ("DBSCAN Revisited:
// Mis-Claim, Un-Fixability, and Approximation", SIGMOD 2015; in 2-D also Gunawan, "A Faster
// Algorithm for DBSCAN", 2013), with run_dbscan's semantics and results field by field
// (engine/aggregates/dbscan.h): the same pairs within eps (decided as run_join decides them), core, border and
// noise points, clusters and their numbering.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/types.h"

namespace simjoin {

// Cells of side about eps / sqrt(d) (Euclidean; eps / d Manhattan, eps Chebyshev), so that all
// points of a cell are usually within eps of each other (engine/aggregates/dbscan_grid_cells.h proves when):
//   - core: a cell holding >= min_points points is all core; other points count their
//     neighbours in the neighbouring cells, stopping at min_points;
//   - clusters: union-find over the cells with core points; two such neighbouring cells are
//     linked at the first core pair found within eps;
//   - border: a non-core point joins the cluster of its smallest-index core neighbour.
// No pair is stored or streamed: O(n) memory. The phases run on spec.threads workers over
// chunks of cells; the calling thread polls keep_going.

// run_dbscan(points, spec, min_points, keep_going) on the CPU grid, or nothing when the grid
// does not apply (see build_grid_cells: dimension 1 to 3, not cosine, eps finite and > 0, the
// cells countable) or, with only_where_faster, would be slower than the pair-based path (3-D
// with sparse cells: up to 125 neighbouring cells each). Stopped by keep_going:
// counting.stopped or linking.stopped, as run_dbscan. `progress`: the candidates of the finished
// units over all phases, whenever keep_going is polled.
std::optional<DbscanResult> run_dbscan_grid(const PointSet& points, const JoinSpec& spec,
                                            std::uint64_t min_points,
                                            const KeepGoing& keep_going = {},
                                            bool only_where_faster = true,
                                            const Progress& progress = {});

}  // namespace simjoin
