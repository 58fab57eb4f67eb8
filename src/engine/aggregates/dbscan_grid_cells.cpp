#include "engine/aggregates/dbscan_grid_cells.h"

#include <cmath>
#include <limits>
#include <mutex>

#include "engine/distance.h"
#include "engine/join/finite_points.h"
#include "engine/parallel/radix_sort.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

// The cell side is the largest whose diagonal is eps, less this margin, so that the corners'
// computed distance (certain_within) stays <= eps despite the rounding of the cell coordinates
// and of the distance: a performance matter only, certain_within decides.
constexpr double kCellMargin = 0x1p-30;
// At most this many cells per dimension: a point's computed cell is then within 2^31 * 2^-52
// cells of its true position, far below the stencil's slack (kStencilSlack).
constexpr double kMaxCellsPerDim = 0x1p31;
constexpr std::uint64_t kMaxCells = std::uint64_t{1} << 62;
// The stencil keeps the cell offsets whose gap (in cells, less this slack for the rounding of
// the cell coordinates) may hold a pair within eps (in cells, plus this slack for the rounding
// of the computed distance).
constexpr double kStencilSlack = 1e-3;

// The norm of per-dimension gaps (in cells) under the metric.
double gap_norm(const double* gap, std::size_t dim, Metric metric) {
  double acc = 0.0;
  for (std::size_t j = 0; j < dim; ++j) {
    if (metric == Metric::Euclidean) acc += gap[j] * gap[j];
    else if (metric == Metric::Manhattan) acc += gap[j];
    else acc = std::max(acc, gap[j]);
  }
  return metric == Metric::Euclidean ? std::sqrt(acc) : acc;
}

// The rows of neighbouring cells: cell offsets o whose gap max(0, |o_j| - 1) may hold a pair
// within eps, grouped by their first dim - 1 offsets.
void plan_stencil(GridCells& g, double eps) {
  const std::size_t dim = g.dim;
  const double reach = eps / g.side * (1.0 + kStencilSlack);
  const auto gap = [](std::int64_t o) {
    return std::max(0.0, static_cast<double>(o < 0 ? -o : o) - 1.0 - kStencilSlack);
  };
  const std::int64_t r = static_cast<std::int64_t>(std::ceil(reach + 1.0 + kStencilSlack)) + 1;
  std::int64_t prefix[kGridDbscanMaxDim] = {};
  for (std::size_t j = 0; j + 1 < dim; ++j) prefix[j] = -r;
  for (;;) {
    double gaps[kGridDbscanMaxDim];
    for (std::size_t j = 0; j + 1 < dim; ++j) gaps[j] = gap(prefix[j]);
    std::int64_t width = -1;
    for (std::int64_t w = 0; w <= r; ++w) {
      gaps[dim - 1] = gap(w);
      if (gap_norm(gaps, dim, g.metric) <= reach) width = w;
    }
    if (width >= 0) {
      g.row_offset.insert(g.row_offset.end(), prefix, prefix + (dim - 1));
      g.row_half_width.push_back(width);
    }
    std::size_t j = 0;  // next prefix, odometer style
    while (j + 1 < dim && prefix[j] == r) prefix[j++] = -r;
    if (j + 1 >= dim) break;
    ++prefix[j];
  }
  // Nearest rows first: a point counting its neighbours reaches min_points sooner.
  const std::size_t rows = g.row_half_width.size(), width = dim - 1;
  std::vector<std::size_t> order(rows);
  std::vector<double> nearness(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    order[row] = row;
    double gaps[kGridDbscanMaxDim] = {};
    for (std::size_t j = 0; j < width; ++j) gaps[j] = std::fabs(static_cast<double>(g.row_offset[row * width + j]));
    nearness[row] = gap_norm(gaps, width, g.metric);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return nearness[a] < nearness[b]; });
  std::vector<std::int64_t> offsets, widths;
  for (std::size_t row : order) {
    offsets.insert(offsets.end(), g.row_offset.begin() + row * width,
                   g.row_offset.begin() + (row + 1) * width);
    widths.push_back(g.row_half_width[row]);
  }
  g.row_offset.swap(offsets);
  g.row_half_width.swap(widths);
}

// The per-dimension bounds of the finite points; false when there is none.
bool finite_bounds(const PointSet& points, int threads, double* lo, double* hi) {
  const std::size_t dim = points.dim;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::fill(lo, lo + dim, kInf);
  std::fill(hi, hi + dim, -kInf);
  std::mutex merge;
  parallel_for_ranges(points.n, threads, [&](std::size_t begin, std::size_t end) {
    double part_lo[kGridDbscanMaxDim], part_hi[kGridDbscanMaxDim];
    std::fill(part_lo, part_lo + dim, kInf);
    std::fill(part_hi, part_hi + dim, -kInf);
    for (std::size_t i = begin; i < end; ++i) {
      const double* p = points.point(i);
      if (!is_finite_point(p, dim)) continue;
      for (std::size_t j = 0; j < dim; ++j) {
        part_lo[j] = std::min(part_lo[j], p[j]);
        part_hi[j] = std::max(part_hi[j], p[j]);
      }
    }
    std::lock_guard<std::mutex> lock(merge);
    for (std::size_t j = 0; j < dim; ++j) {
      lo[j] = std::min(lo[j], part_lo[j]);
      hi[j] = std::max(hi[j], part_hi[j]);
    }
  });
  return lo[0] <= hi[0];
}

template <Metric M>
void fill_cell_boxes(GridCells& g, int threads) {
  const std::size_t dim = g.dim;
  g.lo.resize(g.cell_count() * dim);
  g.hi.resize(g.cell_count() * dim);
  g.certain.resize(g.cell_count());
  parallel_for_ranges(g.cell_count(), threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      double* lo = &g.lo[c * dim];
      double* hi = &g.hi[c * dim];
      std::copy(g.point(g.cell_begin[c]), g.point(g.cell_begin[c]) + dim, lo);
      std::copy(lo, lo + dim, hi);
      for (std::uint32_t s = g.cell_begin[c] + 1; s < g.cell_begin[c + 1]; ++s) {
        for (std::size_t j = 0; j < dim; ++j) {
          lo[j] = std::min(lo[j], g.point(s)[j]);
          hi[j] = std::max(hi[j], g.point(s)[j]);
        }
      }
      g.certain[c] = certain_within<M>(lo, hi, dim, g.bound);
      for (std::uint32_t s = g.cell_begin[c]; s < g.cell_begin[c + 1]; ++s) {
        g.cell_of[g.ids[s]] = static_cast<std::uint32_t>(c);
      }
    }
  });
}

}  // namespace

std::optional<GridCells> build_grid_cells(const PointSet& points, double eps, Metric metric,
                                          int threads, const KeepGoing& keep_going) {
  const std::size_t dim = points.dim, n = points.n;
  if (dim == 0 || dim > kGridDbscanMaxDim || metric == Metric::Cosine || !(eps > 0.0) ||
      !std::isfinite(eps)) {
    return std::nullopt;
  }
  GridCells g;
  g.dim = dim;
  g.metric = metric;
  g.bound = accumulated_bound(eps, metric);
  g.side = grid_dbscan_cell_side(eps, metric, dim);
  if (!(g.side > 0.0)) return std::nullopt;
  g.cell_of.assign(n, GridCells::kNoCell);
  g.cell_begin.push_back(0);
  double lo[kGridDbscanMaxDim], hi[kGridDbscanMaxDim];
  if (!finite_bounds(points, threads, lo, hi)) return g;  // no finite point: no cell

  std::uint64_t cells = 1;
  for (std::size_t j = 0; j < dim; ++j) {
    g.origin[j] = lo[j];
    const double top = (hi[j] - lo[j]) / g.side;  // the largest cell coordinate (monotone)
    if (!(top < kMaxCellsPerDim)) return std::nullopt;
    g.extent[j] = static_cast<std::int64_t>(top) + 1;
    if (cells > kMaxCells / static_cast<std::uint64_t>(g.extent[j])) return std::nullopt;
    cells *= static_cast<std::uint64_t>(g.extent[j]);
  }
  g.stride[dim - 1] = 1;
  for (std::size_t j = dim - 1; j > 0; --j) {
    g.stride[j - 1] = g.stride[j] * static_cast<std::uint64_t>(g.extent[j]);
  }

  // Cell keys of the finite points, in index order, then sorted stably by key.
  std::vector<std::uint64_t> key(n);
  constexpr std::uint64_t kNoKey = std::numeric_limits<std::uint64_t>::max();
  parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const double* p = points.point(i);
      if (!is_finite_point(p, dim)) {
        key[i] = kNoKey;
        continue;
      }
      std::uint64_t k = 0;
      for (std::size_t j = 0; j < dim; ++j) {
        k += g.stride[j] * static_cast<std::uint64_t>((p[j] - g.origin[j]) / g.side);
      }
      key[i] = k;
    }
  });
  const auto stop_here = [&] { return keep_going && !keep_going() && (g.stopped = true); };
  if (stop_here()) return g;
  std::size_t finite = 0;
  g.ids.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (key[i] == kNoKey) continue;
    key[finite] = key[i];
    g.ids[finite++] = static_cast<std::uint32_t>(i);
  }
  key.resize(finite);
  g.ids.resize(finite);
  sort_keys_with_ids(key, g.ids, bit_width(cells - 1), threads);
  if (stop_here()) return g;

  std::size_t distinct = finite > 0 ? 1 : 0;
  for (std::size_t s = 1; s < finite; ++s) distinct += key[s] != key[s - 1];
  g.cell_key.reserve(distinct);
  g.cell_begin.reserve(distinct + 1);
  for (std::size_t s = 0; s < finite; ++s) {
    if (s == 0 || key[s] != key[s - 1]) {
      if (s > 0) g.cell_begin.push_back(static_cast<std::uint32_t>(s));
      g.cell_key.push_back(key[s]);
    }
  }
  g.cell_begin.push_back(static_cast<std::uint32_t>(finite));
  g.coords.resize(finite * dim);
  parallel_for_ranges(finite, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t s = begin; s < end; ++s) {
      std::copy(points.point(g.ids[s]), points.point(g.ids[s]) + dim, &g.coords[s * dim]);
    }
  });
  if (stop_here()) return g;
  with_metric(metric, [&](auto tag) { fill_cell_boxes<decltype(tag)::value>(g, threads); });
  plan_stencil(g, eps);
  return g;
}

double grid_dbscan_cell_side(double eps, Metric metric, std::size_t dim) {
  const double base = metric == Metric::Euclidean   ? eps / std::sqrt(static_cast<double>(dim))
                      : metric == Metric::Manhattan ? eps / static_cast<double>(dim)
                                                    : eps;
  return base * (1.0 - kCellMargin);
}

void NeighbourCells::list(std::size_t cell, std::vector<std::uint32_t>& out) {
  const GridCells& g = cells_;
  const std::size_t dim = g.dim;
  const std::vector<std::uint64_t>& keys = g.cell_key;
  const std::size_t count = keys.size();
  std::int64_t coord[kGridDbscanMaxDim];
  for (std::size_t j = 0; j < dim; ++j) {
    coord[j] = static_cast<std::int64_t>((keys[cell] / g.stride[j]) %
                                         static_cast<std::uint64_t>(g.extent[j]));
  }
  out.clear();
  const std::int64_t last = coord[dim - 1], last_extent = g.extent[dim - 1];
  for (std::size_t r = 0; r < g.rows(); ++r) {
    std::uint64_t base = 0;
    bool inside = true;
    for (std::size_t j = 0; j + 1 < dim; ++j) {
      const std::int64_t c = coord[j] + g.row_offset[r * (dim - 1) + j];
      if (c < 0 || c >= g.extent[j]) inside = false;
      base += g.stride[j] * static_cast<std::uint64_t>(c);
    }
    if (!inside) continue;
    const std::int64_t w = g.row_half_width[r];
    const std::uint64_t first = base + static_cast<std::uint64_t>(std::max<std::int64_t>(0, last - w));
    const std::uint64_t final_key =
        base + static_cast<std::uint64_t>(std::min<std::int64_t>(last_extent - 1, last + w));
    // Advance this row's cursor to the first key >= first: galloping, then binary search.
    std::size_t& from = from_[r];
    if (from < count && keys[from] < first) {
      std::size_t step = 1, below = from;  // keys[below] < first
      while (below + step < count && keys[below + step] < first) {
        below += step;
        step *= 2;
      }
      const std::size_t limit = std::min(count, below + step + 1);
      from = static_cast<std::size_t>(
          std::lower_bound(keys.begin() + below + 1, keys.begin() + limit, first) - keys.begin());
    } else if (from > 0 && keys[from - 1] >= first) {  // visited out of order: search again
      from = static_cast<std::size_t>(
          std::lower_bound(keys.begin(), keys.begin() + from, first) - keys.begin());
    }
    for (std::size_t c = from; c < count && keys[c] <= final_key; ++c) {
      out.push_back(static_cast<std::uint32_t>(c));
    }
  }
}

}  // namespace simjoin
